"""The reputation-and-contribution auction of Zhang, Wu and Pan (2022) as a Flower Baseline.

*Auction-Based Ex-Post-Payment Incentive Mechanism Design for Horizontal Federated Learning
with Reputation and Contribution Measurement*: before every task a publisher with budget B
selects workers by a reverse auction on their bids and accumulated reputations (Algorithm 1,
lines 1-10), runs the task's global rounds, measures each winner's contribution (Eqs. 2-3),
checks its model by leave-one-out (Eq. 4), pays it ex post by the internal reputation it
delivered (Algorithm 1, lines 11-14) and updates the reputations (Eqs. 10-13).

Every module here is a thin layer over ``fedlib`` (its Flower app, ``fedlib.flower``), laid
out as Flower's baseline template asks: the code that runs is fedlib's, tested there.
"""
