"""Adversarial and strategic workers: exact model replacement, noise, label flips, quality drops,
and that runs without attacks are unchanged."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from fedlib.experiments import registry
from fedlib.experiments.multitask import MultiTaskConfig, run_multitask
from fedlib.fl.attacks import (
    SHIFT_BY_ONE,
    Attack,
    attacked_pool,
    check_attacks,
    flip_share,
    model_submitter,
    replace_models,
)
from fedlib.fl.engine import BatchedEngine
from fedlib.fl.seeding import torch_threads
from fedlib.fl.task import TaskOptions, run_task
from fedlib.fl.workers import iid_workers, publisher_sets
from fedlib.storage.results import _comparable

TINY = MultiTaskConfig(
    dataset="mnist", n_tasks=3, eval_from=1, groups=((1.0, 4), (0.1, 2)), budget=30.0,
    n_samples=100, n_val=200, n_test=200, task=TaskOptions(rounds=2), device="cpu")


@pytest.fixture(scope="module")
def setting(data_root):
    rng = np.random.default_rng(0)
    pool = iid_workers("mnist", [1.0, 1.0, 1.0, 0.4], rng, n=200, root=data_root)
    publisher = publisher_sets("mnist", rng, n_val=200, n_test=200, root=data_root)
    return BatchedEngine("mlp", device="cpu"), pool, publisher


def _spy(submit, seen):
    def wrapped(stacked, global_params, round_):
        out = submit(stacked, global_params, round_)
        seen.append((stacked, global_params, out))
        return out
    return wrapped


def test_free_rider_with_strength_zero_submits_the_global_model(setting):
    engine, pool, publisher = setting
    seen = []
    submit = model_submitter([Attack("free_rider", (7,))], [5, 7, 2, 9], task=0, seed=1)
    with torch_threads(1):
        result = run_task(engine, pool, publisher, seed=0, options=TaskOptions(rounds=2),
                          submit=_spy(submit, seen))
    assert len(seen) == 2
    for trained, global_params, submitted in seen:
        for key, value in global_params.items():
            assert torch.equal(submitted[key][1], value)          # worker 7 is row 1
            for row in (0, 2, 3):
                assert torch.equal(submitted[key][row], trained[key][row])
    assert seen[1][1] is not seen[0][1]  # round 2 starts from the aggregate
    # The copy of an untrained model hurts the average in round 1: it fails the check.
    assert not result.rounds[0].passed[1]


def test_noise_has_the_requested_std_and_is_seeded(setting):
    engine = setting[0]
    theta = engine.init_params(torch.Generator().manual_seed(0))
    stacked = {key: value.expand(3, *value.shape).clone() + 1.0 for key, value in theta.items()}
    out = replace_models(stacked, theta, {2: 0.5}, torch.Generator().manual_seed(3))
    diff = torch.cat([(out[key][2] - theta[key]).flatten() for key in theta]).double()
    assert diff.numel() > 100_000
    assert diff.std().item() == pytest.approx(0.5, rel=0.01)
    assert abs(diff.mean().item()) < 0.01
    for key in theta:
        assert torch.equal(out[key][:2], stacked[key][:2])
    again = replace_models(stacked, theta, {2: 0.5}, torch.Generator().manual_seed(3))
    assert all(torch.equal(out[key], again[key]) for key in theta)
    submit = model_submitter([Attack("noise", (4,), 0.5)], [4], task=2, seed=0)
    a, b = submit(stacked, theta, 0), submit(stacked, theta, 1)
    assert not torch.equal(a["fc1.weight"], b["fc1.weight"])  # a new draw every round


@given(st.floats(0.0, 1.0), st.integers(0, 2**32 - 1))
def test_label_flip_changes_exactly_the_share(share, seed):
    labels = np.random.default_rng(seed).integers(0, 10, size=137)
    flipped = flip_share(labels, share, np.random.default_rng(seed))
    changed = flipped != labels
    assert changed.sum() == round(share * labels.size)
    assert np.array_equal(flipped[changed], (labels[changed] + 1) % 10)


def test_label_flip_in_the_pool_uses_the_permutation(setting):
    pool = setting[1]
    perm = tuple(9 - y for y in range(10))  # reverses the labels, no fixed point
    pool_t = attacked_pool(pool, [Attack("label_flip", (1,), 0.25, permutation=perm)], 0, 0)
    changed = (pool_t.labels != pool.labels).numpy()
    assert changed[1].sum() == 50 and not changed[[0, 2, 3]].any()
    moved = pool.labels[1].numpy()[changed[1]]
    assert np.array_equal(pool_t.labels[1].numpy()[changed[1]], 9 - moved)
    assert np.array_equal(pool_t.dacc, pool.dacc)


def test_quality_drop_changes_the_data_from_its_task_on(setting):
    pool = setting[1]
    attacks = [Attack("quality_drop", (0,), 0.1, from_task=3)]
    assert attacked_pool(pool, attacks, 2, seed=0) is pool
    later = [attacked_pool(pool, attacks, task, seed=0) for task in (3, 7)]
    for dropped in later:
        correct = (dropped.labels[0] == pool.clean_labels[0]).float().mean().item()
        assert correct == pytest.approx(0.1)
        assert dropped.dacc[0] == 0.1 and np.array_equal(dropped.dacc[1:], pool.dacc[1:])
        assert torch.equal(dropped.labels[1:], pool.labels[1:])
    assert torch.equal(later[0].labels, later[1].labels)  # the same noisy data every task


def test_a_multitask_run_applies_the_drop_from_its_task(data_root):
    honest = run_multitask(TINY)
    dropped = run_multitask(replace(TINY, attacks=(Attack("quality_drop", (0, 1, 2, 3), 0.1,
                                                          from_task=2),)))
    assert json.dumps(dropped.records[:2]) == json.dumps(honest.records[:2])
    assert dropped.records[2]["winners"] == honest.records[2]["winners"]
    assert {0, 1, 2, 3} & set(dropped.records[2]["winners"])
    assert dropped.records[2]["rounds"] != honest.records[2]["rounds"]


def test_runs_without_attacks_are_unchanged(setting, data_root):
    engine, pool, publisher = setting
    with torch_threads(1):
        plain = run_task(engine, pool, publisher, seed=4, options=TaskOptions(rounds=2))
        hooked = run_task(engine, pool, publisher, seed=4, options=TaskOptions(rounds=2),
                          submit=lambda stacked, _params, _round: stacked)
    assert plain.to_dict() == hooked.to_dict()
    assert MultiTaskConfig(attacks=()).to_dict() == MultiTaskConfig().to_dict()
    assert "attacks" not in MultiTaskConfig().to_dict()
    # An attack that never becomes active draws nothing from the honest streams.
    inactive = replace(TINY, attacks=(Attack("noise", (0, 1), 0.3, from_task=10),
                                      Attack("label_flip", (4,), 1.0, from_task=10)))
    assert json.dumps(run_multitask(inactive).records) == json.dumps(run_multitask(TINY).records)


def test_model_submitter_is_none_without_active_model_attacks():
    attacks = [Attack("free_rider", (3,), from_task=2), Attack("label_flip", (1,), 1.0)]
    assert model_submitter(attacks, [3, 1], task=1, seed=0) is None
    assert model_submitter(attacks, [0, 1], task=5, seed=0) is None
    assert model_submitter(attacks, [0, 3], task=2, seed=0) is not None


def test_configs_with_attacks_round_trip_and_get_their_own_name():
    attacks = (Attack("free_rider", (0, 1), 1e-3), Attack("label_flip", (2,), 0.5,
                                                         permutation=tuple(range(9, -1, -1))),
               Attack("quality_drop", (3,), 0.1, from_task=15))
    config = replace(TINY, attacks=attacks)
    stored = json.loads(json.dumps(config.to_dict()))
    assert MultiTaskConfig.from_dict(stored) == config
    assert config.result_name() == TINY.result_name() + "_attacked"
    assert registry.command_flags(replace(MultiTaskConfig(), attacks=attacks)) is None
    # A configuration stored before attacks existed reads as one without attacks.
    old = {k: v for k, v in json.loads(json.dumps(TINY.to_dict())).items()}
    assert _comparable(old) == _comparable(TINY.to_dict())
    assert _comparable(old) != _comparable(config.to_dict())


@pytest.mark.parametrize("make, match", [
    (lambda: Attack("sybil", (0,)), "kind must be one of"),
    (lambda: Attack("noise", ()), "workers must be distinct"),
    (lambda: Attack("noise", (1, 1)), "workers must be distinct"),
    (lambda: Attack("noise", (-1,)), "workers must be a non-negative integer"),
    (lambda: Attack("noise", (True,)), "workers must be a non-negative integer"),
    (lambda: Attack("noise", (0,), -0.1), "noise std >= 0"),
    (lambda: Attack("free_rider", (0,), float("nan")), "noise std >= 0"),
    (lambda: Attack("label_flip", (0,), 1.5), r"share in \[0, 1\]"),
    (lambda: Attack("label_flip", (0,), -0.5), r"share in \[0, 1\]"),
    (lambda: Attack("quality_drop", (0,), 0.0), r"data accuracy in \(0, 1\]"),
    (lambda: Attack("noise", (0,), from_task=-1), "from_task"),
    (lambda: Attack("noise", (0,), permutation=SHIFT_BY_ONE), "label_flip only"),
    (lambda: Attack("label_flip", (0,), 1.0, permutation=tuple(range(10))), "fixed points"),
    (lambda: replace(TINY, attacks=(Attack("noise", (6,)),)), r"outside 0..5"),
    (lambda: check_attacks([Attack("noise", (1,)), Attack("label_flip", (1,))], 6),
     "more than one attack"),
    (lambda: check_attacks(["noise"], 6), "Attack objects"),
])
def test_bad_input_is_rejected(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_flip_share_rejects_a_share_outside_the_unit_interval():
    with pytest.raises(ValueError, match="share"):
        flip_share([1, 2], 1.2, np.random.default_rng(0))

