"""Seed counts and their words, on hand-computed sign tests."""

from __future__ import annotations

import pytest

from fedlib.analysis.seed_counts import SeedCount


@pytest.mark.parametrize("held,n,p,words", [
    # P(X >= k), X ~ Binomial(n, 1/2): 3 of 3 is 1/8, 4 of 4 is 1/16: unanimous, not significant
    (3, 3, 1 / 8, "indicative (3 of 3 seeds)"),
    (4, 4, 1 / 16, "indicative (4 of 4 seeds)"),
    (1, 1, 1 / 2, "indicative (1 of 1 seed)"),
    # 5 of 5 is 1/32 and 9 of 10 is (1 + 10) / 1024: significant at 5%
    (5, 5, 1 / 32, "significant (5 of 5 seeds, one-sided sign test p = 0.031)"),
    (9, 10, 11 / 1024, "significant (9 of 10 seeds, one-sided sign test p = 0.011)"),
    (10, 10, 1 / 1024, "significant (10 of 10 seeds, one-sided sign test p = 0.00098)"),
    # 8 of 10 is (1 + 10 + 45) / 1024 = 0.0547: not significant, not unanimous
    (8, 10, 56 / 1024, "8 of 10 seeds"),
    (2, 3, 4 / 8, "2 of 3 seeds"),
    (0, 3, 1.0, "0 of 3 seeds"),
])
def test_counts_by_hand(held, n, p, words):
    count = SeedCount(held, n)
    assert count.p == pytest.approx(p)
    assert count.significant == (p < 0.05)
    assert count.unanimous == (held == n)
    assert count.describe() == words


def test_of_counts_the_checks():
    assert SeedCount.of([True, False, True]) == SeedCount(2, 3)
    assert SeedCount.of([1, 1, 1, 1, 1]).significant


@pytest.mark.parametrize("held,n", [(4, 3), (-1, 3), (1, 0), (1.0, 3), (True, 3)])
def test_bad_counts_are_refused(held, n):
    with pytest.raises(ValueError):
        SeedCount(held, n)


def test_no_seed_no_count():
    with pytest.raises(ValueError, match="at least one seed"):
        SeedCount.of([])
