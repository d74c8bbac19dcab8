"""The multi-task experiment on tiny configurations: budget, records, checkpoint and resume."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from fedlib.experiments import registry, table_summaries
from fedlib.experiments.multitask import MultiTaskConfig, run_multitask
from fedlib.fl.task import TaskOptions

TINY = MultiTaskConfig(
    dataset="mnist", n_tasks=4, eval_from=1, groups=((1.0, 3), (0.4, 2), (0.1, 2)), budget=12.0,
    n_samples=100, n_val=200, n_test=200, task=TaskOptions(rounds=2), device="cpu")
RECORD_KEYS = {"task", "winners", "bids", "payments", "contribution", "n_pass", "n_fail", "re",
               "Re", "rounds"}


@pytest.fixture(scope="module")
def tiny(data_root):
    return run_multitask(TINY)


def _json(records):
    return json.dumps(list(records), sort_keys=True)


def test_records_are_complete_and_budget_is_respected(tiny):
    assert [r["task"] for r in tiny.records] == [0, 1, 2, 3]
    for record in tiny.records:
        assert set(record) == RECORD_KEYS
        k = len(record["winners"])
        assert k > 0 and len(record["bids"]) == len(record["Re"]) == 7
        for name in ("payments", "contribution", "n_pass", "n_fail", "re"):
            assert len(record[name]) == k, name
        assert sum(record["payments"]) <= TINY.budget + 1e-9
        assert len(record["rounds"]["test_loss"]) == 2
        for passed, omega in zip(record["rounds"]["passed"], record["rounds"]["omega"],
                                 strict=True):
            assert len(passed) == k
            assert sum(w for w, ok in zip(omega, passed, strict=True) if ok) == pytest.approx(1)


def test_bids_lie_in_the_papers_ranges_and_are_redrawn(tiny):
    daccs = TINY.daccs
    bids = np.array([r["bids"] for r in tiny.records])
    low = 10 / 3 * daccs + 2 / 3
    assert np.all(bids >= low) and np.all(bids <= low + 2)
    assert not np.array_equal(bids[0], bids[1])
    fixed = run_multitask(replace(TINY, n_tasks=2, redraw_bids=False))
    assert fixed.records[0]["bids"] == fixed.records[1]["bids"]


def test_losers_keep_their_reputation(tiny):
    before = np.full(7, TINY.initial_reputation)
    for record in tiny.records:
        after = np.array(record["Re"])
        losers = np.setdiff1d(np.arange(7), record["winners"])
        assert np.array_equal(after[losers], before[losers])
        before = after


def test_summaries(tiny):
    # the reading of Table 1: every task ("in 50 tasks"); Tables 2-3: the evaluated ones
    table1 = table_summaries.table1(tiny)
    assert set(table1) == {1.0, 0.4, 0.1}
    assert sum(row["wins"] for row in table1.values()) == sum(len(r["winners"])
                                                              for r in tiny.records)
    late = table_summaries.table1(tiny, all_tasks=False)
    assert len(tiny.evaluated) < len(tiny.records)
    assert sum(row["wins"] for row in late.values()) == sum(len(r["winners"])
                                                            for r in tiny.evaluated)
    assert all(late[d]["reputation"] == table1[d]["reputation"] for d in late)
    for row in table1.values():
        assert row["reputation"] >= 0 and row["payment_per_task"] >= 0
    assert 0 <= table_summaries.table2(tiny) <= 1
    assert table_summaries.table3(tiny) == pytest.approx(
        np.mean([r["rounds"]["test_loss"][-1] for r in tiny.records[1:]]))


def test_checkpoint_resume_gives_the_uninterrupted_records(tiny, tmp_path):
    path = tmp_path / "run.pt"

    def kill_after_second_task(record):
        if record["task"] == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_multitask(TINY, path, on_task=kill_after_second_task)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.pt"]  # no temporary file left
    seen = []
    resumed = run_multitask(TINY, path, on_task=seen.append)
    assert [r["task"] for r in seen] == [2, 3]
    assert _json(resumed.records) == _json(tiny.records)


def test_a_run_can_be_extended(tiny, tmp_path):
    path = tmp_path / "run.pt"
    first = run_multitask(replace(TINY, n_tasks=2), path)
    assert _json(first.records) == _json(tiny.records[:2])
    assert _json(run_multitask(TINY, path).records) == _json(tiny.records)
    with pytest.raises(ValueError, match="n_tasks"):
        run_multitask(replace(TINY, n_tasks=3), path)


def test_checkpoint_of_another_configuration_is_refused(tmp_path):
    path = tmp_path / "run.pt"
    run_multitask(replace(TINY, n_tasks=1), path)
    with pytest.raises(ValueError, match="budget"):
        run_multitask(replace(TINY, n_tasks=1, budget=13.0), path)


def test_carried_model_and_other_mechanisms(data_root):
    carried = run_multitask(replace(TINY, n_tasks=2, fresh_model=False, mechanism="vanilla"))
    assert all(r["winners"] for r in carried.records)
    fresh = run_multitask(replace(TINY, n_tasks=2, mechanism="vanilla"))
    assert [r["winners"] for r in fresh.records] == [r["winners"] for r in carried.records]
    assert carried.records[1]["rounds"]["test_loss"] != fresh.records[1]["rounds"]["test_loss"]
    optimal = run_multitask(replace(TINY, n_tasks=1, mechanism="approx_optimal"))
    assert sum(optimal.records[0]["payments"]) <= TINY.budget


def test_the_reputation_constants_reach_the_ledger(data_root):
    default = run_multitask(replace(TINY, n_tasks=2)).records[-1]["Re"]
    steeper = run_multitask(replace(TINY, n_tasks=2, beta1=3.0, beta2=0.9)).records[-1]["Re"]
    assert default != steeper


def test_tasks_without_winners_train_nothing(data_root):
    empty = run_multitask(replace(TINY, n_tasks=2, budget=0.5))
    for record in empty.records:
        assert record["winners"] == [] and record["payments"] == []
        assert record["Re"] == [TINY.initial_reputation] * 7
    assert np.isnan(table_summaries.table3(empty))


@pytest.mark.parametrize("change,match", [
    ({"dataset": "cifar"}, "dataset"), ({"mechanism": "magic"}, "mechanism"),
    ({"budget": 0.0}, "budget"), ({"budget": -3.0}, "budget"),
    ({"budget": float("inf")}, "budget"), ({"n_tasks": 0}, "n_tasks"),
    ({"eval_from": -1}, "eval_from"), ({"groups": ((1.5, 3),)}, "dacc"),
    ({"groups": ((0.5, 0),)}, "count"), ({"groups": ()}, "groups"), ({"threads": 0}, "threads"),
    ({"initial_reputation": -0.1}, "initial_reputation"), ({"beta1": 0.0}, "beta1"),
    ({"beta2": 1.5}, "beta2"), ({"beta1": float("nan")}, "beta1"),
])
def test_bad_configuration(change, match):
    with pytest.raises(ValueError, match=match):
        replace(TINY, **change)


def test_result_names_and_command_flags():
    paper = MultiTaskConfig(dataset="fashion", mechanism="rrafl", device="cpu")
    assert paper.result_name() == "tables_fashion_rrafl"
    assert registry.command_flags(paper) == ["--dataset fashion", "--mechanisms rrafl"]
    fast = replace(paper, budget=40.0, seed=3, fresh_model=False).fast()
    assert fast.result_name() == "tables_fashion_rrafl_b40_carried_s3_fast"
    assert registry.command_flags(fast) == ["--dataset fashion", "--mechanisms rrafl",
                                            "--budget 40", "--carry-model", "--seeds 3", "--fast"]
    assert registry.command_flags(TINY) is None


def test_an_interrupted_grid_keeps_its_finished_runs(tiny, tmp_path, monkeypatch):
    """run_many deletes the checkpoints only once every run has finished: a call interrupted
    after one run finished resumes that run from its checkpoint, without training it again."""
    from fedlib.experiments import grid

    configs = [replace(TINY, n_tasks=2), replace(TINY, n_tasks=2, budget=13.0)]
    paths = [tmp_path / "a.pt", tmp_path / "b.pt"]
    real = grid.run_multitask

    def interrupt_the_second(config, checkpoint, **options):
        if config.budget == 13.0:
            raise KeyboardInterrupt
        return real(config, checkpoint, **options)

    monkeypatch.setattr(grid, "run_multitask", interrupt_the_second)
    with pytest.raises(KeyboardInterrupt):
        grid.run_many(configs, checkpoints=paths)
    assert paths[0].exists() and not paths[1].exists()
    monkeypatch.setattr(grid, "run_multitask", real)
    seen = []
    monkeypatch.setattr(grid, "run_multitask",
                        lambda config, checkpoint, **options: real(
                            config, checkpoint, on_task=seen.append, **options))
    runs = grid.run_many(configs, checkpoints=paths)
    assert [r["task"] for r in seen] == [0, 1]  # the second run's tasks only
    assert _json(runs[0].records) == _json(tiny.records[:2])
    assert not [path for path in paths if path.exists()]
