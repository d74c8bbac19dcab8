"""The budget sweep (stored experiment ``budgets``) and the auction-only steady-state argument."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from fedlib.experiments import budget_sweep as bs
from fedlib.experiments import federated, registry
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
        "python -m fedlib reproduce budgets --dataset fashion --seed 3 --fast --device cpu "
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
        assert row["share"] == federated.table2(run)
        assert row["loss"] == federated.table3(run)
        assert 0 <= row["first_share"] <= 1 and row["winners"] > 0
    assert rows[0]["winners"] <= rows[1]["winners"]  # a larger budget buys more workers


def test_parallel_runs_match(tiny, tmp_path):
    again = TINY.run(jobs=2, checkpoint_dir=tmp_path)
    assert again.records == tiny.records
    assert not list(tmp_path.glob("*.pt"))
    with pytest.raises(ValueError, match="jobs"):
        TINY.run(jobs=0)


# ---------------------------------------------------------------- steady state

PAPER_MNIST = {0.1: 0.0, 0.4: 0.421, 0.7: 0.556, 1.0: 0.985}


def test_steady_state_is_deterministic_and_sane():
    budgets = [10.0, 40.0, 80.0]
    a = bs.steady_state(PAPER_MNIST, budgets, trials=300, seed=1)
    b = bs.steady_state(PAPER_MNIST, budgets, trials=300, seed=1)
    assert np.array_equal(a.clean, b.clean) and np.array_equal(a.payment, b.payment)
    assert np.all((a.clean >= 0) & (a.clean <= 1))
    assert np.all(np.diff(a.winners) > 0) and np.all(np.diff(a.payment) > 0)
    assert np.all(np.diff(a.clean) <= 0)  # more budget reaches further down the ranking
    assert np.allclose(a.clean_redrawn, a.clean ** 45) and np.array_equal(a.clean_fixed, a.clean)
    assert np.allclose(a.outsider_tasks, 45 * (1 - a.clean))


def test_steady_state_with_worthless_outsiders_is_always_clean():
    state = bs.steady_state({0.1: 0.0, 0.4: 0.0, 0.7: 0.0, 1.0: 0.9}, [20.0, 60.0], trials=50)
    assert np.all(state.clean == 1.0)
    with pytest.raises(ValueError, match="lack"):
        bs.steady_state({1.0: 0.9}, [20.0])
    with pytest.raises(ValueError, match="trials"):
        bs.steady_state(PAPER_MNIST, [20.0], trials=0)


def test_undercut_closed_form_matches_simulation():
    rho = 5.533 / 0.985
    closed = bs.undercut(PAPER_MNIST, rho)
    assert closed.per_worker[0.1] == 0.0  # Re = 0 never undercuts
    assert closed.per_worker[0.4] == pytest.approx((0.421 * rho - 2) / 2)
    assert closed.clean == pytest.approx((1 - closed.per_worker[0.4]) ** 5
                                         * (1 - closed.per_worker[0.7]) ** 5)
    rng = np.random.default_rng(0)
    draws = 200_000
    bids04 = 2 + 2 * rng.random((draws, 5))
    bids07 = 3 + 2 * rng.random((draws, 5))
    none = np.all(bids04 / 0.421 >= rho, axis=1) & np.all(bids07 / 0.556 >= rho, axis=1)
    assert none.mean() == pytest.approx(closed.clean, abs=0.005)
    assert bs.undercut(PAPER_MNIST, 0.0).clean == 1.0


def test_crossing():
    assert bs.crossing([0, 10, 20], [0.0, 1.0, 2.0], 1.5) == pytest.approx(15)
    assert bs.crossing([0, 10, 20], [2.0, 1.0, 0.0], 1.5) == pytest.approx(5)
    assert bs.crossing([0, 10], [1.0, 2.0], 1.0) == 0
    assert bs.crossing([0, 10], [1.0, 2.0], 2.0) == 10
    assert np.isnan(bs.crossing([0, 10], [1.0, 2.0], 5.0))
    assert bs.crossing([0, 10, 20], [np.nan, 1.0, 3.0], 2.0) == pytest.approx(15)


def test_budget_window_finds_the_papers_tension():
    budgets = np.arange(10.0, 101.0, 10.0)
    state = bs.steady_state(PAPER_MNIST, budgets, trials=400)
    window = bs.budget_window(state, 5.533)
    assert 40 < window.payment_budget < 100
    assert window.share_budget < window.payment_budget and not window.compatible
    assert window.redrawn_at_payment_budget == pytest.approx(window.clean_at_payment_budget ** 45)
    assert window.fixed_at_payment_budget == window.clean_at_payment_budget
    # with the outsiders out of the market both tables can hold
    easy = bs.steady_state({0.1: 0.0, 0.4: 0.0, 0.7: 0.0, 1.0: 0.985}, budgets, trials=100)
    assert bs.budget_window(easy, 5.533).compatible


def test_probability_text():
    assert bs.probability_text(0.5, 100) == "0.5"
    assert bs.probability_text(0.5, 100, 2) == "0.25"
    assert bs.probability_text(0.0, 100) == "< 0.01"
    assert bs.probability_text(0.0, 100, 3) == "< 1e-06"
    assert bs.probability_text(float("nan"), 100) == "undefined"


def test_describe_window():
    window = bs.BudgetWindow(68.2, 24.9, 0.28, 0.28 ** 45, 0.28, 0.05)
    lines = bs.describe_window(window, 4000, 45)
    assert lines[0] == "Table 1's payment needs B = 68"
    assert lines[1] == "Table 2's share (probability >= 0.05) needs B <= 25"
    assert lines[2] == "at B = 68: P(one clean task) = 0.28"
    assert lines[3] == "at B = 68: P(45 clean tasks), bids redrawn = 1.32e-25"
    assert lines[4] == "at B = 68: P(45 clean tasks), bids drawn once = 0.28"
    never = bs.BudgetWindow(90.0, float("nan"), 0.0, 0.0, 0.0, 0.05)
    lines = bs.describe_window(never, 100, 45)
    assert "no budget of the grid" in lines[1] and "< 0.01" in lines[2]
    assert lines[3].endswith("bids redrawn = < 1e-90")
