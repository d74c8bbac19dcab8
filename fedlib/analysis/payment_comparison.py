"""Ex-ante against ex-post payment over many auctions, and the two readings of ``p'``.

:func:`payment_ratios` collects what the winners of ours are paid ex post (Eq. (16)) against
the ex-ante payment ``p_up`` (Eq. (15)); :func:`denominator_comparison` sets the two readings of
the sum in the temporary payment ``p'`` (Algorithm 1, line 13) side by side.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from fedlib.mechanism import Instance, ex_post_payments, select
from fedlib.mechanism.properties import RTOL
from fedlib.table import Table


@dataclass(frozen=True)
class PaymentRatios:
    """Ex-ante against ex-post payment over the winners of many instances (ours).

    Per winner (concatenated over instances): ``re/Re``, the ex-post payment ``p``, the
    ex-ante payment ``p_up``, the true cost and honesty. Per instance: the budget and the
    totals paid ex ante and ex post.
    """

    re_over_Re: np.ndarray
    paid: np.ndarray
    upper: np.ndarray
    cost: np.ndarray
    honest: np.ndarray
    budget: np.ndarray
    spent_ex_post: np.ndarray
    spent_ex_ante: np.ndarray

    @property
    def paid_over_upper(self) -> np.ndarray:
        """``p / p_up`` per winner (1 for honest winners)."""
        return self.paid / self.upper

    @property
    def instances(self) -> int:
        """Number of instances."""
        return int(self.budget.size)


def payment_ratios(instances: Iterable[Instance]) -> PaymentRatios:
    """Collect ex-ante and ex-post payments of the winners of ``instances`` (ours).

    The instances' bids are taken as reported; their costs score the utilities. Theorem 1's
    proof shows ``p = p_up`` for honest winners; for dishonest ones ``re/Re <= p/p_up <= 1``
    (since ``p' >= rho* re``). Winners with ``p_up = 0`` (zero bids and threshold) are skipped.
    """
    cols: dict[str, list[np.ndarray]] = {k: [] for k in ("x", "p", "up", "c", "h")}
    budget, post, ante = [], [], []
    for inst in instances:
        auction = select(inst.bids, inst.Re, inst.budget)
        p = ex_post_payments(auction, inst.re)
        w = auction.winners[auction.upper[auction.winners] > 0]
        cols["x"].append(inst.re[w] / inst.Re[w])
        cols["p"].append(p[w])
        cols["up"].append(auction.upper[w])
        cols["c"].append(inst.costs[w])
        cols["h"].append(inst.honest[w])
        budget.append(inst.budget)
        post.append(p.sum())
        ante.append(auction.upper.sum())

    def cat(parts: list[np.ndarray], dtype: type) -> np.ndarray:
        return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype=dtype)

    return PaymentRatios(cat(cols["x"], float), cat(cols["p"], float), cat(cols["up"], float),
                         cat(cols["c"], float), cat(cols["h"], bool), np.asarray(budget, float),
                         np.asarray(post, float), np.asarray(ante, float))


def denominator_comparison(instances: Sequence[Instance], rtol: float = RTOL) -> Table:
    """The two readings of the sum in ``p'`` side by side (the reading "Denominator of p'_i" of
    :data:`fedlib.paper.readings.READINGS`).

    For each reading (``sum_S re``: Algorithm 1 and the text; ``sum_S Re``: the proof of
    Theorem 1), over the winners of ``instances`` (truthful bids): the mean total payment, the
    winners paid below cost, the winners paid less than ``p_up``, and the instances ("tasks
    where max() binds") where the second term of ``max(B re_i / sum, rho* re_i)`` is the larger
    one (by more than a relative 1e-9), i.e. where the ``max`` matters. With ``sum_S Re`` it
    never does, because ``rho* <= B / sum_S Re``.
    """
    rows = []
    for den in ("re", "Re"):
        total = below = capped = binds = winners = 0
        for inst in instances:
            a = select(inst.costs, inst.Re, inst.budget)
            p = ex_post_payments(a, inst.re, temp_denominator=den)
            sel = a.selected
            basis = (inst.re if den == "re" else inst.Re)[sel].sum()
            winners += int(sel.sum())
            total += float(p.sum())
            below += int((sel & (inst.costs - p > rtol * inst.scale)).sum())
            capped += int((sel & (a.upper - p > rtol * inst.scale)).sum())
            binds += bool(basis > 0 and a.rho_star > inst.budget / basis * (1 + 1e-9))
        rows.append((f"sum of {den} over S", len(instances), winners,
                     total / max(len(instances), 1), below, capped, binds))
    return Table(("p' divides by", "tasks", "winners", "mean paid per task",
                  "winners paid < cost", "winners paid < p_up", "tasks where max() binds"),
                 tuple(rows))
