"""Exact, leave-one-out and Monte-Carlo Shapley values on hand-computed and random games."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fedlib.mechanism.shapley import (
    coalition_members,
    exact_shapley,
    leave_one_out,
    monte_carlo_shapley,
)


def _table(n: int, v) -> np.ndarray:
    """Utility table of a game given as a function of the member tuple."""
    members = coalition_members(n)
    return np.array([v(tuple(np.flatnonzero(row))) for row in members], dtype=float)


def test_additive_game_gives_each_player_its_weight() -> None:
    weights = np.array([0.5, -1.0, 2.0, 3.25])
    table = coalition_members(4) @ weights + 7.0   # v(empty) = 7 does not matter
    np.testing.assert_allclose(exact_shapley(table, 4), weights, atol=1e-12)
    np.testing.assert_allclose(leave_one_out(table), weights, atol=1e-12)


def test_glove_game_by_hand() -> None:
    # Player 0 owns a left glove, players 1 and 2 a right one; a pair is worth 1.
    # Orders (6): player 0 is pivotal whenever it is not first (4 orders), players 1 and 2 each
    # exactly when they directly follow 0 with the other right glove not yet in (1 order each).
    table = _table(3, lambda s: float(0 in s and (1 in s or 2 in s)))
    assert table.tolist() == [0, 0, 0, 1, 0, 1, 0, 1]
    np.testing.assert_allclose(exact_shapley(table, 3), [4 / 6, 1 / 6, 1 / 6], atol=1e-15)
    # Leaving out 0 destroys the pair; leaving out a right glove costs nothing.
    assert leave_one_out(table).tolist() == [1.0, 0.0, 0.0]


def test_three_player_game_written_out() -> None:
    # v({}) = 0, v({0}) = 1, v({1}) = 2, v({0,1}) = 4, v({2}) = 3, v({0,2}) = 5, v({1,2}) = 6,
    # v(N) = 9. phi_0 = 1/3 (v0 - 0) + 1/6 (v01 - v1) + 1/6 (v02 - v2) + 1/3 (vN - v12)
    #               = 1/3 + 2/6 + 2/6 + 3/3 = 2;  likewise phi_1 = 2/3 + 3/6 + 3/6 + 4/3 = 3,
    #      phi_2 = 3/3 + 4/6 + 4/6 + 5/3 = 4; they sum to v(N) = 9.
    table = [0, 1, 2, 4, 3, 5, 6, 9]
    np.testing.assert_allclose(exact_shapley(table, 3), [2.0, 3.0, 4.0], atol=1e-12)
    assert leave_one_out(table).tolist() == [3.0, 4.0, 5.0]
    as_callable = exact_shapley(lambda masks: np.asarray(table)[masks], 3)
    np.testing.assert_allclose(as_callable, [2.0, 3.0, 4.0], atol=1e-12)


games = st.integers(1, 7).flatmap(lambda n: st.tuples(st.just(n), st.lists(
    st.floats(-10, 10), min_size=2**n, max_size=2**n)))


@settings(max_examples=60, deadline=None)
@given(games)
def test_efficiency(game) -> None:
    n, table = game
    phi = exact_shapley(table, n)
    assert phi.sum() == pytest.approx(table[-1] - table[0], abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6).flatmap(lambda n: st.tuples(st.just(n), st.lists(
    st.floats(-10, 10), min_size=n + 1, max_size=n + 1))))
def test_symmetric_players_share_equally_and_a_null_player_gets_zero(game) -> None:
    # A game that depends only on how many of players 1..n-1 are in, player 0 adds nothing.
    n, by_count = game
    members = coalition_members(n)
    table = np.asarray(by_count)[members[:, 1:].sum(1)]
    phi = exact_shapley(table, n)
    assert phi[0] == pytest.approx(0.0, abs=1e-9)
    np.testing.assert_allclose(phi[1:], phi[1], atol=1e-9)


@settings(max_examples=30, deadline=None)
@given(games, st.integers(1, 20), st.integers(0, 2**32 - 1))
def test_monte_carlo_running_estimates_and_evaluation_counts(game, permutations, seed) -> None:
    n, table = game
    mc = monte_carlo_shapley(table, n, permutations, np.random.default_rng(seed))
    # Every single order is efficient, hence so is every running mean.
    np.testing.assert_allclose(mc.running.sum(1), table[-1] - table[0], atol=1e-9)
    np.testing.assert_array_equal(mc.running[-1], mc.estimates)
    assert mc.running.shape == (permutations, n)
    assert np.all(np.diff(mc.running_evaluations) >= 0)
    assert mc.running_evaluations[0] == n + 1 and mc.running_evaluations[-1] == mc.evaluations
    assert mc.evaluations <= min(2**n, permutations * (n - 1) + 2)


def test_monte_carlo_asks_a_callable_once_for_distinct_coalitions() -> None:
    table = np.random.default_rng(0).random(2**5)
    calls = []

    def utility(masks: np.ndarray) -> np.ndarray:
        calls.append(masks)
        return table[masks]

    mc = monte_carlo_shapley(utility, 5, 30, np.random.default_rng(1))
    assert len(calls) == 1 and len(np.unique(calls[0])) == len(calls[0]) == mc.evaluations
    again = monte_carlo_shapley(table, 5, 30, np.random.default_rng(1))
    np.testing.assert_array_equal(mc.estimates, again.estimates)


def test_monte_carlo_converges_to_the_exact_values() -> None:
    n = 6
    table = np.random.default_rng(3).random(2**n) + coalition_members(n) @ np.arange(n)
    exact = exact_shapley(table, n)
    errors = [np.abs(monte_carlo_shapley(table, n, p, np.random.default_rng(7)).estimates
                     - exact).max() for p in (10, 100, 10_000)]
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 0.02


@pytest.mark.parametrize(("call", "match"), [
    (lambda: exact_shapley([0, 1, 2], 2), "length 2\\*\\*n = 4"),
    (lambda: exact_shapley([0, 1, np.nan, 3], 2), "finite"),
    (lambda: exact_shapley([0.0], 0), "n must be"),
    (lambda: exact_shapley(lambda m: np.zeros(3), 2), "one value per coalition"),
    (lambda: leave_one_out([0, 1, 2]), "length 2\\*\\*n"),
    (lambda: leave_one_out([0.0]), "length 2\\*\\*n"),
    (lambda: leave_one_out([0, 1, np.inf, 3]), "finite"),
    (lambda: monte_carlo_shapley([0, 1, 2, 3], 2, 0, np.random.default_rng()), "permutations"),
    (lambda: monte_carlo_shapley([0, 1, 2, 3], 0, 3, np.random.default_rng()), "n must be"),
    (lambda: monte_carlo_shapley([0, 1, 2, 3], 2, 3, 0), "rng"),
    (lambda: monte_carlo_shapley([0, 1, 2], 2, 3, np.random.default_rng()), "length"),
    (lambda: monte_carlo_shapley([np.nan] * 4, 2, 3, np.random.default_rng()), "finite"),
])
def test_bad_input_is_rejected(call, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()
