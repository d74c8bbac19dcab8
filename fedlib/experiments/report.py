"""The reproducibility report: every claim of the paper, our result and a verdict.

Each ``*_findings`` function turns the evidence a chapter computes (with the same fedlib
functions) into :class:`Finding` rows; the report chapter gathers them. A verdict is one of
:data:`VERDICTS`:

* ``"reproduced"``: our computation supports the claim everywhere it was checked;
* ``"partly"``: it holds in some settings, seeds or datasets and not in others;
* ``"not reproduced"``: our computation does not support it;
* ``"the paper is wrong"``: a counterexample or an algebraic identity refutes it.

The places where the paper is silent or ambiguous, and what fedlib does there, are
:data:`fedlib.paper.readings.READINGS`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from fedlib.experiments import contribution_checks, multitask
from fedlib.experiments.auction_sweeps import SweepResult, check_claims
from fedlib.experiments.contribution import ContributionResult
from fedlib.experiments.federated import paper_claims
from fedlib.experiments.multitask import MultiTaskResult
from fedlib.experiments.selection_timing import time_select
from fedlib.mechanism import (
    MECHANISMS,
    Instance,
    aggregation_weights,
    budget_feasibility,
    individual_rationality,
    outcome,
    random_instances,
    select,
    truthfulness,
)
from fedlib.paper.examples import CASE3, CASE3_LIE, THEOREM4, THEOREM4_LIE
from fedlib.paper.numbers import TABLE2, TABLE3

#: The verdicts, from best to worst for the paper.
VERDICTS = ("reproduced", "partly", "not reproduced", "the paper is wrong")
#: Numbers of workers timed for Theorem 3.
SCALING_SIZES = (10_000, 100_000, 1_000_000)


@dataclass(frozen=True)
class Finding:
    """One claim of the paper and what we found.

    Attributes
    ----------
    where : str
        Where the paper makes the claim (theorem, figure, table, equation).
    claim : str
        The claim, in the paper's words or close to them.
    ours : str
        Our result, with the numbers behind the verdict.
    verdict : str
        One of :data:`VERDICTS`.
    chapter : str
        The chapter with the evidence (its file name without extension).
    """

    where: str
    claim: str
    ours: str
    verdict: str
    chapter: str

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")


def share_verdict(holds: Sequence[bool]) -> str:
    """``"reproduced"`` if every check holds, ``"not reproduced"`` if none, else ``"partly"``.

    Raises
    ------
    ValueError
        If there is no check.
    """
    if len(holds) == 0:
        raise ValueError("a verdict needs at least one check")
    if all(holds):
        return "reproduced"
    return "partly" if any(holds) else "not reproduced"


# ------------------------------------------------------------------------ the theorems


def _theorem4_counterexample() -> tuple[float, float]:
    """Worker 0's utility of Theorem 4's counterexample bidding its cost, and lying."""
    ours = MECHANISMS["ours"]
    counterexample = Instance(*THEOREM4)
    utilities = []
    for bid in (counterexample.costs[0], THEOREM4_LIE):
        allocation, payments = outcome(ours, counterexample,
                                       np.array([bid, *counterexample.bids[1:]]))
        won = bool(allocation.selected[0])
        utilities.append(float(payments[0] - counterexample.costs[0]) if won else 0.0)
    return utilities[0], utilities[1]


def _case3_counterexample() -> tuple[int, int]:
    """Winners k at the true cost 8 and k' at the bid 2 in the proof's Case 3 example
    (:data:`fedlib.paper.examples.CASE3`): the proof claims k' <= k."""
    at_cost = select(CASE3.bids, CASE3.Re, CASE3.budget).selected.sum()
    at_bid = select([CASE3_LIE, *CASE3.bids[1:]], CASE3.Re, CASE3.budget).selected.sum()
    return int(at_cost), int(at_bid)


def theorem_findings(n_instances: int, seed: int) -> list[Finding]:
    """Theorems 1-4 on ``n_instances`` random instances, and the two counterexamples."""
    ours = MECHANISMS["ours"]

    def instances() -> list[Instance]:
        return list(random_instances(np.random.default_rng(seed), n_instances))

    ir = individual_rationality(ours, instances())
    budget = budget_feasibility(ours, instances())
    honest = truthfulness(ours, instances(), workers="honest")
    slope = time_select(SCALING_SIZES, 5, np.random.default_rng(seed)).slope()
    truthful_u, lie_u = _theorem4_counterexample()
    k, k_lie = _case3_counterexample()
    return [
        Finding("Theorem 1", "individual rationality of the honest workers",
                f"{ir.honest.violations} of {ir.honest.checks} honest winners paid below "
                f"cost in {n_instances} random instances ({ir.dishonest.violations} of "
                f"{ir.dishonest.checks} dishonest ones are)",
                "reproduced" if ir.honest.holds else "not reproduced", "04_proofs"),
        Finding("Theorem 2", "budget feasibility",
                f"{budget.violations} of {budget.checks} instances pay more than B",
                "reproduced" if budget.holds else "not reproduced", "04_proofs"),
        Finding("Theorem 3", "computational efficiency (polynomial time)",
                f"time grows as n^{slope:.2f} from n = {SCALING_SIZES[0]} to "
                f"{SCALING_SIZES[-1]} (n log n: slightly above 1; quadratic: 2)",
                "reproduced" if slope < 2 else "not reproduced", "04_proofs"),
        Finding("Theorem 4", "truthfulness",
                f"false for dishonest workers (re < Re): in the counterexample a worker's "
                f"utility is {truthful_u:.3f} bidding its cost and {lie_u:.3f} bidding "
                f"{THEOREM4_LIE:g}; for honest workers {honest.violations} profitable lies "
                f"in {honest.checks} checks",
                "the paper is wrong" if lie_u > truthful_u else "reproduced", "04_proofs"),
        Finding("Proof of Theorem 4, Case 3", "k' <= k when a worker raises its bid",
                f"B = 10, Re = (1, 1), other bid 1: k = {k} at cost 8, k' = {k_lie} at bid 2 "
                "(the theorem's conclusion survives for honest workers)",
                "the paper is wrong" if k_lie > k else "reproduced", "04_proofs"),
    ]


def aggregation_finding(contrib: Sequence[float], quality: Sequence[float]) -> Finding:
    """The aggregation weight as printed: its quality score cancels (Section 4.2; the reading
    "Aggregation weight omega" of :data:`fedlib.paper.readings.READINGS`).

    ``contrib`` and ``quality`` are any contribution scores and leave-one-out loss changes of
    passing workers; the printed and the corrected denominators are compared.
    """
    contrib_arr, delta_l = np.asarray(contrib, float), np.asarray(quality, float)
    passed = np.ones(contrib_arr.size, bool)
    printed = aggregation_weights(contrib_arr, delta_l, passed, denominator="printed")
    corrected = aggregation_weights(contrib_arr, delta_l, passed, denominator="corrected")
    plain = contrib_arr / contrib_arr.sum()
    cancels = bool(np.allclose(printed, plain))
    return Finding("Aggregation weight omega (Section 4.2)",
                   "omega combines the contribution score and the quality score",
                   f"as printed omega = {np.round(printed, 3).tolist()}, the contribution "
                   f"share {np.round(plain, 3).tolist()}: the quality score cancels; read with "
                   f"quality_score_j: {np.round(corrected, 3).tolist()}",
                   "the paper is wrong" if cancels else "reproduced", "02_reputation")


# ------------------------------------------------------------------ Figures 2-3, 4-5


def contribution_findings(result: ContributionResult) -> list[Finding]:
    """Figures 2-3 (Cases 1 and 2) from a contribution run with several seeds."""
    records = result.records
    trend = {m: contribution_checks.case1_trend(records, m)
             for m in ("contribution", "benchmark", "local_acc")}
    falls = [bool(np.all(trend[m].rho > 0) and np.all(trend[m].gap > 0))
             for m in ("contribution", "benchmark")]
    z = {m: contribution_checks.case2_stand_out(records, m)
         for m in ("contribution", "benchmark", "local_acc")}
    over_bench = z["contribution"] > z["benchmark"]
    over_acc = z["contribution"] > z["local_acc"]
    acc = trend["local_acc"]
    return [
        Finding("Figure 2 (Case 1)", "contribution decreases as data accuracy decreases, in "
                "ours and in the equal-weight benchmark",
                f"rank correlation with dacc, min over {len(acc.seeds)} seeds: ours "
                f"{trend['contribution'].rho.min():.3f}, benchmark "
                f"{trend['benchmark'].rho.min():.3f}", share_verdict(falls),
                "01_contribution"),
        Finding("Figure 2 (Case 1)", "local accuracy is similar across workers and cannot "
                "reflect data quality",
                f"local accuracy varies less (relative gap {acc.relative_gap.mean():.3f} vs "
                f"ours {trend['contribution'].relative_gap.mean():.3f}) but still falls with "
                f"dacc (rank correlation {acc.rho.mean():.3f})",
                "partly" if acc.rho.mean() > 0 else "reproduced", "01_contribution"),
        Finding("Figure 3 (Case 2)", "ours highlights worker 0 (all labels) more than the "
                "benchmark",
                f"worker 0 stands out more under ours in {over_bench.sum()} of "
                f"{over_bench.size} seeds (mean z: ours {z['contribution'].mean():.2f}, "
                f"benchmark {z['benchmark'].mean():.2f})", share_verdict(list(over_bench)),
                "01_contribution"),
        Finding("Figure 3 (Case 2)", "ours highlights worker 0 more than local accuracy",
                f"in {over_acc.sum()} of {over_acc.size} seeds (mean z: ours "
                f"{z['contribution'].mean():.2f}, local accuracy {z['local_acc'].mean():.2f})",
                share_verdict(list(over_acc)), "01_contribution"),
    ]


_SWEEP_VERDICT = {"supported": "reproduced", "partly": "partly",
                  "not supported": "not reproduced"}


def auction_findings(sweeps: Sequence[SweepResult]) -> list[Finding]:
    """The paper's comparisons of Figures 4-5, each checked on every sweep (the default
    reading of the metric); a claim is reproduced when it holds at every point of every sweep.
    """
    checks = [check_claims(sweep) for sweep in sweeps]
    findings = []
    for per_claim in zip(*checks, strict=True):
        shares = [c.median_share for c in per_claim]
        text = ", ".join(f"Figure {4 if c.sweep == 'budget' else 5}: {c.median_share:.0%} of "
                         "points" for c in per_claim)
        verdicts = [_SWEEP_VERDICT[c.verdict] for c in per_claim]
        verdict = verdicts[0] if len(set(verdicts)) == 1 else "partly"
        findings.append(Finding("Figures 4-5", per_claim[0].claim, f"median higher at {text}"
                                + ("" if min(shares) == 1 else " (see the chapter)"),
                                verdict, "05_mechanisms"))
    return findings


# ----------------------------------------------------------------------- Tables 1-3


def table_findings(runs: Mapping[tuple[str, str], MultiTaskResult]) -> list[Finding]:
    """Section 6's statements about Tables 1-3 and the tables' headline numbers, per dataset."""
    findings = [Finding(f"Table {c.table}", c.text,
                        "; ".join(f"{d}: {c.detail[d]}" for d in c.holds),
                        share_verdict(list(c.holds.values())), "06_federated")
                for c in paper_claims(runs)]
    datasets = list(dict.fromkeys(d for d, _ in runs))
    for table, paper, ours, fmt in (
            ("Table 2", TABLE2, multitask.table2, "share of dacc 1.0 winners"),
            ("Table 3", TABLE3, multitask.table3, "average loss of the global model")):
        close = {d: abs(ours(runs[d, "ours"]) - paper["ours"][d])
                 <= 0.05 * abs(paper["ours"][d]) for d in datasets}
        findings.append(Finding(
            table, f"ours: {fmt} (the paper's number)",
            "; ".join(f"{d}: ours {ours(runs[d, 'ours']):.4f}, paper {paper['ours'][d]:.4f}"
                      for d in datasets),
            share_verdict(list(close.values())), "06_federated"))
    return findings


def verdict_counts(findings: Sequence[Finding]) -> dict[str, int]:
    """How many findings got each verdict (every verdict present, possibly 0)."""
    return {v: sum(f.verdict == v for f in findings) for v in VERDICTS}
