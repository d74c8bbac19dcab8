"""Label skew drawn from a Dirichlet distribution: which samples of a split each worker holds.

Two ways of drawing it are common, and they are different distributions:

* **per worker** (:func:`per_worker_partition`, the one the experiments use): each skewed
  worker draws its own label proportions ``q ~ Dir(alpha * 1_10)`` and takes ``n`` samples with
  those proportions (``n * q`` rounded to whole samples by largest remainders), disjoint from
  every other worker's. Every worker holds the same number of samples, so the skew is not
  confounded with quantity: the paper's workers all hold 1000 samples, its aggregation weights
  omega ignore data amounts (Section 4.2: FedAvg's weighting by amount is what it avoids), and
  its contributions (Eqs. (2)-(3)) weight the publisher's validation samples, not the workers'.
* **per class** (:func:`per_class_partition`), the algorithm of Flower Datasets'
  ``DirichletPartitioner`` (with ``self_balancing=False``): for each class, the proportions of
  its samples that go to each of the P partitions are drawn from ``Dir(alpha * 1_P)``, and the
  whole draw is repeated while a partition holds fewer than ``min_partition_size`` samples.
  Partition sizes are then unequal. The batched engine trains workers of equal sizes only
  (:meth:`fedlib.fl.inputs.EngineInputs.workers`), so this scheme yields indices for analysis
  and comparison, not a :class:`~fedlib.fl.workers.WorkerPool`.

:func:`dirichlet_partition` names the scheme as an option. Small ``alpha`` concentrates a
worker (per worker) or a class (per class) on few labels; large ``alpha`` approaches the iid
draw. All randomness comes from the ``numpy.random.Generator`` passed in.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from fedlib.checks import integer
from fedlib.fl.models import NUM_CLASSES

#: Draws of :func:`per_class_partition` before it gives up on ``min_partition_size``: the
#: first and ten more, as ``DirichletPartitioner``.
MAX_TRIES = 11
Scheme = Literal["per_worker", "per_class"]
SCHEMES: tuple[str, ...] = ("per_worker", "per_class")


def check_alpha(alpha: float) -> float:
    """The Dirichlet concentration ``alpha`` as a float; ValueError unless it is a finite
    number above 0 (``None`` is the iid draw, which callers handle before this check)."""
    if isinstance(alpha, bool) or not isinstance(alpha, int | float | np.integer | np.floating):
        raise ValueError(f"alpha must be a finite number above 0, got {alpha!r}")
    if not (math.isfinite(alpha) and alpha > 0):
        raise ValueError(f"alpha must be a finite number above 0, got {alpha!r}")
    return float(alpha)


def _labels(labels: ArrayLike) -> np.ndarray:
    y = np.asarray(labels)
    if y.ndim != 1 or not np.issubdtype(y.dtype, np.integer) or (
            y.size and (y.min() < 0 or y.max() >= NUM_CLASSES)):
        raise ValueError(f"labels must be 1-D integers in 0..{NUM_CLASSES - 1}")
    return y


def largest_remainder(proportions: ArrayLike, n: int) -> np.ndarray:
    """Whole counts summing to ``n`` closest to ``n * proportions`` (each row): the floors,
    then one more to the largest remainders (ties to the lower class).

    Examples
    --------
    >>> largest_remainder([[0.5, 0.3, 0.2]], 7).tolist()
    [[4, 2, 1]]
    """
    q = np.atleast_2d(np.asarray(proportions, dtype=float))
    exact = q * n
    counts = np.floor(exact).astype(np.int64)
    short = n - counts.sum(axis=1)
    order = np.argsort(-(exact - counts), axis=1, kind="stable")
    for row, missing in enumerate(short):
        counts[row, order[row, :missing]] += 1
    return counts


def per_worker_partition(labels: ArrayLike, workers: int, n: int, alpha: float,
                         rng: np.random.Generator,
                         available: ArrayLike | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per-worker Dirichlet label skew: ``workers`` disjoint sets of ``n`` samples each.

    Worker ``w`` draws ``q_w ~ Dir(alpha * 1_10)`` (all workers' proportions in one call of
    ``rng.dirichlet``), its label counts are ``n * q_w`` rounded by :func:`largest_remainder`,
    and each class's samples are handed out in one random order (``rng.permutation`` per class,
    class 0 first), consecutive blocks to worker 0, 1, ... Within a worker the samples are in
    class order; training visits them in random batch orders anyway.

    Parameters
    ----------
    labels : array_like of int, shape (m,)
        Labels of the samples to draw from (a split's).
    workers, n : int
        Skewed workers, samples each (the paper: 1000).
    alpha : float
        Dirichlet concentration, finite and above 0.
    rng : numpy.random.Generator
    available : array_like of bool, shape (m,), optional
        The samples still free (default: all), e.g. those no balanced worker holds.

    Returns
    -------
    index : numpy.ndarray of int64, shape (workers, n)
        Positions in ``labels``; pairwise disjoint and all available.
    proportions : numpy.ndarray, shape (workers, 10)
        The drawn ``q_w``.

    Raises
    ------
    ValueError
        For a bad argument, or when the draw asks more samples of a class than are available
        (the message names the class and the fixes).

    Examples
    --------
    >>> labels = np.repeat(np.arange(10), 50)
    >>> index, q = per_worker_partition(labels, 3, 40, 0.01, np.random.default_rng(0))
    >>> index.shape, [len(set(labels[row])) for row in index]
    ((3, 40), [1, 1, 1])
    """
    y = _labels(labels)
    alpha = check_alpha(alpha)
    workers, n = integer(workers, "workers"), integer(n, "n")
    free = np.ones(y.size, dtype=bool) if available is None else np.asarray(available, bool)
    if free.shape != y.shape:
        raise ValueError(f"available must have the shape of labels {y.shape}, got {free.shape}")
    proportions = rng.dirichlet(np.full(NUM_CLASSES, alpha), size=workers)
    counts = largest_remainder(proportions, n)
    index = np.empty((workers, n), dtype=np.int64)
    filled = np.zeros(workers, dtype=np.int64)
    for c in range(NUM_CLASSES):
        pool = rng.permutation(np.flatnonzero(free & (y == c)))
        need = counts[:, c]
        if need.sum() > pool.size:
            raise ValueError(
                f"the Dirichlet draw (alpha = {alpha:g}) asks {need.sum()} samples of class "
                f"{c} from {workers} skewed workers, but only {pool.size} are free: use "
                "another seed, a larger alpha, fewer skewed workers or fewer samples per "
                "worker")
        starts = np.cumsum(need) - need
        for w in range(workers):
            index[w, filled[w]:filled[w] + need[w]] = pool[starts[w]:starts[w] + need[w]]
        filled += need
    return index, proportions


def per_class_partition(labels: ArrayLike, partitions: int, alpha: float,
                        rng: np.random.Generator, min_partition_size: int = 10,
                        shuffle: bool = True) -> list[np.ndarray]:
    """Flower Datasets' ``DirichletPartitioner`` algorithm (``self_balancing=False``): every
    sample of ``labels`` goes to one of ``partitions`` partitions of unequal sizes.

    For each class c that ``labels`` holds (in increasing order, as ``DirichletPartitioner``'s
    sorted unique labels: an absent class draws nothing), its samples (in their order in
    ``labels``) are cut at ``floor(cumsum(p_c) * m_c)``, ``p_c ~ Dir(alpha * 1_partitions)``,
    ``m_c`` the class's count, and block ``i`` goes to partition ``i``. While the smallest
    partition holds fewer than ``min_partition_size`` samples the whole draw is made again
    (:data:`MAX_TRIES` draws at most); then each partition is shuffled (``shuffle``), partition
    0 first. With ``rng = np.random.default_rng(seed)`` the partitions are those of
    ``DirichletPartitioner(partitions, "label", alpha, min_partition_size,
    self_balancing=False, shuffle=shuffle, seed=seed)``, index by index
    (tests/flower/test_worker_data.py compares them).

    Parameters
    ----------
    labels : array_like of int, shape (m,)
    partitions : int
    alpha : float
        Dirichlet concentration, finite and above 0.
    rng : numpy.random.Generator
    min_partition_size : int, default 10
        As ``DirichletPartitioner``'s (0 accepts any draw).
    shuffle : bool, default True

    Returns
    -------
    list of numpy.ndarray of int64
        Positions in ``labels``, one array per partition; together a partition of
        ``range(m)``.

    Raises
    ------
    ValueError
        For a bad argument, or when no draw in :data:`MAX_TRIES` meets ``min_partition_size``.

    Examples
    --------
    >>> parts = per_class_partition(np.repeat(np.arange(10), 30), 4, 0.5,
    ...                             np.random.default_rng(0))
    >>> sum(len(p) for p in parts), min(len(p) for p in parts) >= 10
    (300, True)
    """
    y = _labels(labels)
    alpha = check_alpha(alpha)
    partitions = integer(partitions, "partitions")
    min_partition_size = integer(min_partition_size, "min_partition_size", minimum=0)
    if partitions * min_partition_size > y.size:
        raise ValueError(f"{partitions} partitions of at least {min_partition_size} samples "
                         f"need {partitions * min_partition_size}, but labels hold {y.size}")
    for _ in range(MAX_TRIES):
        blocks: list[list[np.ndarray]] = [[] for _ in range(partitions)]
        for c in np.unique(y):
            members = np.flatnonzero(y == c)
            cuts = (np.cumsum(rng.dirichlet(np.full(partitions, alpha))) * members.size)
            for i, block in enumerate(np.split(members, cuts.astype(int)[:-1])):
                blocks[i].append(block)
        parts = [np.concatenate(b).astype(np.int64) for b in blocks]
        if min(p.size for p in parts) >= min_partition_size:
            if shuffle:
                for part in parts:
                    rng.shuffle(part)
            return parts
    raise ValueError(f"no draw in {MAX_TRIES} gave every partition {min_partition_size} "
                     f"samples (alpha = {alpha:g}, {partitions} partitions of {y.size}): use a "
                     "larger alpha, fewer partitions or a smaller min_partition_size")


def dirichlet_partition(labels: ArrayLike, parts: int, alpha: float, rng: np.random.Generator,
                        *, scheme: Scheme = "per_worker", n: int | None = None,
                        min_partition_size: int = 10) -> list[np.ndarray]:
    """Dirichlet label skew by name: :func:`per_worker_partition` (``n`` samples each,
    required) or :func:`per_class_partition` (every sample, unequal sizes; ``n`` not taken).

    Returns
    -------
    list of numpy.ndarray of int64
        One array of positions in ``labels`` per part.

    Examples
    --------
    >>> labels = np.repeat(np.arange(10), 40)
    >>> [p.size for p in dirichlet_partition(labels, 2, 1.0, np.random.default_rng(0), n=25)]
    [25, 25]
    """
    if scheme == "per_worker":
        if n is None:
            raise ValueError("scheme 'per_worker' needs n, the samples of each worker")
        return list(per_worker_partition(labels, parts, n, alpha, rng)[0])
    if scheme == "per_class":
        if n is not None:
            raise ValueError("scheme 'per_class' partitions every sample: its sizes are drawn, "
                             "n is not taken")
        return per_class_partition(labels, parts, alpha, rng, min_partition_size)
    raise ValueError(f"scheme must be one of {SCHEMES}, got {scheme!r}")
