"""Multi-task runs in step (grid.run_lockstep): one stack per task, the same runs as alone."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from fedlib.experiments import grid
from fedlib.experiments.multitask import MultiTaskConfig, run_multitask
from fedlib.fl.attacks import Attack
from fedlib.fl.task import TaskOptions

TINY = MultiTaskConfig(
    dataset="mnist", n_tasks=3, eval_from=1, groups=((1.0, 3), (0.4, 2), (0.1, 2)), budget=12.0,
    n_samples=100, n_val=200, n_test=200, task=TaskOptions(rounds=2), device="cpu")
#: Ours, RRAFL (the same tasks as ours), Bid Greedy (tasks of its own), ours with the model
#: carried and a free rider (a submit hook), and a shorter run.
CONFIGS = [TINY, replace(TINY, mechanism="rrafl"), replace(TINY, mechanism="bid_greedy"),
           replace(TINY, fresh_model=False, attacks=(Attack("free_rider", (0,), 0.01),)),
           replace(TINY, mechanism="reputation_greedy", n_tasks=2)]


@pytest.fixture(scope="module")
def in_step(data_root):
    return grid.run_lockstep(CONFIGS)


def _values(run, name):
    return np.concatenate([np.ravel(record[name]) for record in run.records])


def test_runs_in_step_are_the_runs_alone(in_step):
    for config, run in zip(CONFIGS, in_step, strict=True):
        alone = run_multitask(config)
        assert run.config == config and len(run.records) == config.n_tasks
        assert [r["winners"] for r in run.records] == [r["winners"] for r in alone.records]
        for name in ("re", "payments", "Re"):
            assert np.allclose(_values(run, name), _values(alone, name), rtol=1e-4, atol=1e-6)
        assert np.allclose([r["rounds"]["test_loss"] for r in run.records],
                           [r["rounds"]["test_loss"] for r in alone.records], rtol=1e-4)


def test_a_task_shared_by_runs_is_trained_once(data_root, monkeypatch):
    stacked, run_tasks = [], grid.run_tasks

    def counted(engine, tasks, *args, **kwargs):
        stacked.append(len(tasks))
        return run_tasks(engine, tasks, *args, **kwargs)

    monkeypatch.setattr(grid, "run_tasks", counted)
    ours, rrafl = grid.run_lockstep(CONFIGS[:2])
    assert stacked == [1] * TINY.n_tasks  # RRAFL hires ours' winners: one task per step
    assert [r["re"] for r in ours.records] == [r["re"] for r in rrafl.records]


def test_runs_in_step_are_reproducible(in_step):
    again = grid.run_lockstep(CONFIGS)
    for a, b in zip(in_step, again, strict=True):
        assert json.dumps(a.records) == json.dumps(b.records)


def test_runs_in_step_must_share_their_data():
    with pytest.raises(ValueError, match="at least one"):
        grid.run_lockstep([])
    with pytest.raises(ValueError, match="seed"):
        grid.run_lockstep([TINY, replace(TINY, seed=1)])
    with pytest.raises(ValueError, match="dataset"):
        grid.run_lockstep([TINY, replace(TINY, dataset="fashion")])
