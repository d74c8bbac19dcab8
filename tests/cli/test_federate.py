"""``python -m fedlib federate``: its configuration, its batched path and its usage errors (the
Flower path runs in tests/flower)."""

from __future__ import annotations

import json

import pytest

from fedlib.cli import main
from fedlib.experiments.flower_presets import FAST_FEDERATION_GROUPS, federation_config
from fedlib.experiments.multitask import DEFAULT_BUDGET, MultiTaskConfig


def test_federation_config_is_the_tables_setting_or_the_small_federation():
    assert federation_config() == MultiTaskConfig(device="cpu")
    fast = federation_config(fast=True)
    assert (fast.groups, fast.budget, fast.n_tasks, fast.task.rounds) == (
        FAST_FEDERATION_GROUPS, 12.0, 3, 2)
    changed = federation_config("fashion", "rrafl", tasks=2, budget=30.0, seed=4)
    assert (changed.dataset, changed.mechanism, changed.n_tasks, changed.eval_from,
            changed.budget, changed.seed) == ("fashion", "rrafl", 2, 1, 30.0, 4)
    assert federation_config(tasks=1).eval_from == 0
    assert federation_config(budget=None).budget == DEFAULT_BUDGET


def test_federate_batched_saves_the_result_and_says_where(data_root, tmp_path, capsys):
    assert main(["federate", "--engine", "batched", "--fast", "--tasks", "2",
                 "--out", str(tmp_path)]) == 0
    saved = tmp_path / "tables_mnist_ours_b12.json"
    assert f"{saved}: 2 tasks on the batched engine" in capsys.readouterr().out
    records = json.loads(saved.read_text())["records"]
    assert [r["task"] for r in records] == [0, 1] and all(r["winners"] for r in records)


@pytest.mark.parametrize("words, message", [
    (["--tasks", "0"], "--tasks: must be at least 1"),
    (["--budget", "-3"], "--budget: must be above 0"),
    (["--engine", "ray"], "invalid choice: 'ray'"),
    (["--mechanism", "nope"], "invalid choice: 'nope'"),
])
def test_federate_rejects_bad_arguments(words, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["federate", *words])
    assert exit_.value.code == 2 and message in capsys.readouterr().err
