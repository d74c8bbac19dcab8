"""The search for counterexamples: the built-ins' verdicts as chapter 04 and their claims say,
Theorem 4 rediscovered without the paper's instance, hand-computed counterexamples and
measures (regret, IR violation, budget overrun), joint misreports, the sizes searched,
and shrinking (the margins themselves are :mod:`fedlib.mechanism.property_rules`', tested in
tests/mechanism/test_mech_property_rules.py)."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings

from fedlib.conformance.best_response import exact_bids
from fedlib.conformance.protocol import Player, claimed
from fedlib.conformance.search import (
    ANCHORS,
    DEVIANTS,
    EFFICIENT_EXPONENT,
    PAPER_CASES,
    SIZES,
    Case,
    Deviation,
    _size,
    _variants,
    adversarial_cases,
    evaluate,
    random_cases,
    search,
    search_cases,
    shrink,
    time_mechanism,
)
from fedlib.mechanism import MECHANISMS, Instance, MechanismBase, select
from fedlib.paper.examples import THEOREM4, THEOREM4_LIE

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mechanism"))
from mech_strategies import instances  # noqa: E402

OURS, RRAFL = MECHANISMS["ours"], MECHANISMS["rrafl"]
#: What chapter 04 and the docstrings say fails for each built-in: ours is truthful and IR for
#: honest workers only; paying the bid rewards overbidding; the others keep all five.
#: A single-case search plays a few hundred times: fewer examples than the mechanism's tests.
FEW = settings(max_examples=25, deadline=None)
EXPECTED_FAILURES = {"ours": {"ir", "truthful"}, "vanilla": {"truthful", "truthful_honest"},
                     "bid_greedy": {"truthful", "truthful_honest"},
                     "reputation_greedy": {"truthful", "truthful_honest"}}


class PricePerUnit(MechanismBase):
    """Algorithm 1, each winner paid ``rho*`` per unit of the ``re`` it delivers (uncapped)."""

    name = "price_per_unit"
    claims = frozenset({"budget_feasible", "ir_honest", "truthful_honest"})

    def select(self, bids, Re, budget, *, costs=None, rng=None):
        a = select(bids, Re, budget)
        return self.allocation(a.winners, len(bids), a.upper, auction=a)

    def pay(self, allocation, re):
        payments = np.zeros(len(re))
        winners = allocation.winners
        payments[winners] = allocation.auction.rho_star * np.asarray(re)[winners]
        return payments


#: Built-ins whose selection takes time exponential in the number of workers (the exact
#: knapsack): searched on the instances of at most six workers only.
EXPONENTIAL = {"approx_optimal_exact"}


@pytest.fixture(scope="module")
def searches():
    """Every built-in searched once on the same 12 random instances (and the adversarial
    ones), without timing."""
    small = [c for c in search_cases(np.random.default_rng(3), 12) if c.instance.n <= 6]
    return {name: search(m, 12, seed=3, timing=False,
                         cases=small if name in EXPONENTIAL else None)
            for name, m in MECHANISMS.items()}


@pytest.mark.parametrize("name", list(MECHANISMS))
def test_every_builtins_verdicts_are_as_its_claims_and_chapter_04_say(searches, name):
    result = searches[name]
    assert set(result.failed) == EXPECTED_FAILURES.get(name, set())
    assert not claimed(MECHANISMS[name].claims) & set(result.failed)
    assert result.verdict("monotone").holds  # every built-in's selection is monotone
    for verdict in result.verdicts:
        assert (verdict.counterexample is None) == verdict.holds
        assert verdict.checks >= verdict.violations and verdict.instances <= result.cases
    if name not in EXPONENTIAL:
        assert result.cases == 12 + len(adversarial_cases()) and result.random_cases == 12
        assert result.largest == 200 and result.paper_sized > 0


def test_ours_counterexample_is_theorem_4s_kind_a_dishonest_worker_who_overbids_to_lose(
        searches):
    cex = searches["ours"].verdict("truthful").counterexample
    truth, lie = cex.plays
    w = cex.worker
    assert not cex.instance.honest[w]
    assert truth.selected[w] and truth.utility(w, cex.instance.costs[w]) < 0
    assert not lie.selected[w] and cex.deviations[0].bid > cex.instance.costs[w]
    assert searches["ours"].verdict("truthful_honest").holds  # corrected Theorem 4, part 1
    assert searches["rrafl"].verdict("truthful").holds  # part 3: the ex-ante variant


def test_the_json_carries_the_utilities_of_a_misreport_as_numbers(searches):
    """Ours: the dishonest worker's utility bidding its cost (paid below it) and misreporting
    (losing: 0), read from the certificate's numbers, not its sentence."""
    saved = json.loads(json.dumps(searches["ours"].verdict("truthful").to_dict()))
    cex = saved["counterexample"]
    plays = {play["name"]: play for play in cex["plays"]}
    truthful, misreport = plays["truthful"]["worker_utility"], plays["misreport"]["worker_utility"]
    assert misreport > truthful and misreport - truthful == pytest.approx(cex["margin"])
    assert truthful == pytest.approx(plays["truthful"]["worker_payment"] - cex["worker_cost"])
    assert plays["misreport"]["worker_payment"] == 0.0 == misreport  # it loses


def test_the_verdicts_count_the_instances_and_the_misreports_tried():
    """Each worker of Theorem 4's instance bids every bid of its exact grid (one in every
    interval between its breakpoints: monotonicity, decided exactly), then delivers less
    (truthfulness); every misreport is also a play checked for the budget, as are the joint
    misreports of pairs. The dishonest worker's are not among truthful_honest's; winners bid
    their cost for IR."""
    instance = Instance(*THEOREM4)
    found = search(OURS, 0, timing=False, cases=[Case(instance, "Theorem 4")])
    counts = {v.property: v.to_dict() for v in found.verdicts}
    assert {c["instances"] for c in counts.values()} == {1}
    bids = sum(np.union1d(exact_bids(OURS, instance, w),
                          instance.costs[w] * np.array((1.0, *ANCHORS))).size - 1
               for w in range(instance.n))
    assert counts["monotone"]["misreports"] == bids
    assert counts["monotone"]["exact_instances"] == counts["truthful"]["exact_instances"] == 1
    assert counts["truthful"]["misreports"] > bids
    joint = counts["budget_feasible"]["joint_misreports"]
    assert joint > 0 and counts["truthful"]["joint_misreports"] == 0  # pairs: budget only
    assert counts["budget_feasible"]["misreports"] == counts["truthful"]["misreports"] + joint
    assert 0 < counts["truthful_honest"]["misreports"] < counts["truthful"]["misreports"]
    assert counts["ir"]["misreports"] == 0


@pytest.mark.parametrize("cases", ["without the paper's examples", "random instances only"])
def test_the_search_finds_theorem_4_false_without_being_handed_the_paper_instance(cases):
    rng = np.random.default_rng(11)
    if cases == "random instances only":
        found = search(OURS, 0, timing=False, cases=random_cases(rng, 40))
    else:
        found = search(OURS, 20, seed=11, paper=False, timing=False)
    cex = found.verdict("truthful").counterexample
    assert cex is not None and cex.origin not in {origin for origin, _ in PAPER_CASES}
    assert found.verdict("truthful_honest").holds


def test_a_hand_computed_misreport_and_overspending():
    """Price per unit on Theorem 4's instance: rho* = 5, worker 0 (re 0.5) is paid 2.5 for a
    cost of 4; bidding 6 it loses: a gain of 1.5. Alone with Re 2.7, B = 1 and re 3, a worker
    is paid (1 / 2.7) 3 = 1.111 > B."""
    player, instance = Player(PricePerUnit()), Instance(*THEOREM4)
    cex = evaluate(player, "truthful", instance, 0, [Deviation(THEOREM4_LIE, 0.5)])
    assert cex.margin == pytest.approx(1.5)
    assert cex.plays[0].payments[0] == pytest.approx(2.5) and not cex.plays[1].selected[0]
    assert evaluate(player, "truthful_honest", instance, 0, [Deviation(6.0, 0.5)]) is None
    assert evaluate(player, "truthful", instance, 0, [Deviation(4.2, 0.5)]) is None  # still wins
    alone = Instance([0.06], [2.7], 1.0, [3.0])
    over = evaluate(player, "budget_feasible", alone, None, ())
    assert over.margin == pytest.approx(3 / 2.7 - 1)
    assert over.text == ("at bids (0.06) and delivered re (3) the payments add up to 1.111 > "
                         "B = 1")
    assert evaluate(player, "ir_honest", alone, 0, ()) is None


def test_shrinking_theorem_4_leaves_two_workers_and_round_numbers():
    """Without the bid of 100 worker 0 still wins at 4 (densities 4 and 4.5 <= 10/2), paid
    10/3; alone it would win paid 10. Rounded, 4.5 becomes 4: a tie that it still wins."""
    player = Player(OURS)
    cex = evaluate(player, "truthful", Instance(*THEOREM4), 0, [Deviation(6.0, 0.5)], "paper")
    small = shrink(player, cex)
    assert small.instance.costs.tolist() == [4.0, 4.0] and small.instance.budget == 10.0
    assert small.instance.re.tolist() == [0.5, 1.0] and small.worker == 0
    assert small.margin == pytest.approx(4 - 10 / 3) and small.origin == "paper"
    assert _size(small) < _size(cex)
    assert small.text == ("worker 1 (cost 4, Re 1, re 0.5: dishonest) wins and is paid 3.333 "
                          "bidding its cost (utility -0.6667); bidding 6 it loses (utility 0)")
    table = small.table()
    assert table.columns == ("", "worker 1 *", "worker 2")
    assert table.column("worker 1 *") == [4.0, 1.0, 0.5, 4.0, 0.5, pytest.approx(10 / 3), 6.0,
                                          0.5, "-"]


@FEW
@given(instances(max_workers=4))
def test_every_counterexample_reported_is_one_and_shrinking_keeps_it(instance):
    found = search(PricePerUnit(), 0, timing=False, cases=[Case(instance, "hypothesis")])
    for verdict in found.verdicts:
        cex = verdict.counterexample
        if cex is not None:
            again = evaluate(Player(PricePerUnit()), cex.property, cex.instance, cex.worker,
                             cex.deviations, partner=cex.partner)
            assert again is not None and again.margin == pytest.approx(cex.margin)
            assert cex.instance.n <= instance.n


def test_shrinking_keeps_reputations_within_the_unit_interval():
    """A counterexample with reputations of 0.5 and below is not rescaled to 5 (a reader found
    reputations above 1 in a shrunk counterexample of the kit's chapter)."""
    player = Player(OURS)
    cex = evaluate(player, "truthful", Instance(*THEOREM4), 0, [Deviation(6.0, 0.5)], "paper")
    halved = replace(cex, instance=Instance(cex.instance.costs, cex.instance.Re / 2,
                                            cex.instance.budget, cex.instance.re / 2))
    variants = list(_variants(halved))
    assert variants and all(v[0].Re.max() <= 1 and v[0].re.max() <= 1 for v in variants)
    tiny = replace(cex, instance=Instance(cex.instance.costs, cex.instance.Re / 20,
                                          cex.instance.budget, cex.instance.re / 20),
                   deviations=tuple(Deviation(d.bid, d.delivered / 20) for d in cex.deviations))
    assert any(v[0].Re.max() == pytest.approx(cex.instance.Re.max() / 2)
               for v in _variants(tiny))  # 0.05 is still rescaled, to 0.5


def test_running_time_is_fitted_and_a_slow_mechanism_stops_early():
    timing = time_mechanism(Player(RRAFL), np.random.default_rng(0), sizes=(100, 1000, 10000),
                            repeats=2)
    assert timing.sizes.tolist() == [100, 1000, 10000] and timing.times.shape == (3, 2)
    assert timing.slope() < 1.5  # Theorem 3: n log n

    class Quadratic(PricePerUnit):
        def select(self, bids, Re, budget, *, costs=None, rng=None):
            np.subtract.outer(np.asarray(bids), np.asarray(bids)).sum()  # n^2 work
            return super().select(bids, Re, budget)

    slow = time_mechanism(Player(Quadratic()), np.random.default_rng(0),
                          sizes=(1000, 3000, 10000, 30000, 100000), repeats=1, limit_s=0.05)
    assert slow.sizes.size < 5  # 100000 workers would take about 300 times the 1000 ones


class Cubic(PricePerUnit):
    """Algorithm 1 after 3 n^3 steps of deterministic work (all pairs, three times per
    worker)."""

    def select(self, bids, Re, budget, *, costs=None, rng=None):
        b = np.asarray(bids, float)
        for x in np.repeat(b, 3):
            np.subtract.outer(b, b - x).max()
        return super().select(bids, Re, budget)


def test_a_cubic_selection_is_refuted_as_efficient():
    """About 6 ms of CPU time at n = 100 grows some 15- to 25-fold at 300 (fitted exponents
    2.2-2.8 with twenty processes on two cores), and the time extrapolated to 1000 stops the
    timing there. The time is CPU time, the work the same on every call: to fall to the limit
    of 1.5 (a 5-fold growth), the median at n = 100 would have to triple alone."""
    verdict = search(Cubic(), 0, cases=[]).verdict("efficient")
    exponent = verdict.to_dict()["exponent"]
    assert not verdict.holds and verdict.violations == 1
    assert exponent > EFFICIENT_EXPONENT and f"CPU time ~ n^{exponent:.2f} over n = 100.." in \
        verdict.finding


def test_a_fault_on_the_timing_workers_is_reported_with_its_instance():
    class SmallOnly(PricePerUnit):
        def select(self, bids, Re, budget, *, costs=None, rng=None):
            if len(bids) > 500:
                raise MemoryError("too many workers")
            return super().select(bids, Re, budget)

    found = search(SmallOnly(), 0, paper=False)
    assert "well_defined" in found.failed
    cex = found.verdict("well_defined").counterexample
    assert cex.origin == "timing, n = 1000" and cex.instance.n == 501  # shrunk
    assert cex.plays[0].fault == "select raised MemoryError: too many workers"
    assert found.timing is None and "efficient" not in [v.property for v in found.verdicts]


def test_search_rejects_a_bad_seed_or_count():
    with pytest.raises(ValueError, match="^seed must be"):
        search(OURS, 1, seed=-1)
    with pytest.raises(ValueError, match="^count must be"):
        search(OURS, -3)


def test_the_measures_of_a_hand_computed_instance():
    """Price per unit on Theorem 4's instance: rho* = 5, worker 1 (cost 4, re 0.5) is paid
    2.5, 1.5 below its cost, and its best misreport (losing) gains 1.5; worker 2 (cost 4.5,
    honest) is paid 5 whatever it bids while it wins, worker 3 (cost 100) would be paid at
    most 5 by winning: neither regrets anything. The payments, 7.5, stay within B = 10."""
    found = search(PricePerUnit(), 0, timing=False, cases=[Case(Instance(*THEOREM4), "t4")])
    regret = found.verdict("truthful").measure
    assert (regret.count, regret.mean, regret.max) == (3, pytest.approx(0.5), pytest.approx(1.5))
    assert regret.relative_mean == pytest.approx(1.5 / 4 / 3)
    assert regret.relative_max == pytest.approx(1.5 / 4)
    ir = found.verdict("ir").measure
    assert (ir.count, ir.mean, ir.max) == (2, pytest.approx(0.75), pytest.approx(1.5))
    assert ir.relative_max == pytest.approx(0.375) and ir.relative_to == "true cost"
    assert found.verdict("truthful_honest").measure.max == 0 == found.verdict(
        "ir_honest").measure.max
    assert found.verdict("budget_feasible").measure.max == 0
    record = found.case("t4")
    assert (record.n, record.examined, record.worker) == (3, 3, 0)
    assert record.regret == pytest.approx(1.5) and record.ir_violation == pytest.approx(1.5)
    assert found.measures["regret"] is regret and set(found.measures) == {
        "regret", "IR violation", "budget overrun"}
    assert "regret: mean 0.5, max 1.5 (relative to the true cost: mean 12.5%, max 37.5%)" == \
        regret.text


def test_the_budget_overrun_of_a_hand_computed_instance():
    """Alone with Re 2.7, B = 1 and re 3, a worker that wins is paid (1 / 2.7) 3: 1/9 over B,
    the largest overrun of any play (delivering less is paid less, bidding above B loses)."""
    alone = Instance([0.06], [2.7], 1.0, [3.0])
    found = search(PricePerUnit(), 0, timing=False, cases=[Case(alone, "alone")])
    overrun = found.verdict("budget_feasible").measure
    assert overrun.max == pytest.approx(1 / 9) and overrun.relative_max == pytest.approx(1 / 9)
    assert overrun.relative_to == "budget B" and overrun.count == found.verdict(
        "budget_feasible").checks
    assert found.case("alone").overrun == pytest.approx(1 / 9)


def test_theorem_4s_regret_is_stated_for_ours():
    """Ours pays worker 1 of Theorem 4's instance 10/3 for a cost of 4; losing is worth 0."""
    found = search(OURS, 0, timing=False)
    record = found.case(PAPER_CASES[0][0])
    assert record.regret == pytest.approx(4 - 10 / 3) and record.worker == 0
    assert record.relative_regret == pytest.approx((4 - 10 / 3) / 4)


class SharesTheSlack(MechanismBase):
    """Knows the costs and hires everyone whose costs fit in B; pays each winner its bid, at
    most its cost plus 0.6 of the slack ``B - sum of costs``: one worker overbidding stays
    within the budget, two can overspend it."""

    name, knows = "shares_the_slack", "costs"
    claims = frozenset({"budget_feasible"})

    def select(self, bids, Re, budget, *, costs=None, rng=None):
        slack = budget - np.sum(costs)
        cap = np.asarray(costs) + 0.6 * max(slack, 0.0)
        winners = np.arange(len(bids)) if slack >= 0 else np.array([], int)
        return self.allocation(winners, len(bids), np.minimum(bids, cap))


def test_a_joint_misreport_by_a_pair_is_searched_for_the_budget_only():
    """Costs 1 and 1, B = 4: the slack is 2, so a winner is paid its bid up to 1 + 0.6 * 2 =
    2.2. One worker bidding 4 brings the payments to 2.2 + 1 = 3.2 <= B; both bidding 4, to
    4.4 > B. Truthfulness is a single worker's property: no pair is tallied for it."""
    instance = Instance([1.0, 1.0], [1.0, 1.0], 4.0, [1.0, 1.0])
    player = Player(SharesTheSlack())
    high = Deviation(4.0, 1.0)
    assert evaluate(player, "budget_feasible", instance, 0, [high]) is None
    cex = evaluate(player, "budget_feasible", instance, 0, [high, high], partner=1)
    assert cex.margin == pytest.approx(0.4) and cex.moves == ((0, high), (1, high))
    with pytest.raises(ValueError, match="^a joint misreport is no case of truthful"):
        evaluate(player, "truthful", instance, 0, [high, high], partner=1)
    found = search(SharesTheSlack(), 0, timing=False, cases=[Case(instance, "pair")])
    budget = found.verdict("budget_feasible")
    assert not budget.holds and 1 <= budget.joint <= 4  # one pair, at most 4 joint plays
    assert budget.counterexample.partner is not None
    assert budget.counterexample.to_dict()["partner"] == budget.counterexample.partner
    assert found.verdict("truthful").joint == 0


def test_large_instances_sample_their_misreporting_workers_and_the_effort_says_so():
    found = search(OURS, 0, timing=False, paper=False,
                   cases=[c for c in adversarial_cases(paper=False) if c.instance.n == 200])
    truthful = found.verdict("truthful")
    assert truthful.largest == truthful.smallest == 200 and truthful.paper_sized == 0
    assert truthful.workers == DEVIANTS * truthful.instances
    assert all(r.examined == DEVIANTS for r in found.records)
    assert truthful.finding.startswith(f"no counterexample in {truthful.instances} instances "
                                       f"of 200 workers (0 of 30-100), {truthful.workers} "
                                       "workers examined, ") or not truthful.holds


def test_the_search_is_deterministic_for_a_seed_and_covers_the_papers_sizes():
    first, again = (search(OURS, 20, seed=4, timing=False).to_dict() for _ in range(2))
    first.pop("seconds"), again.pop("seconds")
    assert first == again
    sizes = [r["n"] for r in first["records"]]
    assert min(sizes) == 1 and max(sizes) >= 200 and sum(30 <= n <= 100 for n in sizes) >= 5
    assert first["random_sizes"] == [list(s) for s in SIZES]


@pytest.mark.parametrize("sizes, message", [
    ([], "^sizes must name at least one"),
    ([(0, 5, 1.0)], "^sizes' fewest workers must be"),
    ([(5, 2, 1.0)], "^sizes' most workers must be"),
    ([(1, 5, 0.0)], "^sizes' shares must be positive"),
])
def test_bad_sizes_are_named(sizes, message):
    with pytest.raises(ValueError, match=message):
        search_cases(np.random.default_rng(0), 1, sizes=sizes)
