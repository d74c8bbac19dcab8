"""In how many seeds a statement held, and what a one-sided sign test makes of that count.

A statement about a chaotic run (a federated run of Tables 1-3, a cold-start map) is checked
once per seed. That it held in every seed run is not, by itself, evidence at the 5% level: the
one-sided sign test of :func:`~fedlib.analysis.seed_statistics.sign_test_p` gives
``P(X >= k)`` for ``X ~ Binomial(n, 1/2)``, and with ``k = n`` that is ``2**-n``. Three of three
seeds give ``p = 1/8 = 0.125`` and four of four ``1/16 = 0.0625``, above 5%: such a count is
*indicative*; five of five (``1/32``) and nine of ten (``11/1024``) are *significant*.

:class:`SeedCount` holds the count and says it in words (:meth:`SeedCount.describe`), so that a
chapter's prose states a per-seed statement with its count instead of a bare "holds".

numpy only (no torch).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fedlib.analysis.seed_statistics import SIGNIFICANCE, sign_test_p
from fedlib.checks import integer

__all__ = ["SeedCount"]


@dataclass(frozen=True)
class SeedCount:
    """A statement checked in ``n`` seeds' runs held in ``held`` of them.

    Attributes
    ----------
    held : int
        The seeds in which the statement held, ``0 <= held <= n``.
    n : int
        The seeds checked, at least 1.

    Examples
    --------
    >>> SeedCount.of([True, True, True]).describe()
    'indicative (3 of 3 seeds)'
    >>> SeedCount(9, 10).describe()
    'significant (9 of 10 seeds, one-sided sign test p = 0.011)'
    >>> SeedCount(2, 3).describe()
    '2 of 3 seeds'
    """

    held: int
    n: int

    def __post_init__(self) -> None:
        n = integer(self.n, "n", minimum=1)
        object.__setattr__(self, "n", n)
        object.__setattr__(self, "held", integer(self.held, "held", minimum=0, maximum=n))

    @classmethod
    def of(cls, checks: Sequence[bool]) -> SeedCount:
        """The count of ``checks``, one per seed (at least one)."""
        if len(checks) == 0:
            raise ValueError("a count needs at least one seed")
        return cls(sum(bool(c) for c in checks), len(checks))

    @property
    def p(self) -> float:
        """One-sided sign-test p-value that the statement holds more often than not:
        ``P(X >= held)`` for ``X ~ Binomial(n, 1/2)``."""
        return sign_test_p(self.held, self.n)

    @property
    def significant(self) -> bool:
        """Whether the sign test is significant at :data:`SIGNIFICANCE` (5%)."""
        return self.p < SIGNIFICANCE

    @property
    def unanimous(self) -> bool:
        """Whether the statement held in every seed."""
        return self.held == self.n

    def describe(self) -> str:
        """The count in words: ``"significant (k of n seeds, one-sided sign test p = ...)"``
        when the sign test is significant at 5%, ``"indicative (n of n seeds)"`` when it held
        in every seed but too few seeds were run for significance, else ``"k of n seeds"``."""
        count = f"{self.held} of {self.n} seed{'s' if self.n != 1 else ''}"
        if self.significant:
            return f"significant ({count}, one-sided sign test p = {self.p:.2g})"
        return f"indicative ({count})" if self.unanimous else count
