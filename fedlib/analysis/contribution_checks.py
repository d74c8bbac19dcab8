"""The statistics behind the claims of Figures 2-3, computed from contribution records.

A *record* is one (case, seed) task of :func:`fedlib.experiments.contribution.run_contribution`:
a mapping with ``case``, ``seed``, ``dacc`` and, per worker, the metrics ``contribution`` (our
weighted measure), ``benchmark`` (equal sample weights), ``mean_prob`` and ``local_acc``.

* Case 1 (Figure 2): does a measure fall with the data accuracy? :func:`case1_trend` gives, per
  seed, the Spearman rank correlation between the measure and dacc and the gap between the
  dacc-1.0 worker and the dacc-0.1 worker.
* Case 2 (Figure 3): does worker 0 (the only one with every label) stand out? :func:`stand_out`
  is worker 0's margin over the mean of the others in units of the others' standard deviation,
  a scale-free score, so measures on different scales compare fairly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

Record = Mapping[str, Any]


def _ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n with ties given their average rank."""
    order = np.argsort(x, kind="stable")
    ranks = np.empty(x.size)
    ranks[order] = np.arange(1, x.size + 1)
    for value in np.unique(x):
        tie = x == value
        ranks[tie] = ranks[tie].mean()
    return ranks


def _paired(x: ArrayLike, y: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Two equally long 1-D float arrays of at least 2 values, or a ValueError."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.shape != b.shape or a.ndim != 1 or a.size < 2:
        raise ValueError("x and y must be 1-D sequences of the same length, at least 2")
    return a, b


def rank_correlation(x: ArrayLike, y: ArrayLike) -> float:
    """Spearman's rank correlation of two equally long sequences (average ranks for ties).

    Returns NaN when either sequence is constant.

    Examples
    --------
    >>> rank_correlation([1, 2, 3], [10, 30, 20])
    0.5
    """
    a, b = _paired(x, y)
    ra, rb = _ranks(a) - (a.size + 1) / 2, _ranks(b) - (b.size + 1) / 2
    denom = np.sqrt((ra**2).sum() * (rb**2).sum())
    return float((ra * rb).sum() / denom) if denom > 0 else float("nan")


def kendall_tau(x: ArrayLike, y: ArrayLike) -> float:
    """Kendall's tau-b rank correlation of two equally long sequences (ties allowed).

    Returns NaN when either sequence is constant.

    Examples
    --------
    >>> kendall_tau([1, 2, 3], [10, 30, 20])
    0.3333333333333333
    """
    a, b = _paired(x, y)
    i, j = np.triu_indices(a.size, 1)
    da, db = np.sign(a[i] - a[j]), np.sign(b[i] - b[j])
    denom = np.sqrt(np.count_nonzero(da) * np.count_nonzero(db))
    return float((da * db).sum() / denom) if denom > 0 else float("nan")


#: The largest number of pairs :func:`paired_sign_flip_p` enumerates (2^24 sign patterns).
MAX_PAIRS = 24


def paired_sign_flip_p(differences: ArrayLike) -> float:
    """One-sided exact p-value of a paired sign-flip (permutation) test that the mean of
    ``differences`` is positive.

    Under the null hypothesis each paired difference is as likely to have either sign, so all
    2^n sign patterns are equally likely; the p-value is the share of patterns whose sum is at
    least the observed sum. It assumes no distribution (unlike a paired t-test) and is exact.

    Examples
    --------
    >>> paired_sign_flip_p([1.0, 2.0, 3.0])  # only the observed signs reach 6: 1 of 8
    0.125
    >>> paired_sign_flip_p([1.0, -1.0])  # sums 2, 0, 0, -2: three of four reach 0
    0.75
    """
    d = np.asarray(differences, dtype=float).ravel()
    if not 0 < d.size <= MAX_PAIRS or not np.all(np.isfinite(d)):
        raise ValueError(f"differences must be 1 to {MAX_PAIRS} finite numbers, got {d.size} "
                         "value(s)" + ("" if np.all(np.isfinite(d)) else " with NaN or inf"))

    def signed_sums(part: np.ndarray) -> np.ndarray:
        signs = 1 - 2 * ((np.arange(2 ** part.size)[:, None] >> np.arange(part.size)) & 1)
        return signs @ part

    half = d.size // 2  # meet in the middle: 2^(n/2) sums per half instead of 2^n rows
    sums = signed_sums(d[:half])[:, None] + signed_sums(d[half:])[None, :]
    observed = d.sum()
    return float(np.mean(sums >= observed - 1e-12 * np.abs(d).sum()))


def stand_out(values: ArrayLike, worker: int = 0) -> float:
    """How far ``worker`` stands out: ``(v_w - mean(others)) / std(others)``.

    ``std`` is the sample standard deviation (ddof 1) of the other workers' values. Positive:
    above the others; 2 means two standard deviations above their mean. Infinite (with the sign
    of the margin) when the others are all equal; 0 when everyone is equal.

    Examples
    --------
    >>> stand_out([3.0, 1.0, 2.0, 3.0])
    1.0
    """
    v = np.asarray(values, dtype=float)
    if v.ndim != 1 or v.size < 3 or not 0 <= worker < v.size:
        raise ValueError("values must be 1-D with at least 3 entries and worker an index")
    others = np.delete(v, worker)
    margin = v[worker] - others.mean()
    spread = others.std(ddof=1)
    if spread > 0:
        return float(margin / spread)
    return 0.0 if margin == 0 else float(np.copysign(np.inf, margin))


def case_records(records: Iterable[Record], case: int) -> list[Record]:
    """The records of ``case``; a ValueError when there is none."""
    chosen = [r for r in records if r["case"] == case]
    if not chosen:
        raise ValueError(f"no record of case {case}")
    return chosen


@dataclass(frozen=True)
class Trend:
    """Case 1: one measure against the data accuracy, per seed.

    Attributes
    ----------
    seeds : numpy.ndarray of int
    rho : numpy.ndarray
        Spearman correlation between the measure and dacc.
    gap : numpy.ndarray
        Measure of the dacc-1.0 worker minus that of the dacc-0.1 worker (highest minus
        lowest dacc).
    relative_gap : numpy.ndarray
        ``gap`` divided by the dacc-1.0 worker's value.
    """

    seeds: np.ndarray
    rho: np.ndarray
    gap: np.ndarray
    relative_gap: np.ndarray


def case1_trend(records: Iterable[Record], metric: str) -> Trend:
    """:class:`Trend` of ``metric`` over the Case 1 records."""
    rows = case_records(records, 1)
    rho, gap, rel = [], [], []
    for r in rows:
        dacc, v = np.asarray(r["dacc"], float), np.asarray(r[metric], float)
        hi, lo = int(np.argmax(dacc)), int(np.argmin(dacc))
        rho.append(rank_correlation(v, dacc))
        gap.append(v[hi] - v[lo])
        rel.append((v[hi] - v[lo]) / v[hi] if v[hi] != 0 else np.nan)
    return Trend(np.array([r["seed"] for r in rows]), np.array(rho), np.array(gap),
                 np.array(rel))


def case2_stand_out(records: Iterable[Record], metric: str, worker: int = 0) -> np.ndarray:
    """:func:`stand_out` of ``worker`` under ``metric``, one value per Case 2 record (seed)."""
    return np.array([stand_out(r[metric], worker) for r in case_records(records, 2)])


def case2_rank(records: Iterable[Record], metric: str, worker: int = 0) -> np.ndarray:
    """Rank of ``worker`` under ``metric`` (1 = highest), one value per Case 2 record."""
    return np.array([1 + int(np.sum(np.asarray(r[metric]) > r[metric][worker]))
                     for r in case_records(records, 2)])


def per_seed(records: Iterable[Record], case: int, metric: str) -> np.ndarray:
    """``metric`` of every worker, one row per record of ``case``: shape (seeds, workers)."""
    return np.array([r[metric] for r in case_records(records, case)], dtype=float)
