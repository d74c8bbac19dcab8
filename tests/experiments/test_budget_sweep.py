"""The budget sweep (stored experiment ``budgets``)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from fedlib.experiments import budget_sweep as bs
from fedlib.experiments import registry, table_summaries
from fedlib.experiments.grid import SWEEP_ROUND_FIELDS, SWEEP_TASKS
from fedlib.experiments.multitask import MultiTaskConfig, run_multitask
from fedlib.fl.task import TaskOptions
from fedlib.storage import results

GROUPS = ((1.0, 3), (0.7, 1), (0.4, 1), (0.1, 2))
TINY = bs.BudgetSweepConfig(budgets=(8.0, 20.0), base=MultiTaskConfig(
    dataset="mnist", n_tasks=3, eval_from=1, groups=GROUPS, n_samples=100, n_val=200,
    n_test=200, task=TaskOptions(rounds=2), device="cpu"))


@pytest.fixture(scope="module")
def tiny(data_root):
    return TINY.run()


def test_config_round_trip_and_validation():
    raw = json.loads(json.dumps(TINY.to_dict()))
    assert raw["experiment"] == "budgets" and raw["device"] == "cpu" and raw["seed"] == 0
    assert "budget" not in raw["base"] and "device" not in raw["base"]
    assert bs.BudgetSweepConfig.from_dict(raw) == TINY
    # the base's own budget is ignored
    assert replace(TINY, base=replace(TINY.base, budget=99.0)) == TINY
    assert [c.budget for c in TINY.run_configs()] == [8.0, 20.0]
    for bad in ((), (10.0, 5.0), (5.0, 5.0), (-1.0,), (float("nan"),)):
        with pytest.raises(ValueError, match="budgets"):
            bs.BudgetSweepConfig(budgets=bad)


def test_names_and_commands():
    paper = bs.BudgetSweepConfig()
    assert paper.budgets == bs.SWEEP_BUDGETS and paper.base.n_tasks == SWEEP_TASKS
    assert paper.result_name() == "budgets_mnist_ours"
    assert paper.fast().result_name() == "budgets_mnist_ours_fast"
    seeded = bs.BudgetSweepConfig(base=MultiTaskConfig(n_tasks=SWEEP_TASKS, seed=3,
                                                       dataset="fashion"))
    assert seeded.result_name() == "budgets_fashion_ours_s3"
    assert results.reproduce_command(paper) == ("python -m fedlib reproduce budgets --dataset "
                                                "mnist --device cpu --out results")
    assert results.reproduce_command(seeded.fast(), "x") == (
        "python -m fedlib reproduce budgets --dataset fashion --seeds 3 --fast --device cpu "
        "--out x")
    assert registry.command_flags(TINY) is None
    assert "in Python" in results.reproduce_command(TINY)


def test_each_budget_is_the_multitask_run_at_that_budget(tiny):
    assert len(tiny.runs) == 2 and tiny.wall_time_s > 0
    for budget, run in zip(TINY.budgets, tiny.runs, strict=True):
        direct = run_multitask(replace(TINY.base, budget=budget))
        assert run.config == direct.config
        for mine, theirs in zip(run.records, direct.records, strict=True):
            assert set(mine["rounds"]) == set(SWEEP_ROUND_FIELDS)
            assert mine == {**theirs, "rounds": {k: theirs["rounds"][k]
                                                 for k in SWEEP_ROUND_FIELDS}}


def test_records_are_task_major_and_round_trip(tiny):
    records = json.loads(json.dumps(tiny.records))
    assert [r["task"] for r in records] == [0, 1, 2]
    assert all(len(r["runs"]) == 2 for r in records)
    again = bs.BudgetSweepResult.from_stored(TINY.to_dict(), records, tiny.wall_time_s)
    assert again.config == TINY
    assert json.dumps(again.summary()) == json.dumps(tiny.summary())  # NaN-safe
    assert registry.rebuild(json.loads(json.dumps(TINY.to_dict()))).recompute(2) == records[:2]


def test_summary(tiny):
    rows = tiny.summary()
    assert [r["budget"] for r in rows] == [8.0, 20.0]
    for row, run in zip(rows, tiny.runs, strict=True):
        assert row["share"] == table_summaries.table2(run)
        assert row["loss"] == table_summaries.table3(run)
        assert 0 <= row["first_share"] <= 1 and row["winners"] > 0
    assert rows[0]["winners"] <= rows[1]["winners"]  # a larger budget buys more workers


def test_parallel_runs_match(tiny, tmp_path):
    again = TINY.run(jobs=2, checkpoint_dir=tmp_path)
    assert again.records == tiny.records
    assert not list(tmp_path.glob("*.pt"))
    with pytest.raises(ValueError, match="jobs"):
        TINY.run(jobs=0)
