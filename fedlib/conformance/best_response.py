"""A worker's exact best bid, and its ex-post regret, where the mechanism has breakpoints.

For a mechanism that selects by a threshold in each worker's own bid (Algorithm 1: ours,
RRAFL, proportional share; or any mechanism that provides ``bid_breakpoints(bids, Re, budget,
worker)``), a worker's outcome changes only at finitely many bids, its *breakpoints*
(:func:`fedlib.mechanism.auction.bid_breakpoints` says why for Algorithm 1): between two of
them the winners and the payments are constant, so its utility (Eq. (1)) is a step function of
its bid. Its best bid is then found exactly by playing one bid inside every interval between
consecutive breakpoints (and below the first and above the last) and each breakpoint itself:
:func:`best_response`. Intervals narrower than float resolution (two breakpoints within
``1e-12`` relative of each other) are represented by their ends only.

For Algorithm 1 the steps are few: a winner's payment does not depend on its own bid (the
winners are the same set at every rank it wins from, and ``rho*`` is the first loser's
density or the budget's share), so a worker either wins, at the same utility, with every bid
up to its critical one, or loses; its best response is its true cost, any bid that loses, or
any bid low enough to win. The enumeration does not rely on this, and decides any mechanism
that says where its steps are.

The *ex-post regret* of a worker is its best utility over every bid minus its utility bidding
its true cost, never below 0 (the measure of RegretNet and of the work that certifies such
mechanisms); its regret relative to its cost divides by that cost. The worker delivers the
``re`` it can (held fixed whatever it bids, as in :mod:`fedlib.mechanism.properties`): under
Eq. (16) a winner's payment never decreases with its own ``re``, and an ex-ante payment does
not depend on it, so for ours, RRAFL and proportional share delivering less never pays and the
best response over bids is the best response.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fedlib.conformance.protocol import MechanismFault, Player
from fedlib.mechanism import Instance

#: Two breakpoints closer than this (relative) bound no interval of their own.
RESOLUTION = 1e-12


@dataclass(frozen=True)
class BestResponse:
    """One worker's best bid against the others' reports (:func:`best_response`).

    Attributes
    ----------
    worker : int
        The worker (0-based).
    cost : float
        Its true cost.
    bid : float
        The lowest bid tried that reaches its best utility (its true cost when no bid does
        better).
    utility, truthful_utility : float
        Its utility (Eq. (1)) at ``bid`` and at its true cost.
    bids_tried : int
        Bids played: the breakpoints, one inside every interval, and its true cost.
    """

    worker: int
    cost: float
    bid: float
    utility: float
    truthful_utility: float
    bids_tried: int

    @property
    def regret(self) -> float:
        """What misreporting gains it: ``max(0, utility - truthful_utility)``."""
        return max(0.0, self.utility - self.truthful_utility)

    @property
    def relative_regret(self) -> float:
        """:attr:`regret` over its true cost (0 without regret; ``inf`` at a zero cost)."""
        if self.regret == 0:
            return 0.0
        return self.regret / self.cost if self.cost > 0 else float("inf")


def has_breakpoints(mechanism: Any) -> bool:
    """Whether ``mechanism`` says where its workers' outcomes can change (a callable
    ``bid_breakpoints``), so that :func:`best_response` is exact for it."""
    return callable(getattr(mechanism, "bid_breakpoints", None))


def candidate_bids(breakpoints: np.ndarray, cost: float) -> np.ndarray:
    """The bids :func:`best_response` plays: 0, the breakpoints, the midpoint of every
    interval between consecutive ones wider than :data:`RESOLUTION`, one bid beyond the last,
    and the true cost.

    >>> candidate_bids(np.array([2.0, 4.0]), 3.5).tolist()
    [0.0, 1.0, 2.0, 3.0, 3.5, 4.0, 8.0]
    """
    points = np.unique(np.concatenate(([0.0], breakpoints[breakpoints > 0])))
    low, high = points[:-1], points[1:]
    wide = high - low > RESOLUTION * np.maximum(high, 1.0)
    beyond = 2 * max(points[-1], cost, 1.0)
    return np.unique(np.concatenate((points, (low[wide] + high[wide]) / 2, [beyond, cost])))


def _utility(player: Player, instance: Instance, bids: np.ndarray, worker: int) -> float:
    play = player.play(instance, bids)
    if play.fault is not None:
        raise MechanismFault(f"{play.fault}, at bids {bids.tolist()}")
    return play.utility(worker, float(instance.costs[worker]))


def exact_bids(mechanism: Any, instance: Instance, worker: int) -> np.ndarray:
    """The bids that decide ``worker``'s best response exactly (:func:`candidate_bids` of the
    mechanism's ``bid_breakpoints`` at the others' bids), sorted.

    Raises
    ------
    ValueError
        If ``mechanism`` has no ``bid_breakpoints`` (its best response can only be searched),
        or ``worker`` is out of range.
    MechanismFault
        If ``bid_breakpoints`` raises or returns something other than finite numbers.
    """
    if not has_breakpoints(mechanism):
        raise ValueError(f"{getattr(mechanism, 'name', mechanism)!r} has no bid_breakpoints("
                         "bids, Re, budget, worker): its best response can only be searched")
    if not 0 <= worker < instance.n:
        raise ValueError(f"worker must index workers 0..{instance.n - 1}, got {worker}")
    truthful = instance.bids.copy()
    truthful[worker] = instance.costs[worker]
    try:  # the user's code: any error is a fault
        points = np.asarray(mechanism.bid_breakpoints(truthful, instance.Re.copy(),
                                                      instance.budget, worker), dtype=float)
    except Exception as error:
        raise MechanismFault(f"bid_breakpoints raised {type(error).__name__}: {error}") from None
    if points.ndim != 1 or not np.isfinite(points).all():
        raise MechanismFault(f"bid_breakpoints returned {points.tolist()!r}, expected a 1-d "
                             "array of finite bids")
    return candidate_bids(points, float(instance.costs[worker]))


def best_response(mechanism: Any, instance: Instance, worker: int) -> BestResponse:
    """The exact best bid of ``worker`` on ``instance``, the others bidding as in it (see the
    module docstring).

    Raises
    ------
    ValueError, MechanismFault
        As :func:`exact_bids`; MechanismFault also when the mechanism fails at one of the
        bids.

    Examples
    --------
    The paper's counterexample to Theorem 4: worker 0 (cost 4, dishonest) gains 2/3 by bidding
    enough to lose.

    >>> from fedlib.mechanism import MECHANISMS
    >>> from fedlib.paper import examples
    >>> r = best_response(MECHANISMS["ours"], Instance(*examples.THEOREM4), 0)
    >>> round(r.regret, 6), r.utility
    (0.666667, 0.0)
    """
    bids = exact_bids(mechanism, instance, worker)
    player, cost = Player(mechanism), float(instance.costs[worker])
    played = instance.bids.copy()
    utilities = []
    for bid in bids:
        played[worker] = bid
        utilities.append(_utility(player, instance, played, worker))
    truthful_utility = utilities[int(np.searchsorted(bids, cost))]
    best = int(np.argmax(utilities))
    if utilities[best] <= truthful_utility:
        best = int(np.searchsorted(bids, cost))
    return BestResponse(worker, cost, float(bids[best]), float(utilities[best]),
                        float(truthful_utility), int(bids.size))
