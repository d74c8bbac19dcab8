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
    own_label_contributions,
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


def test_own_label_contributions_by_hand() -> None:
    """Worker 0 is measured on sample 0 alone, worker 1 on both: 0.9, and Eq. (3)'s weighted
    mean 0.6 W0 + 0.1 W1 (the weights of Eq. (2) over every worker and sample)."""
    own = [[True, False], [True, True]]
    assert own_label_contributions(P, own).tolist() == pytest.approx(
        [0.9, 0.6 * W[0] + 0.1 * W[1]])
    assert own_label_contributions(P, own, weighted=False).tolist() == pytest.approx(
        [0.9, (0.6 + 0.1) / 2])
    top = max(0.9, 0.6 * W[0] + 0.1 * W[1])
    assert round_contributions(P, own=own).tolist() == pytest.approx(
        [0.9 / top, (0.6 * W[0] + 0.1 * W[1]) / top])


def test_own_samples_without_weight_are_averaged_unweighted() -> None:
    """Sample 1 is certain for both workers, so Eq. (2) gives it weight 0; worker 1, measured
    on it alone, gets its plain mean (1.0) rather than 0/0."""
    p = [[0.5, 1.0], [0.25, 1.0]]
    assert own_label_contributions(p, [[True, True], [False, True]]).tolist() == pytest.approx(
        [0.5, 1.0])


@FAST
@given(arrays(float, st.tuples(st.integers(1, 5), st.integers(1, 6)),
              elements=st.floats(0.0, 1.0)), st.data())
def test_own_label_contributions_are_probabilities_and_all_samples_is_eq3(
        p: np.ndarray, data: st.DataObject) -> None:
    everything = np.ones(p.shape, dtype=bool)
    assert own_label_contributions(p, everything) == pytest.approx(contributions(p))
    own = data.draw(arrays(bool, p.shape))
    own[np.arange(p.shape[0]), data.draw(st.integers(0, p.shape[1] - 1))] = True
    c = own_label_contributions(p, own)
    assert np.all((c >= -1e-12) & (c <= 1 + 1e-12))
    for i in range(p.shape[0]):  # a mean of the worker's own probabilities
        assert p[i, own[i]].min() - 1e-12 <= c[i] <= p[i, own[i]].max() + 1e-12


@pytest.mark.parametrize("own, match", [
    ([[True, True]], "own must be a boolean array of the shape of P"),
    ([[1, 0], [1, 1]], "own must be a boolean array"),
    ([[True, False], [False, False]], r"rows \[1\] have none"),
])
def test_bad_own_samples(own: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        own_label_contributions(P, own)
    with pytest.raises(ValueError, match=match):
        round_contributions(P, own=own)
