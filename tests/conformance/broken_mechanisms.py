"""Deliberately broken mechanisms, each breaking one property the kit must catch. Every one
claims all that RRAFL (Algorithm 1 paid its critical price ex ante) keeps.

This file is also copied outside the repository by the command-line tests.
"""

import numpy as np

from fedlib.conformance import MechanismBase
from fedlib.mechanism import select


class ExAnte(MechanismBase):
    """Algorithm 1 on ``stretch`` times the budget, every winner paid ``p_up``."""

    name = "ex_ante"
    claims = frozenset({"budget_feasible", "ir", "truthful", "monotone"})
    stretch = 1.0

    def select(self, bids, Re, budget, *, costs=None, rng=None):
        auction = select(bids, Re, self.stretch * budget)
        return self.allocation(auction.winners, len(bids), auction.upper, auction=auction)


class Overspends(ExAnte):
    """Selects as if the budget were twice as large: pays up to 2B."""

    name, stretch = "overspends", 2.0


class PaysBelowBid(ExAnte):
    """Pays every winner 90% of its bid."""

    name = "pays_below_bid"

    def pay(self, allocation, re):
        return np.where(allocation.selected, 0.9 * allocation.auction.bids, 0.0)


class RewardsOverbidding(ExAnte):
    """Pays every winner its bid, never more than its critical price: a higher bid pays more."""

    name = "rewards_overbidding"

    def pay(self, allocation, re):
        return np.where(allocation.selected, allocation.auction.bids, 0.0)


class NotMonotone(ExAnte):
    """Leaves out every bid below a tenth of the mean bid as suspiciously cheap."""

    name = "not_monotone"

    def select(self, bids, Re, budget, *, costs=None, rng=None):
        bids, Re = np.asarray(bids, float), np.asarray(Re, float)
        cheap = bids < 0.1 * bids.mean()
        auction = select(np.where(cheap, 2 * budget + bids.max(), bids), Re, budget)
        return self.allocation(auction.winners, len(bids), auction.upper, auction=auction)


class RaisesOnTies(ExAnte):
    """Refuses two equal cost densities."""

    name = "raises_on_ties"

    def select(self, bids, Re, budget, *, costs=None, rng=None):
        bids, Re = np.asarray(bids, float), np.asarray(Re, float)
        density = bids[Re > 0] / Re[Re > 0]
        if np.unique(density).size < density.size:
            raise ValueError("two workers have the same cost density")
        return super().select(bids, Re, budget)


class RewardsShirking(ExAnte):
    """Selects on half the budget and pays double to a winner that delivers less than half its
    promise: within the budget and above every cost, but delivering less pays."""

    name, stretch = "rewards_shirking", 0.5

    def pay(self, allocation, re):
        auction = allocation.auction
        shirks = np.asarray(re) < auction.Re / 2
        return np.where(allocation.selected, auction.upper * np.where(shirks, 2.0, 1.0), 0.0)


class PaysBidsHiresByCost(ExAnte):
    """Knows the true costs and hires by them (Approximate Optimal's greedy knapsack) but pays
    the bids: within the budget only as long as nobody overbids."""

    name, knows = "pays_bids_hires_by_cost", "costs"

    def select(self, bids, Re, budget, *, costs=None, rng=None):
        from fedlib.mechanism import MECHANISMS

        hired = MECHANISMS["approx_optimal"].select(bids, Re, budget, costs=costs)
        return self.allocation(hired.winners, len(bids), bids)



class PaysBelowBidAt40(ExAnte):
    """Pays every winner 90% of its bid (individual rationality fails), but only with 40
    workers or more."""

    name = "pays_below_bid_at_40"

    def pay(self, allocation, re):
        return (PaysBelowBid.pay(self, allocation, re) if len(re) >= 40
                else super().pay(allocation, re))


class OverspendsAt80(ExAnte):
    """Selects as if the budget were twice as large, but only with 80 workers or more."""

    name = "overspends_at_80"

    def select(self, bids, Re, budget, *, costs=None, rng=None):
        return super().select(bids, Re, (2.0 if len(bids) >= 80 else 1.0) * budget)


class RewardsOverbiddingAt150(ExAnte):
    """Pays every winner its bid (a higher bid pays more), but only with 150 workers or
    more."""

    name = "rewards_overbidding_at_150"

    def pay(self, allocation, re):
        return (RewardsOverbidding.pay(self, allocation, re) if len(re) >= 150
                else super().pay(allocation, re))
