"""The leave-one-out check, quality scores and aggregation weights, checked by hand."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mech_strategies import FAST

from fedlib.mechanism import (
    aggregation_weights,
    detection_scores,
    leave_one_out_pass,
    quality_scores,
)

DELTA_L = [0.02, 0.0, -0.004, -0.1]
PASSED = [True, True, True, False]
# Over the passing workers min dl = -0.004: gaps 0.024, 0.004, 0; their sum 0.028.
S = (0.024 / 0.028, 0.004 / 0.028, 0.0, 0.0)
Q = ((1 + S[0]) / 4, (1 + S[1]) / 4, 1 / 4, 0.0)  # sum_k (s0 + s_k) = 3 + 1 = 4


def test_pass_rule_uses_delta_inclusively() -> None:
    assert leave_one_out_pass([0.01, -0.005, -0.0051]).tolist() == [True, True, False]
    assert leave_one_out_pass([0.01, -0.02], delta=-0.05).tolist() == [True, True]


def test_a_single_model_passes() -> None:
    assert leave_one_out_pass([-1.0]).tolist() == [True]


def test_detection_and_quality_scores_by_hand() -> None:
    assert detection_scores(DELTA_L, PASSED) == pytest.approx(S)
    assert quality_scores(DELTA_L, PASSED) == pytest.approx(Q)
    s0 = 0.5  # sum_k (s0 + s_k) = 1.5 + 1 = 2.5
    assert quality_scores(DELTA_L, PASSED, s0=s0) == pytest.approx(
        ((s0 + S[0]) / 2.5, (s0 + S[1]) / 2.5, s0 / 2.5, 0.0))


def test_equal_losses_give_zero_s_and_uniform_quality() -> None:
    assert detection_scores([0.1, 0.1], [True, True]).tolist() == [0.0, 0.0]
    assert quality_scores([0.1, 0.1], [True, True]).tolist() == [0.5, 0.5]


def test_corrected_weights_by_hand() -> None:
    contrib = [0.5, 1.0, -0.2, 0.9]  # contrib_score = (0.5, 1, 0, 0): worker 3 failed
    num = (0.5 * Q[0], 1.0 * Q[1])
    expected = (num[0] / sum(num), num[1] / sum(num), 0.0, 0.0)
    assert aggregation_weights(contrib, DELTA_L, PASSED) == pytest.approx(expected)


def test_printed_weights_cancel_the_quality_score() -> None:
    contrib = [0.5, 1.0, -0.2, 0.9]
    got = aggregation_weights(contrib, DELTA_L, PASSED, denominator="printed")
    assert got == pytest.approx((0.5 / 1.5, 1.0 / 1.5, 0.0, 0.0))


def test_zero_contributions_fall_back_to_equal_contributions() -> None:
    zero = [0.0, 0.0, 0.0, 0.0]
    assert aggregation_weights(zero, DELTA_L, PASSED) == pytest.approx(Q)
    got = aggregation_weights(zero, DELTA_L, PASSED, denominator="printed")
    assert got == pytest.approx((1 / 3, 1 / 3, 1 / 3, 0.0))


def test_nobody_passing_gives_zero_weights() -> None:
    for form in ("corrected", "printed"):
        got = aggregation_weights([1.0, 1.0], [-1.0, -1.0], [False, False], denominator=form)
        assert got.tolist() == [0.0, 0.0]


@FAST
@given(st.integers(1, 6).flatmap(lambda n: st.tuples(
    st.lists(st.floats(-1, 1), min_size=n, max_size=n),
    st.lists(st.floats(-1, 1), min_size=n, max_size=n),
    st.lists(st.booleans(), min_size=n, max_size=n))),
       st.sampled_from(["corrected", "printed"]))
def test_weights_are_a_distribution_over_passing_workers(
        case: tuple[list[float], list[float], list[bool]], form: str) -> None:
    contrib, delta_l, passed = case
    w = aggregation_weights(contrib, delta_l, passed, denominator=form)
    ok = np.array(passed)
    assert np.all(w >= 0) and np.all(w[~ok] == 0)
    assert w.sum() == pytest.approx(1.0 if ok.any() else 0.0)
    q = quality_scores(delta_l, passed)
    assert q.sum() == pytest.approx(1.0 if ok.any() else 0.0)


@pytest.mark.parametrize("call, name", [
    (lambda: leave_one_out_pass([np.nan]), "delta_l"),
    (lambda: leave_one_out_pass([]), "delta_l"),
    (lambda: leave_one_out_pass([0.1], delta=np.inf), "delta"),
    (lambda: quality_scores([0.1, 0.2], [True]), "delta_l"),
    (lambda: quality_scores([0.1], [2]), "passed"),
    (lambda: quality_scores([0.1], [True], s0=0.0), "s0"),
    (lambda: aggregation_weights([0.1, 0.2], [0.1], [True]), "contrib_t"),
    (lambda: aggregation_weights([np.inf], [0.1], [True]), "contrib_t"),
    (lambda: aggregation_weights([0.1], [0.1], [True], denominator="x"), "denominator"),
    (lambda: detection_scores([0.1], [[True]]), "passed"),
])
def test_bad_inputs(call: object, name: str) -> None:
    with pytest.raises(ValueError, match=f"^{name} "):
        call()
