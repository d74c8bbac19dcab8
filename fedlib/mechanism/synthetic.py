"""The synthetic workers of Figures 4-5 and the "ex-post utility of unit payments" metric."""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from fedlib import checks
from fedlib.mechanism.instances import Instance
from fedlib.mechanism.mechanisms import Allocation


def synthetic_instance(n_workers: int, budget: float, rng: np.random.Generator) -> Instance:
    """Workers as in the paper's Figures 4-5, bidding truthfully (true cost = bid).

    ``Re ~ U[0.1, 1]``, ``b ~ U[10/3 Re + 2/3, 10/3 Re + 8/3]`` and
    ``re ~ U[max(0, Re - 0.1), min(1, Re + 0.1)]``, all drawn from ``rng``; the instance's
    seed (for randomised mechanisms) is drawn from ``rng`` too.

    Parameters
    ----------
    n_workers : int
        Number of workers (the paper: 100 in Figure 4, varied in Figure 5).
    budget : float
        The budget B (varied in Figure 4, 125 in Figure 5).
    rng : numpy.random.Generator
        The source of randomness.

    Examples
    --------
    >>> inst = synthetic_instance(100, 125.0, np.random.default_rng(0))
    >>> bool(np.all((inst.Re >= 0.1) & (inst.Re <= 1)))
    True
    """
    n_workers = checks.integer(n_workers, "n_workers")
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy.random.Generator")
    Re = rng.uniform(0.1, 1.0, n_workers)
    bids = rng.uniform(10 / 3 * Re + 2 / 3, 10 / 3 * Re + 8 / 3)
    re = rng.uniform(np.maximum(0.0, Re - 0.1), np.minimum(1.0, Re + 0.1))
    return Instance(bids, Re, budget, re, seed=int(rng.integers(2**31)))


def utility_per_payment(allocation: Allocation, payments: ArrayLike, re: ArrayLike,
                        per: Literal["payment", "budget"] = "payment",
                        budget: float | None = None) -> float:
    """The publisher's ex-post utility of unit payments (the y-axis of Figures 4-5).

    ``sum_{i in S} re_i / sum_i p_i`` (default), or ``sum_{i in S} re_i / B`` with
    ``per="budget"``.

    Parameters
    ----------
    allocation : Allocation
        Whom the mechanism selected.
    payments : array_like, shape (n,)
        What it paid (``mechanism.pay``).
    re : array_like, shape (n,)
        Realised internal reputations.
    per : {"payment", "budget"}
        Denominator.
    budget : float, optional
        Required with ``per="budget"``.

    Returns
    -------
    float
        The ratio; NaN when nothing was paid and nothing gained (0/0), inf when winners were
        paid nothing but gave a positive ``re``.
    """
    n = allocation.selected.size
    p = checks.per_worker(payments, "payments", n)
    gained = float(checks.per_worker(re, "re", n)[allocation.selected].sum())
    if checks.choice(per, "per", ("payment", "budget")) == "budget":
        if budget is None:
            raise ValueError("budget is required with per='budget'")
        return gained / checks.scalar(budget, "budget", positive=True)
    spent = float(p.sum())
    if spent > 0:
        return gained / spent
    return float("nan") if gained == 0 else float("inf")
