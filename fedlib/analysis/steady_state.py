"""The steady-state argument: can Tables 1 and 2 of the paper describe one run?

The auction alone (:func:`steady_state`), played many times with the reputations the paper
reports in Table 1 held fixed and the bids redrawn as in the multi-task experiment
(:mod:`fedlib.experiments.multitask`). Read as the accumulated ``Re`` (our reading of Table 1;
if it is the winners' internal ``re`` instead, the losers' reputations are not reported and
must come from elsewhere). If Table 2's share 1.000 holds, no worker with dacc < 1 wins in the
last 45 tasks, so (losers keep their reputation) their reputations are frozen during those
tasks; the dacc 1.0 workers' stay near the paper's value. Then the share of clean tasks (every
winner has dacc 1.0) and the payment of a dacc 1.0 winner are functions of the budget alone,
and :func:`budget_window` finds the budget that gives Table 1's payment and the largest budget
at which 45 clean tasks in a row are still plausible. :func:`undercut` is the closed form of
the first question at Table 1's threshold (Eqs. (14)-(15)).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from fedlib.mechanism.mechanisms import MECHANISMS
from fedlib.paper.settings import PAPER_GROUPS


@dataclass(frozen=True, eq=False)
class SteadyState:
    """The auction played with fixed reputations and redrawn bids (:func:`steady_state`).

    Attributes
    ----------
    budgets : numpy.ndarray
    reputations : dict
        ``Re`` of every worker of each data-accuracy group.
    trials : int
        Auctions per budget.
    n_evaluated : int
        Tasks that must all be clean for a share of exactly 1 (the paper's 45).
    winners : numpy.ndarray
        Mean number of winners per task, per budget.
    clean : numpy.ndarray
        Fraction of auctions in which every winner has dacc 1.0, per budget.
    payment : numpy.ndarray
        Mean payment of a dacc 1.0 winner (``re = Re``), per budget; NaN if none won.
    """

    budgets: np.ndarray
    reputations: dict[float, float]
    trials: int
    n_evaluated: int
    winners: np.ndarray
    clean: np.ndarray
    payment: np.ndarray

    @property
    def clean_redrawn(self) -> np.ndarray:
        """Probability that all ``n_evaluated`` tasks are clean when bids are redrawn every
        task (independent auctions): ``clean ** n_evaluated``."""
        return self.clean ** self.n_evaluated

    @property
    def clean_fixed(self) -> np.ndarray:
        """The same when bids are drawn once: the one auction repeats, so ``clean``."""
        return self.clean


def steady_state(reputations: Mapping[float, float], budgets: Sequence[float], *,
                 groups: Sequence[tuple[float, int]] = PAPER_GROUPS, trials: int = 2000,
                 n_evaluated: int = 45, mechanism: str = "ours", seed: int = 0) -> SteadyState:
    """Play ``mechanism`` ``trials`` times per budget with fixed reputations and fresh bids.

    Parameters
    ----------
    reputations : mapping dacc -> Re
        Accumulated reputation of every worker of a group (e.g. Table 1's values).
    budgets : sequence of float
    groups : sequence of (dacc, count), default the paper's 15/5/5/5 workers
    trials : int, default 2000
    n_evaluated : int, default 45
    mechanism : str, default "ours"
    seed : int, default 0
        The same bid draws serve every budget.

    Returns
    -------
    SteadyState

    Notes
    -----
    Bids are drawn as in the experiment, ``U[10/3 dacc + 2/3, 10/3 dacc + 8/3]``, and the
    realised internal reputations equal the accumulated ones (``re = Re``), so the ex-post
    payment equals the upper payment ``Re_i rho*`` of Eq. (15) up to the min() of Eq. (16).
    """
    if trials < 1:
        raise ValueError(f"trials must be at least 1, got {trials}")
    daccs = np.repeat([d for d, _ in groups], [c for _, c in groups]).astype(float)
    missing = sorted({float(d) for d in daccs} - {float(d) for d in reputations})
    if missing:
        raise ValueError(f"reputations lack the groups {missing}")
    Re = np.array([reputations[float(d)] for d in daccs], dtype=float)
    rng = np.random.default_rng(seed)
    bids = 10.0 / 3.0 * daccs + 2.0 / 3.0 + 2.0 * rng.random((trials, daccs.size))
    mech = MECHANISMS[mechanism]
    budgets_arr = np.asarray(budgets, dtype=float)
    winners, clean, payment = (np.empty(budgets_arr.size) for _ in range(3))
    for b, budget in enumerate(budgets_arr):
        counts, n_clean, paid = 0, 0, []
        for row in bids:
            allocation = mech.select(row, Re, float(budget), costs=row)
            won = allocation.winners
            counts += won.size
            n_clean += bool(np.all(daccs[won] == 1.0))
            pay = mech.pay(allocation, Re)
            paid.extend(pay[won][daccs[won] == 1.0])
        winners[b] = counts / trials
        clean[b] = n_clean / trials
        payment[b] = float(np.mean(paid)) if paid else float("nan")
    return SteadyState(budgets_arr, {float(k): float(v) for k, v in reputations.items()},
                       trials, n_evaluated, winners, clean, payment)


@dataclass(frozen=True)
class Undercut:
    """Closed form: the outsiders (dacc < 1) that undercut a threshold ``rho`` (:func:`undercut`).

    Attributes
    ----------
    rho : float
        The threshold price per unit of reputation.
    per_worker : dict
        For each group with dacc < 1, the probability that one of its workers bids below
        ``Re rho``, i.e. has cost density ``b / Re < rho``.
    clean : float
        Probability that no outsider does: ``prod (1 - per_worker) ** count``.
    """

    rho: float
    per_worker: dict[float, float]
    clean: float


def undercut(reputations: Mapping[float, float], rho: float, *,
             groups: Sequence[tuple[float, int]] = PAPER_GROUPS) -> Undercut:
    """Probability that no worker with dacc < 1 has cost density below ``rho``.

    Algorithm 1 selects in ascending density ``b / Re`` and its threshold satisfies
    ``rho* <= b_{k+1} / Re_{k+1}`` (Eq. (14)), so every worker whose density is below ``rho*``
    wins. A dacc 1.0 winner is paid at most ``Re_i rho*`` (Eq. (15)), so a payment ``p`` implies
    ``rho* >= p / Re_i``. With bids ``U[10/3 dacc + 2/3, 10/3 dacc + 8/3]``, a worker of
    reputation ``Re`` has density below ``rho`` with probability
    ``clip((Re rho - 10/3 dacc - 2/3) / 2, 0, 1)``.
    """
    per_worker, clean = {}, 1.0
    for dacc, count in groups:
        if dacc == 1.0:
            continue
        low = 10.0 / 3.0 * dacc + 2.0 / 3.0
        prob = float(np.clip((reputations[float(dacc)] * rho - low) / 2.0, 0.0, 1.0))
        per_worker[float(dacc)] = prob
        clean *= (1.0 - prob) ** count
    return Undercut(float(rho), per_worker, clean)


def probability_text(p: float, trials: int, power: int = 1) -> str:
    """``p ** power`` as text, where ``p`` is a frequency over ``trials`` simulated auctions;
    a frequency of 0 only says ``p < 1 / trials``, so it is shown as that bound."""
    if not np.isfinite(p):
        return "undefined"
    if p > 0:
        return f"{p ** power:.3g}"
    return f"< {(1.0 / trials) ** power:.1g}"


def crossing(budgets: Sequence[float], values: Sequence[float], target: float) -> float:
    """The first budget at which ``values`` reaches ``target`` from either side, by linear
    interpolation between neighbouring budgets; NaN if it never does."""
    x, y = np.asarray(budgets, float), np.asarray(values, float) - target
    for i in range(x.size - 1):
        if np.isnan(y[i]) or np.isnan(y[i + 1]):
            continue
        if y[i] == 0:
            return float(x[i])
        if y[i] * y[i + 1] < 0:
            return float(x[i] + (x[i + 1] - x[i]) * y[i] / (y[i] - y[i + 1]))
    return float(x[-1]) if y.size and y[-1] == 0 else float("nan")


@dataclass(frozen=True)
class BudgetWindow:
    """What Tables 1 and 2 each ask of the budget (:func:`budget_window`).

    Attributes
    ----------
    payment_budget : float
        Budget at which a dacc 1.0 winner's mean payment equals Table 1's.
    share_budget : float
        Budget at which the probability of ``n_evaluated`` clean tasks in a row (redrawn
        bids) falls to ``plausible``: Table 2's share 1.000 is implausible above it. NaN if
        it is below ``plausible`` already at the smallest budget, the largest budget if it
        never falls that low.
    clean_at_payment_budget : float
        Probability of one clean task at ``payment_budget`` (interpolated).
    redrawn_at_payment_budget, fixed_at_payment_budget : float
        Probability of ``n_evaluated`` clean tasks there, bids redrawn or drawn once.
    plausible : float
    """

    payment_budget: float
    share_budget: float
    clean_at_payment_budget: float
    redrawn_at_payment_budget: float
    fixed_at_payment_budget: float
    plausible: float

    @property
    def compatible(self) -> bool:
        """True when one budget could give both tables (redrawn bids)."""
        return bool(self.payment_budget <= self.share_budget)


def budget_window(state: SteadyState, paper_payment: float,
                  plausible: float = 0.05) -> BudgetWindow:
    """The budget Table 1's payment needs and the largest budget Table 2's share allows."""
    pay_b = crossing(state.budgets, state.payment, paper_payment)
    allowed = state.clean_redrawn >= plausible
    if not allowed[0]:
        share_b = float("nan")
    elif allowed.all():
        share_b = float(state.budgets[-1])
    else:
        share_b = crossing(state.budgets, state.clean_redrawn, plausible)
    clean = (float(np.interp(pay_b, state.budgets, state.clean)) if np.isfinite(pay_b)
             else float("nan"))
    return BudgetWindow(pay_b, share_b, clean, clean ** state.n_evaluated, clean, plausible)


def describe_window(window: BudgetWindow, trials: int, n_evaluated: int) -> list[str]:
    """Short lines of text: the budget each table asks for, and the probability of Table 2's
    share at the budget that gives Table 1's payment (bids redrawn, or drawn once)."""
    share = (f"B <= {window.share_budget:.0f}" if np.isfinite(window.share_budget)
             else "no budget of the grid")
    one = window.clean_at_payment_budget
    at = f"at B = {window.payment_budget:.0f}"
    return [f"Table 1's payment needs B = {window.payment_budget:.0f}",
            f"Table 2's share (probability >= {window.plausible:g}) needs {share}",
            f"{at}: P(one clean task) = {probability_text(one, trials)}",
            f"{at}: P({n_evaluated} clean tasks), bids redrawn = "
            f"{probability_text(one, trials, n_evaluated)}",
            f"{at}: P({n_evaluated} clean tasks), bids drawn once = "
            f"{probability_text(one, trials)}"]
