"""Two tiers of verification: the same environment to 1e-6, another one within the measured
cross-machine tolerance up to the first near tie; and the mutations the foreign tier must reject.
"""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
import torch

from fedlib.experiments import multitask, run_state
from fedlib.experiments.multitask import MultiTaskConfig
from fedlib.experiments.shapley_truth import ShapleyConfig
from fedlib.fl.task import TaskOptions
from fedlib.mechanism import mechanisms
from fedlib.storage import comparison, environment, results, tolerance, verification
from fedlib.storage.comparison import Comparison, Stop
from fedlib.storage.tolerance import Drift, Tolerance

FAST = MultiTaskConfig(dataset="mnist", device="cpu").fast()
NAME = FAST.result_name()
#: The near-tie width of round 1 of a task of an MNIST run (two rounds of training behind it).
NEAR = tolerance.near_tie_width("mnist", 2)
WIDTHS = [tolerance.near_tie_width("mnist", r + 1) for r in range(2)]


def test_tolerance_is_relative_plus_absolute():
    tol = Tolerance(1e-3, 1e-6)
    assert tol.allowed(1.0) == pytest.approx(1.001e-3) and tol.allowed(-2.0) == 2.001e-3
    assert tol.allowed(0.0) == 1e-6


def test_a_drift_grows_per_round_up_to_its_cap():
    drift = Drift(1e-6, 1e-8, growth=4.0, cap=0.5)
    assert drift.after(1) == Tolerance(1e-6, 1e-8) == drift.after(0)
    assert drift.after(3).rtol == pytest.approx(1.6e-5) and drift.after(3).atol == 1.6e-7
    assert drift.after(40) == Tolerance(0.5, 0.5)


def test_a_later_round_of_a_chaotic_run_is_allowed_more():
    comparison = Comparison(tolerance.FOREIGN_TOLERANCE["fashion"])
    comparison.values(2.0, 2.0 * (1 + 1e-3), "loss", "test_loss", rounds=1)
    assert len(comparison.mismatches) == 1 and "tolerance is" in comparison.mismatches[0]
    comparison.values(2.0, 2.0 * (1 + 1e-3), "loss", "test_loss", rounds=9)
    assert len(comparison.mismatches) == 1 and comparison.headroom > 1


def test_comparison_uses_the_tolerance_of_each_field():
    comparison = Comparison({"default": Drift(0.0, 0.0), "omega": Drift(0.0, 0.1)})
    comparison.values({"omega": [0.5], "re": [0.5]}, {"omega": [0.55], "re": [0.5]}, "r", "r")
    assert comparison.mismatches == []
    assert comparison.by_field()["omega"] == pytest.approx((0.05, 0.1))
    assert set(comparison.drift) == {("omega", 1), ("re", 1)}
    comparison.values({"re": [0.5]}, {"re": [0.50001]}, "r", "r")
    assert comparison.mismatches[0].startswith("r.re[0]: stored 0.5, recomputed 0.50001")
    assert "in omega" in comparison.largest()
    comparison.values({"a": 1}, {"a": 1, "extra": 2}, "r", "r")  # not evidence: a mismatch
    assert comparison.mismatches[-1].startswith("r: keys")


def test_wall_times_are_not_compared():
    measured = Comparison(tolerance.SAME_TOLERANCE)
    measured.values({"seconds": {"shapley": 1.0}, "v_full": [0.5]},
                    {"seconds": {"shapley": 9.0}, "v_full": [0.5]}, "r", "r")
    assert measured.mismatches == [] and set(measured.drift) == {("v_full", 1)}


def test_the_shapley_tolerance_counts_validation_samples():
    config = ShapleyConfig().to_dict()
    drifts = tolerance.foreign_drifts(config)
    sample = tolerance.SHAPLEY_SAMPLES.atol / config["n_val"]
    for name, utilities in (("local", 1), ("loo", 2), ("shapley", 2), ("mc_error", 4)):
        assert drifts[name].after(1).atol == pytest.approx(utilities * sample)
    # ours and the benchmark are contributions of Eq. (3), as omega is in the Tables runs
    family = tolerance.FOREIGN_TOLERANCE["mnist"]
    assert drifts["ours"] == drifts["equal"] == family["omega"]
    assert drifts["default"] == family["default"]
    fast = tolerance.foreign_drifts(ShapleyConfig().fast().to_dict())  # 500 validation images
    assert fast["shapley"].atol == pytest.approx(10 * drifts["shapley"].atol)
    loss = tolerance.foreign_drifts(replace(ShapleyConfig(), utility="neg_loss").to_dict())
    assert loss["shapley"].atol == pytest.approx(
        2 * np.log(10) * tolerance.FOREIGN_TOLERANCE["mnist"]["test_loss"].rtol)
    assert tolerance.foreign_drifts(FAST.to_dict()) is tolerance.FOREIGN_TOLERANCE["mnist"]


def _task(passed, margins, n_pass=None, winners=(0, 1), test_loss=(1.0, 0.9)):
    """A task record of two winners over two rounds (hand-made)."""
    return {"task": 0, "winners": list(winners), "bids": [1.0, 2.0], "payments": [1.0, 1.0],
            "contribution": [0.5, 0.4], "n_pass": n_pass or [sum(r[0] for r in passed),
                                                              sum(r[1] for r in passed)],
            "n_fail": [0, 0], "re": [0.3, 0.2], "Re": [0.5, 0.5],
            "rounds": {"passed": passed, "margin": margins, "test_loss": list(test_loss)}}


def test_a_flip_within_the_near_tie_width_stops_the_comparison():
    stored = _task([[True, True], [True, True]], [[0.1, 0.2], [0.1, NEAR / 2]])
    fresh = _task([[True, True], [True, False]], [[0.1, 0.2], [0.1, -NEAR / 2]],
                  test_loss=(1.0, 5.0))  # round 1 is past the stop: not compared
    assert comparison._loo_flip(stored, fresh, WIDTHS, "t") == (1, [-NEAR / 2], "")
    flipped = _task([[True, True], [True, False]], [[0.1, 0.2], [0.1, -10 * NEAR]])
    round_, _, problem = comparison._loo_flip(stored, flipped, WIDTHS, "t")
    assert round_ == 1 and "differs with margin(s)" in problem
    measured = Comparison(tolerance.FOREIGN_TOLERANCE["mnist"])
    config = MultiTaskConfig(groups=((1.0, 2),), task=TaskOptions(rounds=2), device="cpu")
    stop = comparison.walk_run(config, [stored], [fresh], measured)
    assert (stop.task, stop.round) == (0, 1) and "within the near-tie width" in stop.why


def test_an_old_record_compared_as_the_fresh_side_is_judged_by_the_stored_margins():
    """A second machine's file stored before margins were recorded, compared with a newer run
    (chapter 07's drift between machines): the newer run's margins judge the flip."""
    stored = _task([[True, True], [True, True]], [[0.1, 0.2], [0.1, NEAR / 2]])
    old = _task([[True, True], [True, False]], [[0.1, 0.2], [0.1, -NEAR / 2]])
    del old["rounds"]["margin"]
    assert comparison._loo_flip(stored, old, WIDTHS, "t") == (1, [NEAR / 2], "")
    measured = Comparison(tolerance.FOREIGN_TOLERANCE["mnist"])
    config = MultiTaskConfig(groups=((1.0, 2),), task=TaskOptions(rounds=2), device="cpu")
    stop = comparison.walk_run(config, [stored], [old], measured)
    assert (stop.task, stop.round) == (0, 1) and not measured.mismatches
    stored["rounds"]["margin"][1][1] = 10 * NEAR
    assert "differs with margin(s)" in comparison._loo_flip(stored, old, WIDTHS, "t")[2]


def test_an_old_record_without_decisions_is_judged_by_its_pass_counts():
    stored = _task([[True, True], [True, True]], [[0.1, 0.2], [0.1, 0.2]])
    for key in ("passed", "margin"):
        del stored["rounds"][key]
    near_tie = _task([[True, True], [True, False]], [[0.1, 0.2], [0.1, -NEAR / 3]])
    assert comparison._loo_flip(stored, near_tie, WIDTHS, "t") == (1, [-NEAR / 3], "")
    clear = _task([[True, True], [True, False]], [[0.1, 0.2], [0.1, -1.0]])
    assert "none of their decisions" in comparison._loo_flip(stored, clear, WIDTHS, "t")[2]


def _auction_record(config, Re):
    allocation = multitask.auction(config, 0, Re)
    return {"task": 0, "winners": allocation.winners.tolist(),
            "bids": multitask.draw_bids(config, 0).tolist()}


def test_other_winners_are_a_near_tie_only_if_the_stored_inputs_give_the_stored_ones():
    config = MultiTaskConfig(device="cpu")
    Re = np.full(30, config.initial_reputation)
    stored = _auction_record(config, Re)
    fresh = {**stored, "winners": stored["winners"][:-1]}
    measured = Comparison(tolerance.FOREIGN_TOLERANCE["mnist"])
    stop = comparison.walk_run(config, [stored], [fresh], measured)
    assert stop == Stop(0, 0, None, stop.why) and measured.mismatches == []
    tampered = {**stored, "winners": stored["winners"][::-1]}
    measured = Comparison(tolerance.FOREIGN_TOLERANCE["mnist"])
    assert comparison.walk_run(config, [tampered], [stored], measured) is None
    assert "no longer selects the stored winners" in measured.mismatches[0]


def test_the_near_tie_width_grows_with_the_rounds_behind_a_decision():
    widths = [tolerance.near_tie_width("fashion", r) for r in (1, 5, 10)]
    assert widths[0] < widths[1] < widths[2]
    assert widths[0] < 1e-4, "a first-round decision is a near tie only within float noise"


def test_a_stop_covers_a_prefix():
    assert Stop(0, 0, 3, "").covers((0, 3)) and not Stop(0, 0, 2, "").covers((0, 3))
    assert Stop(0, 1, None, "").covers((0, 3)) and not Stop(0, 0, None, "").covers((0, 1))


def test_the_tier_can_be_forced(monkeypatch):
    monkeypatch.setenv("FEDLIB_VERIFY_TIER", "foreign")
    assert verification.requested_tier() == "foreign"
    monkeypatch.setenv("FEDLIB_VERIFY_TIER", "sideways")
    with pytest.raises(ValueError, match="FEDLIB_VERIFY_TIER"):
        verification.requested_tier()


def test_the_fingerprint_names_what_decides_the_rounding(monkeypatch):
    here = environment.fingerprint("cpu", 1)
    assert {"cpu_vendor", "cpu_model", "isa", "torch", "numpy", "threads",
            "lock_sha256"} <= set(here)
    assert environment.same_environment(here, environment.fingerprint("cpu", 1))
    assert not environment.same_environment(here, environment.fingerprint("cpu", 2))
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "AVX")
    lowered = environment.fingerprint("cpu", 1)
    assert lowered["isa_overrides"] == {"ONEDNN_MAX_CPU_ISA": "AVX"}
    assert not environment.same_environment(here, lowered)
    assert "ONEDNN_MAX_CPU_ISA=AVX" in environment.describe(lowered)


# ------------------------------------------------------------- real runs, both tiers


@pytest.fixture(scope="module")
def stored(data_root, tmp_path_factory):
    """The smoke-sized run of ours on MNIST, saved as the command saves it."""
    folder = tmp_path_factory.mktemp("verified")
    run = multitask.run_multitask(FAST)
    results.save_result(NAME, FAST, run.records, folder, wall_time_s=run.wall_time_s)
    return folder


def test_this_environment_verifies_its_own_result_under_both_tiers(stored, monkeypatch):
    same = verification.check_fresh(NAME, stored)
    assert same.tier == "same" and same.ok and same.stops == () and same.foreign_ok
    monkeypatch.setenv("FEDLIB_VERIFY_TIER", "foreign")
    foreign = verification.check_fresh(NAME, stored)
    assert foreign.tier == "foreign" and foreign.ok and foreign.largest.startswith("none")


def test_a_result_without_a_fingerprint_is_refused_with_its_command(stored, tmp_path):
    payload = json.loads((stored / f"{NAME}.json").read_text())
    del payload["environment"]
    (tmp_path / f"{NAME}.json").write_text(json.dumps(payload))
    with pytest.raises(ValueError, match="records no environment fingerprint.*regenerate it "
                       "with its command, 'python -m fedlib reproduce --config"):
        verification.verify_result(NAME, results_dir=tmp_path)


#: The mutations run one task at the paper's scale of a task (1000 samples per worker, 10 rounds,
#: 5000 validation and test images), with Re^0 = 1 so that the first task's payments depend on
#: the reading of p' (with Re^0 = 0.5 they are capped by p_up in the first tasks, whatever p').
MUTATED = MultiTaskConfig(dataset="mnist", n_tasks=1, initial_reputation=1.0, device="cpu")


@pytest.fixture(scope="module")
def unchanged(data_root):
    return json.loads(json.dumps(list(multitask.run_multitask(MUTATED).records)))


def _flip_more_labels(monkeypatch, count=10):
    """Wrap the worker pool so that the first winner of task 0 trains on ``count`` more wrong
    labels (of its 1000). One more wrong label moves the first task by about a sixth of the
    cross-machine tolerance (1.6 times the largest drift measured between two CPUs): the
    foreign tier cannot tell it from another machine's rounding; ten it can."""
    make_pool = multitask.iid_workers
    Re = np.full(30, MUTATED.initial_reputation)
    first = int(multitask.auction(MUTATED, 0, Re).winners[0])

    def pool(*args, **kwargs):
        workers = make_pool(*args, **kwargs)
        clean = np.flatnonzero((workers.labels[first] == workers.clean_labels[first]).numpy())
        chosen = torch.from_numpy(clean[:count])
        workers.labels[first, chosen] = (workers.labels[first, chosen] + 1) % 10
        return workers

    monkeypatch.setattr(multitask, "iid_workers", pool)


def _options(**changes):
    return lambda patch: replace(MUTATED, task=replace(MUTATED.task, **changes))


MUTATIONS = {
    "lr 0.05 -> 0.0505": _options(lr=0.0505),
    "leave-one-out delta + 0.001": _options(delta=MUTATED.task.delta + 0.001),
    "the p' denominator reading swapped": lambda patch: patch.setattr(  # where runs pay
        run_state, "MECHANISMS", {**mechanisms.MECHANISMS,
                                  "ours": mechanisms.OurMechanism(temp_denominator="Re")}),
    "ten more flipped labels in one worker": _flip_more_labels,
}


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_the_foreign_tier_rejects_a_changed_code(mutation, unchanged, monkeypatch):
    with monkeypatch.context() as patch:
        changed = MUTATIONS[mutation](patch)
        run = multitask.run_multitask(changed if isinstance(changed, MultiTaskConfig)
                                      else MUTATED)
    mutated = json.loads(json.dumps(list(run.records)))
    measured, stops = comparison.compare_records(MUTATED.to_dict(), mutated, unchanged,
                                                 "foreign")
    assert measured.mismatches, f"{mutation} passed as drift: {measured.largest()}"
    assert not [stop for stop in stops if stop.task == 0 and stop.round == 0]


def test_a_foreign_failure_says_so_and_keeps_the_stored_file(stored, tmp_path):
    payload = json.loads((stored / f"{NAME}.json").read_text())
    payload["records"][1]["rounds"]["test_loss"][0] *= 1.1
    (tmp_path / f"{NAME}.json").write_text(json.dumps(payload))
    with pytest.raises(verification.StaleResultError) as raised:
        verification.check_fresh(NAME, tmp_path, tier="foreign")
    message = str(raised.value)
    assert "differs beyond the cross-machine tolerance" in message and "test_loss" in message
    assert f"Do not overwrite {tmp_path}" in message and "Regenerate" not in message
    assert "reproduce --config" in message and "--out /tmp/fedlib-replay" in message


def test_tolerance_rows_cover_every_trained_field_and_grow():
    rows = tolerance.tolerance_rows((1, 5, 10))
    assert len(rows) == sum(len(tolerance.FOREIGN_TOLERANCE[f]) for f in ("mnist", "fashion"))
    for row in rows:
        values = [float(row[k]) for k in ("after 1 round", "after 5 rounds", "after 10 rounds")]
        assert values == sorted(values) and values[0] > 0, row


def test_training_per_round_counts_epochs_step_size_and_momentum():
    """A round of the paper (1 epoch, lr 0.05, plain SGD) counts 1; the noise of a round grows
    with its epochs and its step size: 5 epochs 5, lr 0.1 2, momentum 0.9 (steps about ten
    times larger) 10, and they multiply (2 epochs at lr 0.1: 4; lr 0.06: 1.2, rounded up to 2)."""
    count = comparison.training_per_round
    assert count(TaskOptions()) == 1 and count(TaskOptions(epochs=5)) == 5
    assert count(TaskOptions(lr=0.1)) == 2 and count(TaskOptions(momentum=0.9)) == 10
    assert count(TaskOptions(epochs=2, lr=0.1)) == 4 and count(TaskOptions(lr=0.06)) == 2


# ---------------------------------------------------------- the first rounds of a seed

#: A small multi-task run long enough to verify by its first rounds (four rounds per task).
ROUNDED = replace(FAST, task=replace(FAST.task, rounds=4), n_tasks=2)


@pytest.fixture(scope="module")
def rounded(data_root, tmp_path_factory):
    folder = tmp_path_factory.mktemp("rounded")
    run = multitask.run_multitask(ROUNDED)
    results.save_result(ROUNDED.result_name(), ROUNDED, run.records, folder,
                        wall_time_s=run.wall_time_s)
    return folder, ROUNDED.result_name()


def _edited(folder, name, tmp_path, change):
    payload = json.loads((folder / f"{name}.json").read_text())
    change(payload["records"])
    (tmp_path / f"{name}.json").write_text(json.dumps(payload))
    return tmp_path


def test_the_first_rounds_of_a_shorter_task_are_those_of_the_longer_one(rounded):
    folder, name = rounded
    stored = json.loads((folder / f"{name}.json").read_text())["records"]
    short = multitask.run_multitask(verification.with_rounds(ROUNDED, 3))
    assert verification.round_prefix(stored, 3) == verification.round_prefix(short.records, 3)


@pytest.mark.parametrize("tier", ["same", "foreign"])
def test_a_verification_by_rounds_checks_the_first_rounds_only(rounded, tmp_path, tier):
    folder, name = rounded
    assert verification.check_fresh(name, folder, 1, rounds=3, tier=tier).ok

    def in_prefix(records):
        records[0]["rounds"]["test_loss"][2] *= 1 + 1e-2

    def after_prefix(records):  # round 4 and the task's totals are not compared
        records[0]["rounds"]["test_loss"][3] *= 1 + 1e-2
        records[0]["payments"][0] *= 2

    with pytest.raises(verification.StaleResultError, match="first task's first 3 rounds"):
        verification.check_fresh(name, _edited(folder, name, tmp_path, in_prefix), 1, rounds=3,
                                 tier=tier)
    later = tmp_path / "later"
    later.mkdir()
    assert verification.check_fresh(name, _edited(folder, name, later, after_prefix), 1,
                                    rounds=3, tier=tier).ok


def test_a_verification_by_rounds_covers_at_least_the_least_prefix(rounded):
    folder, name = rounded
    with pytest.raises(ValueError, match="at least 2 rounds"):
        verification.verify_result(name, 1, folder, rounds=1)
    with pytest.raises(ValueError, match="n_tasks = 1"):
        verification.verify_result(name, 2, folder, rounds=3)


def test_with_rounds_reaches_a_grids_base_and_shapley_tasks_and_refuses_single_tasks():
    from fedlib.experiments.contribution import ContributionConfig
    from fedlib.experiments.sensitivity import SensitivityConfig

    grid = verification.with_rounds(SensitivityConfig(base=ROUNDED), 3)
    assert grid.base.task.rounds == 3 and all(run.task.rounds == 3
                                              for run in grid.run_configs())
    with pytest.raises(ValueError, match="no multi-task runs"):
        verification.with_rounds(ContributionConfig(), 3)
    shapley = verification.with_rounds(ShapleyConfig(), 1)
    assert shapley.contribution.task.rounds == 1 and verification.least_rounds(shapley) == 1


@pytest.mark.parametrize("runs,tied,passes", [
    (2, {1}, True),       # one run parts at round 1, the other is verified through the prefix
    (8, {4}, True),       # the cold-start map's eight runs, its run 4 tied
    (2, {0, 1}, False),   # no run of the file reaches the prefix
    (1, {0}, False),      # a file of one run that parts before the prefix
])
def test_a_file_is_verified_through_the_least_prefix_as_a_whole(monkeypatch, runs, tied,
                                                                 passes):
    """A near tie at round 1 of a file's run (a leave-one-out margin within float noise, as a
    CPU kind's rounding can meet) stops that run's verification there; the file passes when
    another of its runs is verified through the least prefix."""
    config = MultiTaskConfig(groups=((1.0, 2),), task=TaskOptions(rounds=2), device="cpu")
    stored = _task([[True, True], [True, True]], [[0.1, 0.2], [0.1, NEAR / 2]])
    tie = _task([[True, True], [True, False]], [[0.1, 0.2], [0.1, -NEAR / 2]])
    monkeypatch.setattr(comparison, "MIN_PREFIX", (0, 2))  # the hand-made runs have 2 rounds
    monkeypatch.setattr(comparison, "_runs", lambda *_: [
        (config, [stored], [tie if i in tied else stored]) for i in range(runs)])
    found, stops = comparison.compare_records(config.to_dict(), [stored], [stored], "foreign")
    assert [(s.run, s.task, s.round) for s in stops] == [(i, 0, 1) for i in sorted(tied)]
    assert (found.mismatches == []) == passes
    assert all("no run of the file" in m for m in found.mismatches)
