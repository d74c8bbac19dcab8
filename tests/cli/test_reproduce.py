"""``python -m fedlib reproduce KIND``: every experiment from the command line, saved,
resumable and verifiable."""

from __future__ import annotations

import json
import logging
import re

import numpy as np
import pytest

from fedlib import __version__
from fedlib.cli import main
from fedlib.experiments import budget_sweep as bs
from fedlib.experiments import contribution, multitask
from fedlib.experiments import sensitivity as sens
from fedlib.experiments.contribution import ContributionConfig
from fedlib.experiments.grid import SWEEP_TASKS
from fedlib.experiments.multitask import MultiTaskConfig
from fedlib.storage import results, verification


def _rewrite(path, change):
    payload = json.loads(path.read_text())
    change(payload)
    path.write_text(json.dumps(payload))


def test_reproduce_tables_runs_all_five_mechanisms_in_parallel(data_root, tmp_path, capsys):
    assert main(["reproduce", "tables", "--dataset", "mnist", "--fast", "--device", "cpu",
                 "--out", str(tmp_path), "--jobs", "2"]) == 0
    names = sorted(p.name for p in tmp_path.glob("*.json"))
    assert names == sorted(f"tables_mnist_{m}_fast.json" for m in multitask.TABLE_MECHANISMS)
    assert not [path for path in (tmp_path / ".checkpoints").rglob("*") if path.is_file()]
    assert verification.verify_result("tables_mnist_vanilla_fast", n_tasks=1,
                                      results_dir=tmp_path).ok
    assert "tables_mnist_vanilla_fast.json: 3 records in" in capsys.readouterr().out
    # A restarted command keeps what is finished and recomputes a file of another config.
    ours = tmp_path / "tables_mnist_ours_fast.json"
    _rewrite(ours, lambda payload: payload["config"].update(budget=40.0))
    kept = (tmp_path / "tables_mnist_rrafl_fast.json").stat().st_mtime_ns
    assert main(["reproduce", "tables", "--dataset", "mnist", "--fast", "--device", "cpu",
                 "--out", str(tmp_path), "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count("kept") == 4 and "tables_mnist_ours_fast.json: 3 records" in out
    assert (tmp_path / "tables_mnist_rrafl_fast.json").stat().st_mtime_ns == kept
    assert json.loads(ours.read_text())["config"]["budget"] == 60.0


def test_reproduce_tables_trains_the_tasks_of_ours_and_rrafl_once(data_root, tmp_path,
                                                                   trained_tasks):
    assert main(["reproduce", "tables", "--dataset", "mnist", "--fast", "--device", "cpu",
                 "--out", str(tmp_path), "--jobs", "1", "--mechanisms", "rrafl", "ours"]) == 0
    stored = {m: json.loads((tmp_path / f"tables_mnist_{m}_fast.json").read_text())["records"]
              for m in ("ours", "rrafl")}
    assert len(trained_tasks) == sum(1 for record in stored["ours"] if record["winners"])
    alone = MultiTaskConfig(dataset="mnist", mechanism="rrafl", device="cpu").fast().run()
    assert json.dumps(stored["rrafl"]) == json.dumps(list(alone.records))


def test_reproduce_contribution_and_verify(data_root, tmp_path):
    assert main(["reproduce", "contribution", "--fast", "--device", "cpu", "--out",
                 str(tmp_path)]) == 0
    config = ContributionConfig(device="cpu").fast()
    loaded = results.load_result("contribution_mnist_fast", config, tmp_path)
    assert [(r["seed"], r["case"]) for r in loaded.records] == [(0, 1), (0, 2)]
    assert verification.verify_result("contribution_mnist_fast", results_dir=tmp_path).ok
    result = contribution.ContributionResult.from_stored(loaded.config, loaded.records, 0.0)
    case1 = result.summary(1)
    for metric in ("contribution", "benchmark", "mean_prob", "local_acc"):
        mean, std = case1[metric]
        assert mean.shape == (10,) and np.all(std == 0)  # one seed
        assert mean[0] > mean[9], metric  # the clean worker beats the pure-noise one
    assert len(result.rows()) == 20 and result.rows()[0]["dacc"] == 1.0
    with pytest.raises(ValueError, match="case"):
        result.summary(3)


def test_reproduce_mechanisms_stores_verifiable_sweeps(tmp_path):
    assert main(["reproduce", "mechanisms", "--fast", "--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.glob("*.json")) == [
        "mechanisms_budget_fast.json", "mechanisms_workers_fast.json"]
    assert verification.verify_result("mechanisms_budget_fast", results_dir=tmp_path).ok


@pytest.mark.parametrize("words, message", [
    (["tables", "--dataset", "cifar"], "invalid choice: 'cifar'"),
    (["tables", "--jobs", "0"], "argument --jobs: must be at least 1, got 0"),
    (["tables", "--budget", "-5"], "argument --budget: must be above 0, got -5"),
    (["tables", "--budget", "inf"], "argument --budget: must be above 0, got inf"),
    (["tables", "--budget", "lots"], "argument --budget: must be a number above 0, got 'lots'"),
    (["tables", "--seeds", "-1"], "argument --seeds/--seed: must be a seed"),
    (["tables", "--seeds", "5-2"], "low <= high, got '5-2'"),
    (["tables", "--seeds", "x"], "must be a seed (an integer >= 0) or a range such as 0-9"),
    (["tables", "--mechanisms", "ours", "magic"], "invalid choice: 'magic'"),
    (["mechanisms", "--dataset", "mnist"], "reproduce mechanisms does not take --dataset"),
    (["budgets", "--carry-model", "--budget", "40"],
     "reproduce budgets does not take --budget, --carry-model"),
    (["contribution", "--seed", "3"], "reproduce contribution does not take --seeds"),
    (["noniid", "--alphas", "0"], "argument --alphas: must be 'iid' or a number above 0, got '0'"),
    (["noniid", "--alphas", "skewed"], "must be 'iid' or a number above 0, got 'skewed'"),
    (["noniid", "--alphas", "0.1", "iid", "0.1"], "alphas must be distinct"),
    (["tables", "--alphas", "0.1"], "reproduce tables does not take --alphas"),
    (["budgets", "--own-labels"], "reproduce budgets does not take --own-labels"),
    (["sensitivity", "--settings", "epochs"], "reproduce sensitivity does not take --settings"),
    (["coldstart", "--settings", "theta"], "argument --settings: invalid choice: 'theta'"),
])
def test_reproduce_rejects_bad_arguments(words, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["reproduce", *words, "--out", str(tmp_path)])
    assert exit_.value.code == 2 and message in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_reproduce_tables_with_the_model_carried_for_chosen_mechanisms(data_root, tmp_path):
    assert main(["reproduce", "tables", "--dataset", "mnist", "--fast", "--device", "cpu",
                 "--mechanisms", "ours", "--carry-model", "--out", str(tmp_path)]) == 0
    assert [p.name for p in tmp_path.glob("*.json")] == ["tables_mnist_ours_carried_fast.json"]
    carried = MultiTaskConfig(fresh_model=False, device="cpu").fast()
    loaded = results.load_result("tables_mnist_ours_carried_fast", carried, tmp_path)
    assert loaded.config["fresh_model"] is False
    assert results.reproduce_command(carried) == ("python -m fedlib reproduce tables --dataset "
                                                  "mnist --mechanisms ours --carry-model --fast "
                                                  "--device cpu --out results")


def test_reproduce_adversarial_saves_a_verifiable_scenario(data_root, tmp_path, capsys):
    assert main(["reproduce", "adversarial", "--fast", "--device", "cpu", "--jobs", "1",
                 "--out", str(tmp_path)]) == 0
    assert "adversarial_mnist_fast.json: 3 records in" in capsys.readouterr().out
    assert verification.verify_result("adversarial_mnist_fast", n_tasks=1, results_dir=tmp_path).ok


def test_reproduce_budgets_stores_a_verifiable_sweep(data_root, tmp_path, capsys):
    assert main(["reproduce", "budgets", "--fast", "--device", "cpu", "--out", str(tmp_path),
                 "--jobs", "1"]) == 0
    assert [p.name for p in tmp_path.glob("*.json")] == ["budgets_mnist_ours_fast.json"]
    config = bs.BudgetSweepConfig(base=MultiTaskConfig(
        n_tasks=SWEEP_TASKS, device="cpu")).fast()
    loaded = results.load_result("budgets_mnist_ours_fast", config, tmp_path)
    assert loaded.meta["command"] == ("python -m fedlib reproduce --config "
                                      "results/budgets_mnist_ours_fast.json --out results")
    assert verification.verify_result("budgets_mnist_ours_fast", 1, tmp_path).ok
    assert "budgets_mnist_ours_fast.json: 3 records in" in capsys.readouterr().out


def test_reproduce_sensitivity_stores_a_verifiable_sweep(data_root, tmp_path, capsys):
    assert main(["reproduce", "sensitivity", "--fast", "--device", "cpu", "--out",
                 str(tmp_path), "--jobs", "1"]) == 0
    assert [p.name for p in tmp_path.glob("*.json")] == ["sensitivity_mnist_ours_fast.json"]
    config = sens.SensitivityConfig(base=MultiTaskConfig(n_tasks=20, device="cpu")).fast()
    loaded = results.load_result("sensitivity_mnist_ours_fast", config, tmp_path)
    assert loaded.meta["command"] == ("python -m fedlib reproduce --config "
                                      "results/sensitivity_mnist_ours_fast.json --out results")
    assert len(loaded.records[0]["runs"]) == 11
    assert verification.verify_result("sensitivity_mnist_ours_fast", 1, tmp_path).ok
    assert "sensitivity_mnist_ours_fast.json: 3 records in" in capsys.readouterr().out


def test_version_and_plain_help(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out.strip() == f"fedlib {__version__}"
    for words in (["--help"], ["reproduce", "--help"], ["data", "check", "--help"]):
        with pytest.raises(SystemExit):
            main(words)
        text = capsys.readouterr().out
        assert "usage:" in text and "``" not in text and not re.search(r":\w+:`", text)


def test_a_runtime_problem_is_one_line_not_a_traceback(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FEDLIB_DATA", str(tmp_path / "nowhere"))
    assert main(["reproduce", "tables", "--dataset", "mnist", "--mechanisms", "ours",
                 "--fast", "--jobs", "1", "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("python -m fedlib: error: ") and "Traceback" not in err
    assert "FEDLIB_DATA" in err


def test_verbose_logs_each_task(data_root, tmp_path, caplog):
    with caplog.at_level(logging.INFO, logger="fedlib"):
        assert main(["-v", "reproduce", "tables", "--dataset", "mnist", "--mechanisms", "ours",
                     "--fast", "--jobs", "1", "--out", str(tmp_path)]) == 0
    tasks = [r.getMessage() for r in caplog.records if r.name == "fedlib.experiments.multitask"]
    assert len(tasks) == 3 and tasks[0].startswith("tables_mnist_ours_fast task 0: ")


def test_a_run_resumes_only_from_checkpoints_of_its_own_environment(tmp_path, monkeypatch):
    """The checkpoint folder is named by the environment fingerprint the saved file will
    record: the same machine finds its checkpoints again, another CPU kind (or torch, or
    thread count) starts over, so that no file mixes two machines' rounding."""
    from fedlib.cli.reproduce import checkpoint_dir
    from fedlib.storage import environment

    state = MultiTaskConfig(dataset="mnist", device="cpu").to_dict()
    here = checkpoint_dir(tmp_path, state)
    assert here.parent == tmp_path / ".checkpoints" and here == checkpoint_dir(tmp_path, state)
    assert checkpoint_dir(tmp_path, {**state, "threads": 2}) != here
    real = environment.fingerprint
    monkeypatch.setattr(environment, "fingerprint",
                        lambda *args: {**real(*args), "cpu_model": "another CPU"})
    assert checkpoint_dir(tmp_path, state) != here

