"""What a worker gains by misreporting its cost (Theorem 4 and its critical-value lemma).

One worker's utility (Eq. (1)) against its bid with the others' bids fixed
(:func:`utility_curve`), the critical bid ``rho* Re_i`` above which it loses
(:func:`critical_bid`), and how often winners of the paper's synthetic setting (Figures 4-5)
could gain by misreporting (:func:`gain_counts`, :func:`gain_sweep`): by the lemma, only a
winner paid below its cost can, by overbidding to lose, and only dishonest winners
(``re < Re``, Definition 1) are paid below cost.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from fedlib.mechanism import (
    MECHANISMS,
    Instance,
    deviation_grid,
    ex_post_payments,
    outcome,
    select,
    synthetic_instance,
)
from fedlib.mechanism.properties import RTOL


@dataclass(frozen=True, eq=False)
class UtilityCurve:
    """One worker's utility (Eq. (1)) against its bid, the others' bids and ``re`` fixed.

    Attributes
    ----------
    instance : Instance
        The instance (the worker's true cost is ``instance.costs[worker]``).
    worker : int
    mechanism : str
        Registry name in :data:`~fedlib.mechanism.MECHANISMS`.
    bids, utilities : numpy.ndarray
        The bids tried (sorted) and the worker's utility at each.
    won : numpy.ndarray of bool
        Whether the worker wins at each bid.
    critical_bid : float
        ``rho*_i Re_i`` from the lemma: the worker wins below it and loses above it (0 if
        ``Re_i = 0``; NaN for a mechanism without Algorithm 1's selection).
    truthful_utility : float
        Utility when bidding the true cost.
    """

    instance: Instance
    worker: int
    mechanism: str
    bids: np.ndarray
    utilities: np.ndarray
    won: np.ndarray
    critical_bid: float
    truthful_utility: float

    @property
    def cost(self) -> float:
        """The worker's true cost."""
        return float(self.instance.costs[self.worker])

    @property
    def honest(self) -> bool:
        """``re >= Re`` for this worker."""
        return bool(self.instance.honest[self.worker])

    @property
    def best_utility(self) -> float:
        """The highest utility over the bids tried (and the truthful bid)."""
        return float(max(self.utilities.max(), self.truthful_utility))

    @property
    def best_bid(self) -> float:
        """A bid reaching :attr:`best_utility` (the true cost if it is one)."""
        if self.truthful_utility >= self.utilities.max():
            return self.cost
        return float(self.bids[int(np.argmax(self.utilities))])

    @property
    def gain(self) -> float:
        """What the worker gains by its best misreport over bidding its true cost (>= 0)."""
        return self.best_utility - self.truthful_utility


def _utility(mech_name: str, instance: Instance, bids: np.ndarray,
             worker: int) -> tuple[bool, float]:
    with np.errstate(invalid="ignore"):
        allocation, payments = outcome(MECHANISMS[mech_name], instance, bids)
    won = bool(allocation.selected[worker])
    return won, float(payments[worker] - instance.costs[worker]) if won else 0.0


def critical_bid(instance: Instance, worker: int) -> float:
    """The bid above which ``worker`` loses Algorithm 1 (the others' bids fixed): ``rho* Re_i``.

    Computed from the auction in which the worker bids 0 (and so wins whenever ``Re_i > 0``);
    by the lemma of the proofs chapter, ``rho*`` there is the same for every winning bid.
    """
    Re_i = float(instance.Re[worker])
    if Re_i <= 0:
        return 0.0
    bids = instance.bids.copy()
    bids[worker] = 0.0
    return float(select(bids, instance.Re, instance.budget).upper[worker])


def utility_curve(instance: Instance, worker: int, mechanism: str = "ours", *,
                  bids: ArrayLike | None = None, points: int = 301,
                  max_bid: float | None = None) -> UtilityCurve:
    """The utility of ``worker`` for every bid in ``bids`` (the others bid as in ``instance``).

    Parameters
    ----------
    instance : Instance
        True costs in ``instance.costs``; the worker's ``re`` is held fixed whatever it bids.
    worker : int
        The worker whose bid varies.
    mechanism : str
        A key of :data:`~fedlib.mechanism.MECHANISMS` (``"ours"``: ex post; ``"rrafl"``: the
        same selection paid ex ante).
    bids : array_like, optional
        The bids to try. Default: ``points`` evenly spaced bids in ``[0, max_bid]`` together with
        the points of :func:`~fedlib.mechanism.deviation_grid` in that range.
    points : int
        Number of evenly spaced bids of the default grid.
    max_bid : float, optional
        Upper end of the default grid; default ``1.6 max(cost, critical bid)`` (or ``1`` if
        both are 0).
    """
    if mechanism not in MECHANISMS:
        raise ValueError(f"mechanism must be one of {tuple(MECHANISMS)}, got {mechanism!r}")
    if not 0 <= int(worker) < instance.n:
        raise ValueError(f"worker must index 0..{instance.n - 1}, got {worker}")
    worker = int(worker)
    crit = critical_bid(instance, worker)
    cost = float(instance.costs[worker])
    if bids is None:
        top = max_bid if max_bid is not None else 1.6 * max(cost, crit)
        top = top if top > 0 else 1.0
        grid = deviation_grid(instance, worker)
        grid = grid[(grid >= 0) & (grid <= top)]
        tried = np.unique(np.concatenate((np.linspace(0.0, top, points), grid)))
    else:
        tried = np.unique(np.asarray(bids, dtype=float))
    base = instance.bids.copy()
    won = np.zeros(tried.size, dtype=bool)
    utilities = np.zeros(tried.size)
    for j, b in enumerate(tried):
        base[worker] = b
        won[j], utilities[j] = _utility(mechanism, instance, base, worker)
    base[worker] = cost
    _, truthful = _utility(mechanism, instance, base, worker)
    uses_alg1 = mechanism in ("ours", "rrafl")
    return UtilityCurve(instance=instance, worker=worker, mechanism=mechanism, bids=tried,
                        utilities=utilities, won=won,
                        critical_bid=crit if uses_alg1 else math.nan,
                        truthful_utility=truthful)


@dataclass(frozen=True)
class GainSweep:
    """How often workers could gain by misreporting, over a sweep of budgets or of ``n``.

    Arrays have shape ``(len(x), trials)``. By the lemma, a worker gains from a misreport iff it
    wins when truthful and is paid less than its cost (then overbidding to lose gains
    ``c - p``); only dishonest winners can be paid less than their cost.

    Attributes
    ----------
    parameter : {"budget", "n_workers"}
    x : numpy.ndarray
        The budgets or numbers of workers.
    fixed : float
        The other parameter (n for a budget sweep, B for an n sweep).
    winners, dishonest_winners, could_gain : numpy.ndarray of int
        Per point and trial: winners, dishonest winners, winners paid below cost.
    gain : numpy.ndarray
        Per point and trial: the total amount ``sum (c - p)`` over winners paid below cost.
    """

    parameter: str
    x: np.ndarray
    fixed: float
    winners: np.ndarray
    dishonest_winners: np.ndarray
    could_gain: np.ndarray
    gain: np.ndarray

    @property
    def gain_share(self) -> np.ndarray:
        """Share of winners who could gain by misreporting, per point and trial."""
        return np.divide(self.could_gain, self.winners, out=np.zeros(self.winners.shape),
                         where=self.winners > 0)

    @property
    def dishonest_share(self) -> np.ndarray:
        """Share of winners that are dishonest, per point and trial."""
        return np.divide(self.dishonest_winners, self.winners, out=np.zeros(self.winners.shape),
                         where=self.winners > 0)


def gain_counts(instance: Instance, rtol: float = RTOL) -> tuple[int, int, int, float]:
    """``(winners, dishonest winners, winners paid below cost, total shortfall)`` for ours.

    The instance's bids are its true costs (truthful bidding).
    """
    auction = select(instance.costs, instance.Re, instance.budget)
    p = ex_post_payments(auction, instance.re)
    sel = auction.selected
    short = sel & (instance.costs - p > rtol * instance.scale)
    return (int(sel.sum()), int((sel & ~instance.honest).sum()), int(short.sum()),
            float((instance.costs - p)[short].sum()))


def gain_sweep(parameter: Literal["budget", "n_workers"], x: Sequence[float], fixed: float,
               trials: int, rng: np.random.Generator) -> GainSweep:
    """Count, per point of ``x``, the winners who could gain by misreporting (ours, ex post).

    Each trial draws fresh workers with :func:`~fedlib.mechanism.synthetic_instance`.

    Parameters
    ----------
    parameter : {"budget", "n_workers"}
        What ``x`` holds; ``fixed`` is the other (n for a budget sweep, B for an n sweep).
    x : sequence
        Budgets or numbers of workers.
    fixed : float
        The fixed number of workers or budget.
    trials : int
        Instances per point.
    rng : numpy.random.Generator
    """
    if parameter not in ("budget", "n_workers"):
        raise ValueError(f"parameter must be 'budget' or 'n_workers', got {parameter!r}")
    if trials < 1:
        raise ValueError(f"trials must be positive, got {trials}")
    shape = (len(x), trials)
    winners, dishonest, could, gain = (np.zeros(shape, dtype=int), np.zeros(shape, dtype=int),
                                       np.zeros(shape, dtype=int), np.zeros(shape))
    for p, value in enumerate(x):
        n, B = (int(fixed), float(value)) if parameter == "budget" else (int(value), float(fixed))
        for t in range(trials):
            winners[p, t], dishonest[p, t], could[p, t], gain[p, t] = gain_counts(
                synthetic_instance(n, B, rng))
    return GainSweep(parameter, np.asarray(x, dtype=float), float(fixed), winners, dishonest,
                     could, gain)
