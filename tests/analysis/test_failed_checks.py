"""Winners that failed the quality check, and their next win, on hand-made records."""

from __future__ import annotations

import pytest

from fedlib.analysis.failed_checks import FailedTask, failed_tasks


def _record(winners, n_pass, n_fail):
    return {"winners": winners, "n_pass": n_pass, "n_fail": n_fail}


def test_failed_tasks_by_hand():
    records = [
        # worker 2 fails 3 of 10 and wins again in task 2; worker 4 fails all 10, never again
        _record([1, 2, 4], [10, 7, 0], [0, 3, 10]),
        _record([1], [10], [0]),
        _record([2, 1], [10, 9], [0, 1]),   # worker 1 fails once in the last task it wins
        _record([], [], []),
    ]
    assert failed_tasks(records) == [
        FailedTask(worker=2, task=0, failed=3, rounds=10, next_win=2),
        FailedTask(worker=4, task=0, failed=10, rounds=10, next_win=None),
        FailedTask(worker=1, task=2, failed=1, rounds=10, next_win=None),
    ]
    partial, total, last = failed_tasks(records)
    assert partial.won_again and not partial.every_round
    assert total.every_round and not total.won_again
    assert not last.won_again and not last.every_round


def test_no_failure_no_entry():
    assert failed_tasks([_record([0, 1], [5, 5], [0, 0])]) == []
    assert failed_tasks([]) == []


def test_one_entry_per_winner_required():
    with pytest.raises(ValueError, match="one entry per winner"):
        failed_tasks([_record([0, 1], [5], [0, 0])])
