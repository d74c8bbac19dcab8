"""Verdicts that rest on many seeds: a statistic per seed, its spread, and the rule that judges it.

A federated run of Tables 1-3 is a chaotic process: one seed (one draw of the workers' data,
bids, batch orders and initial models) can hire other winners than the next, and Fashion-MNIST
runs part between two CPUs within the first task. A verdict on such a run says as much about
the seed as about the mechanism. Here a claim is judged on the runs of several seeds:

* :class:`SeedStatistic`: the value of a statistic in every seed, their mean and a 95% interval
  for the mean (a percentile bootstrap over the seeds, :func:`bootstrap_interval`);
* :func:`number_verdict`: a number the paper prints is *reproduced* when it lies within that
  interval (widened by half a unit of the paper's last printed digit, the rounding of its
  number), *not reproduced* when the interval excludes it;
* :func:`statement_verdict`: a statement (an ordering, an inequality) checked in every seed is
  *reproduced* when it holds in every seed or a one-sided sign test over the seeds
  (:func:`sign_test_p`) says it holds more often than not at the 5% level, *not reproduced*
  when it fails in every seed or the sign test says it fails more often than not, and *partly*
  otherwise.

numpy only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from fedlib.checks import integer

#: The interval's coverage, and the level of the sign test.
CONFIDENCE = 0.95
SIGNIFICANCE = 0.05
#: Bootstrap resamples of the seeds, and the seed of the resampling (the interval is a fixed
#: function of the values).
RESAMPLES = 10_000
BOOTSTRAP_SEED = 0


def _values(values: ArrayLike) -> np.ndarray:
    """A 1-D float array of at least one finite value, or a ValueError."""
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ValueError(f"values must be a 1-D sequence of at least one finite number, got "
                         f"{np.asarray(values).tolist()!r}")
    return arr


def bootstrap_interval(values: ArrayLike, confidence: float = CONFIDENCE,
                       resamples: int = RESAMPLES) -> tuple[float, float]:
    """Percentile bootstrap interval for the mean of ``values`` (one per seed).

    The seeds are resampled with replacement ``resamples`` times (a fixed generator, so the
    interval is a function of the values alone); the interval runs between the
    ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` quantiles of the resampled means. With
    one value, or values all equal, it is that value: one seed shows no spread.

    Examples
    --------
    >>> bootstrap_interval([1.0, 1.0, 1.0])
    (1.0, 1.0)
    >>> low, high = bootstrap_interval([0.0, 1.0, 2.0, 3.0])
    >>> 0.0 <= low < 1.5 < high <= 3.0
    True
    """
    arr = _values(values)
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    if np.ptp(arr) == 0:
        return float(arr[0]), float(arr[0])
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    means = arr[rng.integers(0, arr.size, size=(resamples, arr.size))].mean(axis=1)
    low, high = np.quantile(means, [(1 - confidence) / 2, (1 + confidence) / 2])
    return float(low), float(high)


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
        The 95% percentile-bootstrap interval for the mean (:func:`bootstrap_interval`).
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
        >>> s.mean, (s.low, s.high), s.n
        (0.5, (0.5, 0.5), 2)
        """
        arr = _values(values)
        if len(seeds) != arr.size or len(set(seeds)) != len(seeds):
            raise ValueError(f"seeds must be distinct, one per value: got {list(seeds)} for "
                             f"{arr.size} value(s)")
        low, high = bootstrap_interval(arr)
        return cls(tuple(int(s) for s in seeds), tuple(arr.tolist()), float(arr.mean()), low,
                   high)

    @property
    def n(self) -> int:
        """The number of seeds."""
        return len(self.seeds)

    def describe(self, digits: int) -> str:
        """``"mean m, 95% interval [l, h] over n seeds"`` to ``digits`` decimals.

        Examples
        --------
        >>> SeedStatistic.of([0, 1, 2], [1.0, 1.0, 1.0]).describe(3)
        'mean 1.000, 95% interval [1.000, 1.000] over 3 seeds'
        """
        return (f"mean {self.mean:.{digits}f}, {CONFIDENCE:.0%} interval [{self.low:.{digits}f}, "
                f"{self.high:.{digits}f}] over {self.n} seed{'s' if self.n != 1 else ''}")


def sign_test_p(k: int, n: int) -> float:
    """One-sided exact p-value of the sign test that a statement holding in ``k`` of ``n``
    independent seeds holds more often than not: ``P(X >= k)`` for ``X ~ Binomial(n, 1/2)``.

    Examples
    --------
    >>> sign_test_p(10, 10), round(sign_test_p(9, 10), 4), sign_test_p(0, 3)
    (0.0009765625, 0.0107, 1.0)
    """
    n = integer(n, "n")
    k = integer(k, "k", minimum=0, maximum=n)
    return sum(math.comb(n, i) for i in range(k, n + 1)) / 2**n


def statement_verdict(checks: Sequence[bool]) -> str:
    """The verdict on a statement checked once per seed (module docstring's rule).

    Examples
    --------
    >>> statement_verdict([True] * 3), statement_verdict([True] * 9 + [False])
    ('reproduced', 'reproduced')
    >>> statement_verdict([True, False, True]), statement_verdict([False] * 9 + [True])
    ('partly', 'not reproduced')
    """
    n = len(checks)
    if n == 0:
        raise ValueError("a verdict needs at least one seed")
    k = sum(bool(c) for c in checks)
    if k == n or sign_test_p(k, n) < SIGNIFICANCE:
        return "reproduced"
    if k == 0 or sign_test_p(n - k, n) < SIGNIFICANCE:
        return "not reproduced"
    return "partly"


def number_verdict(statistic: SeedStatistic, paper: float, digits: int) -> str:
    """``"reproduced"`` when the paper's number (printed to ``digits`` decimals, so known to
    half a unit of its last digit) lies within the statistic's interval, else
    ``"not reproduced"``.

    Examples
    --------
    >>> s = SeedStatistic.of([0, 1, 2], [0.95, 0.97, 0.99])
    >>> number_verdict(s, 0.97, 2), number_verdict(s, 1.0, 3)
    ('reproduced', 'not reproduced')
    """
    if not math.isfinite(paper):
        raise ValueError(f"paper must be a finite number, got {paper!r}")
    half_unit = 0.5 * 10.0**-digits
    within = statistic.low - half_unit <= paper <= statistic.high + half_unit
    return "reproduced" if within else "not reproduced"
