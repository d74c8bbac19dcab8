"""The exact best response by breakpoints: hand-computed cases, and never beaten by a search."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fedlib.conformance.best_response import best_response, candidate_bids, exact_bids
from fedlib.conformance.protocol import MechanismFault
from fedlib.conformance.search import random_cases, search
from fedlib.mechanism import MECHANISMS, Instance, deviation_grid, random_instance
from fedlib.mechanism.auction import bid_breakpoints
from fedlib.paper import examples

EXACT = ("ours", "rrafl", "proportional_share")


def test_breakpoints_of_a_hand_computed_auction():
    # worker 0 of (4, 4.5, 100), Re = 1, B = 10: the others' densities 4.5 and 100, and the
    # shares 10 / (1 + 0), 10 / (1 + 1), 10 / (1 + 2) of the prefixes before it
    assert np.allclose(bid_breakpoints([4, 4.5, 100], [1, 1, 1], 10, 0),
                       [10 / 3, 4.5, 5, 10, 100])
    # worker 1 with Re = 2: densities 4 and 100 times 2; shares 10*2/(2+0), /(2+1), /(2+2)
    assert np.allclose(bid_breakpoints([4, 4.5, 100], [1, 2, 1], 10, 1),
                       [5, 20 / 3, 8, 10, 200])
    assert bid_breakpoints([4, 4.5], [1, 0], 10, 1).size == 0  # Re = 0 never wins


def test_theorem_4_counterexample_regret_is_two_thirds():
    # truthful: both cheap workers win, rho* = 5, worker 0 (re = 0.5) is paid
    # max(10 * 0.5 / 1.5, 5 * 0.5) = 10/3 < its cost 4; bidding above 5 it loses: utility 0
    response = best_response(MECHANISMS["ours"], Instance(*examples.THEOREM4), 0)
    assert response.truthful_utility == pytest.approx(10 / 3 - 4)
    assert response.utility == 0.0 and response.regret == pytest.approx(2 / 3)
    assert response.relative_regret == pytest.approx(2 / 3 / 4)
    assert 5 < response.bid < 10
    lie = Instance(*examples.THEOREM4).with_bid(0, response.bid)
    assert not MECHANISMS["ours"].select(lie.bids, lie.Re, lie.budget).selected[0]


def test_no_regret_where_the_theorem_holds():
    honest = Instance(*examples.THEOREM4_HONEST)  # paid 5 at cost 4: nothing better
    assert [best_response(MECHANISMS["ours"], honest, w).regret for w in range(3)] == [0, 0, 0]
    cheated = Instance(*examples.THEOREM4)  # RRAFL pays rho* Re ex ante: truthful for all
    assert all(best_response(MECHANISMS["rrafl"], cheated, w).regret == 0 for w in range(3))


def test_case_3_adds_a_winner_but_no_gain():
    # worker 0 (cost 8) loses; bidding 2 both win, and it is paid 5 < 8
    response = best_response(MECHANISMS["ours"], Instance(*examples.CASE3), 0)
    assert response.truthful_utility == 0 and response.regret == 0
    assert response.bid == 8.0


def test_candidates_are_every_breakpoint_and_an_inside_bid():
    # no midpoint between 1 and 1 + 1e-15: an interval narrower than float resolution
    assert candidate_bids(np.array([1.0, 1.0 + 1e-15, 3.0]), 0.5).tolist() == \
        pytest.approx([0.0, 0.5, 1.0, 1.0 + 1e-15, 2.0, 3.0, 6.0], rel=1e-15)


def test_a_mechanism_without_breakpoints_is_refused():
    with pytest.raises(ValueError, match="can only be searched"):
        best_response(MECHANISMS["bid_greedy"], Instance(*examples.THEOREM4), 0)
    with pytest.raises(ValueError, match="worker must index"):
        best_response(MECHANISMS["ours"], Instance(*examples.THEOREM4), 3)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 12),
       name=st.sampled_from(EXACT), ties=st.booleans())
def test_no_bid_beats_the_exact_best_response(seed, n, name, ties):
    """No bid of a search finds more than the enumeration."""
    rng = np.random.default_rng(seed)
    instance = random_instance(rng, n, ties=ties)
    mechanism = MECHANISMS[name]
    for worker in range(n):
        best = best_response(mechanism, instance, worker)
        # the search's grid, and a dense grid that knows nothing of the breakpoints
        tried = np.concatenate((deviation_grid(instance, worker),
                                np.linspace(0, 1.1 * instance.scale, 300),
                                rng.uniform(0, 2 * instance.scale, 20)))
        for bid in tried:
            lie = instance.with_bid(worker, bid)
            allocation = mechanism.select(lie.bids, lie.Re, lie.budget)
            paid = mechanism.pay(allocation, lie.re)[worker]
            utility = paid - instance.costs[worker] if allocation.selected[worker] else 0.0
            assert utility <= best.utility + 1e-9 * instance.scale
        if name != "ours" or instance.honest[worker]:  # Theorem 4 (as corrected)
            assert best.regret <= 1e-9 * instance.scale


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 12), ties=st.booleans())
def test_a_worker_wins_or_loses_alike_between_two_breakpoints(seed, n, ties):
    """Between consecutive breakpoints of Algorithm 1 the worker's selection and utility are
    constant (two random bids inside every interval agree)."""
    rng = np.random.default_rng(seed)
    instance = random_instance(rng, n, ties=ties)
    mechanism = MECHANISMS["ours"]
    for worker in range(n):
        points = bid_breakpoints(instance.bids, instance.Re, instance.budget, worker)
        edges = np.unique(np.concatenate(([0.0], points, [2 * instance.scale + 1])))
        for low, high in zip(edges[:-1], edges[1:], strict=True):
            if high - low <= 1e-9 * high:
                continue
            outcomes = set()
            for bid in rng.uniform(low, high, 2):
                lie = instance.with_bid(worker, bid)
                allocation = mechanism.select(lie.bids, lie.Re, lie.budget)
                won = bool(allocation.selected[worker])
                paid = mechanism.pay(allocation, lie.re)[worker]
                outcomes.add((won, round(float(paid), 9)))
            assert len(outcomes) == 1, (worker, low, high, outcomes)


def randoms(seed, count, sizes):
    """``count`` random cases of the search with ``sizes`` (smallest, largest) workers."""
    return random_cases(np.random.default_rng(seed), count, sizes=((*sizes, 1.0),))


def test_the_search_agrees_with_the_exact_best_response_at_the_papers_scale():
    """On the paper's mechanism at 30-100 workers (most of them above EXACT_BIDS, where the
    search samples bids): each instance's searched regret is never above the exact one of the
    same worker, and equals it wherever the search found a violation. It guards the search's
    regret (seen red with the truthful utility left out of it); ours' utility is a two-step
    function of its bid, so faults of the breakpoints are caught by the tests above instead
    (seen red with the midpoints, the bid beyond the last breakpoint or the share test's
    breakpoints left out)."""
    cases = randoms(3, 12, (30, 100))
    found = search(MECHANISMS["ours"], 0, timing=False, cases=cases)
    assert sum(r.regret > 0 for r in found.records) >= 3  # dishonest workers gain somewhere
    assert sum(c.instance.n > 60 for c in cases) >= 3  # sampled, not enumerated
    for case, record in zip(cases, found.records, strict=True):
        exact = [best_response(MECHANISMS["ours"], case.instance, w).regret
                 for w in range(case.instance.n)]
        assert record.regret <= max(exact) + 1e-9 * case.instance.scale
        if record.regret > 0:
            assert exact[record.worker] == pytest.approx(record.regret, rel=1e-9)


def test_the_search_decides_small_instances_exactly():
    """With breakpoints every worker of an instance of at most DEVIANTS workers is decided
    exactly; without them (Bid Greedy) nobody is."""
    cases = randoms(4, 10, (2, 8))
    for name, exact in (("rrafl", True), ("bid_greedy", False)):
        verdict = search(MECHANISMS[name], 0, timing=False, cases=cases).verdict("truthful")
        assert verdict.exact == (len(cases) if exact else 0)
        assert verdict.exact_workers == (verdict.workers if exact else 0)
        assert ("decided exactly" in verdict.finding) is exact


class _BadBreakpoints:
    """Ours, with a ``bid_breakpoints`` that fails in the way ``kind`` says."""

    def __init__(self, kind):
        self.kind, self.name = kind, f"ours with {kind} breakpoints"

    def __getattr__(self, attribute):
        return getattr(MECHANISMS["ours"], attribute)

    def bid_breakpoints(self, bids, Re, budget, worker):
        if self.kind == "raising":
            raise RuntimeError("no breakpoints today")
        return [1.0, float("nan")]


@pytest.mark.parametrize("kind", ["raising", "nan"])
def test_a_failing_bid_breakpoints_is_a_fault_named_as_such(kind):
    mechanism = _BadBreakpoints(kind)
    with pytest.raises(MechanismFault, match="bid_breakpoints"):
        exact_bids(mechanism, Instance(*examples.THEOREM4), 0)
    verdict = search(mechanism, 0, timing=False, cases=randoms(5, 2, (2, 4)))
    assert not verdict.verdict("well_defined").holds  # not a silent fallback to sampling
