"""``python -m fedlib reproduce --config FILE``: every kind of stored result replays exactly."""

from __future__ import annotations

import json

import pytest

from fedlib.cli import main
from fedlib.experiments import (
    adversarial,
    auction_sweeps,
    budget_sweep,
    coldstart,
    contribution,
    noniid,
    registry,
    sensitivity,
    shapley_truth,
)
from fedlib.experiments.multitask import MultiTaskConfig
from fedlib.storage import comparison, results

BASE = MultiTaskConfig(n_tasks=20, device="cpu")
#: One smoke-sized configuration of every kind that results/ holds, some of them beyond what the
#: command's flags can express (a budget list, a lone sensitivity value, 3 trials).
KINDS = {
    "tables": MultiTaskConfig(mechanism="bid_greedy", budget=45.0, device="cpu").fast(),
    "budgets": budget_sweep.BudgetSweepConfig(budgets=(30.0, 60.0), base=BASE).fast(),
    "sensitivity": sensitivity.SensitivityConfig(values={"beta2": (0.5,)}, base=BASE).fast(),
    "adversarial": adversarial.AdversarialConfig(
        mechanisms=("ours",), base=adversarial.scenario_base(device="cpu")).fast(),
    "contribution": contribution.ContributionConfig(device="cpu").fast(),
    "coldstart": coldstart.ColdStartConfig(
        values={"momentum": (0.9,)},
        base=MultiTaskConfig(dataset="fashion", n_tasks=20, device="cpu")).fast(),
    "mechanisms": auction_sweeps.paper_config("workers", trials=3),
    "shapley": shapley_truth.ShapleyConfig(workers=4).fast(),
    "noniid": noniid.NoniidConfig(alphas=(0.1,), mechanisms=("ours",),
                                  base=MultiTaskConfig(device="cpu")).fast(),
}


def untimed(records):
    """Records without their wall times (:data:`~fedlib.storage.comparison.TIMINGS`)."""
    return [{key: value for key, value in record.items() if key not in comparison.TIMINGS}
            for record in records]


def test_every_registered_experiment_is_replayed_here():
    assert sorted(KINDS) == sorted(registry.experiments())


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_stored_result_replays_exactly(kind, data_root, tmp_path, capsys):
    config = KINDS[kind]
    name = config.result_name()
    run = config.run()
    source = results.save_result(name, config, run.records, tmp_path / "stored",
                                 wall_time_s=run.wall_time_s)
    assert json.loads(source.read_text())["command"] == (
        f"python -m fedlib reproduce --config results/{name}.json --out results")
    assert main(["reproduce", "--config", str(source), "--out", str(tmp_path / "replayed")]) == 0
    replayed = json.loads((tmp_path / "replayed" / f"{name}.json").read_text())
    assert replayed["config"] == json.loads(source.read_text())["config"]
    assert untimed(replayed["records"]) == untimed(json.loads(source.read_text())["records"])
    assert "agrees within the cross-machine tolerance" in capsys.readouterr().out


def test_a_replay_that_differs_says_so(data_root, tmp_path, capsys):
    config = KINDS["tables"]
    run = config.run()
    records = json.loads(json.dumps(list(run.records)))
    records[0]["rounds"]["test_loss"][0] *= 1.5
    source = results.save_result(config.result_name(), config, records, tmp_path,
                                 wall_time_s=run.wall_time_s)
    assert main(["reproduce", "--config", str(source), "--out", str(tmp_path / "again")]) == 1
    assert "differs beyond the cross-machine tolerance" in capsys.readouterr().out


def test_replay_refuses_what_it_cannot_replay(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["reproduce", "--config", str(tmp_path / "missing.json")])
    assert exit_.value.code == 2 and "is not a stored result" in capsys.readouterr().err
    path = tmp_path / "sweep.json"
    path.write_text(json.dumps({"config": {"experiment": "nope"}, "records": []}))
    with pytest.raises(SystemExit):
        main(["reproduce", "--config", str(path)])
    assert "config['experiment'] must be one of" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["reproduce", "tables", "--config", str(path)])
    assert "not both" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["reproduce"])
    assert "name an experiment" in capsys.readouterr().err
