"""Worker and publisher data: exact label flipping, disjoint samples, the Case 2 partition."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from fedlib.fl import data
from fedlib.fl.workers import case2_workers, flip_labels, iid_workers, publisher_sets


@pytest.mark.parametrize("n,dacc", [(1000, 0.1), (1000, 0.4), (1000, 0.7), (1000, 1.0),
                                    (7, 0.5), (3, 0.9)])
def test_flip_labels_flips_exactly_and_always_changes_the_label(n, dacc):
    labels = np.random.default_rng(1).integers(0, 10, n)
    noisy = flip_labels(labels, dacc, np.random.default_rng(2))
    changed = noisy != labels
    assert changed.sum() == round((1 - dacc) * n)
    assert noisy.dtype == np.int64 and noisy.min() >= 0 and noisy.max() <= 9
    assert np.array_equal(labels, np.random.default_rng(1).integers(0, 10, n))  # input intact


def test_flipped_labels_cover_the_other_nine_classes():
    noisy = flip_labels(np.zeros(5000, dtype=np.int64), 0.1, np.random.default_rng(0))
    counts = np.bincount(noisy, minlength=10)
    assert counts[0] == 500  # the 10% kept
    assert counts[1:].min() > 400 and counts[1:].max() < 600  # 4500 / 9 = 500 each


@pytest.mark.parametrize("dacc", [0.0, -0.1, 1.01, float("nan")])
def test_flip_labels_rejects_dacc_outside_unit_interval(dacc):
    with pytest.raises(ValueError, match="dacc"):
        flip_labels([1, 2, 3], dacc, np.random.default_rng(0))


def test_iid_workers_are_disjoint_and_hit_their_accuracy(data_root):
    daccs = [1.0, 0.7, 0.4, 0.1]
    pool = iid_workers("mnist", daccs, np.random.default_rng(0), n=300, root=data_root)
    train = data.load("mnist", "train", data_root)
    assert pool.images.shape == (4, 300, 28, 28) and pool.images.dtype == torch.uint8
    assert len(np.unique(pool.indices)) == 4 * 300
    assert torch.equal(pool.clean_labels, train.labels[torch.from_numpy(pool.indices)])
    assert torch.equal(pool.images[2], train.images[torch.from_numpy(pool.indices[2])])
    wrong = (pool.labels != pool.clean_labels).sum(dim=1).tolist()
    assert wrong == [round((1 - d) * 300) for d in daccs]
    again = iid_workers("mnist", daccs, np.random.default_rng(0), n=300, root=data_root)
    assert torch.equal(again.labels, pool.labels) and np.array_equal(again.indices, pool.indices)


def test_subset_keeps_the_chosen_workers_in_order(data_root):
    pool = iid_workers("mnist", [1.0, 0.5, 0.1], np.random.default_rng(0), n=50, root=data_root)
    sub = pool.subset(np.array([2, 0]))
    assert len(sub) == 2 and sub.dacc.tolist() == [0.1, 1.0]
    assert torch.equal(sub.labels[0], pool.labels[2])
    with pytest.raises(ValueError, match="workers"):
        pool.subset([3])


def test_case2_worker_k_lacks_label_k(data_root):
    pool = case2_workers("mnist", np.random.default_rng(0), n=500, root=data_root)
    assert len(pool) == 10 and pool.dacc.tolist() == [1.0] * 10
    assert torch.equal(pool.labels, pool.clean_labels)
    assert set(pool.labels[0].tolist()) == set(range(10))
    for k in range(1, 10):
        assert set(pool.labels[k].tolist()) == set(range(10)) - {k}
    assert len(np.unique(pool.indices)) == 10 * 500


def test_publisher_sets_are_disjoint_draws_from_the_test_split(data_root):
    sets = publisher_sets("fashion", np.random.default_rng(0), n_val=5000, n_test=5000,
                          root=data_root)
    assert sets.val_images.shape == (5000, 28, 28) and sets.test_labels.shape == (5000,)
    assert not set(sets.val_indices.tolist()) & set(sets.test_indices.tolist())
    test = data.load("fashion", "test", data_root)
    assert torch.equal(sets.val_labels, test.labels[torch.from_numpy(sets.val_indices)])


@pytest.mark.parametrize("call,match", [
    (lambda r, root: publisher_sets("cifar", r, root=root), "dataset"),
    (lambda r, root: publisher_sets("mnist", r, n_val=6000, n_test=5000, root=root), "n_val"),
    (lambda r, root: publisher_sets("mnist", r, n_val=0, root=root), "n_val"),
    (lambda r, root: iid_workers("mnist", [], r, root=root), "daccs"),
    (lambda r, root: iid_workers("mnist", [1.0, 0.0], r, root=root), "daccs"),
    (lambda r, root: iid_workers("mnist", [1.0] * 61, r, root=root), "n"),
    (lambda r, root: iid_workers("svhn", [1.0], r, root=root), "dataset"),
    (lambda r, root: case2_workers("mnist", r, n=0, root=root), "n"),
])
def test_bad_input_names_the_argument(data_root, call, match):
    with pytest.raises(ValueError, match=match):
        call(np.random.default_rng(0), data_root)
