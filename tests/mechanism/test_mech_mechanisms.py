"""The seven mechanisms behind one interface: hand-computed outcomes and common properties."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mech_strategies import FAST, instances, scale

from fedlib.mechanism import CLAIMABLE, MECHANISMS, Allocation, Instance, select
from fedlib.mechanism.mechanisms import ApproximateOptimal, OurMechanism

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

# Densities b/Re = (4, 2, 5, 3); Algorithm 1 selects 1, 3, 0 with rho* = 4 (see the auction
# tests). Ascending bids: 1, 3, 2, 0. Descending Re: 0, 2, 3, 1 (2 before 3: same Re).
BIDS, RE_ACC, BUDGET = [3.0, 0.5, 2.5, 1.5], [0.75, 0.25, 0.5, 0.5], 6.0
RE = [0.25, 0.25, 0.5, 0.75]


def _play(name: str, rng: np.random.Generator | None = None) -> tuple[Allocation, np.ndarray]:
    m = MECHANISMS[name]
    allocation = m.select(BIDS, RE_ACC, BUDGET, costs=BIDS, rng=rng)
    return allocation, m.pay(allocation, RE)


def test_registry() -> None:
    assert list(MECHANISMS) == ["ours", "rrafl", "vanilla", "proportional_share", "bid_greedy",
                                "reputation_greedy", "approx_optimal", "approx_optimal_exact"]
    for key, m in MECHANISMS.items():
        assert m.name == key and isinstance(m.label, str) and m.label
        assert m.knows in ("bids", "costs") and m.claims <= set(CLAIMABLE)
        assert "budget_feasible" in m.claims
        assert all(word in type(m).__doc__ for word in ("Knows", "Selects", "Pays", "Claims"))
    assert MECHANISMS["rrafl"].label == "RRAFL" and MECHANISMS["ours"].label == "Our mechanism"
    with pytest.raises(TypeError):
        MECHANISMS["x"] = MECHANISMS["ours"]  # type: ignore[index]


def test_ours_pays_ex_post() -> None:
    allocation, p = _play("ours")
    assert allocation.winners.tolist() == [1, 3, 0]
    assert allocation.upper.tolist() == [3.0, 1.0, 0.0, 2.0]
    assert allocation.auction is not None and allocation.auction.rho_star == 4.0
    # sum_S re = 1.25. Worker 3 (honest): min(2, max(6*0.75/1.25, 3)) = 2.
    # Worker 0 (dishonest): min(3, max(6*0.25/1.25 = 1.2, 4*0.25 = 1)) = 1.2.
    # Worker 1 (re = Re, honest): min(1, max(1.2, 1)) = 1.
    assert p == pytest.approx([1.2, 1.0, 0.0, 2.0])


def test_ours_with_sum_of_Re_in_the_temporary_payment() -> None:
    m = OurMechanism(temp_denominator="Re")
    p = m.pay(m.select(BIDS, RE_ACC, BUDGET), RE)
    # sum_S Re = 1.5: worker 0 gets min(3, max(6*0.25/1.5 = 1, 1)) = 1.
    assert p == pytest.approx([1.0, 1.0, 0.0, 2.0])
    with pytest.raises(ValueError, match="^temp_denominator "):
        OurMechanism(temp_denominator="x")  # type: ignore[arg-type]


def test_rrafl_pays_ex_ante() -> None:
    allocation, p = _play("rrafl")
    assert allocation.winners.tolist() == [1, 3, 0] and p.tolist() == [3.0, 1.0, 0.0, 2.0]


def test_proportional_share_ignores_reputation() -> None:
    # Unit values: 0.5 <= 6/1, 1.5 <= 6/2, 2.5 <= 6/3 fails; rho* = min(2.5, 6/2) = 2.5.
    allocation, p = _play("proportional_share")
    assert allocation.winners.tolist() == [1, 3]
    assert allocation.auction.Re.tolist() == [1.0] * 4
    assert p.tolist() == [0.0, 2.5, 0.0, 2.5]


def test_bid_greedy_pays_bids() -> None:
    # Cumulative bids 0.5, 2, 4.5, 7.5: three fit in 6.
    allocation, p = _play("bid_greedy")
    assert allocation.winners.tolist() == [1, 3, 2] and p.tolist() == [0.0, 0.5, 2.5, 1.5]


def test_reputation_greedy_stops_at_the_first_misfit() -> None:
    # Cumulative bids 3, 5.5, 7 (> 6: stop), although worker 1 (0.5) alone would still fit.
    allocation, p = _play("reputation_greedy")
    assert allocation.winners.tolist() == [0, 2] and p.tolist() == [3.0, 0.0, 2.5, 0.0]


def test_vanilla_walks_a_random_order() -> None:
    order = np.random.default_rng(7).permutation(4).tolist()
    winners, spent = [], 0.0
    for i in order:
        if spent + BIDS[i] > BUDGET:
            break
        winners.append(i)
        spent += BIDS[i]
    allocation, p = _play("vanilla", np.random.default_rng(7))
    assert allocation.winners.tolist() == winners
    assert p.sum() == pytest.approx(spent)
    with pytest.raises(ValueError, match="^rng "):
        MECHANISMS["vanilla"].select(BIDS, RE_ACC, BUDGET)


def test_approximate_optimal_by_hand() -> None:
    # Ratios Re/c = (0.25, 0.5, 0.2, 1/3): prefix 1, 3, 0 (cost 5; worker 2 no longer fits),
    # value 1.5 > the best single worker (0.75). Pays the true costs.
    allocation, p = _play("approx_optimal")
    assert allocation.winners.tolist() == [1, 3, 0] and p.tolist() == [3.0, 0.5, 0.0, 1.5]
    with pytest.raises(ValueError, match="^costs "):
        MECHANISMS["approx_optimal"].select(BIDS, RE_ACC, BUDGET)


def test_greedy_keeps_the_best_single_item() -> None:
    # Ratios 1 and 10/11: the prefix {0} is worth 1, the single item 1 is worth 10.
    m = MECHANISMS["approx_optimal"]
    assert m.select([0, 0], [1.0, 10.0], 11.0, costs=[1.0, 11.0]).winners.tolist() == [1]


def test_exact_knapsack_beats_greedy_where_greedy_is_poor() -> None:
    # Greedy takes worker 0 (ratio 0.275) and stops (2 + 1.5 > 3): value 0.55.
    # The optimum is {1, 2}: cost 3, value 0.8.
    args = ([0.0] * 3, [0.55, 0.4, 0.4], 3.0)
    costs = [2.0, 1.5, 1.5]
    assert MECHANISMS["approx_optimal"].select(*args, costs=costs).winners.tolist() == [0]
    assert MECHANISMS["approx_optimal_exact"].select(*args, costs=costs).winners.tolist() == [1, 2]


def _best_value(values: np.ndarray, costs: np.ndarray, budget: float) -> float:
    best = 0.0
    for r in range(values.size + 1):
        for subset in itertools.combinations(range(values.size), r):
            s = list(subset)
            if costs[s].sum() <= budget:
                best = max(best, values[s].sum())
    return best


@FAST
@given(instances(max_workers=8))
def test_knapsack_variants_against_brute_force(instance: Instance) -> None:
    # Sums of costs in another order can differ in the last bit, so an item set on the budget's
    # edge may fit for one summation and not the other: bound the optimum from both sides.
    best = _best_value(instance.Re, instance.costs, instance.budget * (1 + 1e-9))
    best_inside = _best_value(instance.Re, instance.costs, instance.budget * (1 - 1e-9))
    tol = 1e-9 * max(best, 1e-300)
    for name, factor in (("approx_optimal_exact", 1.0), ("approx_optimal", 0.5)):
        a = MECHANISMS[name].select(instance.bids, instance.Re, instance.budget,
                                    costs=instance.costs)
        assert instance.costs[a.winners].sum() <= instance.budget * (1 + 1e-12)
        value = instance.Re[a.winners].sum()
        assert value <= best + tol and value >= factor * best_inside - tol


def test_exact_knapsack_on_a_hundred_workers() -> None:
    rng = np.random.default_rng(3)
    Re, costs = rng.uniform(0.1, 1, 100), rng.uniform(1, 4, 100)
    exact = MECHANISMS["approx_optimal_exact"].select(costs, Re, 60.0, costs=costs)
    greedy = MECHANISMS["approx_optimal"].select(costs, Re, 60.0, costs=costs)
    assert costs[exact.winners].sum() <= 60.0
    assert Re[exact.winners].sum() >= Re[greedy.winners].sum()


@FAST
@given(instances(), st.sampled_from(list(MECHANISMS)))
def test_common_interface_and_budget_feasibility(instance: Instance, name: str) -> None:
    m = MECHANISMS[name]
    a = m.select(instance.bids, instance.Re, instance.budget, costs=instance.costs,
                 rng=instance.rng())
    p = m.pay(a, instance.re)
    assert a.mechanism == name and a.selected.dtype == bool
    assert sorted(a.winners.tolist()) == np.flatnonzero(a.selected).tolist()
    assert np.all(a.upper[~a.selected] == 0) and np.all(p[~a.selected] == 0)
    assert np.all((p >= 0) & (p <= a.upper))
    assert (a.auction is not None) == (name in ("ours", "rrafl", "proportional_share"))
    if "budget_feasible" in m.claims:
        assert p.sum() <= instance.budget + scale(instance)
    if "ir" in m.claims:  # the instances bid truthfully
        assert np.all(p[a.selected] >= instance.costs[a.selected] - scale(instance))


def test_ours_and_rrafl_select_alike() -> None:
    a = MECHANISMS["ours"].select(BIDS, RE_ACC, BUDGET)
    assert a.winners.tolist() == select(BIDS, RE_ACC, BUDGET).winners.tolist()


@pytest.mark.parametrize("name", list(MECHANISMS))
def test_bad_inputs(name: str) -> None:
    m = MECHANISMS[name]
    kw = {"costs": [1.0, 1.0], "rng": np.random.default_rng(0)}
    for args, arg in ((([np.nan, 1.0], [1.0, 1.0], 1.0), "bids"),
                      (([1.0, 1.0], [-1.0, 1.0], 1.0), "Re"),
                      (([1.0, 1.0], [1.0, 1.0], 0.0), "budget"),
                      (([1.0], [1.0, 1.0], 1.0), "bids"), (([], [], 1.0), "bids")):
        with pytest.raises(ValueError, match=f"^{arg} "):
            m.select(*args, **kw)
    a = m.select([1.0, 1.0], [1.0, 1.0], 10.0, **kw)
    with pytest.raises(ValueError, match="^re "):
        m.pay(a, [1.0])
    with pytest.raises(ValueError, match="^re "):
        m.pay(a, [1.0, np.inf])
    other = next(o for o in MECHANISMS.values() if o.name != name)
    with pytest.raises(ValueError, match="^allocation "):
        other.pay(a, [1.0, 1.0])


def test_approximate_optimal_checks_costs() -> None:
    with pytest.raises(ValueError, match="^costs "):
        ApproximateOptimal().select([1.0, 1.0], [1.0, 1.0], 1.0, costs=[1.0, -1.0])
    with pytest.raises(ValueError, match="^costs "):
        ApproximateOptimal(exact=True).select([1.0, 1.0], [1.0, 1.0], 1.0, costs=[1.0])


def test_allocations_are_read_only() -> None:
    a, _ = _play("bid_greedy")
    with pytest.raises(ValueError):
        a.selected[0] = True
