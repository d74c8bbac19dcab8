"""Statistics over seeds: the t intervals, the exact bounds, the sign test and the verdict rules,
on hand-computed cases, as properties, and by the coverage the intervals have in simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fedlib.analysis.seed_statistics import (
    SeedStatistic,
    mean_interval,
    number_verdict,
    prediction_interval,
    seeds_needed,
    sign_test_p,
    statement_verdict,
    unanimous_bound,
)

values = st.lists(st.floats(-10, 10, allow_nan=False), min_size=2, max_size=12)


@pytest.mark.parametrize("k,n,p", [(3, 3, 1 / 8), (2, 3, 4 / 8), (0, 3, 1.0),
                                   (9, 10, 11 / 1024), (8, 10, 56 / 1024), (5, 5, 1 / 32)])
def test_sign_test_by_hand(k, n, p):
    # P(X >= k), X ~ Binomial(n, 1/2): sum of C(n, i) for i >= k over 2^n
    assert sign_test_p(k, n) == pytest.approx(p, rel=1e-12)


@pytest.mark.parametrize("checks,verdict", [
    ([True] * 5, "reproduced"),                     # p = 1/32 < 0.05
    ([True] * 9 + [False], "reproduced"),           # p = 11/1024 < 0.05
    ([True] * 3, "indicative"),                     # p = 1/8: unanimous, too few seeds
    ([True] * 4, "indicative"),                     # p = 1/16
    ([True] * 8 + [False] * 2, "partly"),           # p = 56/1024 > 0.05
    ([True, False], "partly"),
    ([False, False, False], "not reproduced"),      # no seed
    ([False] * 9 + [True], "not reproduced"),       # fails significantly
    ([True] * 4 + [False], "partly"),               # p = 6/32
])
def test_statement_verdict_by_hand(checks, verdict):
    assert statement_verdict(checks) == verdict


def test_five_unanimous_seeds_are_the_fewest_that_are_significant():
    assert seeds_needed() == 5 and sign_test_p(4, 4) == 1 / 16 and sign_test_p(5, 5) == 1 / 32


def test_intervals_by_hand():
    # values 1, 2, 3: mean 2, s = 1, t(2, 0.975) = 4.302653 (tables)
    t = 4.302653
    assert mean_interval([1.0, 2.0, 3.0]) == pytest.approx((2 - t / 3**0.5, 2 + t / 3**0.5))
    wide = t * (1 + 1 / 3) ** 0.5
    assert prediction_interval([1.0, 2.0, 3.0]) == pytest.approx((2 - wide, 2 + wide))


def test_unanimous_bound_by_hand():
    # P(no exception in n) = (1 - p)^n = 0.05 at the bound
    assert unanimous_bound(10) == pytest.approx(1 - 0.05 ** 0.1)
    assert unanimous_bound(3) == pytest.approx(1 - 0.05 ** (1 / 3))


def test_number_verdict_allows_the_papers_rounding():
    statistic = SeedStatistic.of([0, 1], [0.50, 0.50])
    assert number_verdict(statistic, 0.5004, 3) == "reproduced"   # 0.500 as printed
    assert number_verdict(statistic, 0.5006, 3) == "not reproduced"
    assert number_verdict(statistic, 0.5006, 2) == "reproduced"


def test_a_cell_is_judged_by_the_prediction_interval_not_the_mean_interval():
    # ten seeds 0.482..0.533 (Vanilla's MNIST share): 0.4903 lies outside a narrow interval
    # of the mean only if the seeds say so, and inside the interval for one run
    seeds = np.linspace(0.482, 0.533, 10)
    statistic = SeedStatistic.of(range(10), seeds)
    low, high = statistic.prediction()
    assert low < 0.4903 < high and number_verdict(statistic, 0.4903, 4) == "reproduced"
    many = SeedStatistic.of(range(1000), np.resize(seeds, 1000))
    assert not many.low <= 0.4903 <= many.high          # the mean's interval shrinks ...
    assert number_verdict(many, 0.4903, 4) == "reproduced"  # ... the run's does not


def test_a_constant_statistic_is_stated_exactly():
    ones = SeedStatistic.of(range(10), [1.0] * 10)
    assert ones.constant and ones.prediction() == (1.0, 1.0)
    assert "10 of 10 seeds" in ones.describe(3) and "26%" in ones.describe(3)
    assert number_verdict(ones, 0.99995, 4) == "reproduced"
    assert number_verdict(ones, 0.9874, 4) == "not reproduced"


@given(values)
def test_the_intervals_hold_the_mean_and_nest(xs):
    mean = float(np.mean(xs))
    slack = 1e-9 * (1 + abs(mean))
    if np.ptp(xs) == 0:
        return
    low, high = mean_interval(xs)
    plow, phigh = prediction_interval(xs)
    assert plow - slack <= low <= mean + slack and mean - slack <= high <= phigh + slack


def _coverage(draw, n, reps, rng, interval, target):
    """Share of ``reps`` simulated experiments of ``n`` seeds whose ``interval`` holds the
    ``target`` (``"mean"``: the true mean; ``"run"``: one more draw)."""
    samples = draw(rng, (reps, n + 1))
    low, high = interval(samples[:, :n])
    truth = draw.mean if target == "mean" else samples[:, n]
    return float(np.mean((low <= truth) & (truth <= high)))


class _Draw:
    """A distribution to simulate seeds from, with its true mean."""

    def __init__(self, name, sampler, mean):
        self.name, self.sampler, self.mean = name, sampler, mean

    def __call__(self, rng, size):
        return self.sampler(rng, size)

    def __repr__(self):
        return self.name


#: Normal values, and bounded, skewed ones (Beta(5, 2) in [0, 1], skewness -0.6, like a share
#: near 1; Beta(2, 5), skewness 0.6, like a loss near its floor).
DRAWS = [
    _Draw("normal", lambda rng, size: rng.normal(0.5, 0.1, size), 0.5),
    _Draw("beta(5,2)", lambda rng, size: rng.beta(5, 2, size), 5 / 7),
    _Draw("beta(2,5)", lambda rng, size: rng.beta(2, 5, size), 2 / 7),
]
REPS = 20_000


@pytest.mark.parametrize("draw", DRAWS, ids=repr)
@pytest.mark.parametrize("n", [3, 5, 10])
@pytest.mark.parametrize("interval,target", [(mean_interval, "mean"),
                                             (prediction_interval, "run")],
                         ids=["mean", "prediction"])
def test_the_intervals_have_their_coverage(draw, n, interval, target):
    rng = np.random.default_rng(2022)
    assert _coverage(draw, n, REPS, rng, interval, target) >= 0.93


def _percentile_bootstrap(values, resamples=2000):
    """The rule the book used before: the percentile bootstrap interval of the mean, per row."""
    rng = np.random.default_rng(0)
    n = values.shape[1]
    picks = rng.integers(0, n, size=(resamples, n))
    means = values[:, picks].mean(axis=2)
    return tuple(np.quantile(means, [0.025, 0.975], axis=1))


@pytest.mark.parametrize("n", [3, 5, 10])
def test_the_coverage_check_fails_the_percentile_bootstrap(n):
    # the check above, given the old interval, is red: it covers far less than 93%
    rng = np.random.default_rng(2022)
    assert _coverage(DRAWS[0], n, 2000, rng, _percentile_bootstrap, "mean") < 0.93


@pytest.mark.parametrize("bad", [[], [float("nan")], [1.0, math.inf]])
def test_bad_values_are_refused(bad):
    with pytest.raises(ValueError, match="finite number"):
        mean_interval(bad)
    with pytest.raises(ValueError, match="finite number"):
        SeedStatistic.of(range(len(bad)), bad)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="one per value"):
        SeedStatistic.of([0, 1], [1.0])
    with pytest.raises(ValueError, match="distinct"):
        SeedStatistic.of([0, 0], [1.0, 2.0])
    with pytest.raises(ValueError, match="two seeds"):
        prediction_interval([1.0])
    with pytest.raises(ValueError, match="confidence"):
        mean_interval([1.0, 2.0], confidence=1.0)
    with pytest.raises(ValueError, match="k must be"):
        sign_test_p(4, 3)
    with pytest.raises(ValueError, match="n must be"):
        sign_test_p(0, 0)
    with pytest.raises(ValueError, match="k must be"):
        sign_test_p(True, 3)
    with pytest.raises(ValueError, match="n must be"):
        unanimous_bound(0)
    with pytest.raises(ValueError, match="at least one seed"):
        statement_verdict([])
    with pytest.raises(ValueError, match="paper must be"):
        number_verdict(SeedStatistic.of([0], [1.0]), float("nan"), 3)
