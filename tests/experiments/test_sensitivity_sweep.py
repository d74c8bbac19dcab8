"""The one-at-a-time sensitivity sweep (stored experiment ``sensitivity``)."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from fedlib.experiments import registry
from fedlib.experiments import sensitivity as sens
from fedlib.experiments.budget_sweep import BudgetSweepConfig
from fedlib.experiments.grid import SWEEP_ROUND_FIELDS
from fedlib.experiments.multitask import MultiTaskConfig, MultiTaskResult, run_multitask
from fedlib.fl.task import TaskOptions
from fedlib.storage import results

GROUPS = ((1.0, 3), (0.7, 1), (0.4, 1), (0.1, 2))
TINY_BASE = MultiTaskConfig(dataset="mnist", n_tasks=3, eval_from=1, groups=GROUPS, budget=12.0,
                            n_samples=100, n_val=200, n_test=200, task=TaskOptions(rounds=2),
                            device="cpu")
TINY = sens.SensitivityConfig(values={"theta": (0.2, 0.6), "beta1": (0.25, 2.0),
                                      "initial_reputation": (0.3,)}, base=TINY_BASE)


@pytest.fixture(scope="module")
def tiny(data_root):
    return TINY.run()


def _field_diff(a: MultiTaskConfig, b: MultiTaskConfig) -> set[str]:
    da, db = a.to_dict(), b.to_dict()
    top = {k for k in da if k != "task" and da[k] != db[k]}
    return top | {f"task.{k}" for k in da["task"] if da["task"][k] != db["task"][k]}


def test_default_sweep_varies_one_field_per_run_around_the_budget_sweeps_base():
    config = sens.SensitivityConfig()
    assert config.base == BudgetSweepConfig().base  # the stored budget sweep's base
    assert sens.budget_config(config) == BudgetSweepConfig()
    at_default = [c for c in BudgetSweepConfig().run_configs() if c.budget == config.base.budget]
    assert at_default == [config.base]  # the budget sweep holds the center run
    runs = config.run_configs()
    assert len(runs) == 11 and runs[0] == config.base
    assert config.points[0] == (None, None)
    where = {"theta": "task.theta", "delta": "task.delta", "beta1": "beta1", "beta2": "beta2",
             "initial_reputation": "initial_reputation"}
    for (name, value), run in zip(config.points[1:], runs[1:], strict=True):
        assert _field_diff(config.base, run) == {where[name]}, name
        assert sens.parameter_value(run, name) == value
        assert value != sens.parameter_value(config.base, name)
    assert {name for name, _ in config.values} == set(sens.PARAMETERS)
    # the defaults are the paper's / fedlib's
    assert [sens.parameter_value(config.base, n) for n in sens.PARAMETERS] == [
        0.4, -0.005, 0.5, 0.25, 0.5]


def test_values_are_normalised_and_round_trip():
    as_pairs = sens.SensitivityConfig(values=(("beta2", (0.5, 0.1)),), base=TINY_BASE)
    as_mapping = sens.SensitivityConfig(values={"beta2": [0.1, 0.5]}, base=TINY_BASE)
    assert as_pairs == as_mapping and as_pairs.values == (("beta2", (0.1, 0.5)),)
    raw = json.loads(json.dumps(TINY.to_dict()))
    assert raw["experiment"] == "sensitivity" and raw["device"] == "cpu" and raw["seed"] == 0
    assert "device" not in raw["base"] and raw["values"]["theta"] == [0.2, 0.6]
    assert sens.SensitivityConfig.from_dict(raw) == TINY


@pytest.mark.parametrize("values, match", [
    ({"gamma": (1.0,)}, "unknown parameter 'gamma'"),
    ({"budget": (30.0,)}, "unknown parameter 'budget'"),  # read from the budget sweep
    ({"theta": ()}, "values of theta"),
    ({"theta": (0.2, 0.2)}, "values of theta"),
    ({"beta1": (0.5,)}, "values of beta1"),  # the center's own value
    ({}, "at least one parameter"),
    ({"theta": (1.0,)}, "theta must lie in"),
    ({"theta": (0.0,)}, "theta must lie in"),
    ({"delta": (float("nan"),)}, "delta must be a finite"),
    ({"beta1": (0.0,)}, "beta1 must be positive"),
    ({"beta2": (1.5,)}, "beta2 in"),
    ({"initial_reputation": (-0.1,)}, "initial_reputation must be non-negative"),
])
def test_bad_sweeps_are_rejected(values, match):
    with pytest.raises(ValueError, match=match):
        sens.SensitivityConfig(values=values, base=TINY_BASE)


def test_parameter_helpers_reject_unknown_names():
    with pytest.raises(ValueError, match="unknown parameter"):
        sens.with_parameter(TINY_BASE, "budgets", 3.0)
    with pytest.raises(ValueError, match="unknown parameter"):
        sens.parameter_value(TINY_BASE, "rounds")
    assert sens.parameter_value(TINY_BASE, "budget") == 12.0
    # the sweep of the mechanism's parameters refuses the others the helpers know
    with pytest.raises(ValueError, match="unknown parameter 'lr'"):
        sens.SensitivityConfig(values={"lr": (0.1,)}, base=TINY_BASE)


def test_with_parameter_keeps_integer_and_boolean_settings():
    epochs = sens.with_parameter(TINY_BASE, "epochs", 2.0)
    assert epochs.task.epochs == 2 and isinstance(epochs.task.epochs, int)
    assert sens.with_parameter(TINY_BASE, "fresh_model", 0.0).fresh_model is False
    assert sens.with_parameter(TINY_BASE, "momentum", 0.9).task.momentum == 0.9
    assert sens.with_parameter(TINY_BASE, "budget", 30).budget == 30.0
    assert sens.parameter_value(TINY_BASE, "fresh_model") == 1.0


def test_names_and_commands():
    paper = sens.SensitivityConfig()
    assert paper.result_name() == "sensitivity_mnist_ours"
    assert paper.fast().result_name() == "sensitivity_mnist_ours_fast"
    assert results.reproduce_command(paper) == (
        "python -m fedlib reproduce sensitivity --dataset mnist --device cpu --out results")
    seeded = sens.SensitivityConfig(base=MultiTaskConfig(n_tasks=20, seed=2))
    assert seeded.result_name() == "sensitivity_mnist_ours_s2"
    assert results.reproduce_command(seeded.fast(), "x") == (
        "python -m fedlib reproduce sensitivity --dataset mnist --seeds 2 --fast --device cpu "
        "--out x")
    assert registry.command_flags(TINY) is None


def test_each_run_is_the_multitask_run_of_its_config(tiny):
    assert len(tiny.runs) == len(TINY.points) == 6 and tiny.wall_time_s > 0
    for run, config in zip(tiny.runs, TINY.run_configs(), strict=True):
        assert run.config == config
    for i in (0, 3):  # the center and beta1 = 2.0
        direct = run_multitask(TINY.run_configs()[i], round_fields=SWEEP_ROUND_FIELDS)
        assert list(tiny.runs[i].records) == list(direct.records)
        assert set(direct.records[0]["rounds"]) == set(SWEEP_ROUND_FIELDS)
    values = [v for v, _ in tiny.runs_of("beta1")]
    assert values == [0.25, 0.5, 2.0] and tiny.runs_of("beta1")[1][1] is tiny.center
    with pytest.raises(ValueError, match="unknown parameter 'delta'"):
        tiny.runs_of("delta")  # not swept here


def test_records_round_trip_recompute_and_parallel(tiny, tmp_path):
    records = json.loads(json.dumps(tiny.records))
    assert [r["task"] for r in records] == [0, 1, 2] and len(records[0]["runs"]) == 6
    again = sens.SensitivityResult.from_stored(TINY.to_dict(), records, tiny.wall_time_s)
    assert again.config == TINY
    assert json.dumps(sens.sensitivity_rows(again)) == json.dumps(sens.sensitivity_rows(tiny))
    assert registry.rebuild(json.loads(json.dumps(TINY.to_dict()))).recompute(1) == records[:1]
    parallel = TINY.run(jobs=2, checkpoint_dir=tmp_path)
    assert parallel.records == tiny.records and not list(tmp_path.glob("*.pt"))


def test_first_task_shows_where_parameters_enter(tiny):
    diff = sens.first_task(tiny)
    assert list(diff) == ["theta=0.2", "theta=0.6", "beta1=0.25", "beta1=2",
                          "initial_reputation=0.3"]
    for key in ("beta1=0.25", "beta1=2", "initial_reputation=0.3"):
        assert diff[key]["Re"], key  # the reputation update reads these parameters
        assert not diff[key]["re"] and not diff[key]["training"]
    claims = sens.first_task_claims(tiny)
    assert _holds(tiny) == dict.fromkeys(CLAIMS, True)
    assert claims[0].finding == "the same as the center run in all 5 runs"
    assert claims[-1].finding == "beta2 is not swept"  # holds trivially
    assert claims[4].finding.startswith("mean over the winners of |Re - Re^0| at beta1 = "
                                        "0.25, 0.5, 2: ")


#: What :func:`~fedlib.experiments.sensitivity.first_task_claims` checks, in its order.
CLAIMS = ("winners", "training", "re", "theta", "beta1", "beta2")


def _holds(result):
    return dict(zip(CLAIMS, (c.holds for c in sens.first_task_claims(result)), strict=True))


def _with_first(result, index, **changes):
    runs = list(result.runs)
    first = {**runs[index].records[0], **changes}
    runs[index] = MultiTaskResult(runs[index].config, (first, *runs[index].records[1:]), 0.0)
    return sens.SensitivityResult(result.config, tuple(runs), 0.0)


def test_first_task_claims_can_fail(tiny):
    center = tiny.center.records[0]
    assert center["Re"] != [TINY_BASE.initial_reputation] * 7  # the center's winners moved
    unmoved = _with_first(tiny, 4, Re=[TINY_BASE.initial_reputation] * 7)  # beta1 = 2
    assert _holds(unmoved)["beta1"] is False
    assert sens.first_task_claims(unmoved)[4].finding.endswith("steps the other way")
    other = _with_first(tiny, 1, winners=center["winners"][::-1])  # theta = 0.2
    claims = _holds(other)
    assert claims["winners"] is False and claims["training"] is True
    assert (sens.first_task_claims(other)[0].finding
            == "differs from the center run in theta=0.2")
    retrained = _with_first(tiny, 5, rounds={"test_loss": [0.0, 0.0]})  # Re^0 = 0.3
    assert _holds(retrained)["training"] is False


# ---------------------------------------------------------------------- summaries

HAND = MultiTaskConfig(n_tasks=3, eval_from=1, groups=((1.0, 2), (0.1, 1)), budget=10.0)


def _record(task, winners, payments, loss):
    return {"task": task, "winners": winners, "payments": payments,
            "rounds": {"test_loss": [9.9, loss]}}


def test_outcomes_on_hand_made_records():
    run = MultiTaskResult(HAND, (_record(0, [2], [9.0], 2.0),
                                 _record(1, [0, 2], [3.0, 1.0], 0.5),
                                 _record(2, [0, 1], [4.0, 4.0], 0.3)), 1.0)
    out = sens.outcomes(run)
    assert out["share"] == 0.75  # 3 of the 4 evaluated selections have dacc 1.0
    assert out["loss"] == pytest.approx(0.4)
    assert out["winners"] == 2.0
    assert out["group_paid"] == {1.0: pytest.approx(5.5), 0.1: pytest.approx(0.5)}
    assert out["paid"] == pytest.approx(6.0) and out["used"] == pytest.approx(0.6)
    assert out["budget"] == 10.0 and out["max_paid"] == 9.0  # task 0 counts here


def _row(name, value, default, share, loss=0.5):
    return {"parameter": name, "value": value, "default": default, "share": share,
            "loss": loss, "paid": 1.0, "winners": 3.0}


ROWS = [_row("a", 1.0, False, 0.2), _row("a", 2.0, True, 0.5), _row("a", 3.0, False, 0.9),
        _row("b", 0.5, True, 0.5, loss=float("nan")), _row("b", 0.7, False, 0.5, loss=0.1),
        _row("c", -1.0, False, 0.25), _row("c", 0.0, True, 0.5), _row("d", 1.0, True, 0.5,
                                                                      loss=float("nan"))]


def test_effects_ranking_and_split():
    assert sens.effects(ROWS) == {"a": pytest.approx(0.7), "b": 0.0, "c": 0.25,
                                  "d": 0.0}
    loss = sens.effects(ROWS, "loss")
    assert loss["a"] == 0.0 and loss["b"] == 0.0 and np.isnan(loss["d"])
    assert [n for n, _ in sens.ranking(ROWS)] == ["a", "c", "b", "d"]
    assert [n for n, _ in sens.ranking(ROWS, "loss")][-1] == "d"  # NaN last
    assert sens.split_by_effect(ROWS, "share", 0.25) == (["a", "c"], ["b", "d"])
    assert [r["value"] for r in sens.rows_of(ROWS, "c")] == [-1.0, 0.0]
    with pytest.raises(ValueError, match="outcome"):
        sens.effects(ROWS, "bananas")
    with pytest.raises(ValueError, match="no rows"):
        sens.rows_of(ROWS, "z")


def test_rows_hold_the_center_once_per_parameter_and_the_budget(tiny, data_root):
    rows = sens.sensitivity_rows(tiny)
    assert [(r["parameter"], r["value"], r["default"]) for r in rows] == [
        ("theta", 0.2, False), ("theta", 0.4, True), ("theta", 0.6, False),
        ("beta1", 0.25, False), ("beta1", 0.5, True), ("beta1", 2.0, False),
        ("initial_reputation", 0.3, False), ("initial_reputation", 0.5, True)]
    center = sens.outcomes(tiny.center)
    assert all(r["share"] == center["share"] for r in rows if r["default"])
    with pytest.raises(ValueError, match="same base"):
        sens.sensitivity_rows(tiny, _budgets(replace(TINY_BASE, seed=1)))
    budgets = _budgets(TINY_BASE)
    with_budget = sens.sensitivity_rows(tiny, budgets)
    assert [r["value"] for r in with_budget if r["parameter"] == "budget"] == [6.0, 12.0]
    at_center = next(r for r in with_budget if r["parameter"] == "budget" and r["default"])
    assert budgets.runs[1].records == tiny.center.records  # the same run
    assert at_center["share"] == center["share"] and at_center["paid"] == center["paid"]


def _budgets(base):
    return BudgetSweepConfig(budgets=(6.0, 12.0), base=base).run()
