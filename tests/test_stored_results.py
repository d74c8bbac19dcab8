"""Every stored result in ``results/`` must be what the code at this commit computes.

Every ``results/*.json`` is recomputed in part at the stored (paper) scale on the CPU and
compared with the stored records (:func:`fedlib.storage.verification.check_fresh`): in the
environment that made the file, the same winners and decisions and every number to 1e-6
relative; in another one, within the measured cross-machine tolerance up to the first near
tie. How much of each file is recomputed is
:func:`fedlib.storage.verification.verification_plan`'s rule (whole tasks of the seed-0 tables,
the first rounds of the first task of every other file; its docstring says why), which keeps
CI's time within bounds as files are added.
A stale file fails here, so the book never shows numbers the code would not produce. Each
verification's tier, largest difference and verified prefix are printed at the end of the run.
The tamper tests below show that the check can fail, and the test of the files the book reads
names any that is missing, with the command that makes it.
"""

from __future__ import annotations

import json
import re
import shutil

import pytest
from book import toc_files

from fedlib.experiments import adversarial, budget_sweep, multitask, sensitivity
from fedlib.experiments.contribution import ContributionConfig
from fedlib.experiments.multitask import MultiTaskConfig
from fedlib.experiments.shapley_truth import ShapleyConfig
from fedlib.fl.task import TaskOptions
from fedlib.storage import results, stored, tolerance, verification

RESULTS = stored.results_dir()
FEDERATED_CHAPTER = "chapters/07_federated"
REPORT_CHAPTER = "chapters/08_reproducibility"
SENSITIVITY_CHAPTER = "chapters/13_sensitivity"
ADVERSARIAL_CHAPTER = "chapters/12_adversarial"
COLD_START_CHAPTER = "chapters/14_cold_start"
SHAPLEY_CHAPTER = "chapters/11_shapley"
SKEWED_CHAPTER = "chapters/15_skewed_data"
NAMES = sorted(str(path.relative_to(RESULTS).with_suffix(""))
               for path in RESULTS.rglob("*.json"))


#: Rounds of the first task verified in the Shapley ground truth (its least: one game).
SHAPLEY_ROUNDS = verification.least_rounds(ShapleyConfig())


def seed_of(name):
    """The seed in a stored result's name (``_s<seed>``), 0 when it names none."""
    found = re.search(r"_s(\d+)(?:_|$)", name.rsplit("/", 1)[-1])
    return int(found.group(1)) if found else 0


def _group(name):
    """Stored results whose first tasks are the same federated tasks (the same winners with the
    same inputs) share a group: one test process verifies them in turn with one task store, so
    the later ones read those tasks instead of training them again. RRAFL hires ours' winners;
    the MNIST sweeps' base runs start as ours' run; a run repeated on a second machine trains
    the same tasks as the book's; the seeds other than 0, verified by their first rounds, share
    a group per seed and dataset (their first rounds are other tasks than seed 0's)."""
    stem = name.rsplit("/", 1)[-1]
    seed = seed_of(stem)
    if seed:
        dataset = "fashion" if "fashion" in stem else "mnist"
        return f"{dataset}_s{seed}"
    if stem.startswith(("budgets_", "sensitivity_")):
        return "mnist_ours"
    if stem.startswith("coldstart_"):  # its default and carried runs start as ours' run
        return "fashion_ours"
    if stem.startswith("tables_"):
        return stem.removeprefix("tables_").replace("rrafl", "ours")
    return None


def _case(name):
    group = _group(name)
    return pytest.param(name, marks=[pytest.mark.xdist_group(group)] if group else [])


@pytest.fixture(scope="session")
def task_store(tmp_path_factory, worker_id):
    """A task store shared by the test processes of this run (xdist workers included)."""
    base = tmp_path_factory.getbasetemp()
    return (base if worker_id == "master" else base.parent) / "task_store"


@pytest.mark.slow
@pytest.mark.parametrize("name", [_case(name) for name in NAMES])
def test_stored_result_matches_the_code(name, data_root, record_property, task_store):
    config = json.loads((RESULTS / f"{name}.json").read_text())["config"]
    n_tasks, rounds, runs = verification.verification_plan(config)
    part = (f"all {n_tasks} task(s) verified" if rounds is None
            else f"the first {rounds} round{'s' if rounds > 1 else ''} verified")
    part += "" if runs is None else f" of the first {runs} runs"
    report = verification.check_fresh(name, RESULTS, n_tasks=n_tasks, task_store=task_store,
                                      rounds=rounds, runs=runs)
    stops = "; ".join(str(stop) for stop in report.stops) or part
    record_property("verification", f"{name}: {report.tier} tier, largest difference "
                                    f"{report.largest}; {stops}")
    assert report.ok and report.n_tasks == n_tasks
    assert report.foreign_ok, "the cross-machine rule must accept what the strict one accepts"


def test_seeds_are_read_from_the_names():
    assert [seed_of(n) for n in ("tables_mnist_ours", "tables_mnist_ours_s3",
                                 "tables_fashion_ours_carried_s12", "coldstart_fashion_ours_s2",
                                 "second_machine/tables_mnist_ours")] == [0, 3, 12, 2, 0]
    assert _group("tables_mnist_rrafl_s3") == _group("tables_mnist_vanilla_s3") == "mnist_s3"


def test_results_the_book_reads_exist():
    """Every result that a chapter of the book reads is stored."""
    second = {f"{stored.SECOND_MACHINE}/{name}": config
              for name, config in stored.second_machine_results().items()}
    readers = {FEDERATED_CHAPTER: lambda: {**stored.federated_results(), **second},
               REPORT_CHAPTER: stored.report_results,
               SENSITIVITY_CHAPTER: stored.sensitivity_results,
               ADVERSARIAL_CHAPTER: stored.adversarial_results,
               COLD_START_CHAPTER: stored.coldstart_results,
               SHAPLEY_CHAPTER: lambda: {ShapleyConfig().result_name(): ShapleyConfig()},
               SKEWED_CHAPTER: stored.noniid_results}
    wanted = {name: config for chapter, read in readers.items() if chapter in toc_files()
              for name, config in read().items()}
    missing = {name: config for name, config in wanted.items()
               if not (RESULTS / f"{name}.json").exists()}
    commands = sorted({results.reproduce_command(config, f"results/{name}".rsplit("/", 1)[0])
                       for name, config in missing.items()})
    assert not missing, f"missing {sorted(missing)}; create them with: {'; '.join(commands)}"


@pytest.fixture(scope="module")
def small_results(data_root, tmp_path_factory):
    """Small stored results of the two kinds the chapter reads, saved as the CLI saves them."""
    folder = tmp_path_factory.mktemp("results")
    tables = MultiTaskConfig(dataset="mnist", device="cpu").fast()
    run = multitask.run_multitask(tables)
    results.save_result(tables.result_name(), tables, run.records, folder,
                        wall_time_s=run.wall_time_s)
    sweep = budget_sweep.BudgetSweepConfig(
        budgets=(30.0, 60.0), base=MultiTaskConfig(n_tasks=20, device="cpu")).fast()
    swept = sweep.run()
    results.save_result(sweep.result_name(), sweep, swept.records, folder,
                        wall_time_s=swept.wall_time_s)
    return folder, tables.result_name(), sweep.result_name()


def _tampered(folder, name, tmp_path, change):
    copy = tmp_path / f"{name}.json"
    shutil.copy(folder / f"{name}.json", copy)
    payload = json.loads(copy.read_text())
    change(payload["records"])
    copy.write_text(json.dumps(payload))
    return tmp_path


def _nudge_payment(records):
    records[1]["payments"][0] *= 1 + 1e-5


def _swap_winners(records):
    winners = records[0]["winners"]
    winners[0], winners[1] = winners[1], winners[0]


def _nudge_sweep_loss(records):
    records[0]["runs"][1]["rounds"]["test_loss"][-1] *= 1 - 1e-5


def test_fresh_small_results_pass(small_results):
    folder, tables, sweep = small_results
    assert verification.check_fresh(tables, folder).ok
    assert verification.check_fresh(sweep, folder).ok


@pytest.mark.parametrize("kind, change", [("tables", _nudge_payment),
                                          ("tables", _swap_winners),
                                          ("sweep", _nudge_sweep_loss)])
def test_a_tampered_result_fails(small_results, tmp_path, kind, change):
    folder, tables, sweep = small_results
    name = tables if kind == "tables" else sweep
    tampered = _tampered(folder, name, tmp_path, change)
    with pytest.raises(verification.StaleResultError, match=r"is stale(.|\n)*Regenerate it: "):
        verification.check_fresh(name, tampered)


def test_a_change_below_the_tolerance_passes(small_results, tmp_path):
    folder, tables, _ = small_results

    def tiny(records):
        records[1]["payments"][0] *= 1 + 1e-9

    assert verification.check_fresh(tables, _tampered(folder, tables, tmp_path, tiny)).ok


def _store(tmp_path_factory, config):
    """Run ``config`` (a registered experiment) and save it as the CLI does; its folder and
    name."""
    folder, name = tmp_path_factory.mktemp("stored"), config.result_name()
    run = config.run()
    results.save_result(name, config, run.records, folder, wall_time_s=run.wall_time_s)
    return folder, name


@pytest.fixture(scope="module")
def small_sensitivity(data_root, tmp_path_factory):
    """A small stored sensitivity sweep (two runs)."""
    return _store(tmp_path_factory, sensitivity.SensitivityConfig(
        values={"beta2": (0.5,)}, base=MultiTaskConfig(n_tasks=20, device="cpu")).fast())


def test_a_stored_sensitivity_sweep_is_verified(small_sensitivity, tmp_path):
    folder, name = small_sensitivity
    assert verification.check_fresh(name, folder).ok
    tampered = _tampered(folder, name, tmp_path, _nudge_sweep_loss)  # the beta2 run
    with pytest.raises(verification.StaleResultError, match="is stale"):
        verification.check_fresh(name, tampered)


def _nudge_center_loss(records):
    records[0]["runs"][0]["rounds"]["test_loss"][-1] *= 1 - 1e-5


def test_a_verification_of_the_first_runs_checks_those_runs_only(small_sensitivity, tmp_path):
    folder, name = small_sensitivity
    (tmp_path / "later").mkdir(), (tmp_path / "first").mkdir()
    later = _tampered(folder, name, tmp_path / "later", _nudge_sweep_loss)  # the beta2 run
    assert verification.check_fresh(name, later, runs=1).ok
    with pytest.raises(verification.StaleResultError, match="of its first 2 run"):
        verification.check_fresh(name, later, runs=2)
    first = _tampered(folder, name, tmp_path / "first", _nudge_center_loss)
    with pytest.raises(verification.StaleResultError, match="of its first 1 run"):
        verification.check_fresh(name, first, runs=1)


def test_runs_beyond_a_grid_or_of_no_grid_are_refused(small_sensitivity, small_results):
    folder, name = small_sensitivity
    with pytest.raises(ValueError, match="between 1 and the grid's 2 runs, got 3"):
        verification.verify_result(name, 1, folder, runs=3)
    folder, tables, _ = small_results
    with pytest.raises(ValueError, match="runs applies to a grid of runs"):
        verification.verify_result(tables, 1, folder, runs=1)


@pytest.fixture(scope="module")
def small_adversarial(data_root, tmp_path_factory):
    """A small stored adversarial scenario (one mechanism)."""
    return _store(tmp_path_factory, adversarial.AdversarialConfig(
        mechanisms=("ours",), base=adversarial.scenario_base(device="cpu")).fast())


def test_a_stored_adversarial_scenario_is_verified(small_adversarial, tmp_path):
    folder, name = small_adversarial
    assert verification.check_fresh(name, folder).ok

    def nudge(records):
        records[1]["runs"][0]["payments"][0] += 1e-3

    with pytest.raises(verification.StaleResultError, match="is stale"):
        verification.check_fresh(name, _tampered(folder, name, tmp_path, nudge))


@pytest.fixture(scope="module")
def small_shapley(data_root, tmp_path_factory):
    """A small stored Shapley ground truth (four workers, two rounds, 200 validation images)."""
    return _store(tmp_path_factory, ShapleyConfig(
        ContributionConfig(seeds=(0,), n_samples=100, n_val=200, n_test=100,
                           task=TaskOptions(rounds=2), device="cpu"),
        workers=4, mc_permutations=3, curve_permutations=8))


def _nudge_shapley(by):
    def change(records):
        records[0]["rounds"]["shapley"][0][1] += by
    return change


def test_a_stored_shapley_ground_truth_is_verified_by_its_first_round(small_shapley, tmp_path):
    folder, name = small_shapley
    report = verification.check_fresh(name, folder, 1, rounds=SHAPLEY_ROUNDS)
    assert report.ok and report.tier == "same" and report.foreign_ok
    assert report.largest.startswith("none")  # bit for bit, wall times left out
    with pytest.raises(verification.StaleResultError, match=r"is stale(.|\n)*shapley\[0\]\[1\]"):
        verification.check_fresh(name, _tampered(folder, name, tmp_path, _nudge_shapley(1e-5)),
                                 1, rounds=SHAPLEY_ROUNDS)

    def after_the_first_round(records):  # round 2 and the task's means are not recomputed
        records[0]["rounds"]["shapley"][1][1] += 0.1
        records[0]["task"]["shapley"][1] += 0.1

    later = tmp_path / "later"
    later.mkdir()
    assert verification.check_fresh(name, _tampered(folder, name, later, after_the_first_round),
                                    1, rounds=SHAPLEY_ROUNDS).ok


@pytest.mark.parametrize("share, passes", [(0.5, True), (1.5, False)])
def test_a_shapley_value_on_another_machine_is_held_to_its_tolerance(small_shapley, tmp_path,
                                                                     share, passes):
    """Under the cross-machine rule a Shapley value may move by its tolerance (validation
    samples of :data:`~fedlib.storage.tolerance.SHAPLEY_SAMPLES`), not beyond."""
    folder, name = small_shapley
    config = json.loads((folder / f"{name}.json").read_text())["config"]
    allowed = tolerance.foreign_drifts(config)["shapley"].after(SHAPLEY_ROUNDS).atol
    tampered = _tampered(folder, name, tmp_path, _nudge_shapley(share * allowed))
    if passes:
        assert verification.check_fresh(name, tampered, 1, rounds=SHAPLEY_ROUNDS,
                                        tier="foreign").ok
    else:
        with pytest.raises(verification.StaleResultError, match="cross-machine tolerance"):
            verification.check_fresh(name, tampered, 1, rounds=SHAPLEY_ROUNDS, tier="foreign")
