"""The Flower federation (fedlib.flower) on the Simulation Runtime, through ``flwr run``,
against the batched engine, and with failing workers; the strategy and the app bundle.

Two runs through ``flwr run`` against a SuperLink started for each, their ClientApps on the Ray
head the module shares (``shared_ray_head`` of tests/conftest.py, ``RAY_ADDRESS`` as
for a cluster): the smoke-sized federation through the command line, and the same with outages
(with the server's count of the requests each worker answered, and the runtime's logs). The
Deployment Runtime is checked by test_node_failure.py (a SuperLink, six SuperNodes, one
stopped mid-task, every process gone after the run) and by chapter 9.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch

pytest.importorskip("flwr", reason="the Flower tests need the flower extra: "
                    "pip install -r requirements-flower.txt")

from book import ROOT

import fedlib
from fedlib.cli import main
from fedlib.experiments.flower_presets import fast_federation
from fedlib.experiments.multitask import MultiTaskConfig, run_multitask
from fedlib.experiments.task_store import code_fingerprint
from fedlib.fl.attacks import Attack
from fedlib.fl.records import RoundRecord
from fedlib.flower import TaskPlan, federate
from fedlib.flower.messages import BID, PAYMENT, TRAIN
from fedlib.flower.publisher import run_tasks
from fedlib.flower.settings import RunSettings, run_config
from fedlib.flower.strategy import _widen
from fedlib.storage.comparison import compare_records
from fedlib.storage.results import json_values

#: Packages the type check does not follow (the strategy's types come from Flower and fedlib).
UNTYPED = ("torch", "torchvision", "numpy", "matplotlib", "ray", "grpc", "google", "scipy")
CONFIG = fast_federation(MultiTaskConfig(dataset="mnist", device="cpu"))


@pytest.fixture(scope="module")
def batched():
    return json_values(list(run_multitask(CONFIG).records))


@pytest.fixture(scope="module")
def flower(shared_ray_head, tmp_path_factory):
    """The Flower run, through ``python -m fedlib federate --fast`` (``flwr run`` on the
    Simulation Runtime); its saved records."""
    out = tmp_path_factory.mktemp("federation")
    assert main(["federate", "--engine", "flower", "--fast", "--out", str(out)]) == 0
    saved = json.loads((out / f"{CONFIG.result_name()}_flower.json").read_text())
    assert saved["config"] == CONFIG.to_dict()
    return saved["records"]


def test_flower_makes_the_batched_engines_decisions(batched, flower):
    assert len(flower) == CONFIG.n_tasks == 3
    for ours, theirs in zip(batched, flower, strict=True):
        assert theirs["winners"] == ours["winners"] and len(ours["winners"]) >= 2
        assert theirs["bids"] == ours["bids"]
        assert theirs["rounds"]["passed"] == ours["rounds"]["passed"]


def test_flower_numbers_agree_within_the_cross_machine_tolerance(batched, flower):
    comparison, stops = compare_records(CONFIG.to_dict(), batched, flower, "foreign")
    assert not comparison.mismatches and not stops
    for ours, theirs in zip(batched, flower, strict=True):
        np.testing.assert_allclose(theirs["payments"], ours["payments"], rtol=1e-5)
        np.testing.assert_allclose(theirs["Re"], ours["Re"], rtol=1e-5)
        np.testing.assert_allclose(theirs["rounds"]["test_loss"], ours["rounds"]["test_loss"],
                                   rtol=1e-4)


@pytest.fixture(scope="module")
def outages(batched, shared_ray_head):
    """Task 1's first winner fails in round 0; the noisiest worker does not bid in task 2."""
    failing = batched[1]["winners"][0]
    silent = CONFIG.daccs.size - 1
    run = federate(CONFIG, outages={(failing, 1, 0), (silent, 2, None)})
    return failing, silent, run


def test_a_failing_winner_submits_nothing_that_round(flower, outages):
    failing, _, run = outages
    record, clean = run.result.records[1], flower[1]
    assert record["winners"] == clean["winners"]
    i = record["winners"].index(failing)
    assert [0, failing] in record["no_reply"]
    assert record["rounds"]["passed"][0][i] is False and record["rounds"]["omega"][0][i] == 0
    assert record["rounds"]["margin"][0][i] is None
    assert record["n_fail"][i] == clean["n_fail"][i] + 1
    assert record["re"][i] < clean["re"][i]
    assert record["payments"][i] <= clean["payments"][i]
    assert sum(record["rounds"]["omega"][0]) == pytest.approx(1.0)


def test_a_worker_that_does_not_bid_is_left_out_and_nothing_before_is_lost(flower, outages):
    _, silent, run = outages
    assert run.result.records[0] == json_values(flower[0])
    record = run.result.records[2]
    assert record["bids"][silent] is None and silent not in record["winners"]
    assert [-1, silent] in record["no_reply"]
    assert sum(record["payments"]) <= CONFIG.budget + 1e-9



def test_the_server_counts_what_each_worker_answered_and_flower_warns_of_nothing(outages):
    failing, silent, run = outages
    records = run.result.records
    for w in range(CONFIG.daccs.size):
        won = sum(w in record["winners"] for record in records)
        expected = {BID: CONFIG.n_tasks - (w == silent),
                    TRAIN: CONFIG.task.rounds * won - (w == failing), PAYMENT: won}
        assert {kind: run.answered[w].get(kind, 0) for kind in expected} == expected
    assert any(failing in record["winners"] for record in records)
    assert {"superlink", "run_config_0"} <= set(run.logs)
    assert not run.deprecations()

def test_widen_fills_the_missing_winners_as_failed_checks():
    arrived = RoundRecord(0.5, np.array([0.1, -0.2]), np.array([True, False]),
                          np.array([0.105, -0.195]), np.array([1.0, 0.5]),
                          np.array([0.7, 0.6]), np.array([1.0, 0.0]), 0.3, 0.9, None)
    wide = _widen(arrived, [0, 2], 3)
    assert wide.passed.tolist() == [True, False, False]
    assert wide.contrib.tolist() == [1.0, 0.0, 0.5]
    assert wide.omega.tolist() == [1.0, 0.0, 0.0]
    assert np.isnan(wide.margin[1]) and wide.margin[2] == -0.195
    assert (wide.test_loss, wide.local_acc) == (0.3, None)


def test_the_publisher_and_the_plan_reject_what_they_cannot_run():
    grid = SimpleNamespace(get_node_ids=lambda: [])
    with pytest.raises(ValueError, match="attacks"):
        run_tasks(grid, replace(CONFIG, attacks=(Attack(kind="free_rider", workers=(0,)),)))
    with pytest.raises(ValueError, match="timeout"):
        run_tasks(grid, CONFIG, timeout=0)
    with pytest.raises(ValueError, match="one node per winner"):
        TaskPlan(0, (1, 2), (7,), torch.zeros(2, 2, 1, 4, dtype=torch.int64))
    with pytest.raises(ValueError, match="orders"):
        TaskPlan(0, (1, 2), (7, 8), torch.zeros(2, 3, 1, 4, dtype=torch.int64))


def test_the_run_configuration_names_the_run_and_the_code(tmp_path):
    """Both apps read the run from the run configuration: the named keys, or a whole
    configuration as JSON; outages and the code fingerprint come with it."""
    named = RunSettings.from_run_config({"fast": True, "tasks": 2, "out": str(tmp_path)})
    assert named.config == replace(CONFIG, n_tasks=2, eval_from=1) and not named.outages
    exact = run_config(replace(CONFIG, seed=4), str(tmp_path), timeout=30,
                       outages={(1, 0, None), (2, 1, 0)})
    settings = RunSettings.from_run_config({**exact, "code": code_fingerprint()})
    assert settings.config == replace(CONFIG, seed=4) and settings.timeout == 30
    assert settings.outages == {(1, 0, None), (2, 1, 0)}
    with pytest.raises(RuntimeError, match="other than the app bundle"):
        RunSettings.from_run_config({**exact, "code": "0" * 64})


def test_the_flwr_run_app_names_importable_components(tmp_path):
    """The app's pyproject.toml ships inside fedlib (package data, no checkout needed) with
    the run configuration the apps read; ``flwr run`` validates it and imports its components
    first, and a broken component name fails the same check."""
    from flwr.cli.config_utils import load_and_validate

    from fedlib.flower.launch import APP
    from fedlib.flower.settings import RUN_CONFIG

    assert Path(str(APP)).is_relative_to(Path(fedlib.__file__).parent)
    app = tmp_path / "pyproject.toml"
    app.write_text(APP.read_text())
    config, warnings = load_and_validate(app, check_module=True)
    assert config["tool"]["flwr"]["app"]["components"]["serverapp"] == (
        "fedlib.flower.app:server_app") and not warnings
    assert config["tool"]["flwr"]["app"]["config"] == RUN_CONFIG
    broken = tmp_path / "broken" / "pyproject.toml"
    broken.parent.mkdir()
    broken.write_text(APP.read_text().replace("app:server_app", "app:no_such_app"))
    with pytest.raises(ValueError, match="no_such_app"):
        load_and_validate(broken, check_module=True)


def test_a_mistyped_run_configuration_key_or_runtime_names_the_valid_ones():
    from fedlib.flower.simulation import RUNTIMES, federate, round_cost

    with pytest.raises(ValueError, match="unknown run configuration key.* fastt: correct "
                                         "--run-config .*reads dataset, mechanism, tasks"):
        RunSettings.from_run_config({"fastt": True})
    assert RUNTIMES == ("simulation", "deployment")
    with pytest.raises(ValueError, match="one of simulation, deployment, got 'simulaton'"):
        federate(CONFIG, runtime="simulaton")
    with pytest.raises(ValueError, match="got 'deploy'"):
        round_cost(2, runtimes=("simulation", "deploy"))


def test_the_app_bundle_carries_fedlib_and_its_fingerprint(tmp_path):
    """The staged app is what ``flwr run`` bundles: its pyproject.toml and every fedlib source,
    with the sources' fingerprint as the run configuration's ``code``."""
    import zipfile
    from io import BytesIO

    from flwr.cli.build import build_fab_from_disk

    from fedlib.flower.launch import stage_app

    fab = zipfile.ZipFile(BytesIO(build_fab_from_disk(stage_app(tmp_path / "app"))))
    names = set(fab.namelist())
    sources = {f"fedlib/{p.relative_to(ROOT / 'fedlib').as_posix()}"
               for p in (ROOT / "fedlib").rglob("*.py")}
    assert sources <= names and "fedlib/flower/strategy.py" in names
    assert code_fingerprint() in fab.read("pyproject.toml").decode()


def test_round_cost_gives_both_paths_the_same_cpus(monkeypatch):
    """``round_cost(cpus=...)`` bounds Flower's processes and the engine's threads alike (the
    chapter measures on one CPU each); by default both get every CPU."""
    from fedlib.flower import round_cost, simulation
    from fedlib.flower.publisher import FederationRun

    seen = []

    def federation(config, *, runtime, cpus):
        seen.append((runtime, cpus))
        records = ({"winners": [0, 1]},) * 2
        return FederationRun(SimpleNamespace(records=records), (9.0, 6.0))

    def multitask(config, on_task):
        seen.append(("batched", config.threads))
        for _ in range(2):
            on_task({})
        return SimpleNamespace(records=[{"winners": [0, 1]}] * 2)

    monkeypatch.setattr(simulation, "federate", federation)
    monkeypatch.setattr(simulation, "run_multitask", multitask)
    flower, batched = round_cost(2, rounds=3, cpus=1)
    assert seen == [("simulation", 1), ("batched", 1)]
    assert flower == 2.0 and 0 <= batched < 1.0
    seen.clear()
    round_cost(2, rounds=3)
    assert seen == [("simulation", os.cpu_count()), ("batched", os.cpu_count())]
    seen.clear()
    assert len(round_cost(2, rounds=3, runtimes=("deployment", "simulation"))) == 3
    assert [runtime for runtime, _ in seen] == ["deployment", "simulation", "batched"]


def test_the_strategy_keeps_flowers_strategy_contract():
    """Flower's own ``Strategy.start`` runs a task's rounds: the strategy does not override
    it, its hooks keep the base class's parameters and it leaves nothing abstract."""
    import inspect

    from flwr.serverapp.strategy import Strategy

    from fedlib.flower import MechanismStrategy

    assert "start" not in vars(MechanismStrategy) and not inspect.isabstract(MechanismStrategy)
    for hook in ("configure_train", "aggregate_train", "configure_evaluate",
                 "aggregate_evaluate", "summary"):
        ours, theirs = (inspect.signature(getattr(cls, hook))
                        for cls in (MechanismStrategy, Strategy))
        assert list(ours.parameters) == list(theirs.parameters), hook


def test_the_strategy_type_checks_as_a_flower_strategy(tmp_path):
    """mypy (requirements-tools.txt) finds no error in the strategy against Flower's typed
    Strategy, with no ``type: ignore`` in the module. Flower and fedlib are followed; torch,
    numpy and the like are taken as untyped, which changes nothing in the hooks' signatures and
    halves the time of the check."""
    api = pytest.importorskip("mypy.api", reason="needs the release extra: "
                              "pip install -r requirements-tools.txt")
    source = ROOT / "fedlib" / "flower" / "strategy.py"
    assert "type: ignore" not in source.read_text()
    settings = tmp_path / "mypy.ini"
    settings.write_text("[mypy]\nfollow_imports = silent\nignore_missing_imports = True\n"
                        f"[mypy-{','.join(f'{name}.*' for name in UNTYPED)}]\n"
                        "follow_imports = skip\n")
    report, errors, status = api.run([str(source), "--config-file", str(settings),
                                      "--cache-dir", str(tmp_path / "cache")])
    assert status == 0, report + errors
