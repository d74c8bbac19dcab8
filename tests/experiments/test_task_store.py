"""The task store: runs that train the same task share it, and their records do not change."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
import torch

from fedlib.experiments import task_store
from fedlib.experiments.grid import run_many
from fedlib.experiments.multitask import MultiTaskConfig, run_multitask
from fedlib.experiments.task_store import TaskStore, task_key
from fedlib.fl.engine import BatchedEngine
from fedlib.fl.seeding import seed_sequence
from fedlib.fl.task import TaskOptions
from fedlib.fl.workers import iid_workers, publisher_sets

TINY = MultiTaskConfig(
    dataset="mnist", n_tasks=3, eval_from=1, groups=((1.0, 3), (0.4, 2), (0.1, 2)), budget=12.0,
    n_samples=100, n_val=200, n_test=200, task=TaskOptions(rounds=2), device="cpu")


def _json(records):
    return json.dumps(list(records), sort_keys=True)


def test_rrafl_reads_every_task_of_ours_and_keeps_its_records(data_root, tmp_path):
    store = tmp_path / "tasks"
    run_multitask(TINY, task_store=store)
    trained = sorted(p.name for p in store.iterdir())
    assert len(trained) == TINY.n_tasks
    rrafl = replace(TINY, mechanism="rrafl")
    shared = run_multitask(rrafl, task_store=store)
    assert sorted(p.name for p in store.iterdir()) == trained  # nothing trained again
    assert _json(shared.records) == _json(run_multitask(rrafl).records)


def test_a_run_with_other_winners_trains_its_own_tasks(data_root, tmp_path):
    store = tmp_path / "tasks"
    run_multitask(TINY, task_store=store)
    greedy = replace(TINY, mechanism="bid_greedy")
    shared = run_multitask(greedy, task_store=store)
    assert len(list(store.iterdir())) > TINY.n_tasks
    assert _json(shared.records) == _json(run_multitask(greedy).records)


def test_run_many_shares_tasks_without_changing_records(data_root, monkeypatch, trained_tasks):
    configs = [TINY, replace(TINY, mechanism="rrafl")]
    together = run_many(configs)  # one job: in this process, so counted
    # the RRAFL run read its tasks: only ours' were trained
    assert len(trained_tasks) == sum(1 for record in together[0].records if record["winners"])
    monkeypatch.undo()
    for config, run in zip(configs, together, strict=True):
        assert _json(run.records) == _json(run_multitask(config).records)


@pytest.fixture(scope="module")
def inputs(data_root):
    pool = iid_workers("mnist", np.array([1.0, 1.0, 0.4]), np.random.default_rng(0), n=50)
    publisher = publisher_sets("mnist", np.random.default_rng(1), n_val=60, n_test=60)
    engine = BatchedEngine("mlp", device="cpu")
    params = engine.init_params(torch.Generator().manual_seed(0))
    return {"engine": engine, "workers": pool, "publisher": publisher,
            "seed": seed_sequence(0, 4, 2), "options": TaskOptions(), "initial_params": params}


def _flipped_label(workers):
    labels = workers.labels.clone()
    labels[1, 7] = (labels[1, 7] + 1) % 10
    return replace(workers, labels=labels)


def _nudged(params):
    return {**params, "fc3.bias": params["fc3.bias"] + 1e-7}


CHANGES = {
    "engine": lambda e: BatchedEngine("mlp", device="cpu", dtype=torch.float64),
    "workers": _flipped_label,
    "publisher": lambda p: replace(p, val_labels=p.val_labels.flip(0)),
    "seed": lambda s: seed_sequence(0, 4, 3),
    "options": lambda o: replace(o, theta=0.5),
    "initial_params": _nudged,
}


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_the_key_changes_with_every_input(inputs, name):
    changed = {**inputs, name: CHANGES[name](inputs[name])}
    assert task_key(**inputs) == task_key(**inputs)
    assert task_key(**changed) != task_key(**inputs)


def test_the_key_tells_a_fresh_model_from_a_given_one(inputs):
    assert task_key(**{**inputs, "initial_params": None}) != task_key(**inputs)


def test_the_key_changes_with_the_thread_count(inputs):
    before = task_key(**inputs)
    threads = torch.get_num_threads()
    torch.set_num_threads(threads + 1)
    try:
        assert task_key(**inputs) != before
    finally:
        torch.set_num_threads(threads)


def test_the_key_changes_with_the_code(inputs, monkeypatch):
    before = task_key(**inputs)
    monkeypatch.setattr(task_store, "code_fingerprint", lambda: "other code")
    assert task_key(**inputs) != before


def test_get_or_run_runs_once_per_key(tmp_path):
    store, calls = TaskStore(tmp_path / "s"), []

    def run(value):
        calls.append(value)
        return value

    assert store.get_or_run("a", lambda: run(1)) == 1
    assert store.get_or_run("a", lambda: run(2)) == 1
    assert store.get_or_run("b", lambda: run(3)) == 3
    assert calls == [1, 3]
    assert not list((tmp_path / "s").glob(".*.tmp"))  # no temporary file left behind
