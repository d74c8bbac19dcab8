"""Numbers behind the chapters on Algorithm 1 and its theorems.

Small, tested helpers that the chapters "Selecting and paying workers" and "Proofs and what
the experiments say about them" call: the step-by-step trace of Algorithm 1's selection, the
breakdown of the payments (upper, temporary, ex post, ex ante), one worker's utility against
its bid, an empirical check of the critical-value lemma, how often dishonest workers could gain
by misreporting in the paper's synthetic setting, and a timer for ``select`` (Theorem 3).
Everything is computed with :mod:`fedlib.mechanism`; nothing here re-implements the mechanism
except the temporary payment ``p'`` (Algorithm 1, line 13), which the library does not expose
and which :func:`payment_breakdown` checks against :func:`~fedlib.mechanism.ex_post_payments`.

Workers are 0-based indices in every array; tables label them 1-based ("worker 1" is index 0),
as the paper numbers its workers from 1.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from fedlib.mechanism import (
    MECHANISMS,
    Auction,
    Instance,
    PropertyReport,
    deviation_grid,
    ex_ante_payments,
    ex_post_payments,
    outcome,
    select,
    synthetic_instance,
)
from fedlib.mechanism.properties import RTOL
from fedlib.table import Table, format_cell

#: Budgets of the Figure 4 setting used here (n = 100); the paper does not print its axis.
SYNTHETIC_BUDGETS: tuple[float, ...] = tuple(float(b) for b in range(25, 251, 25))
#: Numbers of workers of the Figure 5 setting used here (B = 125).
SYNTHETIC_WORKERS: tuple[int, ...] = tuple(range(20, 201, 20))


def worker_label(i: int) -> str:
    """The 1-based display name of worker index ``i``."""
    return str(int(i) + 1)


# --------------------------------------------------------------------------------------------
# Algorithm 1, step by step
# --------------------------------------------------------------------------------------------

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
        if step <= auction.k:
            result = "selected"
        elif step == auction.k + 1:
            result = "fails: stop"
        else:
            result = "not reached"
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
        rows = []
        for i in self.auction.winners:
            rows.append((worker_label(i), float(self.auction.Re[i]), float(self.re[i]),
                         "honest" if self.honest[i] else "dishonest", float(self.costs[i]),
                         float(self.upper[i]), float(self.temporary[i]), float(self.ex_post[i]),
                         float(self.utility_ex_ante[i]), float(self.utility_ex_post[i])))
        return Table(("worker", "Re", "re", "honesty", "cost", "p_up", "p'", "p", "u ex ante",
                      "u ex post"), tuple(rows),
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
        On invalid ``re`` or ``costs`` (via the library), or if ``min(p_up, p')`` computed here
        disagrees with the library's ex-post payments.
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


# --------------------------------------------------------------------------------------------
# One worker's utility against its bid
# --------------------------------------------------------------------------------------------

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


# --------------------------------------------------------------------------------------------
# The critical-value lemma, checked empirically
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class LemmaReport:
    """Outcome of :func:`critical_value_check`.

    Attributes
    ----------
    instances, workers, checks : int
        Instances played, (instance, worker) pairs swept, (worker, bid) cases checked.
    violations : int
        Cases where the worker won above its critical bid, lost below it, or won with a
        winning set or ``rho*`` different from those at bid 0.
    """

    instances: int
    workers: int
    checks: int
    violations: int


def critical_value_check(instances: Iterable[Instance], *, rtol: float = 1e-12) -> LemmaReport:
    """Check the lemma on every worker of every instance, over its :func:`deviation_grid`.

    For worker ``i`` (others' bids fixed) with ``Re_i > 0``: at bid 0 it wins, with winners
    ``S_0`` and threshold ``rho*_0``. The lemma says that for every bid ``b < rho*_0 Re_i`` it
    wins with exactly ``S_0`` and ``rho*_0``, and for every ``b > rho*_0 Re_i`` it loses. Bids
    within ``rtol`` (relative) of the critical bid are skipped (the tie-break decides there).
    A worker with ``Re_i = 0`` must lose at every bid.
    """
    n_inst = n_work = checks = violations = 0
    for inst in instances:
        n_inst += 1
        for i in range(inst.n):
            n_work += 1
            bids = inst.bids.copy()
            bids[i] = 0.0
            base = select(bids, inst.Re, inst.budget)
            if inst.Re[i] <= 0:
                crit, S0, rho0 = -math.inf, None, None
            else:
                crit = base.rho_star * inst.Re[i]
                S0, rho0 = base.selected.copy(), base.rho_star
                if not base.selected[i]:
                    violations += 1
            for b in deviation_grid(inst, i):
                if math.isfinite(crit) and abs(b - crit) <= rtol * max(abs(crit), 1e-300):
                    continue
                bids[i] = b
                a = select(bids, inst.Re, inst.budget)
                checks += 1
                if b < crit:
                    ok = (a.selected[i] and np.array_equal(a.selected, S0)
                          and math.isclose(a.rho_star, rho0, rel_tol=1e-9))
                else:
                    ok = not a.selected[i]
                violations += not ok
    return LemmaReport(n_inst, n_work, checks, violations)


# --------------------------------------------------------------------------------------------
# Property checks as tables
# --------------------------------------------------------------------------------------------

def property_table(rows: Sequence[tuple[str, PropertyReport]], title: str = "") -> Table:
    """A table of property checks: one row per ``(label, report)``.

    Columns: what is checked, mechanism, instances tried, cases checked, violations found and
    the worst margin relative to the instance's money scale (positive above the tolerance:
    violated; <= 0: the property holds with room).
    """
    out = []
    for label, rep in rows:
        worst = rep.worst.relative_margin if rep.worst is not None else math.nan
        out.append((label, rep.mechanism, rep.instances, rep.checks, rep.violations, worst))
    return Table(("claim", "mechanism", "instances tried", "cases checked", "violations found",
                  "worst margin"), tuple(out), title=title, digits=3)


# --------------------------------------------------------------------------------------------
# Dishonest workers in the paper's synthetic setting (Figures 4-5)
# --------------------------------------------------------------------------------------------

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
    """The two readings of the sum in ``p'`` side by side (PAPER_NOTES item 2).

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


# --------------------------------------------------------------------------------------------
# Theorem 3: timing select
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ScalingResult:
    """Wall times of :func:`~fedlib.mechanism.select` for growing ``n``.

    Attributes
    ----------
    sizes : numpy.ndarray of int
        Numbers of workers.
    times : numpy.ndarray, shape (len(sizes), repeats)
        Seconds per call.
    """

    sizes: np.ndarray
    times: np.ndarray

    @property
    def median(self) -> np.ndarray:
        """Median seconds per size."""
        return np.median(self.times, axis=1)

    @property
    def n_log_n(self) -> np.ndarray:
        """``n log2 n`` per size."""
        return self.sizes * np.log2(self.sizes)

    @property
    def per_n_log_n(self) -> np.ndarray:
        """Median seconds divided by ``n log2 n``."""
        return self.median / self.n_log_n

    def slope(self, min_size: int = 0) -> float:
        """Least-squares slope of log(median time) against log(n) over sizes >= ``min_size``.

        ``n log n`` growth gives a slope slightly above 1; quadratic growth gives 2.
        """
        keep = self.sizes >= min_size
        if keep.sum() < 2:
            raise ValueError("need at least two sizes to fit a slope")
        return float(np.polyfit(np.log(self.sizes[keep]), np.log(self.median[keep]), 1)[0])

    def table(self) -> Table:
        """Sizes, median and spread of the times, and time per ``n log2 n`` (in ns)."""
        rows = tuple((int(n), float(np.median(t) * 1e3), float(t.min() * 1e3),
                      float(t.max() * 1e3), float(r * 1e9))
                     for n, t, r in zip(self.sizes, self.times, self.per_n_log_n, strict=True))
        return Table(("n", "median ms", "min ms", "max ms", "ns per n log2 n"), rows, digits=4)


def time_select(sizes: Sequence[int], repeats: int, rng: np.random.Generator) -> ScalingResult:
    """Time :func:`~fedlib.mechanism.select` (validation included) ``repeats`` times per size.

    Workers come from :func:`~fedlib.mechanism.synthetic_instance` with budget ``n`` (so that a
    large share of them win).
    """
    if repeats < 1:
        raise ValueError(f"repeats must be positive, got {repeats}")
    sizes_arr = np.asarray(sizes, dtype=int)
    if sizes_arr.ndim != 1 or sizes_arr.size == 0 or np.any(sizes_arr < 2):
        raise ValueError("sizes must be a non-empty list of integers >= 2")
    times = np.zeros((sizes_arr.size, repeats))
    for s, n in enumerate(sizes_arr):
        inst = synthetic_instance(int(n), float(n), rng)
        bids, Re = np.array(inst.bids), np.array(inst.Re)
        select(bids, Re, inst.budget)  # warm-up
        for r in range(repeats):
            start = time.perf_counter()
            select(bids, Re, inst.budget)
            times[s, r] = time.perf_counter() - start
    return ScalingResult(sizes_arr, times)
