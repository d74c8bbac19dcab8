"""fedlib.mechanism.property_rules: each property's margin on small plays computed by hand,
and the one registry that the mechanisms' claims and the conformance kit name."""

from __future__ import annotations

import pytest

from fedlib.conformance import protocol
from fedlib.mechanism import CLAIMABLE, PROPERTIES, Played
from fedlib.mechanism.property_rules import MISREPORT, PLAYED, TWO_BIDS, utility


def play(bids, selected, payments):
    return Played(list(bids), list(selected), payments)


def test_budget_margin_is_the_total_payment_minus_the_budget():
    """Theorem 2: budget 10, payments 4 and 7 overspend by 1; 4 and 5 leave 1 unspent."""
    rule = PROPERTIES["budget_feasible"]
    assert rule.margin([play([1, 2], [True, True], [4.0, 7.0])], budget=10.0) == 1.0
    assert rule.margin([play([1, 2], [True, True], [4.0, 5.0])], budget=10.0) == -1.0
    assert rule.money and rule.joint and rule.subject == "play" and not rule.honest_only


def test_ir_margin_is_a_winners_cost_minus_its_payment():
    """Theorem 1: a winner of cost 5 paid 3 falls 2 short; paid 6 it gains 1; a loser, paid
    nothing, loses nothing (Eq. (1): utility 0)."""
    paid = play([5, 9], [True, False], [3.0, 0.0])
    assert PROPERTIES["ir"].margin([paid], 0, 5.0) == 2.0
    assert PROPERTIES["ir"].margin([play([5], [True], [6.0])], 0, 5.0) == -1.0
    assert PROPERTIES["ir"].margin([paid], 1, 9.0) == 0.0
    assert PROPERTIES["ir_honest"].honest_only and not PROPERTIES["ir"].honest_only
    assert PROPERTIES["ir"].subject == "winner" and PROPERTIES["ir"].implies == ("ir_honest",)


def test_truthful_margin_is_the_misreports_utility_minus_the_truthful_one():
    """Theorem 4: cost 4; truthful it wins paid 10/3 (utility -2/3), bidding 6 it loses
    (utility 0): a gain of 2/3. Losing truthfully and winning paid 5 by bidding 3 gains 1."""
    rule = PROPERTIES["truthful"]
    truth = play([4, 4.5], [True, True], [10 / 3, 5.0])
    lie = play([6, 4.5], [False, True], [0.0, 5.0])
    assert rule.margin([truth, lie], 0, 4.0) == pytest.approx(2 / 3)
    assert rule.margin([lie, truth], 0, 4.0) == pytest.approx(-2 / 3)
    assert rule.margin([play([4], [False], [0.0]), play([3], [True], [5.0])], 0, 4.0) == 1.0
    assert utility(truth, 0, 4.0) == pytest.approx(-2 / 3) and utility(lie, 0, 4.0) == 0.0
    assert rule.plays == MISREPORT and PROPERTIES["truthful_honest"].honest_only


def test_monotone_margin_is_the_gap_between_a_losing_lower_and_a_winning_higher_bid():
    """The critical-bid lemma: losing at 2 but winning at 5 is a violation by 3; winning at both
    is none."""
    rule = PROPERTIES["monotone"]
    low, high = play([2, 1], [False, True], [0, 1]), play([5, 1], [True, False], [6, 0])
    assert rule.margin([low, high], 0) == 3.0
    assert rule.margin([high, high], 0) == 0.0
    assert rule.margin([high, low], 0) == 0.0  # winning low, losing high is monotone
    assert rule.plays == TWO_BIDS and not rule.money


def test_well_defined_margin_is_one_for_a_fault_and_efficient_has_no_per_play_check():
    assert PROPERTIES["well_defined"].margin([play([1], [True], None)]) == 1.0
    assert PROPERTIES["well_defined"].margin([play([1], [True], [1.0])]) == 0.0
    assert PROPERTIES["well_defined"].plays == PLAYED
    with pytest.raises(ValueError, match="efficient has no per-play check"):
        PROPERTIES["efficient"].margin([])
    with pytest.raises(ValueError, match="truthful compares 2 plays"):
        PROPERTIES["truthful"].margin([play([1], [True], [1.0])], 0, 1.0)


def test_one_registry_names_the_claims_descriptions_and_implications():
    assert list(PROPERTIES) == ["well_defined", "budget_feasible", "ir", "ir_honest",
                                "truthful", "truthful_honest", "monotone", "efficient"]
    assert CLAIMABLE == tuple(PROPERTIES)[1:]
    assert protocol.PROPERTIES is PROPERTIES
    assert protocol.IMPLIES == {"ir": ("ir_honest",), "truthful": ("truthful_honest",)}
    assert protocol.DESCRIPTIONS["budget_feasible"].endswith("(Theorem 2)")
    assert all(p.name == name and p.description for name, p in PROPERTIES.items())
