"""``python -m fedlib reproduce --config FILE``: every kind of stored result replays exactly."""

from __future__ import annotations

import json

import pytest

from fedlib.cli import main
from fedlib.experiments import (
    adversarial,
    auction_sweeps,
    budget_sweep,
    contribution,
    multitask,
    results,
    sensitivity,
    stored,
)
from fedlib.experiments.multitask import MultiTaskConfig

BASE = MultiTaskConfig(n_tasks=20, device="cpu")
#: One smoke-sized configuration of every kind that results/ holds, some of them beyond what the
#: command's flags can express (a budget list, a lone sensitivity value, one mechanism).
KINDS = {
    "tables": multitask.fast_config(MultiTaskConfig(mechanism="bid_greedy", budget=45.0,
                                                    device="cpu")),
    "budgets": budget_sweep.fast_config(budget_sweep.BudgetSweepConfig(budgets=(30.0, 60.0),
                                                                       base=BASE)),
    "sensitivity": sensitivity.fast_config(sensitivity.SensitivityConfig(
        values={"beta2": (0.5,)}, base=BASE)),
    "adversarial": adversarial.fast_config(adversarial.AdversarialConfig(
        mechanisms=("ours",), base=adversarial.scenario_base(device="cpu"))),
    "contribution": contribution.fast_config(contribution.ContributionConfig(device="cpu")),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_stored_result_replays_exactly(kind, data_root, tmp_path, capsys):
    config = KINDS[kind]
    known = stored.KINDS[type(config)]
    name = known.name(config)
    run = known.run(config)
    source = results.save_result(name, config, run.records, tmp_path / "stored",
                                 wall_time_s=run.wall_time_s)
    assert json.loads(source.read_text())["command"] == (
        f"python -m fedlib reproduce --config results/{name}.json --out results")
    assert main(["reproduce", "--config", str(source), "--out", str(tmp_path / "replayed")]) == 0
    replayed = json.loads((tmp_path / "replayed" / f"{name}.json").read_text())
    assert replayed["config"] == json.loads(source.read_text())["config"]
    assert replayed["records"] == json.loads(source.read_text())["records"]
    assert "agrees within the cross-machine tolerance" in capsys.readouterr().out


def test_a_replay_that_differs_says_so(data_root, tmp_path, capsys):
    config = KINDS["tables"]
    run = multitask.run_multitask(config)
    records = json.loads(json.dumps(list(run.records)))
    records[0]["rounds"]["test_loss"][0] *= 1.5
    source = results.save_result(multitask.result_name(config), config, records, tmp_path,
                                 wall_time_s=run.wall_time_s)
    assert main(["reproduce", "--config", str(source), "--out", str(tmp_path / "again")]) == 1
    assert "differs beyond the cross-machine tolerance" in capsys.readouterr().out


def test_replay_refuses_what_it_cannot_replay(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["reproduce", "--config", str(tmp_path / "missing.json")])
    assert exit_.value.code == 2 and "is not a stored result" in capsys.readouterr().err
    sweep = auction_sweeps.fast_config(auction_sweeps.paper_config("workers"))
    path = tmp_path / "sweep.json"
    path.write_text(json.dumps({"config": sweep.to_dict(), "records": []}))
    with pytest.raises(SystemExit):
        main(["reproduce", "--config", str(path)])
    assert "cannot be replayed; use: python -m fedlib reproduce mechanisms" in (
        capsys.readouterr().err)
    with pytest.raises(SystemExit):
        main(["reproduce", "tables", "--config", str(path)])
    assert "not both" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["reproduce"])
    assert "name an experiment" in capsys.readouterr().err
