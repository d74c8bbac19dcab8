"""Algorithm 1: selection by cost density, the threshold rho*, and ex-post payments.

Workers are sorted by cost density ``rho_i = b_i / Re_i`` (ties by worker index) and accepted
while ``b_i / Re_i <= B / (Re_i + sum_{j in S} Re_j)``. Because the densities and the prefix
sums of ``Re`` are both non-decreasing along the order, the workers passing this test form a
prefix, so stopping at the first failure (Algorithm 1) and taking the last worker that passes
(the text) select the same set. A worker with ``Re = 0`` has density ``+inf`` and is never
selected; so is one whose density overflows float64 (``Re`` below ~1e-300 times its bid).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from fedlib import checks


def readonly(a: np.ndarray) -> np.ndarray:
    """``a`` marked read-only, so that frozen results cannot be changed in place."""
    a.flags.writeable = False
    return a


@dataclass(frozen=True, eq=False)
class Auction:
    """The state of Algorithm 1 after selection (lines 1-10). Arrays are read-only.

    Attributes
    ----------
    bids, Re : numpy.ndarray, shape (n,)
        The bids and the (pre-task) accumulated reputations the auction ran on.
    budget : float
        The budget B.
    order : numpy.ndarray of int, shape (n,)
        All workers sorted by (cost density, index).
    winners : numpy.ndarray of int, shape (k,)
        The selected workers in selection order, ``order[:k]``.
    selected : numpy.ndarray of bool, shape (n,)
        Membership mask of S.
    k : int
        ``|S|``.
    rho_star : float
        Eq. (14): ``min(B / sum_S Re, b_{k+1} / Re_{k+1})``, where ``b_{k+1}/Re_{k+1} = +inf``
        when everyone is selected and ``B / sum_S Re = +inf`` when nobody is.
    upper : numpy.ndarray, shape (n,)
        Eq. (15): ``p_up_i = Re_i rho*`` for winners, 0 for losers (computed as
        ``min(Re_i b_{k+1} / Re_{k+1}, B Re_i / sum_S Re)``, finite even where ``rho*``
        overflows).
    """

    bids: np.ndarray
    Re: np.ndarray
    budget: float
    order: np.ndarray
    winners: np.ndarray
    selected: np.ndarray
    k: int
    rho_star: float
    upper: np.ndarray


def _densities(bids: np.ndarray, Re: np.ndarray) -> np.ndarray:
    """Cost densities ``b / Re``; ``+inf`` where ``Re = 0`` (unchecked kernel)."""
    return np.divide(bids, Re, out=np.full(bids.shape, np.inf), where=Re > 0)


def _select(bids: np.ndarray, Re: np.ndarray, budget: float) -> Auction:
    rho = _densities(bids, Re)
    order = np.argsort(rho, kind="stable")
    rho_sorted = rho[order]
    cum_Re = np.cumsum(Re[order])
    share = np.divide(budget, cum_Re, out=np.full(cum_Re.shape, np.inf), where=cum_Re > 0)
    accepted = np.isfinite(rho_sorted) & (rho_sorted <= share)
    k = int(np.argmin(accepted)) if not accepted.all() else accepted.size
    next_density = rho_sorted[k] if k < rho.size else np.inf
    rho_star = float(min(next_density, share[k - 1] if k > 0 else np.inf))
    winners = order[:k]
    selected = np.zeros(rho.size, dtype=bool)
    selected[winners] = True
    upper = np.zeros(rho.size)
    if k > 0:  # Re_i rho*, with B Re_i / sum_S Re in a form that cannot overflow
        upper[winners] = np.minimum(Re[winners] * next_density,
                                    budget * (Re[winners] / cum_Re[k - 1]))
    return Auction(bids=readonly(bids), Re=readonly(Re), budget=budget, order=readonly(order),
                   winners=readonly(winners), selected=readonly(selected), k=k,
                   rho_star=rho_star, upper=readonly(upper))


def select(bids: ArrayLike, Re: ArrayLike, budget: float) -> Auction:
    """Select the winners and their upper payments, Algorithm 1 lines 1-10.

    Sort by density (ties by index), accept the longest prefix passing the proportional-share
    test, then rho* by Eq. (14) and ``p_up`` by Eq. (15). O(n log n) (Theorem 3), vectorised.

    Parameters
    ----------
    bids : array_like, shape (n,)
        Non-negative finite bids.
    Re : array_like, shape (n,)
        Non-negative finite accumulated reputations before the task.
    budget : float
        The budget B > 0.

    Returns
    -------
    Auction

    Examples
    --------
    >>> a = select([4, 4.5, 100], [1, 1, 1], 10)
    >>> a.winners.tolist(), a.rho_star, a.upper.tolist()
    ([0, 1], 5.0, [5.0, 5.0, 0.0])
    """
    return _select(*checks.auction_inputs(bids, Re, budget))


def bid_breakpoints(bids: ArrayLike, Re: ArrayLike, budget: float, worker: int) -> np.ndarray:
    """The bids of ``worker`` at which Algorithm 1's outcome for it can change, the others'
    bids held fixed, sorted.

    Its own bid enters Algorithm 1 only through two comparisons: its density against each
    other worker's (its rank changes at ``rho_j Re_w``) and, at its rank, the share test of
    line 5 (which flips at ``B Re_w / (Re_w + sum_P Re)``, ``P`` the others ranked before it,
    for every prefix ``P`` of the others in density order). Between two consecutive
    breakpoints the winners and ``rho*`` (Eq. (14)) are therefore constant wherever the
    worker wins (when it is the first loser, ``rho*`` may be its own density, but then it is
    paid nothing), and so is its utility (Eq. (1)): a step function of its bid. Empty when
    ``Re_w = 0`` (it is never selected).

    Examples
    --------
    >>> bid_breakpoints([4, 4.5, 100], [1, 1, 1], 10, 0).round(3).tolist()
    [3.333, 4.5, 5.0, 10.0, 100.0]
    """
    b, r, B = checks.auction_inputs(bids, Re, budget)
    if not 0 <= worker < b.size:
        raise ValueError(f"worker must index workers 0..{b.size - 1}, got {worker}")
    if r[worker] == 0:
        return np.empty(0)
    others = np.delete(np.arange(b.size), worker)
    rho = _densities(b[others], r[others])
    prefix = np.concatenate(([0.0], np.cumsum(r[others][np.argsort(rho, kind="stable")])))
    points = np.concatenate((rho[np.isfinite(rho)] * r[worker],
                             B * r[worker] / (r[worker] + prefix)))
    return np.unique(points[np.isfinite(points)])


def _ex_post(auction: Auction, re: np.ndarray, temp_denominator: str) -> np.ndarray:
    w = auction.winners
    total = (re if temp_denominator == "re" else auction.Re)[w].sum()
    share = auction.budget * (re[w] / total) if total > 0 else 0.0
    payments = np.zeros_like(re)
    payments[w] = np.minimum(auction.upper[w], np.maximum(share, auction.rho_star * re[w]))
    return payments


def ex_post_payments(auction: Auction, re: ArrayLike,
                     temp_denominator: Literal["re", "Re"] = "re") -> np.ndarray:
    """Final payments after the task, Algorithm 1 lines 11-14 (Eq. (16)).

    ``p'_i = max(B re_i / sum_{j in S} re_j, rho* re_i)`` and ``p_i = min(p_up_i, p'_i)`` for
    winners, 0 for losers. Since ``p_i <= p_up_i`` the total never exceeds B (Theorem 2).

    Parameters
    ----------
    auction : Auction
        The result of :func:`select`.
    re : array_like, shape (n,)
        Internal reputations measured in the task (Eq. (5)); losers' entries are ignored.
    temp_denominator : {"re", "Re"}, default "re"
        The sum in ``p'``: over the winners' ``re`` (Algorithm 1 and the text) or their ``Re``
        (the proof of Theorem 1); the reading "Denominator of p'_i" of
        :data:`fedlib.paper.readings.READINGS`.

    Returns
    -------
    numpy.ndarray, shape (n,)
        Payments. If the winners' sum in the denominator is 0 (every winner has ``re = 0``
        under ``"re"``) the first term of ``p'`` is taken as 0, so those winners are paid 0.
    """
    r = checks.per_worker(re, "re", auction.bids.size)
    return _ex_post(auction, r, checks.choice(temp_denominator, "temp_denominator",
                                                 ("re", "Re")))


def ex_ante_payments(auction: Auction) -> np.ndarray:
    """Payments fixed before the task: the upper payments ``p_up`` (Eq. (15)); truthful for all.

    This is how RRAFL pays, and the variant of our mechanism for which Theorem 4 holds.
    """
    return auction.upper.copy()
