"""The paper's claims about Tables 1-3 (its Section 6), checked on the multi-task runs of
several seeds.

Two kinds of claim (:data:`fedlib.analysis.claims.KINDS`), each made once per dataset
(``where`` is ``"Table 2, MNIST"`` and so on), so that a verdict never merges two datasets:

* :func:`statement_claims`: the conclusions the paper draws from its tables (higher data
  accuracy, higher contribution; ours hires only clean workers; ours gives the smallest loss),
  each checked in the run of every seed and judged by the sign-test rule of
  :mod:`fedlib.analysis.seed_statistics`;
* :func:`number_claims`: every printed cell of Tables 2 and 3, benchmarks included, against
  our runs over the seeds: reproduced when the paper's one run is a plausible run of ours, its
  number within the 95% prediction interval for one run.

The runs are keyed by (dataset, mechanism), each a sequence of runs, one per seed, the same
seeds for every mechanism of a dataset (:func:`seeds_of`); the paper's numbers come from
:mod:`fedlib.paper.numbers`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from fedlib.analysis.claims import Claim
from fedlib.analysis.seed_statistics import SeedStatistic
from fedlib.experiments.multitask import MultiTaskResult
from fedlib.experiments.table_summaries import DATASET_LABELS, seeds_of, table1, table2, table3
from fedlib.mechanism.mechanisms import MECHANISMS
from fedlib.paper import numbers as paper_numbers

#: (dataset, mechanism) to the runs of that configuration, one per seed.
Runs = Mapping[tuple[str, str], Sequence[MultiTaskResult]]

#: Table 1's orderings: a difference between two data-accuracy groups below this is a tie. It
#: is a unit of the last decimal Table 1 prints (three), so that reputations of 1e-9 and 1e-23,
#: both printed 0.000, are not an ordering.
RESOLUTION = 1e-3
#: Decimals the paper prints in Tables 2 and 3 (a printed number is known to half a unit of
#: the last one).
TABLE23_DIGITS = 4
#: Mechanisms that select ours' winners by construction (Algorithm 1, other payments only):
#: left out of "ours gives the smallest loss", where they could only tie with ours.
SAME_SELECTION_AS_OURS = ("rrafl",)


def _per_dataset(runs: Runs) -> dict[str, tuple[int, ...]]:
    """Per dataset, the seeds shared by every mechanism's runs (a ValueError if they differ)."""
    seeds: dict[str, tuple[int, ...]] = {}
    for (dataset, mechanism), seed_runs in runs.items():
        these = seeds_of(seed_runs)
        if seeds.setdefault(dataset, these) != these:
            raise ValueError(f"{dataset}: {mechanism} was run on seeds {list(these)}, another "
                             f"mechanism on {list(seeds[dataset])}; pair them by seed")
    return seeds


def ordered_steps(values: Sequence[float], resolution: float = RESOLUTION) -> int:
    """How many consecutive steps of ``values`` increase by more than ``resolution`` (a NaN,
    a group that never won, breaks both its steps).

    Examples
    --------
    >>> ordered_steps([0.1, 0.4, 0.7]), ordered_steps([2.4e-107, 2.9e-107, 2.5e-51])
    (2, 0)
    >>> ordered_steps([0.1, float("nan"), 0.7, 0.9])
    1
    """
    return int(np.sum(np.diff(np.asarray(values, float)) > resolution))


def increases(values: Sequence[float], resolution: float = RESOLUTION) -> bool:
    """Whether ``values`` increase by more than ``resolution`` at every step
    (:func:`ordered_steps`)."""
    return ordered_steps(values, resolution) == len(values) - 1


def _group_values(run: MultiTaskResult, quantity: str) -> list[float]:
    """Table 1's ``quantity`` per data-accuracy group (0.1 to 1.0); a payment of a group that
    never won counts as 0 (the paper prints 0)."""
    t1 = table1(run)
    values = [t1[d][quantity] for d in sorted(paper_numbers.TABLE1_DACCS)]
    return [0.0 if quantity == "payment" and not np.isfinite(v) else v for v in values]


def ours_claims(seed_runs: Sequence[MultiTaskResult], where: str) -> list[Claim]:
    """The conclusions the paper draws from ours alone, made at ``where`` (e.g.
    ``"Fashion-MNIST"``), each checked in the run of every seed: Table 1's three orderings
    (higher data accuracy, higher contributions, reputations and rewards, each step larger than
    :data:`RESOLUTION`; the statistic is the smallest step) and Table 2's "ours selects only
    workers with data accuracy 1.0 in the last 45 tasks" (the statistic is the share)."""
    seeds = seeds_of(seed_runs)
    claims = []
    for quantity, word in (("contribution", "contributions"),
                           ("reputation", "reputations"), ("payment", "rewards")):
        per_seed = np.array([_group_values(run, quantity) for run in seed_runs])
        steps = SeedStatistic.of(seeds, [ordered_steps(values) for values in per_seed])
        means = [f"{np.mean(v[np.isfinite(v)]):.3f}" if np.isfinite(v).any() else "none won"
                 for v in per_seed.T]
        claims.append(Claim.over_seeds(
            f"Table 1, {where}", f"workers with higher data accuracy obtain higher {word} "
            "(dacc 0.1 < 0.4 < 0.7 < 1.0)",
            f"mean over seeds {', '.join(means)}; steps in order (of "
            f"{per_seed.shape[1] - 1}) {steps.describe(1)} (a step below {RESOLUTION:g} is a "
            "tie)", steps, [increases(values) for values in per_seed]))
    shares = SeedStatistic.of(seeds, [table2(run) for run in seed_runs])
    claims.append(Claim.over_seeds(
        f"Table 2, {where}", "ours selects only workers with data accuracy 1.0 in the last "
        "45 tasks", f"share {shares.describe(4)}", shares,
        [value == 1.0 for value in shares.values]))
    return claims


def _margin_claim(where: str, statement: str, seeds: Sequence[int],
                  margins: Sequence[float], shown: Mapping[str, float], digits: int,
                  note: str = "") -> Claim:
    """A comparison checked per seed by the sign of ``margins`` (positive: it holds); the
    finding lists the means ``shown`` and the margin's statistic."""
    statistic = SeedStatistic.of(seeds, margins)
    listed = ", ".join(f"{MECHANISMS[m].label} {v:.{digits}f}" for m, v in shown.items())
    return Claim.over_seeds(where, statement, f"mean over seeds {listed}{note}; margin "
                            f"{statistic.describe(digits)}", statistic,
                            [m > 0 for m in statistic.values])


def statement_claims(runs: Runs) -> list[Claim]:
    """Section 6's conclusions from Tables 1-3, each checked on every dataset of ``runs``
    (needs ours and, for the comparisons, the other mechanisms), one claim per statement and
    dataset, each judged on the seeds: :func:`ours_claims`, then the comparisons of mechanisms
    (checked per seed on the runs of that seed; the statistic is the margin by which it holds).

    "Ours gives the smallest loss" is compared with the mechanisms whose selection differs
    from ours, not with :data:`SAME_SELECTION_AS_OURS` (their loss is ours by construction).
    """
    per_dataset = _per_dataset(runs)
    mechanisms = list(dict.fromkeys(m for _, m in runs))
    others = [m for m in mechanisms if m not in ("ours", *SAME_SELECTION_AS_OURS)]
    poor = [m for m in ("vanilla", "bid_greedy") if m in mechanisms]
    claims = []
    for dataset, seeds in per_dataset.items():
        label = DATASET_LABELS.get(dataset, dataset)
        claims += ours_claims(runs[dataset, "ours"], label)
        shares = {m: np.array([table2(r) for r in runs[dataset, m]]) for m in mechanisms}
        losses = {m: np.array([table3(r) for r in runs[dataset, m]]) for m in mechanisms}
        mean = {m: float(v.mean()) for m, v in shares.items()}
        claims.append(_margin_claim(
            f"Table 2, {label}", "ours and RRAFL select a larger share of dacc 1.0 workers than "
            "the other mechanisms", seeds,
            np.minimum(shares["ours"], shares["rrafl"])
            - np.max([shares[m] for m in others], axis=0), mean, 3))
        left_out = ", ".join(MECHANISMS[m].label for m in SAME_SELECTION_AS_OURS
                             if m in mechanisms)
        claims.append(_margin_claim(
            f"Table 3, {label}", "ours gives the smallest average loss of the global model",
            seeds, np.min([losses[m] for m in others], axis=0) - losses["ours"],
            {m: float(losses[m].mean()) for m in ["ours", *others]}, 4,
            f" ({left_out} left out: it selects ours' winners by construction and differs "
            "only in payments, so its loss is ours')" if left_out else ""))
        claims.append(_margin_claim(
            f"Table 3, {label}", "ours gives a lower loss than Vanilla FL and Bid Greedy",
            seeds, np.min([losses[m] for m in poor], axis=0) - losses["ours"],
            {m: float(losses[m].mean()) for m in ["ours", *poor]}, 4))
    return claims


#: Per table: its paper numbers, the statistic of one run and what the number is.
_TABLES: tuple[tuple[str, Mapping, Callable[[MultiTaskResult], float], str], ...] = (
    ("Table 2", paper_numbers.TABLE2, table2, "share of dacc 1.0 winners"),
    ("Table 3", paper_numbers.TABLE3, table3, "average loss of the global model"),
)


def number_claims(runs: Runs) -> list[Claim]:
    """Every printed cell of Tables 2 and 3 (every mechanism of ``runs``) against our runs over
    the seeds, one claim per table, mechanism and dataset
    (:meth:`~fedlib.analysis.claims.Claim.of_number`): reproduced when the paper's number, to
    half a unit of its fourth decimal, lies within the 95% prediction interval for one run.
    """
    _per_dataset(runs)
    claims = []
    for table, paper, statistic, what in _TABLES:
        for (dataset, mechanism), seed_runs in runs.items():
            theirs = paper[mechanism][dataset]
            values = SeedStatistic.of(seeds_of(seed_runs), [statistic(r) for r in seed_runs])
            claims.append(Claim.of_number(
                f"{table}, {DATASET_LABELS.get(dataset, dataset)}",
                f"{MECHANISMS[mechanism].label}: {what} = {theirs:.{TABLE23_DIGITS}f}",
                values, theirs, TABLE23_DIGITS))
    return claims
