"""Dirichlet label skew: the per-worker draw (exact small cases, a property test), the per-class
draw of Flower's DirichletPartitioner, and skewed worker pools on the real training split."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from fedlib.fl import data
from fedlib.fl.partitions import (
    MAX_TRIES,
    check_alpha,
    dirichlet_partition,
    largest_remainder,
    per_class_partition,
    per_worker_partition,
)
from fedlib.fl.workers import iid_workers, skewed_workers

LABELS = np.repeat(np.arange(10), 100)  # 100 samples of every class


def test_a_tiny_alpha_gives_each_worker_one_label():
    index, q = per_worker_partition(LABELS, 5, 60, 1e-6, np.random.default_rng(0))
    assert index.shape == (5, 60) and q.shape == (5, 10)
    for row, proportions in zip(index, q, strict=True):
        assert len(set(LABELS[row])) == 1
        assert LABELS[row[0]] == proportions.argmax()


def test_per_worker_samples_are_disjoint_available_and_follow_the_proportions():
    free = np.ones(LABELS.size, dtype=bool)
    free[::3] = False
    index, q = per_worker_partition(LABELS, 4, 50, 0.5, np.random.default_rng(1), available=free)
    assert len(np.unique(index)) == index.size and free[index].all()
    counts = np.stack([np.bincount(LABELS[row], minlength=10) for row in index])
    assert np.array_equal(counts, largest_remainder(q, 50))
    again = per_worker_partition(LABELS, 4, 50, 0.5, np.random.default_rng(1), available=free)
    assert np.array_equal(again[0], index) and np.array_equal(again[1], q)


def test_largest_remainder_rounds_to_the_total():
    assert largest_remainder([0.5, 0.5], 1).tolist() == [[1, 0]]  # a tie goes to the lower class
    assert largest_remainder([[1 / 3] * 3, [0.9, 0.1, 0.0]], 10).tolist() == [[4, 3, 3],
                                                                             [9, 1, 0]]


def test_an_impossible_draw_names_the_class_and_the_fixes():
    with pytest.raises(ValueError, match=r"asks \d+ samples of class \d.*only 100 are free: use "
                                         "another seed, a larger alpha"):
        per_worker_partition(LABELS, 3, 150, 1e-3, np.random.default_rng(0))


@pytest.mark.parametrize("alpha", [0, -1.0, float("inf"), float("nan"), "1", True, None])
def test_alpha_must_be_a_finite_number_above_zero(alpha):
    with pytest.raises(ValueError, match="alpha must be a finite number above 0"):
        check_alpha(alpha)
    with pytest.raises(ValueError, match="alpha"):
        per_worker_partition(LABELS, 2, 10, alpha, np.random.default_rng(0))


@pytest.mark.parametrize("call,match", [
    (lambda r: per_worker_partition(LABELS, 0, 10, 1.0, r), "workers"),
    (lambda r: per_worker_partition(LABELS, 2, 0, 1.0, r), "n must"),
    (lambda r: per_worker_partition(LABELS + 1, 2, 10, 1.0, r), "labels"),
    (lambda r: per_worker_partition(LABELS, 2, 10, 1.0, r, available=[True]), "available"),
    (lambda r: per_class_partition(LABELS, 200, 1.0, r), "need 2000"),
    (lambda r: dirichlet_partition(LABELS, 2, 1.0, r), "needs n"),
    (lambda r: dirichlet_partition(LABELS, 2, 1.0, r, scheme="per_class", n=5), "n is not"),
    (lambda r: dirichlet_partition(LABELS, 2, 1.0, r, scheme="flower"), "scheme"),
])
def test_bad_input_names_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call(np.random.default_rng(0))


@settings(max_examples=60, deadline=None)
@given(counts=st.lists(st.integers(0, 40), min_size=10, max_size=10),
       workers=st.integers(1, 6), n=st.integers(1, 30),
       alpha=st.floats(1e-3, 100.0), seed=st.integers(0, 2**32 - 1))
def test_per_worker_partition_property(counts, workers, n, alpha, seed):
    """Disjoint rows of n available samples whose labels are exactly the rounded draw, or the
    error when a class runs short."""
    labels = np.repeat(np.arange(10), counts)
    free = np.random.default_rng(seed).random(labels.size) < 0.8
    try:
        index, q = per_worker_partition(labels, workers, n, alpha, np.random.default_rng(seed),
                                        available=free)
    except ValueError as error:
        assert "only" in str(error) and "are free" in str(error)
        return
    assert index.shape == (workers, n) and len(np.unique(index)) == index.size
    assert free[index].all()
    np.testing.assert_allclose(q.sum(axis=1), 1.0)
    counts_drawn = np.stack([np.bincount(labels[row], minlength=10) for row in index])
    assert np.array_equal(counts_drawn, largest_remainder(q, n))


def test_per_class_partition_covers_every_sample_with_unequal_sizes():
    parts = per_class_partition(LABELS, 5, 0.3, np.random.default_rng(2))
    together = np.sort(np.concatenate(parts))
    assert np.array_equal(together, np.arange(LABELS.size))
    assert min(p.size for p in parts) >= 10 and len({p.size for p in parts}) > 1
    again = per_class_partition(LABELS, 5, 0.3, np.random.default_rng(2))
    assert all(np.array_equal(a, b) for a, b in zip(parts, again, strict=True))


def test_per_class_partition_gives_each_class_to_one_partition_at_tiny_alpha():
    parts = per_class_partition(LABELS, 4, 1e-6, np.random.default_rng(0), min_partition_size=0,
                                shuffle=False)
    owners = [{i for i, p in enumerate(parts) if (LABELS[p] == c).any()} for c in range(10)]
    assert all(len(o) == 1 for o in owners)
    for part in parts:  # unshuffled: class by class, in their order in labels
        assert np.array_equal(part, np.sort(part))


def test_per_class_partition_gives_up_on_an_unreachable_minimum():
    with pytest.raises(ValueError, match=f"no draw in {MAX_TRIES} gave every partition 90 "
                                         "samples"):
        per_class_partition(LABELS, 10, 1e-3, np.random.default_rng(0), min_partition_size=90)


def test_dirichlet_partition_names_both_schemes():
    rng = np.random.default_rng(5)
    worker = dirichlet_partition(LABELS, 3, 1.0, rng, n=40)
    assert [p.size for p in worker] == [40, 40, 40]
    per_class = dirichlet_partition(LABELS, 3, 1.0, rng, scheme="per_class")
    assert sum(p.size for p in per_class) == LABELS.size


# ------------------------------------------------------------------- pools on the real split

DACCS = [1.0, 1.0, 0.4, 0.4]


def test_skewed_pool_keeps_noise_and_skew_independent(data_root):
    skewed = [True, False, True, False]
    pool = skewed_workers("mnist", DACCS, skewed, 1e-6, np.random.default_rng(0), n=300,
                          root=data_root)
    train = data.load("mnist", "train", data_root)
    assert pool.images.shape == (4, 300, 28, 28) and len(np.unique(pool.indices)) == 4 * 300
    assert torch.equal(pool.clean_labels, train.labels[torch.from_numpy(pool.indices)])
    wrong = (pool.labels != pool.clean_labels).sum(dim=1).tolist()
    assert wrong == [0, 0, 180, 180]  # exactly (1 - dacc) n, skewed or not
    held = (pool.label_counts() > 0).sum(axis=1)
    assert held.tolist() == [1, 10, 1, 10]
    assert pool.label_counts().sum(axis=1).tolist() == [300] * 4
    again = skewed_workers("mnist", DACCS, skewed, 1e-6, np.random.default_rng(0), n=300,
                           root=data_root)
    assert torch.equal(again.labels, pool.labels) and np.array_equal(again.indices, pool.indices)


def test_balanced_workers_keep_their_iid_samples_and_labels(data_root):
    iid = iid_workers("fashion", DACCS, np.random.default_rng(4), n=200, root=data_root)
    none = skewed_workers("fashion", DACCS, [False] * 4, 0.1, np.random.default_rng(4), n=200,
                          root=data_root)
    assert np.array_equal(none.indices, iid.indices) and torch.equal(none.labels, iid.labels)
    some = skewed_workers("fashion", DACCS, [False, True, True, False], 0.1,
                          np.random.default_rng(4), n=200, root=data_root)
    for name in ("images", "clean_labels", "labels"):
        assert torch.equal(getattr(some, name)[[0, 3]], getattr(iid, name)[[0, 3]]), name
    assert np.array_equal(some.indices[[0, 3]], iid.indices[[0, 3]])
    assert not np.array_equal(some.indices[1], iid.indices[1])
    assert len(np.unique(some.indices)) == some.indices.size


@pytest.mark.parametrize("call,match", [
    (lambda r, root: skewed_workers("mnist", DACCS, [True], 0.1, r, root=root), "skewed"),
    (lambda r, root: skewed_workers("mnist", DACCS, [True] * 4, 0.0, r, root=root), "alpha"),
    (lambda r, root: skewed_workers("mnist", [1.0] * 61, [True] * 61, 1.0, r, root=root), "n"),
    (lambda r, root: skewed_workers("mnist", DACCS, [True] * 4, 1e-3, r, n=7000, root=root),
     "class"),
])
def test_bad_pool_input_names_the_argument(data_root, call, match):
    with pytest.raises(ValueError, match=match):
        call(np.random.default_rng(0), data_root)
