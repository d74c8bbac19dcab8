"""Theorem 3 (computational efficiency): wall times of Algorithm 1's selection against ``n``."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from fedlib.mechanism import select, synthetic_instance
from fedlib.table import Table


@dataclass(frozen=True)
class ScalingResult:
    """Wall times of :func:`~fedlib.mechanism.select` for growing ``n``.

    Attributes
    ----------
    sizes : numpy.ndarray of int
        Numbers of workers.
    times : numpy.ndarray, shape (len(sizes), repeats)
        Seconds per call.
    """

    sizes: np.ndarray
    times: np.ndarray

    @property
    def median(self) -> np.ndarray:
        """Median seconds per size."""
        return np.median(self.times, axis=1)

    @property
    def n_log_n(self) -> np.ndarray:
        """``n log2 n`` per size."""
        return self.sizes * np.log2(self.sizes)

    @property
    def per_n_log_n(self) -> np.ndarray:
        """Median seconds divided by ``n log2 n``."""
        return self.median / self.n_log_n

    def slope(self, min_size: int = 0) -> float:
        """Least-squares slope of log(median time) against log(n) over sizes >= ``min_size``.

        ``n log n`` growth gives a slope slightly above 1; quadratic growth gives 2.
        """
        keep = self.sizes >= min_size
        if keep.sum() < 2:
            raise ValueError("need at least two sizes to fit a slope")
        return float(np.polyfit(np.log(self.sizes[keep]), np.log(self.median[keep]), 1)[0])

    def table(self) -> Table:
        """Sizes, median and spread of the times, and time per ``n log2 n`` (in ns)."""
        rows = tuple((int(n), float(np.median(t) * 1e3), float(t.min() * 1e3),
                      float(t.max() * 1e3), float(r * 1e9))
                     for n, t, r in zip(self.sizes, self.times, self.per_n_log_n, strict=True))
        return Table(("n", "median ms", "min ms", "max ms", "ns per n log2 n"), rows, digits=4)


def time_select(sizes: Sequence[int], repeats: int, rng: np.random.Generator) -> ScalingResult:
    """Time :func:`~fedlib.mechanism.select` (validation included) ``repeats`` times per size.

    Workers come from :func:`~fedlib.mechanism.synthetic_instance` with budget ``n`` (so that a
    large share of them win).
    """
    if repeats < 1:
        raise ValueError(f"repeats must be positive, got {repeats}")
    sizes_arr = np.asarray(sizes, dtype=int)
    if sizes_arr.ndim != 1 or sizes_arr.size == 0 or np.any(sizes_arr < 2):
        raise ValueError("sizes must be a non-empty list of integers >= 2")
    times = np.zeros((sizes_arr.size, repeats))
    for s, n in enumerate(sizes_arr):
        inst = synthetic_instance(int(n), float(n), rng)
        bids, Re = np.array(inst.bids), np.array(inst.Re)
        select(bids, Re, inst.budget)  # warm-up
        for r in range(repeats):
            start = time.perf_counter()
            select(bids, Re, inst.budget)
            times[s, r] = time.perf_counter() - start
    return ScalingResult(sizes_arr, times)
