"""Stored results: save, load with a configuration check, verification, the command line, and
the contribution experiment that the command stores."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from fedlib.experiments import auction_sweeps, contribution, multitask, table_summaries
from fedlib.experiments.contribution import ContributionConfig
from fedlib.experiments.multitask import MultiTaskConfig
from fedlib.storage import comparison, results, verification
from fedlib.storage.stored import describe_machine

FAST = MultiTaskConfig(dataset="mnist", device="cpu").fast()
NAME = FAST.result_name()


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
    assert table_summaries.table2(again) == table_summaries.table2(result)
    with pytest.raises(ValueError, match=r"budget: stored 60\.0, expected 40\.0.*--budget 40"):
        results.load_result(NAME, replace(FAST, budget=40.0), folder)
    paper = MultiTaskConfig(dataset="mnist", device="cpu")
    with pytest.raises(FileNotFoundError,
                       match="reproduce tables --dataset mnist --mechanisms ours --device cpu"):
        results.load_result(paper.result_name(), paper, folder)


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


def differences(stored, fresh):
    """Where two JSON-like values differ under the same-environment rule."""
    same = comparison.Comparison(comparison.SAME_TOLERANCE)
    same.values(stored, fresh, "records", "records")
    return same.mismatches


def test_compare():
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
    sweep = auction_sweeps.paper_config("workers").fast()
    assert results.reproduce_command(sweep) == ("python -m fedlib reproduce mechanisms --fast "
                                                "--device cpu --out results")
    paper = ContributionConfig(dataset="fashion")
    assert results.reproduce_command(paper, "out") == ("python -m fedlib reproduce contribution "
                                                       "--dataset fashion --device cpu --out out")
    assert "in Python" in results.reproduce_command(replace(paper, seeds=(9,)))


def test_unknown_experiment_is_refused(tmp_path):
    with pytest.raises(ValueError, match="experiment"):
        results.save_result("x", {"experiment": "nope"}, [], tmp_path, wall_time_s=0.0)


def test_case_workers_rejects_an_unknown_case():
    with pytest.raises(ValueError, match="case"):
        contribution.case_workers(3, "mnist", np.random.default_rng(0))


def test_an_exported_tree_names_its_revision_through_the_environment(monkeypatch):
    """Outside a git checkout the revision is FEDLIB_GIT_REVISION's, else "unknown"."""
    def no_git(*args, **kwargs):
        raise FileNotFoundError("git")

    monkeypatch.setattr(results.subprocess, "run", no_git)
    monkeypatch.delenv("FEDLIB_GIT_REVISION", raising=False)
    assert results.git_revision() == ("unknown", False)
    monkeypatch.setenv("FEDLIB_GIT_REVISION", "acb28b6")
    assert results.git_revision() == ("acb28b6", False)


def test_the_machine_names_the_cpus_generation(monkeypatch):
    fields = {"model name": "AMD EPYC", "cpu family": "25", "model": "1"}
    monkeypatch.setattr(results, "cpu_field", fields.get)
    machine = results.machine_description("cpu")
    assert (machine["cpu"], machine["cpu_generation"]) == ("AMD EPYC", "family 25 model 1")
    assert describe_machine(machine).startswith("AMD EPYC (family 25 model 1), ")
    monkeypatch.setattr(results, "cpu_field", {"model name": "AMD EPYC"}.get)
    assert results.cpu_generation() is None
    # a file stored before the field was recorded
    older = {k: v for k, v in machine.items() if k != "cpu_generation"}
    assert describe_machine(older).startswith("AMD EPYC, ")
