"""Stored results: save, load with a configuration check, verification, the command line, and
the contribution experiment that the command stores."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from fedlib.cli import main
from fedlib.experiments import auction_sweeps, contribution, multitask, results, verification
from fedlib.experiments.contribution import ContributionConfig
from fedlib.experiments.multitask import MultiTaskConfig

FAST = multitask.fast_config(MultiTaskConfig(dataset="mnist", device="cpu"))
NAME = multitask.result_name(FAST)


@pytest.fixture(scope="module")
def stored(data_root, tmp_path_factory):
    """The smoke-sized Tables experiment of ``ours``, run and saved."""
    folder = tmp_path_factory.mktemp("results")
    result = multitask.run_multitask(FAST)
    path = results.save_result(NAME, FAST, result.records, folder, wall_time_s=result.wall_time_s)
    return folder, path, result


def _rewrite(path, change):
    payload = json.loads(path.read_text())
    change(payload)
    path.write_text(json.dumps(payload))


def test_saved_file_holds_provenance_and_records(stored):
    folder, path, result = stored
    assert path == folder / "tables_mnist_ours_fast.json"
    payload = json.loads(path.read_text())
    assert payload["config"] == FAST.to_dict() and payload["seed"] == 0
    assert payload["fedlib_version"] and len(payload["git_revision"]) in (40, 7)
    assert payload["machine"]["device"] == "cpu" and payload["machine"]["cpu_count"] >= 1
    assert payload["wall_time_s"] == result.wall_time_s
    assert payload["command"] == ("python -m fedlib reproduce --config "
                                  "results/tables_mnist_ours_fast.json --out results")
    assert payload["environment"]["device"] == "cpu" and payload["environment"]["threads"] == 1
    assert payload["records"] == json.loads(json.dumps(list(result.records)))
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]  # no temporary file


def test_paper_scale_file_stays_a_few_hundred_kb(stored):
    """With every winner's leave-one-out margin per round (kept for verification on other
    machines) a 50-task file is about half a megabyte."""
    _, _, result = stored
    scale = 10 / FAST.task.rounds  # the paper's 10 rounds per task
    per_task = [len(json.dumps({**r, "rounds": {}})) + scale * len(json.dumps(r["rounds"]))
                for r in result.records]
    assert 50 * np.mean(per_task) < 600_000


def test_load_checks_the_configuration(stored):
    folder, _, result = stored
    loaded = results.load_result(NAME, replace(FAST, device="auto"), folder)
    assert loaded.records == json.loads(json.dumps(list(result.records)))
    again = multitask.MultiTaskResult.from_stored(loaded.config, loaded.records,
                                                  loaded.meta["wall_time_s"])
    assert multitask.table2(again) == multitask.table2(result)
    with pytest.raises(ValueError, match=r"budget: stored 60\.0, expected 40\.0.*--budget 40"):
        results.load_result(NAME, replace(FAST, budget=40.0), folder)
    paper = MultiTaskConfig(dataset="mnist", device="cpu")
    with pytest.raises(FileNotFoundError, match="reproduce tables --dataset mnist --device cpu"):
        results.load_result(multitask.result_name(paper), paper, folder)


def test_a_field_added_later_reads_as_its_default(stored, tmp_path):
    folder, path, _ = stored
    older = tmp_path / path.name
    older.write_text(path.read_text())
    _rewrite(older, lambda payload: [payload["config"].pop(key) for key in ("beta1", "beta2")])
    assert results.load_result(NAME, FAST, tmp_path).records
    with pytest.raises(ValueError, match=r"beta2: stored 0\.25, expected 0\.5"):
        results.load_result(NAME, replace(FAST, beta2=0.5), tmp_path)


def test_verification_accepts_the_stored_result_and_catches_changes(stored, tmp_path):
    folder, path, _ = stored
    report = verification.verify_result(NAME, n_tasks=2, results_dir=folder)
    assert report.ok and report.mismatches == () and report.tier == "same"
    copy = tmp_path / path.name
    copy.write_text(path.read_text())

    def nudge(factor):
        def change(payload):
            payload["records"][1]["rounds"]["test_loss"][0] *= factor
        return change

    _rewrite(copy, nudge(1 + 1e-9))
    assert verification.verify_result(NAME, results_dir=tmp_path).ok
    _rewrite(copy, nudge(1 + 1e-5))
    report = verification.verify_result(NAME, results_dir=tmp_path)
    assert not report.ok and report.mismatches[0].startswith("records[1].rounds.test_loss[0]")
    _rewrite(copy, lambda p: p["records"][0]["winners"].reverse())
    assert any("winners" in m for m in verification.verify_result(NAME, results_dir=tmp_path)
               .mismatches)
    with pytest.raises(FileNotFoundError):
        verification.verify_result("nothing_here", results_dir=tmp_path)


def test_compare():
    differences = verification.differences
    assert differences({"a": [1, 2.0, True]}, {"a": [1, 2.0 + 1e-9, True]}) == []
    assert differences([float("nan")], [float("nan")]) == []
    assert differences([0.0], [0.0]) == []
    assert differences({"a": 1}, {"a": 1.0}) == ["records.a: stored 1, recomputed 1.0"]
    assert differences({"a": [1]}, {"a": [1, 2]}) == ["records.a: length 1 != 2"]
    assert differences({"a": 1}, {"b": 1}) == ["records: keys ['a'] != ['b']"]
    assert differences([True], [False]) == ["records[0]: stored True, recomputed False"]
    # A record stored before margins were kept is compared without them.
    assert differences({"a": 1}, {"a": 1, "margin": [0.5]}) == []
    assert differences([float("nan")], [1.0]) == ["records[0]: stored nan, recomputed 1.0"]


def test_commands_for_every_stored_experiment():
    sweep = auction_sweeps.fast_config(auction_sweeps.paper_config("workers"))
    assert results.reproduce_command(sweep) == ("python -m fedlib reproduce mechanisms --fast "
                                                "--device cpu --out results")
    paper = ContributionConfig(dataset="fashion")
    assert results.reproduce_command(paper, "out") == ("python -m fedlib reproduce contribution "
                                                       "--dataset fashion --device cpu --out out")
    assert "in Python" in results.reproduce_command(replace(paper, seeds=(9,)))


def test_unknown_experiment_is_refused(tmp_path):
    with pytest.raises(ValueError, match="experiment"):
        results.save_result("x", {"experiment": "nope"}, [], tmp_path, wall_time_s=0.0)


def test_reproduce_tables_runs_all_five_mechanisms_in_parallel(data_root, tmp_path, capsys):
    assert main(["reproduce", "tables", "--dataset", "mnist", "--fast", "--device", "cpu",
                 "--out", str(tmp_path), "--jobs", "2"]) == 0
    names = sorted(p.name for p in tmp_path.glob("*.json"))
    assert names == sorted(f"tables_mnist_{m}_fast.json" for m in multitask.TABLE_MECHANISMS)
    assert not list((tmp_path / ".checkpoints").iterdir())
    assert verification.verify_result("tables_mnist_vanilla_fast", n_tasks=1,
                                      results_dir=tmp_path).ok
    assert "share dacc 1.0" in capsys.readouterr().out
    # A restarted command keeps what is finished and recomputes a file of another config.
    ours = tmp_path / "tables_mnist_ours_fast.json"
    _rewrite(ours, lambda payload: payload["config"].update(budget=40.0))
    kept = (tmp_path / "tables_mnist_rrafl_fast.json").stat().st_mtime_ns
    assert main(["reproduce", "tables", "--dataset", "mnist", "--fast", "--device", "cpu",
                 "--out", str(tmp_path), "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count("kept") == 4 and "tables_mnist_ours_fast.json: share" in out
    assert (tmp_path / "tables_mnist_rrafl_fast.json").stat().st_mtime_ns == kept
    assert json.loads(ours.read_text())["config"]["budget"] == 60.0


def test_reproduce_tables_trains_the_tasks_of_ours_and_rrafl_once(data_root, tmp_path,
                                                                   monkeypatch):
    trained, run_task = [], multitask.run_task

    def counted(*args, **kwargs):
        trained.append(1)
        return run_task(*args, **kwargs)

    monkeypatch.setattr(multitask, "run_task", counted)
    assert main(["reproduce", "tables", "--dataset", "mnist", "--fast", "--device", "cpu",
                 "--out", str(tmp_path), "--jobs", "1", "--mechanisms", "rrafl", "ours"]) == 0
    stored = {m: json.loads((tmp_path / f"tables_mnist_{m}_fast.json").read_text())["records"]
              for m in ("ours", "rrafl")}
    assert len(trained) == sum(1 for record in stored["ours"] if record["winners"])
    alone = multitask.run_multitask(multitask.fast_config(
        MultiTaskConfig(dataset="mnist", mechanism="rrafl", device="cpu")))
    assert json.dumps(stored["rrafl"]) == json.dumps(list(alone.records))


def test_reproduce_contribution_and_verify(data_root, tmp_path):
    assert main(["reproduce", "contribution", "--fast", "--device", "cpu", "--out",
                 str(tmp_path)]) == 0
    config = contribution.fast_config(ContributionConfig(device="cpu"))
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


def test_case_workers_rejects_an_unknown_case():
    with pytest.raises(ValueError, match="case"):
        contribution.case_workers(3, "mnist", np.random.default_rng(0))


def test_reproduce_mechanisms_stores_verifiable_sweeps(tmp_path):
    assert main(["reproduce", "mechanisms", "--fast", "--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.glob("*.json")) == [
        "mechanisms_budget_fast.json", "mechanisms_workers_fast.json"]
    assert verification.verify_result("mechanisms_budget_fast", results_dir=tmp_path).ok


def test_reproduce_rejects_bad_arguments(tmp_path):
    with pytest.raises(SystemExit):
        main(["reproduce", "tables", "--dataset", "cifar"])
    with pytest.raises(SystemExit, match="jobs"):
        main(["reproduce", "tables", "--jobs", "0", "--out", str(tmp_path)])
    with pytest.raises(SystemExit, match=r"unknown \['magic'\]"):
        main(["reproduce", "tables", "--mechanisms", "ours", "magic", "--out", str(tmp_path)])


def test_reproduce_tables_with_the_model_carried_for_chosen_mechanisms(data_root, tmp_path):
    assert main(["reproduce", "tables", "--dataset", "mnist", "--fast", "--device", "cpu",
                 "--mechanisms", "ours", "--carry-model", "--out", str(tmp_path)]) == 0
    assert [p.name for p in tmp_path.glob("*.json")] == ["tables_mnist_ours_carried_fast.json"]
    carried = multitask.fast_config(MultiTaskConfig(fresh_model=False, device="cpu"))
    loaded = results.load_result("tables_mnist_ours_carried_fast", carried, tmp_path)
    assert loaded.config["fresh_model"] is False
    assert results.reproduce_command(carried) == ("python -m fedlib reproduce tables --dataset "
                                                  "mnist --carry-model --fast --device cpu "
                                                  "--out results")


def test_reproduce_adversarial_saves_a_verifiable_scenario(data_root, tmp_path, capsys):
    assert main(["reproduce", "adversarial", "--fast", "--device", "cpu", "--jobs", "1",
                 "--out", str(tmp_path)]) == 0
    assert "mechanisms ours, rrafl, reputation_greedy" in capsys.readouterr().out
    assert verification.verify_result("adversarial_mnist_fast", n_tasks=1, results_dir=tmp_path).ok
