"""The reproducibility report: every claim of the paper, our result and a verdict.

Each ``*_claims`` function turns the evidence a chapter computes (with the same fedlib
functions) into :class:`~fedlib.analysis.claims.Claim` objects; the report chapter gathers
them with those of the other analyses.

Where the paper is wrong, each claim says how badly (its
:data:`~fedlib.analysis.claims.SEVERITIES`): Theorem 4 is a false theorem, Case 3 of its proof
a proof error, the aggregation weight and Eq. (9) typos. :func:`tables12_claim` asks whether
Tables 1 and 2 can describe one run at all, under both readings of Table 1's "Reputation";
:func:`other_reading_claims` checks the claims about Tables 1-3 that the runs of another
reading (the model carried across tasks) can decide.

The places where the paper is silent or ambiguous, and what fedlib does there, are
:data:`fedlib.paper.readings.READINGS`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from fedlib.analysis import contribution_checks
from fedlib.analysis.claims import Claim, Severity
from fedlib.analysis.property_checks import THEOREM_INSTANCES, THEOREM_SEED, TRUTH_INSTANCES
from fedlib.analysis.reputation_paths import eq9_check
from fedlib.analysis.seed_statistics import SeedStatistic
from fedlib.analysis.selection_timing import ScalingResult, time_select
from fedlib.analysis.steady_state import BudgetWindow, budget_window, steady_state
from fedlib.analysis.sweep_results import FIGURES, PAPER_CLAIMS, SweepResult, medians_above
from fedlib.experiments.contribution import ContributionResult
from fedlib.experiments.multitask import MultiTaskResult
from fedlib.experiments.table_claims import number_claims, ours_claims, statement_claims
from fedlib.experiments.table_summaries import DATASET_LABELS, table1
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
from fedlib.paper import numbers as paper_numbers
from fedlib.paper.examples import CASE3, CASE3_LIE, THEOREM4, THEOREM4_LIE

#: Numbers of workers timed for Theorem 3.
SCALING_SIZES = (10_000, 100_000, 1_000_000)
#: Theorem 3 holds when the fitted exponent of selection time / log n against n lies within
#: this distance of 1 (n log n growth; quadratic growth gives about 2).
EXPONENT_TOLERANCE = 0.25
#: The local accuracy "reflects data quality" in a seed where its rank correlation with the
#: data accuracy exceeds this (Case 1, Figure 2).
LOCAL_ACC_MAX_RHO = 0.5
#: Case 2's comparisons (Figure 3) hold when the paired test over the seeds gives a one-sided
#: p-value below this.
SIGNIFICANCE = 0.05


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
    """Winners k at the true cost 8 and k' at the lower bid 2 in the proof's Case 3 example
    (:data:`fedlib.paper.examples.CASE3`): the proof claims that underbidding (b_i < c_i)
    leaves k' <= k."""
    at_cost = select(CASE3.bids, CASE3.Re, CASE3.budget).selected.sum()
    at_bid = select([CASE3_LIE, *CASE3.bids[1:]], CASE3.Re, CASE3.budget).selected.sum()
    return int(at_cost), int(at_bid)


def _unless_refuted(where: str, statement: str, finding: str, refuted: bool,
                    severity: Severity) -> Claim:
    """A claim that holds unless a counterexample or an identity refutes it, and then is
    wrong with ``severity``."""
    if refuted:
        return Claim(where, statement, finding, "the paper is wrong", severity)
    return Claim(where, statement, finding, "reproduced")


def complexity_claim(scaling: ScalingResult) -> Claim:
    """Theorem 3 (computational efficiency, O(n log n)) from timings of the selection.

    The rule: fit the exponent ``e`` of ``median time / log n`` against ``n`` (least-squares
    slope of its logarithm against log n); the claim holds when ``|e - 1| <=``
    :data:`EXPONENT_TOLERANCE` (n log n gives exactly 1; n^1.9 gives 1.9 - 1 / ln n, about 1.8
    over :data:`SCALING_SIZES`).
    """
    sizes = scaling.sizes
    exponent = float(np.polyfit(np.log(sizes), np.log(scaling.median / np.log(sizes)), 1)[0])
    return Claim.from_checks(
        "Theorem 3", "computational efficiency: the selection runs in O(n log n)",
        f"time / log n grows as n^{exponent:.2f} from n = {sizes[0]} to {sizes[-1]} "
        f"(n log n: 1; holds within {EXPONENT_TOLERANCE:g} of 1; quadratic: about 2)",
        [abs(exponent - 1) <= EXPONENT_TOLERANCE])


def theorem_claims(n_instances: int = THEOREM_INSTANCES,
                   truth_instances: int = TRUTH_INSTANCES,
                   seed: int = THEOREM_SEED) -> list[Claim]:
    """Theorems 1-4 on random instances drawn as chapter 5 draws them (``n_instances`` from
    ``numpy.random.default_rng(seed)``; Theorems 1 and 2 on all of them, Theorem 4 swept on the
    first ``truth_instances``), and the two counterexamples."""
    if not 0 < truth_instances <= n_instances:
        raise ValueError(f"truth_instances must lie in [1, n_instances = {n_instances}], got "
                         f"{truth_instances!r}")
    ours = MECHANISMS["ours"]
    instances = list(random_instances(np.random.default_rng(seed), n_instances))
    ir = individual_rationality(ours, instances)
    budget = budget_feasibility(ours, instances)
    honest = truthfulness(ours, instances[:truth_instances], workers="honest")
    scaling = time_select(SCALING_SIZES, 5, np.random.default_rng(seed))
    truthful_u, lie_u = _theorem4_counterexample()
    k, k_lie = _case3_counterexample()
    return [
        Claim.from_checks(
            "Theorem 1", "individual rationality of the honest workers",
            f"{ir.honest.violations} of {ir.honest.checks} honest winners paid below cost in "
            f"{n_instances} random instances ({ir.dishonest.violations} of "
            f"{ir.dishonest.checks} dishonest ones are)", [ir.honest.holds]),
        Claim.from_checks("Theorem 2", "budget feasibility",
                          f"{budget.violations} of {budget.checks} instances pay more than B",
                          [budget.holds]),
        complexity_claim(scaling),
        _unless_refuted(
            "Theorem 4", "truthfulness",
            f"false for dishonest workers (re < Re): in the counterexample a worker's utility "
            f"is {truthful_u:.3f} bidding its cost and {lie_u:.3f} bidding {THEOREM4_LIE:g}; "
            f"for honest workers {honest.violations} profitable lies in {honest.checks} checks "
            f"(the first {truth_instances} instances, swept bid by bid)",
            lie_u > truthful_u, "false theorem"),
        _unless_refuted(
            "Proof of Theorem 4, Case 3",
            "k' <= k when a worker lowers its bid below its cost (b_i < c_i)",
            f"B = 10, Re = (1, 1), other bid 1: k = {k} at cost {CASE3.bids[0]:g}, k' = "
            f"{k_lie} at the lower bid {CASE3_LIE:g}: underbidding adds a winner (the "
            "theorem's conclusion survives for honest workers)", k_lie > k,
            "proof error"),
    ]


def aggregation_claim(contrib: Sequence[float], quality: Sequence[float]) -> Claim:
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
    return _unless_refuted(
        "Aggregation weight omega (Section 4.2)",
        "omega combines the contribution score and the quality score",
        f"as printed omega = {np.round(printed, 3).tolist()}, the contribution share "
        f"{np.round(plain, 3).tolist()}: the quality score cancels; read with quality_score_j: "
        f"{np.round(corrected, 3).tolist()}", bool(np.allclose(printed, plain)), "typo")


def eq9_claim(Re_prev: float, re_i: float, re_j: float) -> Claim:
    """Eq. (9) as printed, ending with ``Re^tau`` (Section 4.2; the reading "Eq. (9)" of
    :data:`fedlib.paper.readings.READINGS`), on two workers with the same previous reputation
    ``Re_prev`` and internal reputations ``re_i``, ``re_j``
    (:func:`~fedlib.analysis.reputation_paths.eq9_check`, counters ignored as in the paper's
    derivation). A typo when the printed right-hand side misses the difference of the two
    updates of Eq. (13); the finding shows that ending with ``Re^(tau-1)`` gives it."""
    check = eq9_check(Re_prev, re_i, re_j)
    return _unless_refuted(
        "Eq. (9) (Section 4.2)",
        "Re_i - Re_j = (h_i re_i - h_j re_j) - (h_i - h_j) Re^tau for two workers with the "
        "same previous reputation",
        f"Re^(tau-1) = {Re_prev:g}, re = {re_i:g} and {re_j:g}: the two updates differ by "
        f"{check.direct:.4f}; Eq. (9) as printed gives {check.as_printed:.4f}, ending with "
        f"Re^(tau-1) {check.with_previous:.4f}",
        not bool(np.isclose(check.direct, check.as_printed)), "typo")


# ------------------------------------------------------------------ Figures 2-3, 4-5


def contribution_claims(result: ContributionResult) -> list[Claim]:
    """Figures 2-3 (Cases 1 and 2) from a contribution run with several seeds. The Case 1
    claims are checked per seed (reproduced in every seed, partly in some, not reproduced in
    none); the Case 2 comparisons by a paired sign-flip test over the seeds
    (:func:`~fedlib.analysis.contribution_checks.paired_sign_flip_p`), reproduced when
    its one-sided p-value is below :data:`SIGNIFICANCE`.

    "Local accuracy cannot reflect data quality" holds in a seed where its rank correlation
    with the data accuracy is at most :data:`LOCAL_ACC_MAX_RHO` (NaN, constant local accuracy,
    counts as blind).
    """
    records = result.records
    trend = {m: contribution_checks.case1_trend(records, m)
             for m in ("contribution", "benchmark", "local_acc")}
    falls = [bool(np.all(trend[m].rho > 0) and np.all(trend[m].gap > 0))
             for m in ("contribution", "benchmark")]
    z = {m: contribution_checks.case2_stand_out(records, m)
         for m in ("contribution", "benchmark", "local_acc")}

    def stands_out_more(other: str, name: str) -> Claim:
        d = z["contribution"] - z[other]
        p = contribution_checks.paired_sign_flip_p(d)
        return Claim.from_checks(
            "Figure 3 (Case 2)", f"ours highlights worker 0 (all labels) more than {name}",
            f"worker 0 stands out more under ours in {np.sum(d > 0)} of {d.size} seeds (mean "
            f"z: ours {z['contribution'].mean():.2f}, {name} {z[other].mean():.2f}); paired "
            f"sign-flip test p = {p:.2g} (the claim needs p < {SIGNIFICANCE:g})",
            [p < SIGNIFICANCE])

    acc = trend["local_acc"]
    blind = [not rho > LOCAL_ACC_MAX_RHO for rho in acc.rho]  # NaN: constant, blind
    return [
        Claim.from_checks(
            "Figure 2 (Case 1)", "contribution decreases as data accuracy decreases, in ours "
            "and in the equal-weight benchmark",
            f"rank correlation with dacc, min over {len(acc.seeds)} seeds: ours "
            f"{trend['contribution'].rho.min():.3f}, benchmark "
            f"{trend['benchmark'].rho.min():.3f}", falls),
        Claim.from_checks(
            "Figure 2 (Case 1)", "local accuracy is similar across workers and cannot "
            "reflect data quality",
            f"local accuracy varies less (relative gap {acc.relative_gap.mean():.3f} vs ours "
            f"{trend['contribution'].relative_gap.mean():.3f}); its rank correlation with dacc "
            f"is {acc.rho.mean():.3f} on average and at most {LOCAL_ACC_MAX_RHO:g} (too weak to "
            f"rank data quality) in {sum(blind)} of {len(blind)} seeds", blind),
        stands_out_more("benchmark", "the benchmark"),
        stands_out_more("local_acc", "local accuracy"),
    ]


def auction_claims(sweeps: Sequence[SweepResult]) -> list[Claim]:
    """The paper's comparisons of Figures 4-5 (:data:`~fedlib.experiments.auction_sweeps.
    PAPER_CLAIMS`), each checked on every sweep (the default reading of the metric); a claim
    is reproduced when it holds at every point of every sweep, partly when at some."""
    claims = []
    for statement, better, worse in PAPER_CLAIMS:
        above = [medians_above(sweep, better, worse) for sweep in sweeps]
        text = ", ".join(f"{FIGURES[sweep.sweep]}: {np.mean(a):.0%} of points"
                         for sweep, a in zip(sweeps, above, strict=True))
        claims.append(Claim.from_checks(
            "Figures 4-5", statement, f"median higher at {text}"
            + ("" if all(np.all(a) for a in above) else " (see the chapter)"),
            list(np.concatenate(above))))
    return claims


# ----------------------------------------------------------------------- Tables 1-3


def table_claims(runs: Mapping[tuple[str, str], Sequence[MultiTaskResult]]) -> list[Claim]:
    """Section 6's statements about Tables 1-3 and every printed cell of Tables 2-3, one claim
    per dataset, judged on the runs of every seed (``runs``: (dataset, mechanism) to one run
    per seed; :func:`~fedlib.experiments.table_claims.statement_claims` and
    :func:`~fedlib.experiments.table_claims.number_claims`)."""
    return statement_claims(runs) + number_claims(runs)


def other_reading_claims(runs: Mapping[tuple[str, str], Sequence[MultiTaskResult]]
                         ) -> list[Claim]:
    """The claims of :func:`table_claims` that ``runs`` (keyed by (dataset, mechanism), one run
    per seed, some mechanisms only, e.g. the runs with the model carried across tasks) can
    decide: per dataset, ours' own (:func:`~fedlib.experiments.table_claims.ours_claims`, when
    ours is among them) and the cells of Tables 2-3 of the mechanisms present. The comparisons
    of mechanisms need every mechanism and are left out. ``where`` and ``statement`` match the
    claims of :func:`table_claims` (for :func:`~fedlib.analysis.claims.pair_readings`)."""
    claims = []
    for dataset in dict.fromkeys(d for d, _ in runs):
        if (dataset, "ours") in runs:
            claims += ours_claims(runs[dataset, "ours"], DATASET_LABELS.get(dataset, dataset))
    return claims + number_claims(runs)


# ------------------------------------------------- Tables 1 and 2 together


def losers_reputations(run: MultiTaskResult) -> dict[float, float]:
    """The reputations of the steady state if Table 1 reports the winners' internal ``re``
    (the reading that leaves the losers' reputations unreported): the clean workers at the
    paper's Table 1 value (a worker that wins every task ends near its ``re``), the others at
    the mean ``Re`` our ``run`` leaves their group with after its last task."""
    dataset = run.config.dataset
    ours = table1(run)
    return {dacc: (paper_numbers.TABLE1[dataset]["reputation"][dacc] if dacc == 1.0
                   else ours[dacc]["reputation"]) for dacc in paper_numbers.TABLE1_DACCS}


def tables12_windows(reputations: Mapping[str, Mapping[float, float]],
                     budgets: Sequence[float], *, trials: int, n_evaluated: int,
                     plausible: float, seed: int) -> dict[str, BudgetWindow]:
    """Per dataset, the budget that pays a clean winner Table 1's payment and the budgets at
    which Table 2's share stays plausible, with every worker at its group's reputation in
    ``reputations`` (dataset to dacc to ``Re``): the auction played ``trials`` times per budget
    (:func:`~fedlib.analysis.steady_state.steady_state`,
    :func:`~fedlib.analysis.steady_state.budget_window`), as the chapter on the federated
    experiments does."""
    return {dataset: budget_window(
                steady_state(Re, budgets, trials=trials, n_evaluated=n_evaluated, seed=seed),
                paper_numbers.TABLE1[dataset]["payment"][1.0], plausible)
            for dataset, Re in reputations.items()}


def _window_text(window: BudgetWindow) -> str:
    share = (f"B <= {window.share_budget:.0f}" if np.isfinite(window.share_budget)
             else "no budget")
    return f"payment needs B = {window.payment_budget:.0f}, share {share}"


def tables12_claims(accumulated: Mapping[str, BudgetWindow],
                    internal: Mapping[str, tuple[Sequence[int], Sequence[BudgetWindow]]]
                    ) -> list[Claim]:
    """Whether one budget gives both Table 1's payment of a clean winner and Table 2's share
    1.000 of ours (bids redrawn every task): one claim per reading of Table 1's "Reputation"
    and dataset (windows of :func:`tables12_windows`), of kind ``"reading"``: the paper does
    not claim its tables consistent, the book asks whether they are.

    Parameters
    ----------
    accumulated : mapping
        Dataset to the window with the workers at the paper's Table 1 values read as
        accumulated ``Re`` (fedlib's reading; the paper's numbers alone, no seed involved).
    internal : mapping
        Dataset to its seeds and one window per seed, the losers at that seed's
        :func:`losers_reputations` (Table 1 read as the winners' ``re``; only the datasets
        where our runs say something about the losers). Judged on the seeds
        (:meth:`~fedlib.analysis.claims.Claim.over_seeds`, the statistic being the widest
        budget that keeps Table 2's share plausible).
    """
    statement = ("Tables 1 and 2 describe one run: one budget gives Table 1's payment and "
                 "Table 2's share of ours")
    claims = [Claim.from_checks(
        f"Tables 1-2, {DATASET_LABELS.get(d, d)}, Table 1 read as accumulated Re", statement,
        _window_text(window), [window.compatible]) for d, window in accumulated.items()]
    for d, (seeds, windows) in internal.items():
        widest = SeedStatistic.of(seeds, [w.share_budget if np.isfinite(w.share_budget)
                                          else 0.0 for w in windows])
        claims.append(Claim.over_seeds(
            f"Tables 1-2, {DATASET_LABELS.get(d, d)}, Table 1 read as the winners' re",
            statement, f"losers at each seed's final Re: {_window_text(windows[0])} in seed "
            f"{seeds[0]}; widest plausible budget {widest.describe(0)}", widest,
            [w.compatible for w in windows]))
    return [replace(claim, kind="reading") for claim in claims]
