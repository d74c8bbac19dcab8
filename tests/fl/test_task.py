"""One federated task on a tiny configuration: complete records, omega, the quality check."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from fedlib.fl.engine import BatchedEngine
from fedlib.fl.seeding import seed_sequence, torch_threads
from fedlib.fl.task import TaskOptions, run_task
from fedlib.fl.workers import iid_workers, publisher_sets
from fedlib.mechanism.reputation import gompertz_trust

ROUNDS = 3


@pytest.fixture(scope="module")
def setting(data_root):
    """Three clean workers and one with pure-noise labels (dacc 0.1), 300 samples each."""
    rng = np.random.default_rng(0)
    publisher = publisher_sets("mnist", rng, n_val=300, n_test=300, root=data_root)
    pool = iid_workers("mnist", [1.0, 1.0, 1.0, 0.1], rng, n=300, root=data_root)
    return BatchedEngine("mlp", device="cpu"), pool, publisher


@pytest.fixture(scope="module")
def result(setting):
    engine, pool, publisher = setting
    with torch_threads(1):
        return run_task(engine, pool, publisher, seed=0, options=TaskOptions(rounds=ROUNDS),
                        local_accuracy=True)


def test_records_are_complete(result):
    assert len(result.rounds) == ROUNDS
    for record in result.rounds:
        for name in ("delta_l", "passed", "contrib", "mean_prob", "omega", "local_acc"):
            assert getattr(record, name).shape == (4,), name
        assert np.isfinite(record.loss_all) and 0 <= record.test_acc <= 1
        assert record.contrib.max() == 1.0
    assert np.array_equal(result.n_pass + result.n_fail, np.full(4, ROUNDS))
    assert np.allclose(result.trust, gompertz_trust(result.n_pass, result.n_fail))
    assert np.allclose(result.re, result.contribution * result.trust)
    assert np.allclose(result.contribution, result.round_values("contrib").mean(axis=0))
    stored = json.loads(json.dumps(result.to_dict()))
    assert stored["rounds"]["omega"] == result.round_values("omega").tolist()
    assert "final_params" not in stored


def test_omega_sums_to_one_over_passing_workers(result):
    for record in result.rounds:
        assert record.passed.any()
        assert record.omega[record.passed].sum() == pytest.approx(1.0)
        assert np.all(record.omega[~record.passed] == 0)


def test_pure_noise_worker_fails_more_and_earns_less(result):
    clean, noisy = slice(0, 3), 3
    assert result.n_fail[noisy] > result.n_fail[clean].max()
    assert result.re[noisy] < result.re[clean].min()
    assert result.local_acc[noisy] < result.local_acc[clean].min()


def test_training_improves_the_global_model(result):
    losses = result.round_values("test_loss")
    assert np.all(np.diff(losses) < 0)
    assert result.rounds[-1].test_acc > 0.3  # 3 rounds of 3 small SGD steps, from 0.1


def test_same_seed_gives_identical_records(setting, result):
    engine, pool, publisher = setting
    with torch_threads(1):
        again = run_task(engine, pool, publisher, seed=0, options=TaskOptions(rounds=ROUNDS),
                         local_accuracy=True)
    assert again.to_dict() == result.to_dict()
    for key, value in result.final_params.items():
        assert torch.equal(value, again.final_params[key])


def test_a_single_worker_passes_and_is_the_global_model(setting):
    engine, pool, publisher = setting
    one = run_task(engine, pool.subset([3]), publisher, seed=1, options=TaskOptions(rounds=1))
    assert one.rounds[0].passed.tolist() == [True]
    assert one.rounds[0].omega.tolist() == [1.0]


def test_initial_params_warm_start_the_task(setting, result):
    engine, pool, publisher = setting
    options = TaskOptions(rounds=1)
    fresh = run_task(engine, pool.subset([0, 1]), publisher, seed=2, options=options)
    warm = run_task(engine, pool.subset([0, 1]), publisher, seed=2, options=options,
                    initial_params=result.final_params)
    assert warm.rounds[0].test_loss < fresh.rounds[0].test_loss


def test_bad_input(setting):
    engine, pool, publisher = setting
    with pytest.raises(ValueError, match="workers"):
        run_task(engine, pool.subset([]), publisher, seed=0)
    fashion = publisher_sets("fashion", np.random.default_rng(0), n_val=10, n_test=10)
    with pytest.raises(ValueError, match="dataset"):
        run_task(engine, pool, fashion, seed=0)
    for bad in ({"rounds": 0}, {"lr": 0.0}, {"batch_size": 0}, {"denominator": "other"},
                {"momentum": 1.0}, {"momentum": -0.1}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            TaskOptions(**bad)
    with pytest.raises(ValueError, match="threads"):
        with torch_threads(0):
            pass


def test_seed_sequences_depend_only_on_seed_and_key():
    a = seed_sequence(7, 2, 3).generate_state(2)
    assert np.array_equal(a, seed_sequence(7, 2, 3).generate_state(2))
    assert not np.array_equal(a, seed_sequence(7, 2, 4).generate_state(2))
    assert np.array_equal(seed_sequence(seed_sequence(7, 2), 3).generate_state(2), a)
