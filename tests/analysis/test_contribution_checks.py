"""Statistics behind the Figure 2-3 claims, and one warm round on real models."""

from __future__ import annotations

import numpy as np
import pytest

from fedlib.analysis.contribution_checks import (
    case1_trend,
    case2_rank,
    case2_stand_out,
    paired_sign_flip_p,
    per_seed,
    rank_correlation,
    stand_out,
)

DACC = [1.0, 0.7, 0.4, 0.1]


def _records() -> list[dict]:
    return [
        {"case": 1, "seed": 0, "dacc": DACC, "contribution": [1.0, 0.9, 0.8, 0.6],
         "benchmark": [1.0, 0.95, 0.9, 0.85], "local_acc": [0.8, 0.82, 0.79, 0.7]},
        {"case": 1, "seed": 1, "dacc": DACC, "contribution": [1.0, 0.8, 0.85, 0.5],
         "benchmark": [1.0, 0.9, 0.9, 0.8], "local_acc": [0.8, 0.8, 0.8, 0.8]},
        {"case": 2, "seed": 0, "dacc": [1.0] * 4, "contribution": [1.0, 0.9, 0.92, 0.94],
         "benchmark": [0.95, 0.9, 1.0, 0.94], "local_acc": [0.9, 0.8, 0.8, 0.7]},
    ]


def test_rank_correlation() -> None:
    assert rank_correlation([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert rank_correlation([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert rank_correlation([1, 2, 3], [10, 30, 20]) == pytest.approx(0.5)
    # ties get average ranks: Pearson correlation of the ranks (1.5, 1.5, 3) and (1, 2, 3)
    assert rank_correlation([5, 5, 7], [1, 2, 3]) == pytest.approx(np.sqrt(3) / 2)
    assert np.isnan(rank_correlation([1, 1, 1], [1, 2, 3]))
    with pytest.raises(ValueError):
        rank_correlation([1, 2], [1, 2, 3])


def test_stand_out() -> None:
    others = np.array([1.0, 2.0, 3.0])
    assert stand_out([4.0, *others]) == pytest.approx((4 - 2) / others.std(ddof=1))
    assert stand_out([1.0, 2.0, 3.0, 4.0], worker=3) == pytest.approx(
        (4 - 2) / others.std(ddof=1))
    assert stand_out([1.0, 0.0, 0.0]) == np.inf and stand_out([-1.0, 0.0, 0.0]) == -np.inf
    assert stand_out([0.5, 0.5, 0.5]) == 0.0
    # scale-free: multiplying a measure by a constant does not change it
    v = np.array([0.9, 0.5, 0.7, 0.6])
    assert stand_out(v) == pytest.approx(stand_out(10 * v))
    with pytest.raises(ValueError):
        stand_out([1.0, 2.0])


def test_case1_trend() -> None:
    t = case1_trend(_records(), "contribution")
    assert t.seeds.tolist() == [0, 1]
    assert t.rho[0] == pytest.approx(1.0) and t.rho[1] == pytest.approx(0.8)
    np.testing.assert_allclose(t.gap, [0.4, 0.5])
    np.testing.assert_allclose(t.relative_gap, [0.4, 0.5])
    assert np.isnan(case1_trend(_records(), "local_acc").rho[1])  # constant measure


def test_case2_statistics() -> None:
    z = case2_stand_out(_records(), "contribution")
    assert z.shape == (1,) and z[0] == pytest.approx((1.0 - 0.92) / 0.02)
    assert case2_rank(_records(), "contribution").tolist() == [1]
    assert case2_rank(_records(), "benchmark").tolist() == [2]
    with pytest.raises(ValueError, match="case 2"):
        case2_stand_out(_records()[:2], "contribution")


def test_per_seed() -> None:
    assert per_seed(_records(), 1, "benchmark").shape == (2, 4)


def test_paired_sign_flip_p_by_hand():
    # [1, 2, 3]: of the 8 sign patterns only (+, +, +) reaches the observed sum 6
    assert paired_sign_flip_p([1.0, 2.0, 3.0]) == 0.125
    # [3, -1]: sums 2 (observed), 4, -4, -2: two of four reach 2; an odd count splits unevenly
    assert paired_sign_flip_p([3.0, -1.0]) == 0.5
    assert paired_sign_flip_p([-1.0, -2.0, -3.0]) == 1.0
    assert paired_sign_flip_p([0.0]) == 1.0  # a zero difference is no evidence either way


def test_paired_sign_flip_p_is_exact_against_enumeration():
    d = np.random.default_rng(3).normal(0.3, 1.0, 9)
    signs = np.array(np.meshgrid(*[[1, -1]] * d.size)).reshape(d.size, -1).T
    expected = np.mean(signs @ d >= d.sum() - 1e-12)
    assert paired_sign_flip_p(d) == pytest.approx(expected, abs=0)


@pytest.mark.parametrize("bad", [[], [1.0, np.nan], [np.inf], np.ones(25)])
def test_paired_sign_flip_p_rejects_bad_input(bad):
    with pytest.raises(ValueError, match="differences"):
        paired_sign_flip_p(bad)
