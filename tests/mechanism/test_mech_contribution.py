"""Eqs. (2)-(3), max-normalisation and task averaging, checked by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from mech_strategies import FAST

from fedlib.mechanism import (
    contributions,
    round_contributions,
    sample_weights,
    task_contributions,
)

P = [[0.9, 0.5], [0.6, 0.1]]
COL0 = -math.log(0.9) - math.log(0.6)  # sum_i -ln P_i0
COL1 = -math.log(0.5) - math.log(0.1)
W = (COL0 / (COL0 + COL1), COL1 / (COL0 + COL1))


def test_sample_weights_by_hand() -> None:
    assert sample_weights(P) == pytest.approx(W, rel=1e-12)


def test_weighted_contributions_by_hand() -> None:
    expected = (0.9 * W[0] + 0.5 * W[1], 0.6 * W[0] + 0.1 * W[1])
    assert contributions(P) == pytest.approx(expected, rel=1e-12)


def test_equal_weight_contributions_are_mean_probabilities() -> None:
    assert contributions(P, weighted=False) == pytest.approx((0.7, 0.35), rel=1e-12)


def test_round_contributions_divide_by_the_round_max() -> None:
    best = 0.9 * W[0] + 0.5 * W[1]
    assert round_contributions(P) == pytest.approx((1.0, (0.6 * W[0] + 0.1 * W[1]) / best))
    assert round_contributions(P, weighted=False) == pytest.approx((1.0, 0.5))


def test_zero_probability_is_clipped_before_the_log() -> None:
    # -ln(1e-12) for sample 0, -ln 1 = 0 for sample 1: all weight on the hard sample.
    assert sample_weights([[0.0, 1.0]]) == pytest.approx((1.0, 0.0))
    assert np.all(np.isfinite(sample_weights([[0.0, 0.0], [0.0, 1.0]])))


def test_all_certain_predictions_give_uniform_weights() -> None:
    assert sample_weights(np.ones((3, 4))).tolist() == [0.25] * 4
    assert contributions(np.ones((3, 4))).tolist() == [1.0] * 3


def test_all_zero_round_gives_zeros() -> None:
    # The only sample with P < 1 is the one nobody predicts: every contribution is 0.
    assert round_contributions([[0.0, 1.0], [0.0, 1.0]]).tolist() == [0.0, 0.0]


def test_task_contribution_averages_over_the_rounds_taken_part_in() -> None:
    per_round = [[1.0, np.nan, np.nan], [0.5, 0.8, np.nan], [np.nan, 0.4, np.nan]]
    assert task_contributions(per_round).tolist() == pytest.approx([0.75, 0.6, 0.0])
    mask = [[True, False], [True, True], [False, True]]
    values = [[1.0, 9.0], [0.5, 0.8], [np.nan, 0.4]]
    assert task_contributions(values, mask=mask).tolist() == pytest.approx([0.75, 0.6])


@FAST
@given(arrays(float, st.tuples(st.integers(1, 5), st.integers(1, 6)),
              elements=st.floats(0.0, 1.0)))
def test_weights_and_contributions_are_normalised(p: np.ndarray) -> None:
    w = sample_weights(p)
    assert np.all(w >= 0) and w.sum() == pytest.approx(1.0)
    c = contributions(p)
    assert np.all((c >= 0) & (c <= 1 + 1e-12))
    r = round_contributions(p)
    assert np.all((r >= 0) & (r <= 1)) and (r.max() == 1.0 or not r.any())


@pytest.mark.parametrize("bad, name", [
    ([[np.nan, 0.5]], "P"), ([[np.inf, 0.5]], "P"), ([[-0.1, 0.5]], "P"), ([[1.5, 0.5]], "P"),
    ([0.5, 0.5], "P"), (np.zeros((0, 2)), "P"), ([["a"]], "P"),
])
def test_bad_probabilities(bad: object, name: str) -> None:
    for f in (sample_weights, contributions, round_contributions):
        with pytest.raises(ValueError, match=f"^{name} "):
            f(bad)


@pytest.mark.parametrize("per_round, mask, name", [
    ([[np.inf, 1.0]], None, "per_round"), ([[-1.0, 1.0]], None, "per_round"),
    ([1.0, 1.0], None, "per_round"), ([[np.nan, 1.0]], [[True, True]], "per_round"),
    ([[1.0, 1.0]], [[True]], "mask"), ([[1.0, 1.0]], [[1, 0]], "mask"),
])
def test_bad_task_contributions(per_round: object, mask: object, name: str) -> None:
    with pytest.raises(ValueError, match=f"^{name} "):
        task_contributions(per_round, mask=mask)
