"""``python -m fedlib check-mechanism``: a mechanism in a file outside the repository, the
example of ``examples/`` from anywhere, the exit status and the usage errors."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from book import ROOT

from fedlib.cli import main

BROKEN = ROOT / "tests" / "conformance" / "broken_mechanisms.py"


@pytest.fixture
def outside(tmp_path) -> Path:
    """The broken mechanisms in a file outside the repository."""
    path = tmp_path / "my_mechanisms.py"
    shutil.copy(BROKEN, path)
    return path


def test_a_mechanism_that_keeps_its_claims_exits_0(outside, tmp_path, capsys):
    out = tmp_path / "certificates"
    assert main(["check-mechanism", f"{outside}:ExAnte", "--instances", "5", "--trials", "2",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith(f"ex_ante ({outside}:ExAnte): no counterexample to any claimed "
                              "property in this search\n")
    assert f"certificate: {out / 'ex_ante.json'} and {out / 'ex_ante.html'}" in printed
    saved = json.loads((out / "ex_ante.json").read_text())
    assert saved["passed"] and saved["search"]["random_cases"] == 5
    assert saved["comparison"]["trials"] == 2


def test_a_refuted_claim_exits_1_and_is_named(outside, tmp_path, capsys):
    assert main(["check-mechanism", f"{outside}:RewardsOverbidding", "--instances", "5",
                 "--trials", "0", "--out", str(tmp_path)]) == 1
    printed = capsys.readouterr().out
    assert "REFUTED: truthful, truthful_honest\n" in printed
    assert "bidding" in printed  # the counterexample, in words


def test_claims_given_on_the_command_line_replace_the_mechanisms(outside, tmp_path):
    assert main(["check-mechanism", f"{outside}:RewardsOverbidding", "--claims",
                 "budget_feasible", "ir", "--instances", "3", "--trials", "0",
                 "--out", str(tmp_path)]) == 0


@pytest.mark.parametrize("words, message", [
    (["nothing.py:X"], "error: no file 'nothing.py'\n"),
    (["fedlib.mechanism:select"], "error: function does not fit the mechanism protocol"),
    (["x.py"], "error: expected PATH.py:CLASS or MODULE:CLASS, got 'x.py'\n"),
    (["fedlib.mechanism:RRAFL", "--engine", "flower"],
     "error: --engine flower runs a federation: add --federated fast or mnist\n"),
    (["fedlib.mechanism:RRAFL", "--claims", "fair"], "invalid choice: 'fair'"),
    (["fedlib.mechanism:RRAFL", "--instances", "-1"], "--instances: must be at least 0"),
    (["fedlib.mechanism:RRAFL", "--federated", "cifar"], "invalid choice: 'cifar'"),
    (["fedlib.mechanism:RRAFL", "--replay", "ray"], "invalid choice: 'ray'"),
    (["fedlib.mechanism:RRAFL", "--replay", "flower", "--replay-runtime", "grpc"],
     "invalid choice: 'grpc'"),
])
def test_usage_errors_exit_2_with_one_line(words, message, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["check-mechanism", *words])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_missing_data_for_a_federation_exits_2_saying_how_to_get_it(tmp_path, monkeypatch,
                                                                     capsys):
    """Not 1, which says a claimed property failed; before the search, nothing written."""
    monkeypatch.setenv("FEDLIB_DATA", str(tmp_path))
    assert main(["check-mechanism", "fedlib.mechanism:RRAFL", "--federated", "fast",
                 "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("python -m fedlib check-mechanism: error: Dataset files not found")
    assert f"Looked in {tmp_path.resolve()} (from the FEDLIB_DATA variable)" in err
    assert "Traceback" not in err and not (tmp_path / "out").exists()


def test_a_class_that_does_not_fit_is_a_usage_error_naming_what_it_lacks(tmp_path, capsys):
    path = tmp_path / "half.py"
    path.write_text("class Half:\n    name = 'half'\n    def select(self, bids, Re, budget):\n"
                    "        pass\n")
    with pytest.raises(SystemExit) as stop:
        main(["check-mechanism", f"{path}:Half"])
    assert stop.value.code == 2
    assert ("error: Half does not fit the mechanism protocol: it lacks select(bids, Re, budget, "
            "*, costs=None, rng=None) (it takes select(self, bids, Re, budget)); pay(allocation, "
            "re); label (a str); claims") in capsys.readouterr().err


def test_the_example_runs_from_anywhere(tmp_path):
    """The file of ``examples/`` needs nothing but fedlib: copied into an empty folder, it is
    searched there."""
    shutil.copy(ROOT / "examples" / "reserve.py", tmp_path)
    done = subprocess.run([sys.executable, "-m", "fedlib", "check-mechanism",
                           "reserve.py:Reserve", "--instances", "3", "--trials", "0"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Reserve (80% of B) (reserve.py:Reserve): no counterexample "
                                  "to any claimed property in this search\n")
    assert (tmp_path / "certificates" / "reserve.html").exists()


def test_replay_without_flower_is_a_usage_error(monkeypatch, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *rest: None if name == "flwr" else real(name, *rest))
    with pytest.raises(SystemExit) as stop:
        main(["check-mechanism", "fedlib.mechanism:RRAFL", "--replay", "flower"])
    assert stop.value.code == 2
    assert ("error: --replay flower needs the Flower extra: pip install -r "
            "requirements-flower.txt") in capsys.readouterr().err


def _replayed(found, mechanism, runtime, shift):
    """A :class:`~fedlib.flower.counterexample_replay.Replay` of ``found`` as a federation
    would measure it, every payment off by ``shift`` (the federation runs in
    tests/flower/test_counterexample_replay.py)."""
    replaying = pytest.importorskip("fedlib.flower.counterexample_replay")
    plays = []
    for name, play in zip(found.play_names, found.plays, strict=True):
        utilities = np.array([play.utility(w, found.instance.costs[w])
                              for w in range(found.instance.n)])
        plays.append(replaying.PlayReplay(name, play, utilities, play.bids, play.re,
                                          tuple(np.flatnonzero(play.selected).tolist()),
                                          play.payments + shift, utilities))
    return replaying.Replay(found, runtime, tuple(plays))


@pytest.mark.parametrize("shift", [0.0, 0.5])
def test_replays_print_the_measured_beside_the_predicted_and_disagreement_exits_1(
        outside, tmp_path, monkeypatch, capsys, shift):
    """Each refuted claim's counterexample is replayed once per runtime (truthful_honest's is
    truthful's); a federation that measures other payments than the kit predicts says so."""
    replaying = pytest.importorskip("fedlib.flower.counterexample_replay")
    runs = []
    monkeypatch.setattr(replaying, "replay_counterexample",
                        lambda found, mechanism, runtime: runs.append(runtime)
                        or _replayed(found, mechanism, runtime, shift))
    assert main(["check-mechanism", f"{outside}:RewardsOverbidding", "--claims", "truthful",
                 "--instances", "0", "--trials", "0", "--out", str(tmp_path), "--replay",
                 "flower"]) == 1  # refuted, whatever the replay says
    printed = capsys.readouterr().out
    assert runs == ["simulation", "deployment"]
    assert "REFUTED: truthful, truthful_honest\n" in printed  # truthful implies the other
    assert ("replay: truthful_honest not replayed: its counterexample is truthful's, "
            "replayed above") in printed
    assert "truthful: worker 1 on Flower's deployment runtime" in printed
    disagrees = ("replay: the federation DISAGREES with the kit's prediction of truthful's "
                 "counterexample on the simulation runtime")
    assert (disagrees in printed) == (shift > 0)
