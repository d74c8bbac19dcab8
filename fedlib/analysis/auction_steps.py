"""Algorithm 1 step by step on one auction: the selection trace and the payment breakdown.

The chapter "Selecting and paying workers" shows the while loop of Algorithm 1 (lines 3-5) one
worker at a time (:func:`selection_trace`) and every payment of one task (upper, temporary,
ex post, ex ante: :func:`payment_breakdown`). Everything is computed with
:mod:`fedlib.mechanism` except the temporary payment ``p'`` (Algorithm 1, line 13), which the
library does not expose and which :func:`payment_breakdown` checks against
:func:`~fedlib.mechanism.ex_post_payments`.

Workers are 0-based indices in every array; tables label them 1-based ("worker 1" is index 0),
as the paper numbers its workers from 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from fedlib.mechanism import Auction, ex_ante_payments, ex_post_payments
from fedlib.table import Table, format_cell


def worker_label(i: int) -> str:
    """The 1-based display name of worker index ``i``."""
    return str(int(i) + 1)


def selection_trace(auction: Auction) -> Table:
    """Algorithm 1's while loop (lines 3-5), one row per worker in cost-density order.

    Each row shows the worker, its bid, ``Re``, density ``b/Re``, the reputation
    ``Re_i + sum_{j in S} Re_j`` of the prefix up to and including it ("cum. Re"), the share
    ``B / (Re_i + sum_{j in S} Re_j)`` it is tested against ("share"), and whether it passed.
    Rows after the first failure are "not reached" (Algorithm 1 stops there; they would all
    fail too).
    """
    b, Re, B = auction.bids, auction.Re, auction.budget
    order = np.asarray(auction.order)
    with np.errstate(divide="ignore", invalid="ignore"):
        density = np.where(Re[order] > 0, b[order] / np.where(Re[order] > 0, Re[order], 1.0),
                           np.inf)
    cum = np.cumsum(Re[order])
    rows = []
    for step, (i, d, c) in enumerate(zip(order, density, cum, strict=True), start=1):
        share = B / c if c > 0 else math.inf
        result = ("selected" if step <= auction.k else
                  "fails: stop" if step == auction.k + 1 else "not reached")
        rows.append((step, worker_label(i), float(b[i]), float(Re[i]), float(d), float(c),
                     float(share), bool(np.isfinite(d) and d <= share), result))
    return Table(("step", "worker", "bid", "Re", "b/Re", "cum. Re", "share", "b/Re <= share",
                  "result"), tuple(rows),
                 title=f"B = {format_cell(B, 4)}: k = {auction.k}, "
                       f"rho* = {format_cell(auction.rho_star, 4)}")


@dataclass(frozen=True, eq=False)
class PaymentBreakdown:
    """Every payment of Algorithm 1 for one task, per worker (arrays of shape (n,)).

    Attributes
    ----------
    auction : Auction
    re : numpy.ndarray
        Realised internal reputations (only winners' entries matter).
    costs : numpy.ndarray
        True costs (default: the bids).
    upper : numpy.ndarray
        ``p_up = Re rho*`` (Eq. (15)), 0 for losers; this is also the ex-ante payment.
    temporary : numpy.ndarray
        ``p' = max(B re / sum_S re, rho* re)`` (Algorithm 1, line 13) for winners, NaN for
        losers (sum over ``Re`` instead with ``temp_denominator="Re"``).
    ex_post : numpy.ndarray
        ``p = min(p_up, p')`` (Eq. (16)), from :func:`~fedlib.mechanism.ex_post_payments`.
    honest : numpy.ndarray of bool
        Winners with ``re >= Re`` (Definition 1); False for losers.
    """

    auction: Auction
    re: np.ndarray
    costs: np.ndarray
    upper: np.ndarray
    temporary: np.ndarray
    ex_post: np.ndarray
    honest: np.ndarray

    @property
    def ex_ante(self) -> np.ndarray:
        """The payments if fixed before the task (RRAFL): ``p_up``."""
        return self.upper

    @property
    def selected(self) -> np.ndarray:
        """Membership mask of the winners."""
        return self.auction.selected

    @property
    def dishonest(self) -> np.ndarray:
        """Winners with ``re < Re``."""
        return self.selected & ~self.honest

    @property
    def utility_ex_post(self) -> np.ndarray:
        """Eq. (1) under ex-post payment: ``p - c`` for winners, 0 for losers."""
        return np.where(self.selected, self.ex_post - self.costs, 0.0)

    @property
    def utility_ex_ante(self) -> np.ndarray:
        """Eq. (1) under ex-ante payment: ``p_up - c`` for winners, 0 for losers."""
        return np.where(self.selected, self.upper - self.costs, 0.0)

    @property
    def budget_used_ex_post(self) -> float:
        """Total ex-post payment."""
        return float(self.ex_post.sum())

    @property
    def budget_used_ex_ante(self) -> float:
        """Total ex-ante payment ``sum p_up``."""
        return float(self.upper.sum())

    @property
    def temporary_total(self) -> float:
        """``sum_S p'``: what the publisher would owe without the cap ``p_up``."""
        return float(np.nansum(self.temporary))

    def table(self) -> Table:
        """One row per winner: Re, re, honest or not, cost, p_up (the ex-ante payment), p', the
        ex-post payment p = min(p_up, p'), and the utilities under both payments."""
        rows = tuple((worker_label(i), float(self.auction.Re[i]), float(self.re[i]),
                      "honest" if self.honest[i] else "dishonest", float(self.costs[i]),
                      float(self.upper[i]), float(self.temporary[i]), float(self.ex_post[i]),
                      float(self.utility_ex_ante[i]), float(self.utility_ex_post[i]))
                     for i in self.auction.winners)
        return Table(("worker", "Re", "re", "honesty", "cost", "p_up", "p'", "p", "u ex ante",
                      "u ex post"), rows,
                     title=f"B = {format_cell(self.auction.budget, 4)}: paid ex ante "
                           f"{format_cell(self.budget_used_ex_ante, 4)}, ex post "
                           f"{format_cell(self.budget_used_ex_post, 4)}")


def payment_breakdown(auction: Auction, re: ArrayLike, costs: ArrayLike | None = None,
                      temp_denominator: Literal["re", "Re"] = "re") -> PaymentBreakdown:
    """All payments of one task: upper, temporary, ex post (Algorithm 1, lines 8-14).

    Parameters
    ----------
    auction : Auction
        From :func:`~fedlib.mechanism.select`.
    re : array_like, shape (n,)
        Realised internal reputations.
    costs : array_like, shape (n,), optional
        True costs for the utilities; default the bids (truthful bidding).
    temp_denominator : {"re", "Re"}
        The sum in ``p'`` (see :func:`~fedlib.mechanism.ex_post_payments`).

    Raises
    ------
    ValueError
        If ``min(p_up, p')`` computed here disagrees with the library's ex-post payments.
    """
    p = ex_post_payments(auction, re, temp_denominator=temp_denominator)
    r = np.asarray(re, dtype=float)
    c = np.asarray(auction.bids if costs is None else costs, dtype=float)
    if c.shape != r.shape:
        raise ValueError(f"costs must have one entry per worker ({r.size}), got {c.shape}")
    sel = np.asarray(auction.selected)
    basis = r if temp_denominator == "re" else np.asarray(auction.Re)
    total = basis[sel].sum()
    temporary = np.full(r.shape, np.nan)
    if sel.any():
        share = auction.budget * r[sel] / total if total > 0 else np.zeros(int(sel.sum()))
        temporary[sel] = np.maximum(share, auction.rho_star * r[sel])
    check = np.where(sel, np.minimum(auction.upper, np.nan_to_num(temporary)), 0.0)
    if not np.allclose(check, p, rtol=1e-12, atol=0.0):
        raise ValueError("min(p_up, p') disagrees with fedlib.mechanism.ex_post_payments")
    return PaymentBreakdown(auction=auction, re=r, costs=c, upper=ex_ante_payments(auction),
                            temporary=temporary, ex_post=p, honest=sel & (r >= auction.Re))
