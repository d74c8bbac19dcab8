"""The first auction's hires and what followed, on hand-made runs."""

from __future__ import annotations

import math
from dataclasses import replace

from fedlib.experiments.first_clean_hire import FirstHires, first_hires
from fedlib.experiments.multitask import MultiTaskConfig, MultiTaskResult

#: Workers 0, 1 clean (1.0); 2 at 0.7; 3 at 0.4; 4 at 0.1.
GROUPS = ((1.0, 2), (0.7, 1), (0.4, 1), (0.1, 1))


def _run(winners, eval_from=1, seed=3):
    config = MultiTaskConfig(groups=GROUPS, n_tasks=max(len(winners), 1), eval_from=eval_from,
                             seed=seed, task=replace(MultiTaskConfig().task, rounds=2),
                             device="cpu")
    return MultiTaskResult(config, tuple({"task": t, "winners": w}
                                         for t, w in enumerate(winners)), 0.0)


def test_a_first_auction_without_clean_workers_by_hand():
    # task 1 hires 3 (0.4), 4 (0.1) and 2 (0.7); task 2 the noisy two; task 3 clean 0 and
    # noisy 4; task 4 both clean workers. Evaluated (tasks 2-4): 3 clean of 6 winners.
    run = _run([[3, 4, 2], [3, 4], [0, 4], [0, 1]])
    assert first_hires(run) == FirstHires(seed=3, winners=3, clean=0, noisy=2,
                                          first_clean_task=3, share=0.5)


def test_a_first_auction_that_reaches_clean_workers():
    got = first_hires(_run([[4, 0, 1], [0, 1]], seed=0))
    assert (got.winners, got.clean, got.noisy, got.first_clean_task, got.share) == (
        3, 2, 1, 1, 1.0)


def test_never_a_clean_winner():
    got = first_hires(_run([[3, 4], [4], []]))
    assert got.first_clean_task is None and got.clean == 0 and got.share == 0.0


def test_the_clean_group_can_be_another():
    got = first_hires(_run([[2, 3], [2]]), clean=0.7, noisy=0.1)
    assert (got.clean, got.noisy, got.first_clean_task, got.share) == (1, 0, 1, 1.0)


def test_nobody_evaluated_gives_nan():
    assert math.isnan(first_hires(_run([[0], []])).share)
