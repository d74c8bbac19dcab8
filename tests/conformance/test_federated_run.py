"""A mechanism of one's own in the federated runs beside ours: on the batched engine, and in a
Flower federation whose Ray processes see it registered too."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from broken_mechanisms import ExAnte

from fedlib.conformance import check_mechanism, mechanism_check
from fedlib.conformance.federated_run import federated_config, run_federated
from fedlib.conformance.protocol import load
from fedlib.mechanism import MECHANISMS

HERE = Path(__file__).resolve().parent


def test_a_fast_federated_run_beside_ours(data_root):
    """Overspends selects on twice the budget, so it hires more of the six workers and pays
    more than ours; the runs are the batched engine's, with their records."""
    from broken_mechanisms import Overspends

    cert = check_mechanism(Overspends(), instances=0, trials=0, federated="fast")
    runs = cert.federated
    assert list(runs.runs) == ["ours", "overspends"] and runs.engine == "batched"
    ours, mine = runs.summary("ours"), runs.summary("overspends")
    assert ours["tasks"] == mine["tasks"] == 3
    assert mine["winners"] > ours["winners"] and mine["budget_used"] > 1 >= ours["budget_used"]
    assert runs.table().column("mechanism") == ["Our mechanism", "overspends"]
    assert "overspends" not in MECHANISMS


class FailsOnSix(ExAnte):
    """Keeps its claims on up to four workers, refuses six (the fast federation's)."""

    name = "fails_on_six"

    def select(self, bids, Re, budget, *, costs=None, rng=None):
        if len(bids) == 6:
            raise RuntimeError("six workers")
        return super().select(bids, Re, budget)


def test_a_mechanism_failing_in_the_federation_is_reported_not_raised(data_root):
    """Without the random instances and the paper's, the search never shows it six workers:
    its claims hold, and the federated run's fault is named as the comparison's would be."""
    cert = check_mechanism(FailsOnSix(), instances=0, trials=0, paper=False, federated="fast")
    assert cert.passed and cert.federated is None
    assert cert.skipped == {"federated": "stopped: RuntimeError: six workers"}
    assert "federated not run: stopped: RuntimeError: six workers" in cert.summary()


def test_the_environment_is_that_of_the_federated_runs_device(data_root, monkeypatch):
    """The runs' device and threads, here a setting on torch's "meta" device (known on any
    machine), the run itself left out."""
    monkeypatch.setattr(mechanism_check, "federated_config", lambda setting, seed: replace(
        federated_config(setting, seed), device="meta", threads=2))
    monkeypatch.setattr(mechanism_check, "run_federated", lambda config, *mechanisms, engine: None)
    cert = check_mechanism(ExAnte(), instances=0, trials=0, paper=False, federated="fast")
    assert cert.environment["device"] == "meta" and cert.environment["threads"] == 2


@pytest.mark.slow
def test_flower_runs_a_mechanism_from_a_file_as_the_batched_engine_does(data_root, tmp_path,
                                                                       shared_ray_head):
    """The file lies outside the repository: Ray's processes get the mechanism by value (on
    a Ray head named by RAY_ADDRESS, as on a cluster)."""
    shutil.copy(HERE / "broken_mechanisms.py", tmp_path / "mine.py")
    mechanism = load(f"{tmp_path / 'mine.py'}:Overspends")
    config = federated_config("fast")
    flower = run_federated(config, mechanism, engine="flower", reference=())
    batched = run_federated(config, mechanism, reference=())
    for a, b in zip(flower.runs["overspends"].records, batched.runs["overspends"].records,
                    strict=True):
        assert a["winners"] == b["winners"]
        assert np.allclose(a["payments"], b["payments"], rtol=1e-4)


def test_an_unknown_setting_or_engine_is_refused():
    with pytest.raises(ValueError, match="^setting must be one of"):
        federated_config("huge")
    with pytest.raises(ValueError, match="^engine must be"):
        run_federated(None, engine="grpc")  # type: ignore[arg-type]
