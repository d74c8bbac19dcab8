"""Whom a run's first auction hires, when it first hires a clean worker, and what follows.

Every worker starts from the same ``Re^0``, so the first auction of a multi-task run ranks by
bid alone (Algorithm 1 with equal reputations: ``b_k <= B / k``), and the bids grow with data
accuracy: the first winners are the cheapest, noisiest workers, and the budget decides how far
up the bids the first auction reaches. From the second task on the reputations of Eq. (13)
rank the workers too. :func:`first_hires` reads off a run the first task's winners by kind, the
first task with a clean winner, and Table 2's share of clean winners over the evaluated tasks,
so that a chapter can set "did the first auction reach a clean worker" beside "did the
mechanism end up hiring clean workers", run by run and seed by seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fedlib.experiments.coldstart import CLEAN, NOISY
from fedlib.experiments.multitask import MultiTaskResult
from fedlib.experiments.table_summaries import table2

__all__ = ["FirstHires", "first_hires"]


@dataclass(frozen=True)
class FirstHires:
    """What one run's first auction hired, and what followed.

    Attributes
    ----------
    seed : int
        The run's experiment seed.
    winners : int
        Winners of the first task.
    clean, noisy : int
        Of those, the clean ones (data accuracy
        :data:`~fedlib.experiments.coldstart.CLEAN`) and the noisy ones (at most
        :data:`~fedlib.experiments.coldstart.NOISY`).
    first_clean_task : int or None
        The first task (1-based) with a clean winner; None when no task of the run has one.
    share : float
        Table 2: the share of clean winners over the evaluated tasks (NaN if nobody won there).
    """

    seed: int
    winners: int
    clean: int
    noisy: int
    first_clean_task: int | None
    share: float


def first_hires(run: MultiTaskResult, clean: float = CLEAN, noisy: float = NOISY) -> FirstHires:
    """The :class:`FirstHires` of ``run``.

    Parameters
    ----------
    run : MultiTaskResult
        A multi-task run (Tables 1-3, a sweep's run, a cold-start map's run).
    clean : float, default :data:`~fedlib.experiments.coldstart.CLEAN` (1.0)
        The data accuracy of a clean worker (Table 2's group).
    noisy : float, default :data:`~fedlib.experiments.coldstart.NOISY` (0.4)
        The largest data accuracy of a noisy worker.

    Returns
    -------
    FirstHires
    """
    daccs = run.config.daccs
    hired = [daccs[np.asarray(r["winners"], dtype=int)] for r in run.records]
    first = hired[0] if hired else np.empty(0)
    with_clean = [t + 1 for t, d in enumerate(hired) if np.any(d == clean)]
    return FirstHires(seed=run.config.seed, winners=int(first.size),
                      clean=int(np.sum(first == clean)), noisy=int(np.sum(first <= noisy)),
                      first_clean_task=with_clean[0] if with_clean else None,
                      share=table2(run, clean))
