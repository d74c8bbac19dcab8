"""The order of the mechanisms' global models, seed by seed: in how many seeds one mechanism's
Table 3 loss lies below another's, and in how many one mechanism's is the highest of all.

Table 3 of the paper reports one loss per mechanism; the book has one run per seed, so a
comparison of two mechanisms is a count of the seeds where it holds (a
:class:`SeedComparison`). The runs of one seed share their draws across mechanisms, so the
comparison pairs them by seed.
The statistic is :func:`~fedlib.experiments.table_summaries.table3`, the mean test loss of the final
global model over the evaluated tasks; :func:`mean_accuracy` is the test accuracy beside it.

Two mechanisms that select the same winners run the same run (ours and RRAFL under the book's
reading of RRAFL: :func:`~fedlib.experiments.table_summaries.same_runs`), so their losses are equal
by construction. :func:`highest_loss` counts such a mechanism as tied with the one it is
compared for, not as a rival: a mechanism has the highest loss in a seed when its loss lies
strictly above that of every mechanism whose run in that seed is a different run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from fedlib.experiments.multitask import MultiTaskResult
from fedlib.experiments.table_summaries import same_runs, seeds_of, table3

__all__ = ["SeedComparison", "lower_loss", "highest_loss", "mean_accuracy"]


@dataclass(frozen=True)
class SeedComparison:
    """A statement checked in the run of every seed.

    Attributes
    ----------
    seeds : tuple of int
    checks : tuple of bool
        Per seed (in the order of ``seeds``), whether the statement held in its run.
    tied : tuple of str
        For :func:`highest_loss`, the mechanisms that were the same run as the one compared in
        every seed (counted as tied with it); empty otherwise.

    Examples
    --------
    >>> count = SeedComparison((0, 1, 2), (True, False, True))
    >>> count.held, count.n, count.text(), count.held_in
    (2, 3, '2 of 3', (0, 2))
    """

    seeds: tuple[int, ...]
    checks: tuple[bool, ...]
    tied: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if len(self.seeds) != len(self.checks):
            raise ValueError(f"one check per seed: {len(self.checks)} checks for "
                             f"{len(self.seeds)} seeds")

    @property
    def held(self) -> int:
        """In how many seeds the statement held."""
        return sum(self.checks)

    @property
    def n(self) -> int:
        """The number of seeds."""
        return len(self.seeds)

    @property
    def held_in(self) -> tuple[int, ...]:
        """The seeds where it held."""
        return tuple(s for s, c in zip(self.seeds, self.checks, strict=True) if c)

    def text(self) -> str:
        """``"k of n"``."""
        return f"{self.held} of {self.n}"


def _paired(*groups: Sequence[MultiTaskResult]) -> tuple[int, ...]:
    seeds = [seeds_of(group) for group in groups]
    if any(s != seeds[0] for s in seeds):
        raise ValueError(f"the runs must have the same seeds in the same order, got {seeds}")
    return seeds[0]


def lower_loss(first: Sequence[MultiTaskResult],
               second: Sequence[MultiTaskResult]) -> SeedComparison:
    """In which seeds the first mechanism's Table 3 loss lies strictly below the second's.

    Parameters
    ----------
    first, second : sequence of MultiTaskResult
        The runs of two mechanisms, one per seed, the same seeds in the same order.

    Returns
    -------
    SeedComparison

    Raises
    ------
    ValueError
        If the two have other seeds, or a seed twice.
    """
    seeds = _paired(first, second)
    return SeedComparison(seeds, tuple(bool(table3(a) < table3(b))
                                  for a, b in zip(first, second, strict=True)))


def highest_loss(runs: Mapping[str, Sequence[MultiTaskResult]],
                 mechanism: str) -> SeedComparison:
    """In which seeds ``mechanism``'s Table 3 loss is the highest of ``runs``.

    A mechanism whose run is the same run as ``mechanism``'s
    (:func:`~fedlib.experiments.table_summaries.same_runs`) has the same loss; it is counted as tied
    with ``mechanism``, and the loss must lie strictly above every other mechanism's.

    Parameters
    ----------
    runs : mapping
        Mechanism to its runs, one per seed, every mechanism with the same seeds in order (one
        dataset).
    mechanism : str
        A key of ``runs``.

    Returns
    -------
    SeedComparison
        With ``tied``, the mechanisms that were the same run as ``mechanism`` in every seed.

    Raises
    ------
    KeyError
        If ``mechanism`` is not in ``runs``.
    ValueError
        If the mechanisms have other seeds, or a seed twice.
    """
    own = runs[mechanism]
    seeds = _paired(*runs.values())
    checks, tied = [], set(runs) - {mechanism}
    for i, run in enumerate(own):
        rivals = [table3(others[i]) for name, others in runs.items() if name != mechanism
                  and not same_runs(run, others[i])]
        tied &= {name for name, others in runs.items() if same_runs(run, others[i])}
        checks.append(bool(all(table3(run) > loss for loss in rivals)))
    return SeedComparison(seeds, tuple(checks), tuple(name for name in runs if name in tied))


def mean_accuracy(run: MultiTaskResult) -> float:
    """The mean test accuracy of the final global model over the evaluated tasks that had
    winners, the tasks whose losses Table 3 averages (NaN if none)."""
    accuracies = [r["rounds"]["test_acc"][-1] for r in run.evaluated if r["winners"]]
    return float(np.mean(accuracies)) if accuracies else float("nan")
