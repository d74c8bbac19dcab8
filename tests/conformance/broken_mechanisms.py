"""Deliberately broken mechanisms, each breaking one property the kit must catch. Every one
claims all that RRAFL (Algorithm 1 paid its critical price ex ante) keeps.

They live in :mod:`fedlib.conformance.testing` (the kit's control suite, where each names the
property it ``breaks``); here each is a thin subclass, so that a mechanism loaded from this file
names this file as its source (``broken_mechanisms:Overspends``). This file is also copied
outside the repository by the command-line tests.
"""

from fedlib.conformance import testing


class ExAnte(testing.ExAnte):
    __doc__ = testing.ExAnte.__doc__


class Overspends(testing.Overspends):
    __doc__ = testing.Overspends.__doc__


class PaysBelowBid(testing.PaysBelowBid):
    __doc__ = testing.PaysBelowBid.__doc__


class RewardsOverbidding(testing.RewardsOverbidding):
    __doc__ = testing.RewardsOverbidding.__doc__


class NotMonotone(testing.NotMonotone):
    __doc__ = testing.NotMonotone.__doc__


class RaisesOnTies(testing.RaisesOnTies):
    __doc__ = testing.RaisesOnTies.__doc__


class RewardsShirking(testing.RewardsShirking):
    __doc__ = testing.RewardsShirking.__doc__


class PaysBidsHiresByCost(testing.PaysBidsHiresByCost):
    __doc__ = testing.PaysBidsHiresByCost.__doc__


class PaysBelowBidAt40(testing.PaysBelowBidAt40):
    __doc__ = testing.PaysBelowBidAt40.__doc__


class OverspendsAt80(testing.OverspendsAt80):
    __doc__ = testing.OverspendsAt80.__doc__


class RewardsOverbiddingAt150(testing.RewardsOverbiddingAt150):
    __doc__ = testing.RewardsOverbiddingAt150.__doc__
