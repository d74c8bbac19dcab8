"""The paper's claims about Tables 1-3 (its Section 6), checked on the multi-task runs.

Two kinds of claim, each made once per dataset (``where`` is ``"Table 2, MNIST"`` and so on),
so that a verdict never merges two datasets:

* :func:`statement_claims`: the conclusions the paper draws from its tables (higher data
  accuracy, higher contribution; ours hires only clean workers; ours gives the smallest loss);
* :func:`number_claims`: every row of Tables 2 and 3, benchmarks included, against the paper's
  number, reproduced when ours lies within :data:`STANDARD_ERRORS` standard errors of the
  run's own per-task values (:func:`tolerance`).

The runs are keyed by (dataset, mechanism) (see :mod:`fedlib.experiments.federated`); the
paper's numbers come from :mod:`fedlib.paper.numbers`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from fedlib.analysis.claims import Claim
from fedlib.experiments.federated import (
    DATASET_LABELS,
    table1,
    table2,
    table3,
    task_losses,
    task_shares,
)
from fedlib.experiments.multitask import MultiTaskResult
from fedlib.mechanism.mechanisms import MECHANISMS
from fedlib.paper import numbers as paper_numbers

Runs = Mapping[tuple[str, str], MultiTaskResult]

#: Width of the tolerance of :func:`number_claims`, in standard errors of the per-task values.
STANDARD_ERRORS = 2.0
#: Mechanisms that select ours' winners by construction (Algorithm 1, other payments only):
#: left out of "ours gives the smallest loss", where they could only tie with ours.
SAME_SELECTION_AS_OURS = ("rrafl",)


def tolerance(values: Sequence[float]) -> float:
    """:data:`STANDARD_ERRORS` standard errors of the mean of ``values`` (sample standard
    deviation over sqrt of their number); NaN for fewer than two values.

    Examples
    --------
    >>> tolerance([1.0, 1.0, 1.0]), round(tolerance([0.0, 1.0, 0.0, 1.0]), 4)
    (0.0, 0.5774)
    """
    arr = np.asarray(values, dtype=float)
    if arr.size < 2:
        return float("nan")
    return float(STANDARD_ERRORS * arr.std(ddof=1) / np.sqrt(arr.size))


def _datasets_and_mechanisms(runs: Runs) -> tuple[list[str], list[str]]:
    return list(dict.fromkeys(d for d, _ in runs)), list(dict.fromkeys(m for _, m in runs))


def _increasing(values: Sequence[float]) -> bool:
    return bool(np.all(np.diff(np.asarray(values, float)) > 0))


def _listed(values: Mapping[str, float], digits: int) -> str:
    return ", ".join(f"{MECHANISMS[m].label} {v:.{digits}f}" for m, v in values.items())


def ours_claims(run: MultiTaskResult, where: str) -> list[Claim]:
    """The conclusions the paper draws from one run of ours alone, made at ``where`` (e.g.
    ``"Fashion-MNIST"``): Table 1's three orderings (higher data accuracy, higher
    contributions, reputations and rewards) and Table 2's "ours selects only workers with data
    accuracy 1.0 in the last 45 tasks".

    Table 1's payment of a group that never won counts as 0 (the paper prints 0).
    """
    daccs = sorted(paper_numbers.TABLE1_DACCS)
    t1 = table1(run)
    claims = []
    for quantity, word in (("contribution", "contributions"),
                           ("reputation", "reputations"), ("payment", "rewards")):
        values = [t1[d][quantity] for d in daccs]
        values = [0.0 if quantity == "payment" and not np.isfinite(v) else v for v in values]
        claims.append(Claim.from_checks(
            f"Table 1, {where}", f"workers with higher data accuracy obtain higher {word} "
            "(dacc 0.1 < 0.4 < 0.7 < 1.0)", ", ".join(f"{v:.3f}" for v in values),
            [_increasing(values)]))
    share = table2(run)
    claims.append(Claim.from_checks(
        f"Table 2, {where}", "ours selects only workers with data accuracy 1.0 in the last "
        "45 tasks", f"share {share:.4f}", [share == 1.0]))
    return claims


def statement_claims(runs: Runs) -> list[Claim]:
    """Section 6's conclusions from Tables 1-3, each checked on every dataset of ``runs``
    (keyed by (dataset, mechanism); needs ours and, for the comparisons, the other
    mechanisms), one claim per statement and dataset: :func:`ours_claims`, then the
    comparisons of mechanisms.

    "Ours gives the smallest loss" is compared with the mechanisms whose selection differs
    from ours, not with :data:`SAME_SELECTION_AS_OURS` (their loss is ours by construction).
    """
    datasets, mechanisms = _datasets_and_mechanisms(runs)
    others = [m for m in mechanisms if m not in ("ours", *SAME_SELECTION_AS_OURS)]
    poor = [m for m in ("vanilla", "bid_greedy") if m in mechanisms]
    claims = []
    for dataset in datasets:
        label = DATASET_LABELS.get(dataset, dataset)
        claims += ours_claims(runs[dataset, "ours"], label)
        shares = {m: table2(runs[dataset, m]) for m in mechanisms}
        losses = {m: table3(runs[dataset, m]) for m in mechanisms}
        claims.append(Claim.from_checks(
            f"Table 2, {label}", "ours and RRAFL select a larger share of dacc 1.0 workers than "
            "the other mechanisms", _listed(shares, 3),
            [all(min(shares["ours"], shares["rrafl"]) > shares[m] for m in others)]))
        left_out = ", ".join(MECHANISMS[m].label for m in SAME_SELECTION_AS_OURS
                             if m in mechanisms)
        claims.append(Claim.from_checks(
            f"Table 3, {label}", "ours gives the smallest average loss of the global model",
            _listed({m: losses[m] for m in ["ours", *others]}, 4)
            + (f" ({left_out} left out: it selects ours' winners by construction and differs "
               "only in payments, so its loss is ours')" if left_out else ""),
            [all(losses["ours"] < losses[m] for m in others)]))
        claims.append(Claim.from_checks(
            f"Table 3, {label}", "ours gives a lower loss than Vanilla FL and Bid Greedy",
            _listed({m: losses[m] for m in ["ours", *poor]}, 4),
            [all(losses["ours"] < losses[m] for m in poor)]))
    return claims


#: Per table: its paper numbers, the statistic, the per-task values behind its spread, and
#: what the number and the per-task values are.
_TABLES: tuple[tuple[str, Mapping, Callable[[MultiTaskResult], float],
                     Callable[[MultiTaskResult], np.ndarray], str, str], ...] = (
    ("Table 2", paper_numbers.TABLE2, table2, task_shares, "share of dacc 1.0 winners",
     "share of dacc 1.0 winners"),
    ("Table 3", paper_numbers.TABLE3, table3, task_losses, "average loss of the global model",
     "final test loss"),
)


def number_claims(runs: Runs) -> list[Claim]:
    """Every row of Tables 2 and 3 (every mechanism of ``runs``) against the paper's number,
    one claim per table, mechanism and dataset.

    The rule: a row is reproduced when ``|ours - paper| <= tolerance`` (ours: our number for
    that mechanism), the tolerance being
    :data:`STANDARD_ERRORS` standard errors of the run's per-task values over its evaluated
    tasks with winners (:func:`tolerance`): for Table 2 each task's share of dacc 1.0 among its
    winners (:func:`~fedlib.experiments.federated.task_shares`), for Table 3 each task's final
    test loss (:func:`~fedlib.experiments.federated.task_losses`). The finding states ours,
    the paper's number and the tolerance.
    """
    datasets, mechanisms = _datasets_and_mechanisms(runs)
    claims = []
    for table, paper, statistic, per_task, what, per_task_what in _TABLES:
        for dataset in datasets:
            for mechanism in mechanisms:
                run = runs[dataset, mechanism]
                ours, theirs, values = statistic(run), paper[mechanism][dataset], per_task(run)
                tol = tolerance(values)
                claims.append(Claim.from_checks(
                    f"{table}, {DATASET_LABELS.get(dataset, dataset)}",
                    f"{MECHANISMS[mechanism].label}: {what} = {theirs:.4f}",
                    f"we find {ours:.4f}, paper {theirs:.4f}, difference {ours - theirs:+.4f}; "
                    f"tolerance {tol:.4f} ({STANDARD_ERRORS:g} standard errors of the per-task "
                    f"{per_task_what} over {values.size} evaluated tasks)",
                    [abs(ours - theirs) <= tol]))
    return claims
