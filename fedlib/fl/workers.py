"""Worker and publisher data: disjoint samples, label flipping to an exact data accuracy.

Every worker holds ``n`` training samples (1000 in the paper) drawn without replacement from the
dataset's training split, disjoint from every other worker's. A worker's *data accuracy* dacc
is the share of its labels that are correct: :func:`flip_labels` changes exactly
``round((1 - dacc) n)`` labels, each to a label drawn uniformly from the other nine classes, so
``dacc = 0.1`` is pure noise. The task publisher holds a validation set (contribution
measurement, Eqs. (2)-(3), and the leave-one-out check) and a test set, disjoint and both drawn
from the test split. :func:`skewed_workers` adds label skew drawn from a Dirichlet distribution
(:mod:`fedlib.fl.partitions`) to some of the workers, independently of their label noise.

All randomness comes from the ``numpy.random.Generator`` passed in.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from numpy.typing import ArrayLike

from fedlib.checks import integer
from fedlib.fl import data
from fedlib.fl.models import NUM_CLASSES
from fedlib.fl.partitions import check_alpha, per_worker_partition

Root = str | os.PathLike[str] | None


def _check_dacc(dacc: float, name: str = "dacc") -> float:
    value = float(dacc)
    if not 0.0 < value <= 1.0:
        raise ValueError(f"{name} must lie in (0, 1], got {dacc!r}")
    return value


def flip_labels(labels: ArrayLike, dacc: float, rng: np.random.Generator) -> np.ndarray:
    """Corrupt labels to an exact data accuracy.

    Exactly ``round((1 - dacc) * n)`` positions, chosen uniformly without replacement, get a
    label drawn uniformly from the nine classes other than their true one; the rest keep theirs.

    Parameters
    ----------
    labels : array_like of int, shape (n,)
        True labels in ``0..9``.
    dacc : float
        Data accuracy in (0, 1]; 1.0 leaves every label unchanged.
    rng : numpy.random.Generator
        Source of the positions and the new labels.

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        The noisy labels (a new array).

    Examples
    --------
    >>> noisy = flip_labels(np.zeros(10, dtype=int), 0.7, np.random.default_rng(0))
    >>> int((noisy != 0).sum())
    3
    """
    dacc = _check_dacc(dacc)
    y = np.array(labels, dtype=np.int64)
    if y.ndim != 1 or (y.size and (y.min() < 0 or y.max() >= NUM_CLASSES)):
        raise ValueError(f"labels must be 1-D with values in 0..{NUM_CLASSES - 1}")
    n_flip = round((1.0 - dacc) * y.size)
    where = rng.choice(y.size, size=n_flip, replace=False)
    y[where] = (y[where] + rng.integers(1, NUM_CLASSES, size=n_flip)) % NUM_CLASSES
    return y


@dataclass(frozen=True, eq=False)
class WorkerPool:
    """The training data of W workers with n samples each.

    Attributes
    ----------
    dataset : str
        ``"mnist"`` or ``"fashion"``.
    images : torch.Tensor
        uint8 images (W, n, 28, 28).
    clean_labels : torch.Tensor
        int64 true labels (W, n).
    labels : torch.Tensor
        int64 labels the workers train on (W, n), corrupted to each worker's data accuracy.
    dacc : numpy.ndarray
        Data accuracy of each worker (W,).
    indices : numpy.ndarray
        Positions of the samples in the training split (W, n).
    """

    dataset: str
    images: torch.Tensor
    clean_labels: torch.Tensor
    labels: torch.Tensor
    dacc: np.ndarray
    indices: np.ndarray

    def __len__(self) -> int:
        return int(self.labels.shape[0])

    def subset(self, workers: ArrayLike) -> WorkerPool:
        """The pool restricted to ``workers`` (indices, in the given order), e.g. the winners."""
        index = np.array(workers, dtype=np.int64).reshape(-1)
        if index.size and (index.min() < 0 or index.max() >= len(self)):
            raise ValueError(f"workers must be indices in 0..{len(self) - 1}, got {index}")
        t = torch.from_numpy(index)
        return WorkerPool(self.dataset, self.images[t], self.clean_labels[t], self.labels[t],
                          self.dacc[index], self.indices[index])

    def owned_labels(self, share: float) -> np.ndarray:
        """The labels each worker *owns*: at least ``share`` of the labels it trains on
        (:attr:`labels`, noisy ones included, as a worker would declare them). Bool (W, 10);
        every row has one at ``share <= 0.1``."""
        return _per_label(self.labels) >= share * self.labels.shape[1]

    def label_counts(self) -> np.ndarray:
        """How many samples of each true label every worker holds: int64 (W, 10)."""
        return _per_label(self.clean_labels)


def _per_label(labels: torch.Tensor) -> np.ndarray:
    """Samples of each label in every row of ``labels`` (W, n): int64 (W, 10)."""
    return np.stack([np.bincount(row, minlength=NUM_CLASSES) for row in labels.numpy()])


@dataclass(frozen=True, eq=False)
class PublisherSets:
    """The task publisher's disjoint validation and test sets (uint8 images, int64 labels).

    ``val_indices`` and ``test_indices`` are the samples' positions in the test split.
    """

    dataset: str
    val_images: torch.Tensor
    val_labels: torch.Tensor
    test_images: torch.Tensor
    test_labels: torch.Tensor
    val_indices: np.ndarray
    test_indices: np.ndarray


def publisher_sets(dataset: str, rng: np.random.Generator, n_val: int = 5000,
                   n_test: int = 5000, root: Root = None) -> PublisherSets:
    """Disjoint validation and test sets drawn from the dataset's test split.

    Parameters
    ----------
    dataset : {"mnist", "fashion"}
    rng : numpy.random.Generator
        Draws the samples (without replacement).
    n_val, n_test : int, default 5000
        Sizes; together at most the 10000 test images.
    root : path, optional
        Data folder (default ``FEDLIB_DATA``); see :func:`fedlib.fl.data.load`.
    """
    n_val, n_test = integer(n_val, "n_val"), integer(n_test, "n_test")
    split = data.load(dataset, "test", root)
    if n_val + n_test > len(split):
        raise ValueError(f"n_val + n_test must be at most {len(split)}, got {n_val + n_test}")
    index = rng.permutation(len(split))[: n_val + n_test]
    val, test = index[:n_val], index[n_val:]
    return PublisherSets(dataset, split.images[val], split.labels[val], split.images[test],
                         split.labels[test], val, test)


def _pool(split: data.Split, index: np.ndarray, daccs: np.ndarray,
          rng: np.random.Generator) -> WorkerPool:
    """Workers holding the samples ``index`` (W, n) of ``split``, labels flipped to ``daccs``."""
    t = torch.from_numpy(index)
    clean = split.labels[t]
    noisy = np.stack([flip_labels(row.numpy(), d, rng) for row, d in zip(clean, daccs,
                                                                          strict=True)])
    return WorkerPool(split.dataset, split.images[t], clean, torch.from_numpy(noisy), daccs,
                      index)


def iid_workers(dataset: str, daccs: Sequence[float], rng: np.random.Generator, n: int = 1000,
                root: Root = None) -> WorkerPool:
    """Workers with iid, pairwise disjoint samples of the training split and given accuracies.

    Parameters
    ----------
    dataset : {"mnist", "fashion"}
    daccs : sequence of float
        Data accuracy of each worker, in (0, 1] (Case 1: 1.0, 0.9, ..., 0.1; Tables 1-3:
        15 x 1.0, 5 x 0.7, 5 x 0.4, 5 x 0.1).
    rng : numpy.random.Generator
        Draws the samples, then the flipped labels worker by worker.
    n : int, default 1000
        Samples per worker.
    root : path, optional
        Data folder (default ``FEDLIB_DATA``).
    """
    d = np.array([_check_dacc(a, "daccs") for a in daccs], dtype=float)
    if d.size == 0:
        raise ValueError("daccs must name at least one worker")
    n = integer(n, "n")
    split = data.load(dataset, "train", root)
    if d.size * n > len(split):
        raise ValueError(f"len(daccs) * n must be at most {len(split)}, got {d.size * n}")
    index = rng.choice(len(split), size=(d.size, n), replace=False)
    return _pool(split, index, d, rng)


def skewed_workers(dataset: str, daccs: Sequence[float], skewed: Sequence[bool], alpha: float,
                   rng: np.random.Generator, n: int = 1000, root: Root = None) -> WorkerPool:
    """Workers with pairwise disjoint samples, some with per-worker Dirichlet label skew.

    First the iid pool is drawn (:func:`iid_workers`, same generator): the balanced workers
    (``skewed`` False) keep it, samples and flipped labels, so they hold exactly what they hold
    in the iid run of the same seed and every difference between the two runs comes from the
    skewed workers. The skewed workers then draw anew from the samples no balanced worker
    holds, each with its own label proportions ``q ~ Dir(alpha * 1_10)`` and ``n`` samples
    (:func:`~fedlib.fl.partitions.per_worker_partition`): equal sizes, so the skew is not
    confounded with quantity. Last, their labels are flipped to their data accuracies
    (:func:`flip_labels`, worker by worker), so skew and noise vary independently.

    Parameters
    ----------
    dataset : {"mnist", "fashion"}
    daccs : sequence of float
        Data accuracy of each worker, in (0, 1].
    skewed : sequence of bool
        Which workers are skewed (one per worker).
    alpha : float
        Dirichlet concentration, finite and above 0 (small: few labels per skewed worker).
    rng : numpy.random.Generator
        Draws the iid pool, then the proportions, the skewed samples and their flips.
    n : int, default 1000
        Samples per worker.
    root : path, optional
        Data folder (default ``FEDLIB_DATA``).

    Raises
    ------
    ValueError
        For a bad argument, or a draw that asks more samples of a class than the split has
        left (the message names the fixes).
    """
    alpha = check_alpha(alpha)
    mask = np.array(skewed, dtype=bool).reshape(-1)
    if mask.size != len(daccs):
        raise ValueError(f"skewed must name one flag per worker ({len(daccs)}), got "
                         f"{mask.size}")
    pool = iid_workers(dataset, daccs, rng, n=n, root=root)
    if not mask.any():
        return pool
    split = data.load(dataset, "train", root)
    free = np.ones(len(split), dtype=bool)
    free[pool.indices[~mask].reshape(-1)] = False
    index = pool.indices.copy()
    index[mask] = per_worker_partition(split.labels.numpy(), int(mask.sum()), pool.indices.shape[1],
                                       alpha, rng, available=free)[0]
    drawn = _pool(split, index[mask], pool.dacc[mask], rng)
    rows = torch.from_numpy(mask)
    images, clean, labels = pool.images.clone(), pool.clean_labels.clone(), pool.labels.clone()
    images[rows], clean[rows], labels[rows] = drawn.images, drawn.clean_labels, drawn.labels
    return WorkerPool(dataset, images, clean, labels, pool.dacc, index)


def case2_workers(dataset: str, rng: np.random.Generator, n: int = 1000,
                  root: Root = None) -> WorkerPool:
    """The non-iid Case 2 of Figure 3: ten clean workers, worker k (1..9) lacks label k.

    Worker 0 draws from all labels; worker k draws only samples whose label is not k. Samples
    are disjoint across workers and every data accuracy is 1.0.

    Parameters
    ----------
    dataset : {"mnist", "fashion"}
    rng : numpy.random.Generator
        Draws the samples.
    n : int, default 1000
        Samples per worker.
    root : path, optional
        Data folder (default ``FEDLIB_DATA``).
    """
    n = integer(n, "n")
    split = data.load(dataset, "train", root)
    labels = split.labels.numpy()
    order = rng.permutation(len(split))
    free = np.ones(len(split), dtype=bool)
    rows = []
    for worker in range(NUM_CLASSES):
        lacks_label = labels[order] != worker if worker else np.ones(order.size, dtype=bool)
        allowed = order[free[order] & lacks_label]
        if allowed.size < n:
            raise ValueError(f"n = {n} is too large: worker {worker} has {allowed.size} samples")
        rows.append(allowed[:n])
        free[allowed[:n]] = False
    return _pool(split, np.stack(rows), np.ones(NUM_CLASSES), rng)
