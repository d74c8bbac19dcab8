"""Control mechanisms with known properties, for testing the kit (as pyDVL ships toy games with
known values).

A *good* control satisfies every property it claims, by a theorem of the paper or of the
literature or by construction (each docstring says which); the kit must find no
counterexample to any of its claims (no false alarm). A *broken* control claims a property it
does not have, named by its class attribute ``breaks``; the kit must refute that property (no
miss). :data:`GOOD` and :data:`BROKEN` map each control's ``name`` to its class (created
without arguments). Some broken controls break their property only with many workers
(``workers``: the fewest at which the defect shows); a search finds them only with instances
that large (the scaled edge cases of
:func:`~fedlib.conformance.search.scaled_edge_cases` have 40, 100 and 200).

Bids are the only reports: ``Re`` (the accumulated reputations) and the budget ``B`` are public,
so a rule may depend on them freely without giving a worker a reason to misreport. Why a
posted price is truthful: a worker's payment does not depend on its bid, and its bid decides
only whether it accepts; why a uniform (k+1)-th price is: a winner is paid its critical
value, the lowest bid at which it would lose (Myerson's lemma for single-parameter domains).

Examples
--------
>>> from fedlib.conformance.protocol import claimed
>>> m = PostedPrice()
>>> m.pay(m.select([1.0, 3.0, 1.0], [1.0, 1.0, 1.0], 3.0), [1.0, 1.0, 1.0]).tolist()
[2.0, 0.0, 0.0]
>>> Overspends.breaks in claimed(Overspends.claims)
True
>>> len(GOOD) >= 10 and len(BROKEN) >= 10
True
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np

from fedlib.conformance.protocol import claimed
from fedlib.conformance.search import Search
from fedlib.mechanism import (
    MECHANISMS,
    RRAFL,
    MechanismBase,
    OurMechanism,
    ProportionalShare,
    select,
)
from fedlib.table import Table

__all__ = [
    "BROKEN", "GOOD", "EVERYTHING", "ExAnte", "FirstPrice", "FullInformation", "HiresTheDearest",
    "HiresNobody", "KLowestBids", "KLowestBidsClaimingBudget", "NotMonotone",
    "OursClaimingIR", "OursClaimingTruthful", "OursHonest", "Overspends", "OverspendsAt80",
    "OverspendsByOneUnit", "PaysBelowBid", "PaysBelowBidAt40", "PaysBidsHiresByCost",
    "PaysLosers", "PostedPrice", "PostedPriceByDensity", "RRAFLExAnte", "RaisesOnTies",
    "RandomSerialDictatorship", "RewardsOverbidding", "RewardsOverbiddingAt150",
    "RewardsShirking", "SingerProportionalShare", "SingleSeat", "UniformDensityPrice",
    "UniformPriceHalf", "control_table", "correct", "refuted",
]

#: Every property a mechanism may claim except running time (the searches here do not time).
EVERYTHING = frozenset({"budget_feasible", "ir", "truthful", "monotone"})


def _floats(bids: Any, Re: Any) -> tuple[np.ndarray, np.ndarray]:
    return np.asarray(bids, dtype=float), np.asarray(Re, dtype=float)


# --- good controls -------------------------------------------------------------------------

class HiresNobody(MechanismBase):
    """Hires nobody and pays nothing.

    Every property holds vacuously: no payment exceeds ``B``, no winner is paid below its cost,
    every report gives utility 0, and no worker ever wins (so no lower bid can lose).
    """

    name, label = "hires_nobody", "Hires nobody"
    claims = EVERYTHING

    def select(self, bids, Re, budget, *, costs=None, rng=None):
        return self.allocation([], len(bids))


class ExAnte(MechanismBase):
    """Algorithm 1 on ``stretch`` times the budget, every winner paid ``p_up`` (RRAFL written
    with :class:`MechanismBase`).

    With ``stretch = 1`` this is RRAFL: budget feasible, IR, truthful and monotone because
    ``p_up = Re_i rho*`` is the winner's critical bid (Singer 2010, Theorem 4.1, with
    reputations as values; the paper's Theorems 1-2 and the book's critical-bid lemma). Its
    subclasses below break one property each.
    """

    name = "ex_ante"
    claims = EVERYTHING
    stretch = 1.0

    def select(self, bids, Re, budget, *, costs=None, rng=None):
        auction = select(bids, Re, self.stretch * budget)
        return self.allocation(auction.winners, len(bids), auction.upper, auction=auction)


class SingerProportionalShare(ProportionalShare):
    """The built-in :class:`~fedlib.mechanism.ProportionalShare` (Singer 2010, "Budget
    feasible mechanisms", Theorem 4.1: budget feasible, IR and truthful with unit values),
    claiming monotonicity as well (a lower bid only moves a worker up the ascending order and
    eases its test ``b_i <= B / i``)."""

    name = "singer_proportional_share"
    label = "Singer's proportional share"
    claims = EVERYTHING


class RRAFLExAnte(RRAFL):
    """The built-in :class:`~fedlib.mechanism.RRAFL` (Algorithm 1 paid ``p_up`` ex ante):
    budget feasible (Theorem 2), IR (Theorem 1), truthful (corrected Theorem 4, part 3: ``p_up``
    is the critical value) and monotone (the book's critical-bid lemma)."""

    name = "rrafl_ex_ante"
    label = "RRAFL (control)"
    claims = EVERYTHING


@dataclass(frozen=True)
class OursHonest(OurMechanism):
    """The paper's mechanism (Eq. (16)) claiming what holds of it: budget feasibility
    (Theorem 2), IR for honest winners (Theorem 1), truthfulness for honest workers (Theorem 4
    as corrected) and a monotone selection (the book's critical-bid lemma)."""

    name: ClassVar[str] = "ours_honest"
    label: ClassVar[str] = "Ours (honest claims)"
    claims: ClassVar[frozenset[str]] = frozenset({"budget_feasible", "ir_honest",
                                                  "truthful_honest", "monotone"})


class PostedPrice(MechanismBase):
    """A posted price ``p = factor B / sum(Re)`` per unit of reputation, offered to the
    workers in index order (first come, first served): a worker with ``Re_i > 0`` accepts if
    its bid is at most ``p Re_i``, and is hired, paid ``p Re_i``, if that still fits in what is
    left of ``B`` (else skipped).

    By construction: the payment and the order do not depend on the bids, and a worker's bid
    decides only its own acceptance, so bidding the cost is dominant (accept exactly when
    ``p Re_i >= c_i``): truthful, IR, monotone; the budget test makes it budget feasible.
    """

    name, label = "posted_price", "Posted price, first come"
    claims = EVERYTHING
    factor = 2.0

    def order(self, bids: np.ndarray, Re: np.ndarray, rng: Any) -> np.ndarray:
        """The order in which the workers are offered the price."""
        return np.arange(bids.size)

    def select(self, bids, Re, budget, *, costs=None, rng=None):
        bids, Re = _floats(bids, Re)
        total = Re[Re > 0].sum()
        price = self.factor * budget / total if total > 0 else 0.0
        offer = price * Re
        winners, spent = [], 0.0
        for i in self.order(bids, Re, rng):
            if Re[i] > 0 and bids[i] <= offer[i] and spent + offer[i] <= budget:
                winners.append(i)
                spent += offer[i]
        return self.allocation(winners, bids.size, offer)


class RandomSerialDictatorship(PostedPrice):
    """The posted price of :class:`PostedPrice` offered in a random order (random serial
    dictatorship; Abdulkadiroglu and Sonmez 1998) drawn from ``rng``, not from the bids.

    Universally truthful: for every order drawn it is the posted price above, so truthful, IR,
    monotone and budget feasible (the kit's ``rng`` is seeded by the instance alone, so every
    misreport meets the same order).
    """

    name, label = "random_serial_dictatorship", "Random serial dictatorship"

    def order(self, bids, Re, rng):
        return (rng if rng is not None else np.random.default_rng(0)).permutation(bids.size)


class SingleSeat(MechanismBase):
    """One seat, offered to worker 0 at the whole budget: hired, paid ``B``, if its bid is at
    most ``B``.

    A posted price with one buyer: truthful, IR and monotone (the payment does not depend on
    the bid), budget feasible (it pays ``B`` at most).
    """

    name, label = "single_seat", "Single seat"
    claims = EVERYTHING

    def select(self, bids, Re, budget, *, costs=None, rng=None):
        bids, _ = _floats(bids, Re)
        winners = [0] if bids.size and bids[0] <= budget else []
        return self.allocation(winners, bids.size, np.full(bids.size, float(budget)))


class KLowestBids(MechanismBase):
    """A uniform-price reverse auction of ``k`` identical seats (the VCG mechanism of a
    multi-unit procurement): the ``k`` lowest bids at most the reserve ``B`` win (ties by
    index), each paid ``min(B, (k+1)-th lowest bid)``.

    Truthful, IR and monotone (Vickrey 1961; Myerson's lemma): a winner's payment is its
    critical bid, the ``k``-th lowest of the others' bids or the reserve. Not budget
    feasible: ``k`` winners may each be paid up to ``B`` (no such claim).
    """

    name, label = "k_lowest_bids", "k lowest bids at the (k+1)-th"
    claims = frozenset({"ir", "truthful", "monotone"})
    k = 3

    def seats(self, n: int) -> int:
        """How many workers it hires at most (public: it depends on ``n`` only)."""
        return self.k

    def select(self, bids, Re, budget, *, costs=None, rng=None):
        bids, _ = _floats(bids, Re)
        k = self.seats(bids.size)
        order = np.argsort(bids, kind="stable")
        winners = [i for i in order[:k] if bids[i] <= budget]
        price = min(float(budget), float(bids[order[k]])) if bids.size > k else float(budget)
        return self.allocation(winners, bids.size, np.full(bids.size, price))


class UniformPriceHalf(KLowestBids):
    """:class:`KLowestBids` with ``k = max(1, n // 2)`` seats: the number of seats depends on
    the number of workers only, so the same argument holds (truthful, IR, monotone)."""

    name, label = "uniform_price_half", "Uniform price, half hired"

    def seats(self, n):
        return max(1, n // 2)


class UniformDensityPrice(MechanismBase):
    """A uniform price per unit of reputation: among the workers with ``Re_i > 0`` and cost
    density ``b_i / Re_i`` at most the reserve ``r = B / sum(Re)``, the ``k = max(1, n // 2)``
    of lowest density win (ties by index), each paid ``Re_i min(r, (k+1)-th lowest density)``.

    Truthful, IR and monotone: the payment is the winner's critical bid (Myerson's lemma, as
    for :class:`KLowestBids` with densities); budget feasible because every winner is paid at
    most ``r Re_i`` and ``r sum(Re) = B``.
    """

    name, label = "uniform_density_price", "Uniform price per reputation"
    claims = EVERYTHING

    def select(self, bids, Re, budget, *, costs=None, rng=None):
        bids, Re = _floats(bids, Re)
        total = Re[Re > 0].sum()
        if total <= 0:
            return self.allocation([], bids.size)
        reserve = budget / total
        valued = np.flatnonzero(Re > 0)
        density = bids[valued] / Re[valued]
        ranked = valued[np.argsort(density, kind="stable")]
        k = max(1, bids.size // 2)
        winners = [i for i in ranked[:k] if bids[i] / Re[i] <= reserve]
        price = min(reserve, bids[ranked[k]] / Re[ranked[k]]) if ranked.size > k else reserve
        return self.allocation(winners, bids.size, price * Re)


class FullInformation(MechanismBase):
    """The full-information benchmark (the built-in Approximate Optimal's greedy knapsack on
    the true costs), paying each winner its true cost.

    By construction: it ignores the bids and the delivered ``re``, so every worker's utility is
    0 whatever it reports (truthful), it wins or loses whatever it bids (monotone), its payment
    equals its cost (IR) and the knapsack keeps the costs within ``B`` (budget feasible).
    """

    name, label, knows = "full_information", "Full information", "costs"
    claims = EVERYTHING

    def select(self, bids, Re, budget, *, costs=None, rng=None):
        hired = MECHANISMS["approx_optimal"].select(bids, Re, budget, costs=costs)
        return self.allocation(hired.winners, len(bids), hired.upper)


# --- broken controls -----------------------------------------------------------------------

class Overspends(ExAnte):
    """Selects as if the budget were twice as large: pays up to 2B."""

    name, stretch, breaks = "overspends", 2.0, "budget_feasible"


class OverspendsByOneUnit(ExAnte):
    """Selects as if the budget were one unit of money larger (``B + 1``): a single worker
    bidding between ``B`` and ``B + 1`` is hired and paid ``B + 1``."""

    name, breaks = "overspends_by_one_unit", "budget_feasible"

    def select(self, bids, Re, budget, *, costs=None, rng=None):
        return super().select(bids, Re, budget + 1.0)


class PaysBelowBid(ExAnte):
    """Pays every winner 90% of its bid."""

    name, breaks = "pays_below_bid", "ir"

    def pay(self, allocation, re):
        return np.where(allocation.selected, 0.9 * allocation.auction.bids, 0.0)


class RewardsOverbidding(ExAnte):
    """Pays every winner its bid, never more than its critical price: a higher bid pays more
    (a first-price, pay-as-bid auction after Algorithm 1's selection)."""

    name, breaks = "rewards_overbidding", "truthful"

    def pay(self, allocation, re):
        return np.where(allocation.selected, allocation.auction.bids, 0.0)


class NotMonotone(ExAnte):
    """Leaves out every bid below a tenth of the mean bid as suspiciously cheap."""

    name, breaks = "not_monotone", "monotone"

    def select(self, bids, Re, budget, *, costs=None, rng=None):
        bids, Re = np.asarray(bids, float), np.asarray(Re, float)
        cheap = bids < 0.1 * bids.mean()
        auction = select(np.where(cheap, 2 * budget + bids.max(), bids), Re, budget)
        return self.allocation(auction.winners, len(bids), auction.upper, auction=auction)


class RaisesOnTies(ExAnte):
    """Refuses two equal cost densities."""

    name, breaks = "raises_on_ties", "well_defined"

    def select(self, bids, Re, budget, *, costs=None, rng=None):
        bids, Re = np.asarray(bids, float), np.asarray(Re, float)
        density = bids[Re > 0] / Re[Re > 0]
        if np.unique(density).size < density.size:
            raise ValueError("two workers have the same cost density")
        return super().select(bids, Re, budget)


class RewardsShirking(ExAnte):
    """Selects on half the budget and pays double to a winner that delivers less than half its
    promise: within the budget and above every cost, but delivering less pays."""

    name, stretch, breaks = "rewards_shirking", 0.5, "truthful_honest"

    def pay(self, allocation, re):
        auction = allocation.auction
        shirks = np.asarray(re) < auction.Re / 2
        return np.where(allocation.selected, auction.upper * np.where(shirks, 2.0, 1.0), 0.0)


class PaysBidsHiresByCost(ExAnte):
    """Knows the true costs and hires by them (Approximate Optimal's greedy knapsack) but pays
    the bids: within the budget only as long as nobody overbids."""

    name, knows, breaks = "pays_bids_hires_by_cost", "costs", "budget_feasible"

    def select(self, bids, Re, budget, *, costs=None, rng=None):
        hired = MECHANISMS["approx_optimal"].select(bids, Re, budget, costs=costs)
        return self.allocation(hired.winners, len(bids), bids)


class PaysBelowBidAt40(ExAnte):
    """Pays every winner 90% of its bid (individual rationality fails), but only with 40
    workers or more."""

    name, breaks, workers = "pays_below_bid_at_40", "ir", 40

    def pay(self, allocation, re):
        return (PaysBelowBid.pay(self, allocation, re) if len(re) >= self.workers
                else super().pay(allocation, re))


class OverspendsAt80(ExAnte):
    """Selects as if the budget were twice as large, but only with 80 workers or more."""

    name, breaks, workers = "overspends_at_80", "budget_feasible", 80

    def select(self, bids, Re, budget, *, costs=None, rng=None):
        return super().select(bids, Re, (2.0 if len(bids) >= self.workers else 1.0) * budget)


class RewardsOverbiddingAt150(ExAnte):
    """Pays every winner its bid (a higher bid pays more), but only with 150 workers or
    more."""

    name, breaks, workers = "rewards_overbidding_at_150", "truthful", 150

    def pay(self, allocation, re):
        return (RewardsOverbidding.pay(self, allocation, re) if len(re) >= self.workers
                else super().pay(allocation, re))


class FirstPrice(MechanismBase):
    """The built-in Bid Greedy (cheapest bids first within the budget, each paid its bid: a
    pay-as-bid, first-price procurement auction) claiming truthfulness: a winner gains by
    bidding above its cost while it still fits."""

    name, label, breaks = "first_price", "First price (pay as bid)", "truthful"
    claims = EVERYTHING

    def select(self, bids, Re, budget, *, costs=None, rng=None):
        hired = MECHANISMS["bid_greedy"].select(bids, Re, budget)
        return self.allocation(hired.winners, len(bids), hired.upper)


@dataclass(frozen=True)
class OursClaimingTruthful(OurMechanism):
    """The paper's mechanism claiming Theorem 4 as printed (truthful for every worker): the
    paper's counterexample (:data:`fedlib.paper.examples.THEOREM4`) has a dishonest winner,
    paid below its cost, gain by overbidding and losing."""

    name: ClassVar[str] = "ours_claiming_truthful"
    label: ClassVar[str] = "Ours claiming truthfulness"
    claims: ClassVar[frozenset[str]] = frozenset({"budget_feasible", "ir_honest", "truthful",
                                                  "monotone"})
    breaks: ClassVar[str] = "truthful"


@dataclass(frozen=True)
class OursClaimingIR(OurMechanism):
    """The paper's mechanism claiming IR for every winner: a dishonest winner (``re < Re``)
    bidding its cost is paid ``rho* re_i``, which can fall below its cost."""

    name: ClassVar[str] = "ours_claiming_ir"
    label: ClassVar[str] = "Ours claiming IR"
    claims: ClassVar[frozenset[str]] = frozenset({"budget_feasible", "ir", "truthful_honest",
                                                  "monotone"})
    breaks: ClassVar[str] = "ir"


class KLowestBidsClaimingBudget(KLowestBids):
    """:class:`KLowestBids` claiming budget feasibility: three winners may each be paid up to
    the reserve ``B``."""

    name, breaks = "k_lowest_bids_claiming_budget", "budget_feasible"
    claims = EVERYTHING


class PostedPriceByDensity(PostedPrice):
    """The posted price of :class:`PostedPrice` offered by ascending cost density ``b_i /
    Re_i`` instead of index: the order now depends on the bids, and when the budget runs out
    a worker left out gains by underbidding to the front of the queue (paid the same
    price)."""

    name, label, breaks = "posted_price_by_density", "Posted price by density", "truthful"

    def order(self, bids, Re, rng):
        with np.errstate(divide="ignore", invalid="ignore"):
            density = np.where(Re > 0, bids / np.where(Re > 0, Re, 1.0), np.inf)
        return np.argsort(density, kind="stable")


class HiresTheDearest(MechanismBase):
    """Hires the worker with the highest bid at most ``B`` (ties by index) and pays it ``B``:
    a lower bid can lose (and a higher one win)."""

    name, label, breaks = "hires_the_dearest", "Hires the dearest", "monotone"
    claims = EVERYTHING

    def select(self, bids, Re, budget, *, costs=None, rng=None):
        bids, _ = _floats(bids, Re)
        affordable = np.flatnonzero(bids <= budget)
        winners = ([affordable[np.argmax(bids[affordable])]] if affordable.size else [])
        return self.allocation(winners, bids.size, np.full(bids.size, float(budget)))


class PaysLosers(ExAnte):
    """RRAFL that also pays every loser a consolation of 1% of its bid: a payment to a loser
    is no valid outcome (the protocol pays losers 0)."""

    name, breaks = "pays_losers", "well_defined"

    def pay(self, allocation, re):
        bids = allocation.auction.bids
        return np.where(allocation.selected, allocation.upper, 0.01 * bids)


def _registry(*controls: type) -> MappingProxyType[str, type]:
    return MappingProxyType({control.name: control for control in controls})


#: name -> class of every good control: each satisfies every property it claims, so the kit
#: must find no counterexample to any of them.
GOOD: MappingProxyType[str, type] = _registry(
    HiresNobody, ExAnte, SingerProportionalShare, RRAFLExAnte, OursHonest, PostedPrice,
    RandomSerialDictatorship, SingleSeat, KLowestBids, UniformPriceHalf, UniformDensityPrice,
    FullInformation)
#: name -> class of every broken control: each fails the claimed property ``breaks`` (those
#: with ``workers`` only with at least that many workers), so the kit must refute it.
BROKEN: MappingProxyType[str, type] = _registry(
    Overspends, OverspendsByOneUnit, PaysBelowBid, RewardsOverbidding, NotMonotone,
    RaisesOnTies, RewardsShirking, PaysBidsHiresByCost, FirstPrice, OursClaimingTruthful,
    OursClaimingIR, KLowestBidsClaimingBudget, PostedPriceByDensity, HiresTheDearest, PaysLosers,
    PaysBelowBidAt40, OverspendsAt80, RewardsOverbiddingAt150)


def refuted(control: Any, search: Search) -> tuple[str, ...]:
    """The properties ``control`` claims (with what they imply, :func:`claimed`) that
    ``search`` refuted, in the order of the kit's reports."""
    claims = claimed(control.claims)
    return tuple(p for p in search.failed if p in claims)


def correct(control: Any, search: Search) -> bool:
    """Whether ``search`` classified ``control`` right: a good one (no ``breaks``) with no
    claimed property refuted, a broken one with its ``breaks`` refuted."""
    breaks = getattr(control, "breaks", None)
    return breaks in search.failed if breaks else not refuted(control, search)


def control_table(searches: dict[str, Search]) -> Table:
    """One row per control of :data:`GOOD` and :data:`BROKEN` searched in ``searches`` (name
    -> :class:`~fedlib.conformance.search.Search`): whether it is good or broken
    (and what it breaks), what it claims, the claimed properties the kit refuted, the
    properties it refuted that are not claimed, and whether that is the right
    classification."""
    rows = []
    for name, search in searches.items():
        control = GOOD.get(name) or BROKEN[name]
        kind = f"broken ({control.breaks})" if name in BROKEN else "good"
        found = refuted(control, search)
        rows.append((name, kind, ", ".join(sorted(control.claims)),
                     ", ".join(found) or "no counterexample",
                     ", ".join(p for p in search.failed if p not in found),
                     "yes" if correct(control, search) else "NO"))
    return Table(("control", "kind", "claims", "kit refuted", "also refuted (not claimed)",
                  "correct"), tuple(rows),
                 title=f"{len(rows)} controls, {sum(r[-1] == 'yes' for r in rows)} classified "
                       "correctly")
