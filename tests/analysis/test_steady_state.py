"""The auction-only steady-state argument on Tables 1-2 (fedlib.analysis.steady_state)."""

from __future__ import annotations

import numpy as np
import pytest

from fedlib.analysis import steady_state as ss

PAPER_MNIST = {0.1: 0.0, 0.4: 0.421, 0.7: 0.556, 1.0: 0.985}


def test_steady_state_is_deterministic_and_sane():
    budgets = [10.0, 40.0, 80.0]
    a = ss.steady_state(PAPER_MNIST, budgets, trials=300, seed=1)
    b = ss.steady_state(PAPER_MNIST, budgets, trials=300, seed=1)
    assert np.array_equal(a.clean, b.clean) and np.array_equal(a.payment, b.payment)
    assert np.all((a.clean >= 0) & (a.clean <= 1))
    assert np.all(np.diff(a.winners) > 0) and np.all(np.diff(a.payment) > 0)
    assert np.all(np.diff(a.clean) <= 0)  # more budget reaches further down the ranking
    assert np.allclose(a.clean_redrawn, a.clean ** 45) and np.array_equal(a.clean_fixed, a.clean)


def test_steady_state_with_worthless_outsiders_is_always_clean():
    state = ss.steady_state({0.1: 0.0, 0.4: 0.0, 0.7: 0.0, 1.0: 0.9}, [20.0, 60.0], trials=50)
    assert np.all(state.clean == 1.0)
    with pytest.raises(ValueError, match="lack"):
        ss.steady_state({1.0: 0.9}, [20.0])
    with pytest.raises(ValueError, match="trials"):
        ss.steady_state(PAPER_MNIST, [20.0], trials=0)


def test_undercut_closed_form_matches_simulation():
    rho = 5.533 / 0.985
    closed = ss.undercut(PAPER_MNIST, rho)
    assert closed.per_worker[0.1] == 0.0  # Re = 0 never undercuts
    assert closed.per_worker[0.4] == pytest.approx((0.421 * rho - 2) / 2)
    assert closed.clean == pytest.approx((1 - closed.per_worker[0.4]) ** 5
                                         * (1 - closed.per_worker[0.7]) ** 5)
    rng = np.random.default_rng(0)
    draws = 200_000
    bids04 = 2 + 2 * rng.random((draws, 5))
    bids07 = 3 + 2 * rng.random((draws, 5))
    none = np.all(bids04 / 0.421 >= rho, axis=1) & np.all(bids07 / 0.556 >= rho, axis=1)
    assert none.mean() == pytest.approx(closed.clean, abs=0.005)
    assert ss.undercut(PAPER_MNIST, 0.0).clean == 1.0


def test_crossing():
    assert ss.crossing([0, 10, 20], [0.0, 1.0, 2.0], 1.5) == pytest.approx(15)
    assert ss.crossing([0, 10, 20], [2.0, 1.0, 0.0], 1.5) == pytest.approx(5)
    assert ss.crossing([0, 10], [1.0, 2.0], 1.0) == 0
    assert ss.crossing([0, 10], [1.0, 2.0], 2.0) == 10
    assert np.isnan(ss.crossing([0, 10], [1.0, 2.0], 5.0))
    assert ss.crossing([0, 10, 20], [np.nan, 1.0, 3.0], 2.0) == pytest.approx(15)


def test_budget_window_finds_the_papers_tension():
    budgets = np.arange(10.0, 101.0, 10.0)
    state = ss.steady_state(PAPER_MNIST, budgets, trials=400)
    window = ss.budget_window(state, 5.533)
    assert 40 < window.payment_budget < 100
    assert window.share_budget < window.payment_budget and not window.compatible
    assert window.redrawn_at_payment_budget == pytest.approx(window.clean_at_payment_budget ** 45)
    assert window.fixed_at_payment_budget == window.clean_at_payment_budget
    # with the outsiders out of the market both tables can hold
    easy = ss.steady_state({0.1: 0.0, 0.4: 0.0, 0.7: 0.0, 1.0: 0.985}, budgets, trials=100)
    assert ss.budget_window(easy, 5.533).compatible


def test_probability_text():
    assert ss.probability_text(0.5, 100) == "0.5"
    assert ss.probability_text(0.5, 100, 2) == "0.25"
    assert ss.probability_text(0.0, 100) == "< 0.01"
    assert ss.probability_text(0.0, 100, 3) == "< 1e-06"
    assert ss.probability_text(float("nan"), 100) == "undefined"


def test_describe_window():
    window = ss.BudgetWindow(68.2, 24.9, 0.28, 0.28 ** 45, 0.28, 0.05)
    lines = ss.describe_window(window, 4000, 45)
    assert lines[0] == "Table 1's payment needs B = 68"
    assert lines[1] == "Table 2's share (probability >= 0.05) needs B <= 25"
    assert lines[2] == "at B = 68: P(one clean task) = 0.28"
    assert lines[3] == "at B = 68: P(45 clean tasks), bids redrawn = 1.32e-25"
    assert lines[4] == "at B = 68: P(45 clean tasks), bids drawn once = 0.28"
    never = ss.BudgetWindow(90.0, float("nan"), 0.0, 0.0, 0.0, 0.05)
    lines = ss.describe_window(never, 100, 45)
    assert "no budget of the grid" in lines[1] and "< 0.01" in lines[2]
    assert lines[3].endswith("bids redrawn = < 1e-90")
