"""Statistics over seeds: the bootstrap interval, the sign test and the two verdict rules, on
hand-computed cases and as properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fedlib.analysis.seed_statistics import (
    SeedStatistic,
    bootstrap_interval,
    number_verdict,
    sign_test_p,
    statement_verdict,
)

values = st.lists(st.floats(-10, 10, allow_nan=False), min_size=1, max_size=12)


@pytest.mark.parametrize("k,n,p", [(3, 3, 1 / 8), (2, 3, 4 / 8), (0, 3, 1.0),
                                   (9, 10, 11 / 1024), (8, 10, 56 / 1024), (5, 5, 1 / 32)])
def test_sign_test_by_hand(k, n, p):
    # P(X >= k), X ~ Binomial(n, 1/2): sum of C(n, i) for i >= k over 2^n
    assert sign_test_p(k, n) == pytest.approx(p, rel=1e-12)


@pytest.mark.parametrize("checks,verdict", [
    ([True, True, True], "reproduced"),             # every seed
    ([True] * 9 + [False], "reproduced"),           # p = 11/1024 < 0.05
    ([True] * 8 + [False] * 2, "partly"),           # p = 56/1024 > 0.05
    ([True, False], "partly"),
    ([False, False, False], "not reproduced"),      # no seed
    ([False] * 9 + [True], "not reproduced"),       # fails significantly
    ([True] * 4 + [False], "partly"),               # p = 6/32
])
def test_statement_verdict_by_hand(checks, verdict):
    assert statement_verdict(checks) == verdict


def test_number_verdict_allows_the_papers_rounding():
    statistic = SeedStatistic.of([0, 1], [0.50, 0.50])
    assert number_verdict(statistic, 0.5004, 3) == "reproduced"   # 0.500 as printed
    assert number_verdict(statistic, 0.5006, 3) == "not reproduced"
    assert number_verdict(statistic, 0.5006, 2) == "reproduced"


def test_one_value_or_equal_values_give_a_point_interval():
    assert bootstrap_interval([0.3]) == (0.3, 0.3)
    assert bootstrap_interval([2.0, 2.0, 2.0]) == (2.0, 2.0)


@given(values)
def test_the_interval_holds_the_mean_within_the_range(xs):
    low, high = bootstrap_interval(xs)
    mean = float(np.mean(xs))
    slack = 1e-9 * (1 + abs(mean))
    assert min(xs) - slack <= low <= mean + slack and mean - slack <= high <= max(xs) + slack


@given(values)
def test_the_interval_is_a_function_of_the_values(xs):
    assert bootstrap_interval(xs) == bootstrap_interval(list(xs))


def test_the_interval_narrows_with_more_seeds():
    rng = np.random.default_rng(1)
    draws = rng.normal(size=400)
    few, many = bootstrap_interval(draws[:5]), bootstrap_interval(draws)
    assert many[1] - many[0] < few[1] - few[0]


@pytest.mark.parametrize("bad", [[], [float("nan")], [[1.0, 2.0]], [1.0, math.inf]])
def test_bad_values_are_refused(bad):
    with pytest.raises(ValueError, match="finite number"):
        bootstrap_interval(bad)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="one per value"):
        SeedStatistic.of([0, 1], [1.0])
    with pytest.raises(ValueError, match="distinct"):
        SeedStatistic.of([0, 0], [1.0, 2.0])
    with pytest.raises(ValueError, match="k must be"):
        sign_test_p(4, 3)
    with pytest.raises(ValueError, match="n must be"):
        sign_test_p(0, 0)
    with pytest.raises(ValueError, match="k must be"):
        sign_test_p(True, 3)
    with pytest.raises(ValueError, match="at least one seed"):
        statement_verdict([])
    with pytest.raises(ValueError, match="paper must be"):
        number_verdict(SeedStatistic.of([0], [1.0]), float("nan"), 3)
