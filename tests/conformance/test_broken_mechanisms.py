"""Deliberately broken mechanisms are caught, each by the property it breaks, with a
counterexample that shows it."""

from __future__ import annotations

import pytest

from fedlib.conformance.search import search
from fedlib.conformance.testing import (
    ExAnte,
    NotMonotone,
    Overspends,
    PaysBelowBid,
    PaysBidsHiresByCost,
    RaisesOnTies,
    RewardsOverbidding,
    RewardsShirking,
)


@pytest.fixture(scope="module")
def found():
    mechanisms = (ExAnte, Overspends, PaysBelowBid, RewardsOverbidding, NotMonotone,
                  RaisesOnTies, RewardsShirking, PaysBidsHiresByCost)
    return {m.name: search(m(), 8, seed=5, timing=False) for m in mechanisms}


def test_the_unbroken_one_has_no_counterexample(found):
    assert found["ex_ante"].failed == ()


@pytest.mark.parametrize("name, broken, also", [
    ("overspends", "budget_feasible", set()),
    ("pays_below_bid", "ir", {"ir_honest", "truthful", "truthful_honest"}),
    ("rewards_overbidding", "truthful", {"truthful_honest"}),
    ("not_monotone", "monotone", {"truthful", "truthful_honest"}),
])
def test_each_broken_mechanism_fails_the_property_it_breaks(found, name, broken, also):
    """Lying pays wherever IR or monotonicity fails: those failures bring truthfulness's."""
    assert set(found[name].failed) == {broken} | also


def test_the_counterexamples_show_the_breakage(found):
    over = found["overspends"].verdict("budget_feasible").counterexample
    assert over.plays[0].payments.sum() > over.instance.budget
    below = found["pays_below_bid"].verdict("ir").counterexample
    w = below.worker
    assert below.plays[0].payments[w] == pytest.approx(0.9 * below.instance.costs[w])
    lie = found["rewards_overbidding"].verdict("truthful").counterexample
    truth, deviant = lie.plays
    assert truth.selected[lie.worker] and deviant.selected[lie.worker]  # still wins
    assert lie.deviations[0].bid > lie.instance.costs[lie.worker]  # by overbidding
    low, high = found["not_monotone"].verdict("monotone").counterexample.deviations
    assert low.bid < high.bid


def test_a_mechanism_that_raises_is_reported_with_the_instance_not_a_traceback(found):
    result = found["raises_on_ties"]
    assert "well_defined" in result.failed
    cex = result.verdict("well_defined").counterexample
    assert cex.plays[0].fault == "select raised ValueError: two workers have the same cost density"
    assert cex.instance.n == 2  # shrunk to the two tied workers
    densities = cex.plays[0].bids / cex.instance.Re
    assert densities[0] == densities[1]
    assert cex.text.startswith("select raised ValueError: two workers have the same cost "
                               "density, at bids (")


def test_delivering_less_is_a_misreport_the_search_tries(found):
    """An honest worker bidding its cost gains nothing by another bid, but delivering less
    than half its promise doubles its pay: truthfulness for honest workers fails through the
    delivery alone."""
    assert set(found["rewards_shirking"].failed) == {"truthful", "truthful_honest"}
    cex = found["rewards_shirking"].verdict("truthful_honest").counterexample
    w, (deviation,) = cex.worker, cex.deviations
    assert deviation.bid == cex.instance.costs[w]
    assert deviation.delivered < cex.instance.Re[w] / 2 <= cex.instance.re[w] / 2


def test_overspending_that_only_a_misreport_reveals_is_found(found):
    """Bidding their costs, the winners fit in the budget; a winner that overbids is still
    hired (by its cost) and paid its bid."""
    result = found["pays_bids_hires_by_cost"]
    assert set(result.failed) == {"budget_feasible", "truthful", "truthful_honest"}
    cex = result.verdict("budget_feasible").counterexample
    w, (deviation,) = cex.worker, cex.deviations
    assert deviation.bid > cex.instance.costs[w] and cex.plays[0].selected[w]
