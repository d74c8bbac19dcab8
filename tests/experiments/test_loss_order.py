"""The order of the mechanisms' Table 3 losses, seed by seed (fedlib.experiments.loss_order)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fedlib.experiments.loss_order import SeedComparison, highest_loss, lower_loss, mean_accuracy
from fedlib.experiments.multitask import MultiTaskConfig, MultiTaskResult
from fedlib.experiments.table_summaries import table3

CONFIG = MultiTaskConfig(groups=((1.0, 1), (0.1, 1)), n_tasks=2, eval_from=1, budget=5.0)


def _run(seed, losses, winners=(0,), accuracies=None, mechanism="ours"):
    """A run whose task t ends with global-model loss ``losses[t]`` (task 0 is not evaluated)."""
    accuracies = accuracies or [0.5] * len(losses)
    records = tuple({"task": t, "winners": list(winners), "Re": [0.5, 0.5],
                     "rounds": {"test_loss": [9.0, loss], "test_acc": [0.0, acc]}}
                    for t, (loss, acc) in enumerate(zip(losses, accuracies, strict=True)))
    config = replace(CONFIG, seed=seed, mechanism=mechanism)
    return MultiTaskResult(config, records, 0.0)


def test_lower_loss_by_hand():
    # evaluated task 1 only: losses 0.5 vs 0.6 (seed 0), 0.7 vs 0.6 (seed 1), 0.6 vs 0.6 (2)
    first = [_run(0, [1.0, 0.5]), _run(1, [1.0, 0.7]), _run(2, [1.0, 0.6])]
    second = [_run(0, [0.1, 0.6]), _run(1, [0.1, 0.6]), _run(2, [0.1, 0.6])]
    count = lower_loss(first, second)
    assert count.checks == (True, False, False)  # a tie is not lower
    assert (count.held, count.n, count.text(), count.held_in) == (1, 3, "1 of 3", (0,))
    assert count.tied == ()


def test_highest_loss_counts_the_same_run_as_tied():
    """rrafl is ours' run exactly (same winners, Re and losses): it is tied, not a rival. In
    seed 0 ours (0.9) is above vanilla (0.8); in seed 1 vanilla (0.95) is above ours."""
    runs = {"ours": [_run(0, [2.0, 0.9]), _run(1, [2.0, 0.9])],
            "rrafl": [_run(0, [2.0, 0.9]), _run(1, [2.0, 0.9])],
            "vanilla": [_run(0, [2.0, 0.8], winners=(1,)), _run(1, [2.0, 0.95], winners=(1,))]}
    count = highest_loss(runs, "ours")
    assert count.checks == (True, False) and count.tied == ("rrafl",)
    # a rival with the same loss but another run is not below: no strict maximum
    runs["vanilla"][0] = _run(0, [2.0, 0.9], winners=(1,))
    assert highest_loss(runs, "ours").checks == (False, False)
    # alone, a mechanism is trivially the highest
    assert highest_loss({"ours": runs["ours"]}, "ours").checks == (True, True)


def test_a_same_run_in_some_seeds_only_is_not_tied():
    runs = {"ours": [_run(0, [2.0, 0.9]), _run(1, [2.0, 0.9])],
            "rrafl": [_run(0, [2.0, 0.9]), _run(1, [2.0, 0.5], winners=(1,))]}
    count = highest_loss(runs, "ours")
    assert count.tied == () and count.checks == (True, True)


def test_runs_must_pair_by_seed():
    with pytest.raises(ValueError, match="same seeds"):
        lower_loss([_run(0, [1.0, 0.5])], [_run(1, [1.0, 0.5])])
    with pytest.raises(ValueError, match="one per seed"):
        lower_loss([_run(0, [1.0, 0.5])] * 2, [_run(0, [1.0, 0.5])] * 2)
    with pytest.raises(KeyError):
        highest_loss({"ours": [_run(0, [1.0, 0.5])]}, "rrafl")
    with pytest.raises(ValueError, match="one check per seed"):
        SeedComparison((0, 1), (True,))


def test_mean_accuracy_is_over_the_tasks_table3_averages():
    config = replace(CONFIG, n_tasks=4)
    records = tuple({"task": t, "winners": winners, "Re": [0.5, 0.5],
                     "rounds": {"test_loss": [loss], "test_acc": [acc]}}
                    for t, (winners, loss, acc) in enumerate(
                        [([0], 2.0, 0.1), ([0], 0.5, 0.8), ([], 9.0, 0.0), ([1], 0.7, 0.6)]))
    run = MultiTaskResult(config, records, 0.0)
    assert mean_accuracy(run) == pytest.approx((0.8 + 0.6) / 2)
    assert table3(run) == pytest.approx((0.5 + 0.7) / 2)
    nobody = MultiTaskResult(config, tuple({**r, "winners": []} for r in records), 0.0)
    assert np.isnan(mean_accuracy(nobody))


@given(st.lists(st.tuples(st.floats(0.01, 5.0), st.floats(0.01, 5.0)), min_size=1,
                max_size=8))
def test_lower_loss_is_antisymmetric(pairs):
    first = [_run(s, [1.0, a]) for s, (a, _) in enumerate(pairs)]
    second = [_run(s, [1.0, b], winners=(1,)) for s, (_, b) in enumerate(pairs)]
    there, back = lower_loss(first, second), lower_loss(second, first)
    assert all(not (x and y) for x, y in zip(there.checks, back.checks, strict=True))
    assert there.held + back.held == sum(a != b for a, b in pairs)
    both = highest_loss({"ours": first, "other": second}, "ours")
    assert both.checks == back.checks
