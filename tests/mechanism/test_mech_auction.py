"""Algorithm 1: selection, rho*, upper and ex-post payments, by hand and by property."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import given
from mech_strategies import FAST, MANY, instances, scale

from fedlib.mechanism import Instance, ex_ante_payments, ex_post_payments, select
from fedlib.paper.examples import CASE3, CASE3_LIE, THEOREM4, THEOREM4_LIE

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")


def test_selection_by_hand() -> None:
    # Densities b/Re = (4, 2, 5, 3): order 1, 3, 0, 2. Tests: 2 <= 6/0.25; 3 <= 6/0.75;
    # 4 <= 6/1.5 = 4 (equality passes); 5 <= 6/2 = 3 fails. rho* = min(5, 6/1.5) = 4.
    a = select([3.0, 0.5, 2.5, 1.5], [0.75, 0.25, 0.5, 0.5], 6.0)
    assert a.order.tolist() == [1, 3, 0, 2]
    assert a.winners.tolist() == [1, 3, 0] and a.k == 3
    assert a.selected.tolist() == [True, True, False, True]
    assert a.rho_star == 4.0
    assert a.upper.tolist() == [3.0, 1.0, 0.0, 2.0]  # Re_i * rho*


def test_everyone_selected_uses_budget_share() -> None:
    a = select([1.0, 1.0], [1.0, 1.0], 10.0)  # b_{k+1}/Re_{k+1} = +inf
    assert a.k == 2 and a.rho_star == 5.0 and a.upper.tolist() == [5.0, 5.0]


def test_ties_are_broken_by_index() -> None:
    # 2 <= 4.5; 2 <= 4.5/2; 2 <= 4.5/3 fails. rho* = min(2, 2.25).
    a = select([2.0, 2.0, 2.0], [1.0, 1.0, 1.0], 4.5)
    assert a.winners.tolist() == [0, 1] and a.rho_star == 2.0


def test_zero_reputation_is_never_selected() -> None:
    a = select([0.0, 5.0], [0.0, 1.0], 10.0)
    assert a.winners.tolist() == [1] and a.rho_star == 10.0  # next density is +inf
    nobody = select([1.0, 1.0], [0.0, 0.0], 10.0)
    assert nobody.k == 0 and nobody.rho_star == np.inf


def test_empty_selection_pays_nothing() -> None:
    a = select([5.0], [1.0], 1.0)  # 5 <= 1 fails; rho* = min(5, B/0 = inf)
    assert a.k == 0 and a.winners.tolist() == [] and a.rho_star == 5.0
    assert ex_post_payments(a, [1.0]).tolist() == [0.0]
    assert ex_ante_payments(a).tolist() == [0.0]


def test_ex_post_payments_by_hand() -> None:
    a = select([1.0, 1.0], [1.0, 1.0], 10.0)  # rho* = 5, p_up = (5, 5)
    # sum re = 2.5. Worker 0: max(10*2/2.5, 5*2) = 10 -> min(5, 10) = 5.
    # Worker 1: max(10*0.5/2.5 = 2, 5*0.5 = 2.5) = 2.5 -> min(5, 2.5) = 2.5.
    assert ex_post_payments(a, [2.0, 0.5]).tolist() == [5.0, 2.5]
    # With sum Re = 2: worker 1 gets max(10*0.5/2, 2.5) = 2.5.
    assert ex_post_payments(a, [2.0, 0.5], temp_denominator="Re").tolist() == [5.0, 2.5]
    # All winners with re = 0: the share term is taken as 0.
    assert ex_post_payments(a, [0.0, 0.0]).tolist() == [0.0, 0.0]


def test_theorem_4_counterexample() -> None:
    costs, Re, budget, re = THEOREM4
    truthful = select(costs, Re, budget)
    assert truthful.winners.tolist() == [0, 1] and truthful.rho_star == 5.0
    p = ex_post_payments(truthful, re)
    # p_1 = min(5, max(10 * 0.5 / 1.5, 5 * 0.5)) = 10/3, so u_1 = 10/3 - 4 = -0.67.
    assert p[0] == pytest.approx(10 / 3) and p[0] - costs[0] == pytest.approx(-0.67, abs=5e-3)
    # Bidding 6: 4.5 <= 10 passes, 6 <= 10/2 fails: worker 1 loses, utility 0 > -0.67.
    lie = select([THEOREM4_LIE, *costs[1:]], Re, budget)
    assert not lie.selected[0]
    # The ex-ante variant pays p_up = 5 >= 4: truthful bidding is best again.
    assert ex_ante_payments(truthful)[0] - costs[0] == 1.0
    # With sum Re in p': max(10 * 0.5 / 2, 2.5) = 2.5.
    assert ex_post_payments(truthful, re, temp_denominator="Re")[0] == 2.5


def test_case_3_claim_k_prime_at_most_k_is_false() -> None:
    # Worker 0 with cost 8 against a bid of 1: 1 <= 10, 8 <= 10/2 fails, so k = 1.
    costs, Re, budget, _ = CASE3
    assert select(costs, Re, budget).k == 1
    # Bidding 2: 1 <= 10, 2 <= 5, so k' = 2 > k; but rho* = min(inf, 10/2) = 5 < 8 = cost.
    lie = select([CASE3_LIE, *costs[1:]], Re, budget)
    assert lie.k == 2 and lie.upper[0] - costs[0] == -3.0


def _largest_k(instance: Instance) -> list[int]:
    """The text's rule, brute force: the last k with rho_k <= B / (Re_k + sum_{i<k} Re_i)."""
    b, Re, budget = instance.bids.tolist(), instance.Re.tolist(), instance.budget
    order = sorted(range(len(b)), key=lambda i: (b[i] / Re[i] if Re[i] > 0 else np.inf, i))
    best, total = 0, 0.0
    for k, i in enumerate(order, start=1):
        total += Re[i]
        if Re[i] > 0 and b[i] / Re[i] <= budget / total:
            best = k
    return order[:best]


@MANY
@given(instances(max_workers=7))
def test_selection_equals_the_largest_k_rule(instance: Instance) -> None:
    assert select(instance.bids, instance.Re, instance.budget).winners.tolist() == \
        _largest_k(instance)


@MANY
@given(instances())
def test_budget_feasibility_and_honest_ir(instance: Instance) -> None:
    a = select(instance.bids, instance.Re, instance.budget)
    tol = scale(instance)
    post = ex_post_payments(a, instance.re)
    for payments in (post, ex_post_payments(a, instance.re, "Re"), ex_ante_payments(a)):
        assert payments.sum() <= instance.budget + tol
        assert np.all(payments[~a.selected] == 0) and np.all(payments <= a.upper)
    honest = a.selected & instance.honest
    assert np.all(post[honest] >= instance.costs[honest] - tol)  # Theorem 1
    assert np.all(a.upper[a.selected] >= instance.costs[a.selected] - tol)


def _critical_bid(instance: Instance, worker: int) -> float:
    """The supremum bid with which ``worker`` still wins, by bisection."""
    bids = instance.bids.copy()

    def wins(bid: float) -> bool:
        bids[worker] = bid
        return bool(select(bids, instance.Re, instance.budget).selected[worker])

    lo, hi = float(instance.bids[worker]), 2.0 * instance.budget + 1.0
    assert wins(lo) and not wins(hi)
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        lo, hi = (mid, hi) if wins(mid) else (lo, mid)
    return lo


@FAST
@given(instances(max_workers=5))
def test_rho_star_is_every_winners_critical_density(instance: Instance) -> None:
    a = select(instance.bids, instance.Re, instance.budget)
    for i in a.winners:
        critical_density = _critical_bid(instance, int(i)) / instance.Re[i]
        assert critical_density == pytest.approx(a.rho_star, rel=1e-9)


def test_results_are_read_only() -> None:
    a = select([1.0], [1.0], 2.0)
    with pytest.raises(ValueError):
        a.upper[0] = 10.0


def test_a_million_workers_in_well_under_a_second() -> None:
    rng = np.random.default_rng(0)
    bids, Re = rng.uniform(1, 4, 10**6), rng.uniform(0.1, 1, 10**6)
    seconds = min(_timed(lambda: select(bids, Re, 10**5)) for _ in range(3))
    assert seconds < 1.0


def _timed(f: object) -> float:
    start = time.perf_counter()
    f()
    return time.perf_counter() - start


@pytest.mark.parametrize("bids, Re, budget, name", [
    ([np.nan, 1.0], [1.0, 1.0], 1.0, "bids"), ([np.inf, 1.0], [1.0, 1.0], 1.0, "bids"),
    ([-1.0, 1.0], [1.0, 1.0], 1.0, "bids"), ([1.0, 1.0], [1.0, -0.5], 1.0, "Re"),
    ([1.0, 1.0], [np.nan, 1.0], 1.0, "Re"), ([1.0, 1.0], [1.0, np.inf], 1.0, "Re"),
    ([1.0, 1.0], [1.0, 1.0], 0.0, "budget"), ([1.0, 1.0], [1.0, 1.0], -1.0, "budget"),
    ([1.0, 1.0], [1.0, 1.0], np.nan, "budget"), ([1.0, 1.0], [1.0, 1.0], np.inf, "budget"),
    ([1.0, 1.0], [1.0, 1.0], "ten", "budget"), ([1.0, 1.0], [1.0], 1.0, "bids"),
    ([], [], 1.0, "bids"), ([[1.0]], [[1.0]], 1.0, "bids"),
])
def test_bad_select_inputs(bids: object, Re: object, budget: object, name: str) -> None:
    with pytest.raises(ValueError, match=f"^{name} "):
        select(bids, Re, budget)


@pytest.mark.parametrize("re, kwargs, name", [
    ([1.0], {}, "re"), ([1.0, np.nan], {}, "re"), ([1.0, -1.0], {}, "re"),
    ([1.0, 1.0], {"temp_denominator": "sum"}, "temp_denominator"),
])
def test_bad_ex_post_inputs(re: object, kwargs: dict, name: str) -> None:
    with pytest.raises(ValueError, match=f"^{name} "):
        ex_post_payments(select([1.0, 1.0], [1.0, 1.0], 10.0), re, **kwargs)
