"""Winners that failed the leave-one-out check in a task, and whether they won again.

In every round of a task a winner passes or fails the quality check (``l_{-i} - l >= delta``);
after the task its trust comes from the counts through Eq. (4) and the Gompertz curve, its
internal reputation is ``re = contrib * trust`` (Eq. (5)), and its accumulated reputation moves
towards ``re`` (Eqs. (10)-(13)). A winner that fails every round gets the trust
``exp(-exp(5.5))``, about ``6e-107`` whatever ``theta``; one that fails some rounds keeps a trust
that may still win it a later auction. :func:`failed_tasks` reads, from a multi-task run's
records, every (winner, task) with at least one failed check and the worker's next won task, if
any: what the run shows of how far one failed task shuts a worker out.

numpy only (no torch).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["FailedTask", "failed_tasks"]


@dataclass(frozen=True)
class FailedTask:
    """A winner that failed the leave-one-out check in at least one round of a task.

    Attributes
    ----------
    worker : int
    task : int
        The task's index in the run's records (0-based).
    failed : int
        Rounds of the task in which it failed the check.
    rounds : int
        Rounds it played (passed + failed).
    next_win : int or None
        The index of the next task the worker won, None if it never won again in the run.
    """

    worker: int
    task: int
    failed: int
    rounds: int
    next_win: int | None

    @property
    def every_round(self) -> bool:
        """Whether it failed the check in every round it played."""
        return self.failed == self.rounds

    @property
    def won_again(self) -> bool:
        """Whether it won a later task of the run."""
        return self.next_win is not None


def failed_tasks(records: Sequence[Mapping[str, Any]]) -> list[FailedTask]:
    """Every (winner, task) of ``records`` with a failed check, in task and selection order.

    Parameters
    ----------
    records : sequence of mapping
        The task records of a multi-task run, in task order, each with ``winners`` and, per
        winner, ``n_pass`` and ``n_fail`` (the rounds it passed and failed the check).

    Returns
    -------
    list of FailedTask

    Examples
    --------
    >>> records = [{"winners": [3, 5], "n_pass": [10, 4], "n_fail": [0, 6]},
    ...            {"winners": [5, 7], "n_pass": [0, 10], "n_fail": [10, 0]},
    ...            {"winners": [7], "n_pass": [10], "n_fail": [0]}]
    >>> [(f.worker, f.task, f.failed, f.next_win, f.every_round) for f in failed_tasks(records)]
    [(5, 0, 6, 1, False), (5, 1, 10, None, True)]
    """
    won: list[set[int]] = [{int(w) for w in record["winners"]} for record in records]
    out = []
    for t, record in enumerate(records):
        winners, passes, fails = record["winners"], record["n_pass"], record["n_fail"]
        if not len(winners) == len(passes) == len(fails):
            raise ValueError(f"task {t}: winners, n_pass and n_fail must have one entry per "
                             f"winner, got {len(winners)}, {len(passes)}, {len(fails)}")
        for worker, n_pass, n_fail in zip(winners, passes, fails, strict=True):
            if n_fail > 0:
                later = (s for s in range(t + 1, len(records)) if int(worker) in won[s])
                out.append(FailedTask(int(worker), t, int(n_fail), int(n_pass + n_fail),
                                      next(later, None)))
    return out
