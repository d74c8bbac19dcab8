"""How the clean workers get into a multi-task run: the first task one of them wins, and what
the auction of that task owed to the reputations that had fallen before it.

With ``Re^0`` for everyone, the first auction of a run ranks the workers by bid alone
(Algorithm 1 orders them by cost density ``b_i / Re_i``), and the cheapest bids are the
noisiest workers'. A clean worker (data accuracy 1.0) that loses keeps its reputation, so
until it first wins it holds ``Re^0``; a winner's reputation moves by Eq. (13), down when its
internal reputation ``re_i = contrib_i * trust_i`` (Eq. (5)) is low. :func:`clean_entry`
reads, from the records of one run:

* whether the first auction hired a clean worker, and the first task in which one won;
* at the auction of that task, which workers' accumulated ``Re`` lay below ``Re^0`` (only
  earlier winners can have fallen), whether any of them won it, and whether every clean worker
  still held ``Re^0``;
* the auction of that task replayed from its bids and the reputations before it (it must give
  the recorded winners), and replayed again with the fallen workers' reputations put back at
  ``Re^0``: whether it would still have hired a clean worker;
* Table 2's share of clean winners over the evaluated tasks
  (:func:`~fedlib.experiments.table_summaries.table2`).

The replay calls the run's own mechanism (:data:`~fedlib.mechanism.MECHANISMS`) with the bids
as true costs, as the run did. It is meant for the mechanisms that select by Algorithm 1 (ours,
RRAFL); one whose selection draws random numbers (Vanilla) is refused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from fedlib.experiments.multitask import MultiTaskResult
from fedlib.experiments.table_summaries import table2
from fedlib.mechanism.mechanisms import MECHANISMS
from fedlib.table import Table, fixed_point

__all__ = ["RANDOM_SELECTION", "CleanEntry", "clean_entry", "clean_entries", "entry_table"]

#: The mechanisms whose selection draws random numbers (their auctions are not replayed).
RANDOM_SELECTION = ("vanilla",)


@dataclass(frozen=True)
class CleanEntry:
    """How the workers of one data accuracy first got into one run (:func:`clean_entry`).

    Attributes
    ----------
    seed : int
        The run's seed.
    budget : float
        Its budget per task.
    first_hires : bool
        Whether the auction of the first task hired a worker of the group.
    entry_task : int or None
        The first task (0-based) in which a worker of the group won; None if none ever did.
    share : float
        Table 2's share of the group among the winners of the evaluated tasks.
    at_initial : bool or None
        Whether every worker of the group held ``Re^0`` at the auction of ``entry_task``
        (losers keep their reputation); None if none ever won.
    fallen : tuple of int
        The workers whose ``Re`` lay below ``Re^0`` at that auction (empty when
        ``entry_task`` is 0 or None).
    fallen_won : bool
        Whether one of them won that task.
    replayed : bool
        Whether the auction of ``entry_task``, replayed from its bids and the reputations
        before it, gives the recorded winners (True when there is nothing to replay).
    restored_hires : bool or None
        Whether the same auction, with the ``fallen`` workers back at ``Re^0``, would still
        hire a worker of the group; None when the group never won or the replay failed.
    ever_fell : bool
        Whether any worker's ``Re`` lay below ``Re^0`` after some task of the run.
    """

    seed: int
    budget: float
    first_hires: bool
    entry_task: int | None
    share: float
    at_initial: bool | None
    fallen: tuple[int, ...]
    fallen_won: bool
    replayed: bool
    restored_hires: bool | None
    ever_fell: bool

    @property
    def entered_later(self) -> bool:
        """Whether the group first won after the first task."""
        return self.entry_task is not None and self.entry_task > 0


def _winners(mechanism: str, bids: np.ndarray, Re: np.ndarray, budget: float) -> set[int]:
    allocation = MECHANISMS[mechanism].select(bids, Re, budget, costs=bids)
    return {int(i) for i in allocation.winners}


def clean_entry(run: MultiTaskResult, dacc: float = 1.0) -> CleanEntry:
    """How the workers of data accuracy ``dacc`` first got into ``run`` (see the module).

    Parameters
    ----------
    run : MultiTaskResult
        A multi-task run whose records hold each task's ``bids``, ``winners`` and ``Re``
        (after the task; task ``t`` starts from record ``t - 1``'s ``Re``, the first from
        ``Re^0``).
    dacc : float, default 1.0
        The group, by its data accuracy: the clean workers.

    Returns
    -------
    CleanEntry

    Raises
    ------
    ValueError
        If the run has no tasks, no worker has data accuracy ``dacc``, or the run's mechanism
        selects at random.

    Examples
    --------
    Three workers, one clean (bid 4) and two noisy (bids 1 and 1.2), ``Re^0 = 0.5`` and
    ``B = 5``: Algorithm 1 takes the two noisy ones in the first task. Their reputations fall
    to 0.05 and 0.1, the clean worker, a loser, keeps 0.5, and in the second task (same bids)
    it is the cheapest per unit of reputation and wins alone; with the two fallen workers back
    at ``Re^0`` the second auction would have been the first again.

    >>> from fedlib.experiments.multitask import MultiTaskConfig, MultiTaskResult
    >>> config = MultiTaskConfig(groups=((1.0, 1), (0.1, 2)), n_tasks=2, eval_from=1,
    ...                          budget=5.0)
    >>> bids = [4.0, 1.0, 1.2]
    >>> records = ({"task": 0, "bids": bids, "winners": [1, 2], "Re": [0.5, 0.05, 0.1]},
    ...            {"task": 1, "bids": bids, "winners": [0], "Re": [0.6, 0.05, 0.1]})
    >>> entry = clean_entry(MultiTaskResult(config, records, 0.0))
    >>> entry.first_hires, entry.entry_task, entry.fallen, entry.restored_hires, entry.share
    (False, 1, (1, 2), False, 1.0)
    """
    config, records = run.config, run.records
    if config.mechanism in RANDOM_SELECTION:
        raise ValueError(f"{config.mechanism!r} selects at random: its auctions cannot be "
                         "replayed from the records")
    if not records:
        raise ValueError("the run has no tasks")
    group = config.daccs == dacc
    if not group.any():
        raise ValueError(f"no worker has data accuracy {dacc}")
    Re0 = float(config.initial_reputation)
    n = config.daccs.size
    Re_after = np.array([record["Re"] for record in records], dtype=float).reshape(-1, n)
    entry = next((t for t, record in enumerate(records)
                  if group[np.asarray(record["winners"], dtype=int)].any()), None)
    at_initial, fallen, fallen_won, replayed, restored = None, (), False, True, None
    if entry is not None:
        before = Re_after[entry - 1] if entry > 0 else np.full(n, Re0)
        record = records[entry]
        bids = np.asarray(record["bids"], dtype=float)
        won = {int(i) for i in record["winners"]}
        at_initial = bool(np.all(before[group] == Re0))
        fallen = tuple(int(i) for i in np.flatnonzero(before < Re0))
        fallen_won = bool(won & set(fallen))
        replayed = _winners(config.mechanism, bids, before, config.budget) == won
        if replayed:
            put_back = before.copy()
            put_back[list(fallen)] = Re0
            restored = bool(group[sorted(_winners(config.mechanism, bids, put_back,
                                                  config.budget))].any())
    first = np.asarray(records[0]["winners"], dtype=int)
    return CleanEntry(
        seed=int(config.seed), budget=float(config.budget),
        first_hires=bool(group[first].any()), entry_task=entry, share=table2(run, dacc),
        at_initial=at_initial, fallen=fallen, fallen_won=fallen_won, replayed=replayed,
        restored_hires=restored, ever_fell=bool((Re_after < Re0).any()))


def clean_entries(runs: Sequence[MultiTaskResult], dacc: float = 1.0) -> list[CleanEntry]:
    """:func:`clean_entry` of every run, in order (e.g. one per seed, or one per budget of a
    budget sweep)."""
    return [clean_entry(run, dacc) for run in runs]


#: The columns of :func:`entry_table`.
ENTRY_COLUMNS = ("run", "B", "first auction hires a clean worker",
                 "first task a clean worker won", "workers below Re^0 at that auction",
                 "one of them hired there", "hired a clean worker with them at Re^0",
                 "Table 2 share")


def entry_table(entries: Mapping[str, CleanEntry], title: str = "") -> Table:
    """One row per run (keyed by its label): the columns of :data:`ENTRY_COLUMNS`, tasks
    counted from 1 (the first task is task 1), a dash where a column does not apply (no clean
    worker ever won; nobody had fallen when one first did).

    Examples
    --------
    >>> entry = CleanEntry(3, 60.0, False, 1, 1.0, True, (4, 5), False, True, False, True)
    >>> entry_table({"seed 3": entry}).rows
    (('seed 3', '60', False, 2, 2, False, False, '1.000'),)
    """
    rows = []
    for label, e in entries.items():
        fell = bool(e.fallen)
        rows.append((label, f"{e.budget:g}", e.first_hires,
                     "-" if e.entry_task is None else e.entry_task + 1,
                     "-" if e.entry_task is None else len(e.fallen),
                     e.fallen_won if fell else "-",
                     e.restored_hires if fell and e.restored_hires is not None else "-",
                     fixed_point(e.share, 3)))
    return Table(ENTRY_COLUMNS, tuple(rows), title=title)
