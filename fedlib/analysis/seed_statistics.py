"""Verdicts that rest on many seeds: a statistic per seed, its spread, and the rules that judge it.

A federated run of Tables 1-3 is a chaotic process: one seed (one draw of the workers' data,
bids, batch orders and initial models) can hire other winners than the next. A verdict on one
run says as much about the seed as about the mechanism, so a claim is judged on the runs of
several seeds, by three rules that answer three different questions:

* **What is our mean?** :class:`SeedStatistic` carries the value in every seed, the mean and a
  95% confidence interval for the mean (:func:`mean_interval`, Student's t: mean
  +/- t(n-1, 0.975) s / sqrt(n)). It has its nominal coverage for normal values; on bounded,
  skewed values it covers less, the more the skew (about 93.4% at n = 3 for Beta(5, 2) values,
  measured by ``tests/analysis/test_seed_statistics.py``; about 93% for Beta(2, 8)). The plain
  percentile bootstrap that the book used before covers about 76%, 84% and 90% at n = 3, 5 and
  10, which is why it went.
* **Is the paper's one run a plausible run of ours?** The paper prints one run per cell. A
  printed number is *reproduced* when it lies within the 95% *prediction interval for one new
  run* (:func:`prediction_interval`: mean +/- t(n-1, 0.975) s sqrt(1 + 1/n)), widened by half a
  unit of the paper's last printed digit (its rounding), and *not reproduced* otherwise
  (:func:`number_verdict`). Unlike an interval of the mean, it does not shrink to nothing as
  seeds are added, so more seeds do not make every cell fail.
* **Does a statement hold?** A statement checked in every seed's run is *reproduced* only when
  a one-sided exact sign test (:func:`sign_test_p`, ``scipy.stats.binomtest``) says it holds
  more often than not at the 5% level; holding in every one of too few seeds for that (3 of 3,
  4 of 4: p = 0.125, 0.0625) is *indicative*, a verdict of its own; *not reproduced* when it
  fails in every seed or the sign test says it fails more often than not; *partly* otherwise
  (:func:`statement_verdict`). :func:`seeds_needed` says how many unanimous seeds make a
  statement significant (five).

A statistic equal in every seed (a share of 1.000 in all ten seeds) has no spread, and an
interval of width 0 would claim a certainty the seeds do not give. It is stated exactly instead
(:meth:`SeedStatistic.describe`): the value in n of n seeds, and the exact one-sided 95% bound
on the probability that a run of ours gives another value (:func:`unanimous_bound`, Clopper-
Pearson with no exception in n: 1 - 0.05^(1/n), 0.26 for ten seeds). A printed number is then
reproduced when it is that value (to the paper's rounding) and not reproduced otherwise: our
seeds never produced it.

numpy and scipy.stats only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from fedlib.checks import integer

#: The intervals' coverage, and the level of the sign test.
CONFIDENCE = 0.95
SIGNIFICANCE = 0.05


def _values(values: ArrayLike) -> np.ndarray:
    """A 1-D float array of at least one finite value, or a ValueError."""
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ValueError(f"values must be a 1-D sequence of at least one finite number, got "
                         f"{np.asarray(values).tolist()!r}")
    return arr


def _t_interval(values: ArrayLike, confidence: float, scale: float) -> tuple:
    """mean +/- ``t(n-1, (1 + confidence) / 2) * s * scale(n)`` over the last axis of
    ``values`` (the seeds; rows of a 2-D array are separate experiments)."""
    arr = np.asarray(values, dtype=float)
    if arr.ndim not in (1, 2) or arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ValueError(f"values must be one finite number per seed (1-D, or 2-D with a row "
                         f"per experiment), got {arr.tolist()!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    n = arr.shape[-1]
    if n < 2:
        raise ValueError("an interval needs at least two seeds; one seed shows no spread")
    half = stats.t.ppf((1 + confidence) / 2, n - 1) * arr.std(axis=-1, ddof=1) * scale(n)
    mean = arr.mean(axis=-1)
    if arr.ndim == 1:
        return float(mean - half), float(mean + half)
    return mean - half, mean + half


def mean_interval(values: ArrayLike, confidence: float = CONFIDENCE) -> tuple:
    """Student's t confidence interval for the mean of ``values`` (one per seed; a 2-D array
    gives one interval per row): mean +/- t(n-1, (1 + confidence) / 2) s / sqrt(n).

    Examples
    --------
    >>> low, high = mean_interval([1.0, 2.0, 3.0])   # t(2, 0.975) = 4.303, s = 1
    >>> round(low, 3), round(high, 3)
    (-0.484, 4.484)
    """
    return _t_interval(values, confidence, lambda n: 1 / math.sqrt(n))


def prediction_interval(values: ArrayLike, confidence: float = CONFIDENCE) -> tuple:
    """Student's t prediction interval for one new run, given the runs ``values`` (a 2-D array
    gives one interval per row): mean +/- t(n-1, (1 + confidence) / 2) s sqrt(1 + 1/n).

    Examples
    --------
    >>> low, high = prediction_interval([1.0, 2.0, 3.0])
    >>> round(low, 3), round(high, 3)
    (-2.968, 6.968)
    """
    return _t_interval(values, confidence, lambda n: math.sqrt(1 + 1 / n))


def unanimous_bound(n: int, confidence: float = CONFIDENCE) -> float:
    """The exact one-sided ``confidence`` upper bound on the probability of an event that did
    not occur in ``n`` independent seeds (Clopper-Pearson): ``1 - (1 - confidence)**(1/n)``.

    Examples
    --------
    >>> round(unanimous_bound(10), 3), round(unanimous_bound(5), 3)
    (0.259, 0.451)
    """
    n = integer(n, "n", minimum=1)
    ci = stats.binomtest(0, n, alternative="less").proportion_ci(confidence_level=confidence)
    return float(ci.high)


@dataclass(frozen=True)
class SeedStatistic:
    """A statistic computed on the run of every seed.

    Attributes
    ----------
    seeds : tuple of int
    values : tuple of float
        The statistic in each seed's run, in the order of ``seeds``.
    mean : float
    low, high : float
        The 95% t interval for the mean (:func:`mean_interval`); the value itself where every
        seed gives the same value (:attr:`constant`), or where there is one seed.
    """

    seeds: tuple[int, ...]
    values: tuple[float, ...]
    mean: float
    low: float
    high: float

    @classmethod
    def of(cls, seeds: Sequence[int], values: ArrayLike) -> SeedStatistic:
        """The statistic of ``values``, one per seed of ``seeds``.

        Examples
        --------
        >>> s = SeedStatistic.of([0, 1], [0.5, 0.5])
        >>> s.mean, (s.low, s.high), s.n, s.constant
        (0.5, (0.5, 0.5), 2, True)
        """
        arr = _values(values)
        if len(seeds) != arr.size or len(set(seeds)) != len(seeds):
            raise ValueError(f"seeds must be distinct, one per value: got {list(seeds)} for "
                             f"{arr.size} value(s)")
        mean = float(arr.mean())
        low, high = (mean, mean) if np.ptp(arr) == 0 else mean_interval(arr)
        return cls(tuple(int(s) for s in seeds), tuple(arr.tolist()), mean, low, high)

    @property
    def n(self) -> int:
        """The number of seeds."""
        return len(self.seeds)

    @property
    def constant(self) -> bool:
        """Whether every seed gives the same value (one seed included)."""
        return len(set(self.values)) == 1

    def prediction(self) -> tuple[float, float]:
        """The 95% prediction interval for one new run (:func:`prediction_interval`); the
        value itself where every seed gives it."""
        return (self.mean, self.mean) if self.constant else prediction_interval(self.values)

    def describe(self, digits: int) -> str:
        """The mean and its 95% interval to ``digits`` decimals, or, where every seed gives one
        value, that value in n of n seeds with :func:`unanimous_bound`.

        Examples
        --------
        >>> SeedStatistic.of([0, 1, 2], [0.2, 0.3, 0.4]).describe(3)
        'mean 0.300, 95% CI of the mean [0.052, 0.548] over 3 seeds'
        >>> SeedStatistic.of(range(10), [1.0] * 10).describe(3)
        '1.000 in 10 of 10 seeds (another value in at most 26% of runs, exact 95% bound)'
        """
        if self.constant:
            return (f"{self.mean:.{digits}f} in {self.n} of {self.n} seed"
                    f"{'s' if self.n != 1 else ''} (another value in at most "
                    f"{unanimous_bound(self.n):.0%} of runs, exact 95% bound)")
        return (f"mean {self.mean:.{digits}f}, {CONFIDENCE:.0%} CI of the mean "
                f"[{self.low:.{digits}f}, {self.high:.{digits}f}] over {self.n} seeds")


def sign_test_p(k: int, n: int) -> float:
    """One-sided exact p-value of the sign test that a statement holding in ``k`` of ``n``
    independent seeds holds more often than not: ``P(X >= k)`` for ``X ~ Binomial(n, 1/2)``.

    Examples
    --------
    >>> sign_test_p(10, 10), round(sign_test_p(9, 10), 4), sign_test_p(3, 3), sign_test_p(0, 3)
    (0.0009765625, 0.0107, 0.125, 1.0)
    """
    n = integer(n, "n", minimum=1)
    k = integer(k, "k", minimum=0, maximum=n)
    return float(stats.binomtest(k, n, 0.5, alternative="greater").pvalue)


def seeds_needed(significance: float = SIGNIFICANCE) -> int:
    """The fewest seeds on which a statement holding in every one is significant.

    Examples
    --------
    >>> seeds_needed()
    5
    """
    return next(n for n in range(1, 64) if sign_test_p(n, n) < significance)


def statement_verdict(checks: Sequence[bool]) -> str:
    """The verdict on a statement checked once per seed (the module docstring's rule).

    Examples
    --------
    >>> statement_verdict([True] * 5), statement_verdict([True] * 9 + [False])
    ('reproduced', 'reproduced')
    >>> statement_verdict([True] * 3), statement_verdict([True, False, True])
    ('indicative', 'partly')
    >>> statement_verdict([False] * 3), statement_verdict([False] * 9 + [True])
    ('not reproduced', 'not reproduced')
    """
    n = len(checks)
    if n == 0:
        raise ValueError("a verdict needs at least one seed")
    k = sum(bool(c) for c in checks)
    if sign_test_p(k, n) < SIGNIFICANCE:
        return "reproduced"
    if k == n:
        return "indicative"
    if k == 0 or sign_test_p(n - k, n) < SIGNIFICANCE:
        return "not reproduced"
    return "partly"


def number_verdict(statistic: SeedStatistic, paper: float, digits: int) -> str:
    """``"reproduced"`` when the paper's number (printed to ``digits`` decimals, so known to
    half a unit of its last digit) lies within the statistic's 95% prediction interval for one
    run (:meth:`SeedStatistic.prediction`), else ``"not reproduced"``.

    Examples
    --------
    >>> s = SeedStatistic.of([0, 1, 2], [0.95, 0.97, 0.99])
    >>> number_verdict(s, 1.0, 3), number_verdict(s, 1.1, 3)
    ('reproduced', 'not reproduced')
    >>> ones = SeedStatistic.of(range(10), [1.0] * 10)
    >>> number_verdict(ones, 1.0, 4), number_verdict(ones, 0.9874, 4)
    ('reproduced', 'not reproduced')
    """
    if not math.isfinite(paper):
        raise ValueError(f"paper must be a finite number, got {paper!r}")
    half_unit = 0.5 * 10.0**-digits
    low, high = statistic.prediction()
    return "reproduced" if low - half_unit <= paper <= high + half_unit else "not reproduced"
