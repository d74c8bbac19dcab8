"""The Flower federation (fedlib.flower) against the batched engine, and with failing workers.

Two runs on Flower's Simulation Runtime (about 15 s each on 2 cores): the smoke-sized
federation through the command line, and the same with outages.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace

import numpy as np
import pytest

from fedlib.book import ROOT
from fedlib.cli import main
from fedlib.experiments.federation import fast_federation
from fedlib.experiments.multitask import MultiTaskConfig, run_multitask
from fedlib.fl.attacks import Attack
from fedlib.fl.records import RoundRecord
from fedlib.flower import MechanismStrategy, run_federation
from fedlib.flower.strategy import _widen
from fedlib.storage.comparison import compare_records

CONFIG = fast_federation(MultiTaskConfig(dataset="mnist", device="cpu"))


@pytest.fixture(scope="module")
def batched():
    return [json.loads(json.dumps(r)) for r in run_multitask(CONFIG).records]


@pytest.fixture(scope="module")
def flower(tmp_path_factory):
    """The Flower run, through ``python -m fedlib federate --fast``; its saved records."""
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
def outages(batched):
    """Task 1's first winner fails in round 0; the noisiest worker does not bid in task 2.
    Run with ``PYTHONPATH=/nowhere``; also returns the PYTHONPATH the run left behind."""
    failing = batched[1]["winners"][0]
    silent = CONFIG.daccs.size - 1
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", "/nowhere")
        result = run_federation(CONFIG, outages={(failing, 1, 0), (silent, 2, None)})
        left = os.environ.get("PYTHONPATH")
    return failing, silent, result, left


def test_a_run_leaves_the_callers_pythonpath_alone(outages):
    """Flower's Ray backend exports its sys.path as PYTHONPATH for the actors; a later
    subprocess of the caller (a fresh virtual environment, say) must not inherit it."""
    assert outages[3] == "/nowhere"


def test_a_failing_winner_submits_nothing_that_round(flower, outages):
    failing, _, result, _ = outages
    record, clean = result.records[1], flower[1]
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
    _, silent, result, _ = outages
    assert result.records[0] == json.loads(json.dumps(flower[0]))
    record = result.records[2]
    assert record["bids"][silent] is None and silent not in record["winners"]
    assert [-1, silent] in record["no_reply"]
    assert sum(record["payments"]) <= CONFIG.budget + 1e-9


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


def test_the_strategy_rejects_what_it_cannot_run():
    with pytest.raises(ValueError, match="attacks"):
        MechanismStrategy(replace(CONFIG, attacks=(Attack(kind="free_rider", workers=(0,)),)))
    with pytest.raises(ValueError, match="timeout"):
        MechanismStrategy(CONFIG, timeout=0)


def test_the_flwr_run_app_names_importable_components(tmp_path):
    """``flwr run flower_app`` validates this file and imports its components first; a broken
    component name fails the same check."""
    from flwr.cli.config_utils import load_and_validate

    app = ROOT / "flower_app" / "pyproject.toml"
    config, warnings = load_and_validate(app, check_module=True)
    assert config["tool"]["flwr"]["app"]["components"]["serverapp"] == (
        "fedlib.flower.app:server_app") and not warnings
    broken = tmp_path / "pyproject.toml"
    broken.write_text(app.read_text().replace("app:server_app", "app:no_such_app"))
    with pytest.raises(ValueError, match="no_such_app"):
        load_and_validate(broken, check_module=True)


def test_round_cost_gives_both_paths_the_same_cpus(monkeypatch):
    """``round_cost(cpus=...)`` bounds Flower's processes and the engine's threads alike (the
    chapter measures on one CPU each); by default both get every CPU."""
    from types import SimpleNamespace

    from fedlib.flower import round_cost, simulation

    seen = []

    def federation(config, *, strategy, cpus):
        strategy.task_seconds.extend([9.0, 6.0])
        seen.append(("flower", cpus))
        return SimpleNamespace(records=[{"winners": [0, 1]}] * 2)

    def multitask(config, on_task):
        seen.append(("batched", config.threads))
        for _ in range(2):
            on_task({})
        return SimpleNamespace(records=[{"winners": [0, 1]}] * 2)

    monkeypatch.setattr(simulation, "run_federation", federation)
    monkeypatch.setattr(simulation, "run_multitask", multitask)
    flower, batched = round_cost(2, rounds=3, cpus=1)
    assert seen == [("flower", 1), ("batched", 1)]
    assert flower == 2.0 and 0 <= batched < 1.0
    seen.clear()
    round_cost(2, rounds=3)
    assert seen == [("flower", os.cpu_count()), ("batched", os.cpu_count())]
