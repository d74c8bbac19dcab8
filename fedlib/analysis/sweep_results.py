"""What a sweep of Figures 4-5 measured, and what it shows.

:class:`SweepResult` holds every trial of every mechanism at every point of a sweep
(:func:`~fedlib.experiments.auction_sweeps.run_sweep`); :func:`metric` is the publisher's
*ex-post utility of unit payments* in either reading; :func:`summarize` gives medians and
quartiles over the trials; :func:`check_claims` tests the paper's pairwise statements about the
figures (:data:`PAPER_CLAIMS`), and :func:`gap_decomposition`, :func:`budget_exceeded` and
:func:`budget_feasible_mechanisms` explain the curves.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from fedlib.analysis.claims import Claim
from fedlib.mechanism import MECHANISMS
from fedlib.mechanism.properties import RTOL

Per = Literal["payment", "budget"]
Quantity = Literal["metric", "winners", "budget_used", "markup", "re_per_cost"]
#: What :func:`summarize` can summarise (see :meth:`SweepResult.quantity`).
QUANTITIES: tuple[str, ...] = ("metric", "winners", "budget_used", "markup", "re_per_cost")

#: Short column headings for text tables.
SHORT_LABELS: dict[str, str] = {
    "ours": "ours", "rrafl": "RRAFL", "vanilla": "Vanilla", "proportional_share": "PropShare",
    "bid_greedy": "BidGreedy", "reputation_greedy": "RepGreedy", "approx_optimal": "ApproxOpt",
    "approx_optimal_exact": "ExactOpt"}

@dataclass(frozen=True, eq=False)
class SweepResult:
    """All mechanisms on all points of one sweep; arrays have shape (mechanisms, xs, trials).

    Attributes
    ----------
    config : fedlib.experiments.auction_sweeps.SweepConfig
        What was run.
    payment : numpy.ndarray of float
        Total payment of the mechanism.
    winners : numpy.ndarray of int
        Number of selected workers.
    sum_re : numpy.ndarray of float
        Sum of the realised ``re`` over the selected workers.
    sum_cost : numpy.ndarray of float
        Sum of the selected workers' true costs (= bids).
    budget : numpy.ndarray of float, shape (xs,)
        The budget at each point.
    wall_time_s : float
        Seconds the sweep took.
    """

    config: Any  # a SweepConfig (auction_sweeps imports this module)
    payment: np.ndarray
    winners: np.ndarray
    sum_re: np.ndarray
    sum_cost: np.ndarray
    budget: np.ndarray
    wall_time_s: float = 0.0

    @property
    def sweep(self) -> str:
        """``"budget"`` or ``"workers"``."""
        return self.config.sweep

    @property
    def xs(self) -> tuple[float, ...]:
        """The values of the varied quantity."""
        return self.config.xs

    @property
    def mechanisms(self) -> tuple[str, ...]:
        """The mechanisms, in the order of the arrays' first axis."""
        return self.config.mechanisms

    @property
    def per(self) -> Per:
        """The default reading of the metric."""
        return self.config.per

    @property
    def trials(self) -> int:
        """Trials per point."""
        return self.config.trials

    @property
    def x_label(self) -> str:
        """Axis label of the varied quantity."""
        return "budget $B$" if self.sweep == "budget" else "number of workers $n$"

    def metric(self, per: Per | None = None) -> np.ndarray:
        """Ex-post utility of unit payments, shape (mechanisms, xs, trials).

        Same as :func:`fedlib.mechanism.utility_per_payment`: ``sum re / sum p`` (NaN for 0/0,
        inf for a positive ``sum re`` bought for nothing), or ``sum re / B``.
        """
        return metric(self.sum_re, self.payment, self.budget[None, :, None], per or self.per)

    def index(self, mechanism: str) -> int:
        """Row of ``mechanism`` in the arrays."""
        return self.mechanisms.index(mechanism)

    def quantity(self, quantity: Quantity = "metric", per: Per | None = None) -> np.ndarray:
        """One of :data:`QUANTITIES`, shape (mechanisms, xs, trials).

        ``metric`` (in reading ``per``); ``winners``; ``budget_used`` = total payment / B;
        ``markup`` = total payment / the winners' true costs; ``re_per_cost`` = sum re / the
        winners' true costs. Per unit paid, ``metric = re_per_cost / markup``. NaN where
        nobody was selected.
        """
        if quantity == "metric":
            return self.metric(per)
        if quantity == "winners":
            return self.winners.astype(float)
        if quantity == "budget_used":
            return self.payment / self.budget[None, :, None]
        if quantity not in ("markup", "re_per_cost"):
            raise ValueError(f"quantity must be one of {QUANTITIES}, got {quantity!r}")
        top = self.payment if quantity == "markup" else self.sum_re
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.sum_cost > 0, top / self.sum_cost, np.nan)

    def records(self, per: Per | None = None) -> list[dict[str, Any]]:
        """One tidy record per (mechanism, x, trial): ``mechanism, x, trial, metric,
        total_payment, budget, budget_used, winners, sum_re, sum_cost``."""
        m = self.metric(per)
        return [{"mechanism": name, "x": x, "trial": t, "metric": float(m[a, j, t]),
                 "total_payment": float(self.payment[a, j, t]), "budget": float(self.budget[j]),
                 "budget_used": float(self.payment[a, j, t] / self.budget[j]),
                 "winners": int(self.winners[a, j, t]), "sum_re": float(self.sum_re[a, j, t]),
                 "sum_cost": float(self.sum_cost[a, j, t])}
                for a, name in enumerate(self.mechanisms) for j, x in enumerate(self.xs)
                for t in range(self.trials)]

    def summary_records(self) -> list[dict[str, Any]]:
        """One JSON-ready record per (mechanism, x): median, quartiles and mean of both
        readings of the metric and of every other :data:`QUANTITIES` entry, and the number of
        trials over budget. What :class:`SweepSummary` stores."""
        parts = {"metric_payment": summarize(self, "payment"),
                 "metric_budget": summarize(self, "budget"),
                 **{q: summarize(self, quantity=q) for q in QUANTITIES if q != "metric"}}
        over = self.payment > self.budget[None, :, None] * (1 + RTOL)
        return [{"mechanism": name, "x": x,
                 **{key: {stat: float(getattr(s, stat)[a, j])
                          for stat in ("median", "q25", "q75", "mean")}
                    for key, s in parts.items()},
                 "over_budget": int(over[a, j].sum())}
                for a, name in enumerate(self.mechanisms) for j, x in enumerate(self.xs)]


def metric(sum_re: np.ndarray, payment: np.ndarray, budget: np.ndarray | float,
           per: Per = "payment") -> np.ndarray:
    """Vectorised :func:`fedlib.mechanism.utility_per_payment` from the sums.

    Parameters
    ----------
    sum_re, payment : numpy.ndarray
        Sum of ``re`` over the winners and total payment (broadcastable).
    budget : numpy.ndarray or float
        The budget (used with ``per="budget"``).
    per : {"payment", "budget"}
        The denominator.
    """
    sum_re = np.asarray(sum_re, dtype=float)
    payment = np.asarray(payment, dtype=float)
    shape = np.broadcast_shapes(sum_re.shape, payment.shape, np.shape(budget))
    if per == "budget":
        return np.broadcast_to(sum_re / np.asarray(budget, dtype=float), shape).copy()
    if per != "payment":
        raise ValueError(f"per must be 'payment' or 'budget', got {per!r}")
    with np.errstate(divide="ignore", invalid="ignore"):
        out = sum_re / payment
    out = np.where(payment > 0, out, np.where(sum_re == 0, np.nan, np.inf))
    return np.broadcast_to(out, shape).copy()


@dataclass(frozen=True, eq=False)
class Summary:
    """Median, quartiles and mean over trials, shape (mechanisms, xs), of one quantity."""

    mechanisms: tuple[str, ...]
    xs: tuple[float, ...]
    quantity: str
    median: np.ndarray
    q25: np.ndarray
    q75: np.ndarray
    mean: np.ndarray

    def records(self) -> list[dict[str, Any]]:
        """One tidy record per (mechanism, x)."""
        return [{"mechanism": name, "x": x, "median": float(self.median[a, j]),
                 "q25": float(self.q25[a, j]), "q75": float(self.q75[a, j]),
                 "mean": float(self.mean[a, j])}
                for a, name in enumerate(self.mechanisms) for j, x in enumerate(self.xs)]

    def row(self, mechanism: str) -> np.ndarray:
        """Medians of ``mechanism`` across the xs."""
        return self.median[self.mechanisms.index(mechanism)]

    def text(self, digits: int = 3, x_name: str = "x") -> str:
        """The medians as a fixed-width table: a row per x, a column per mechanism, each
        column as wide as its heading or its numbers (the seven mechanisms fit in 70
        characters, a book's code column)."""
        labels = [SHORT_LABELS.get(m, m) for m in self.mechanisms]
        x_width = max(len(x_name), *(len(f"{x:g}") for x in self.xs))
        widths = [max(len(label), digits + 3) for label in labels]
        head = f"{x_name:>{x_width}} " + " ".join(
            f"{label:>{w}}" for label, w in zip(labels, widths, strict=True))
        rows = [f"{x:>{x_width}g} " + " ".join(
            f"{v:>{w}.{digits}f}" for v, w in zip(self.median[:, j], widths, strict=True))
                for j, x in enumerate(self.xs)]
        return "\n".join([head, *rows])


def summarize(result: SweepResult, per: Per | None = None,
              quantity: Quantity = "metric") -> Summary:
    """Median, quartiles and mean over the trials of each (mechanism, x).

    ``quantity``: one of :data:`QUANTITIES` (:meth:`SweepResult.quantity`); the metric in
    reading ``per``. Non-finite trials (nobody selected) are left out; where no trial is left
    the statistics are NaN.
    """
    values = result.quantity(quantity, per)
    label = f"metric_per_{per or result.per}" if quantity == "metric" else quantity
    finite = np.where(np.isfinite(values), values, np.nan)
    with warnings.catch_warnings():  # a point where nobody was ever selected gives NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        q25, median, q75 = np.nanpercentile(finite, [25, 50, 75], axis=2)
        mean = np.nanmean(finite, axis=2)
    return Summary(result.mechanisms, result.xs, label, median, q25, q75, mean)


#: The paper's claims about Figures 4-5 as pairwise comparisons: (claim, better, worse).
PAPER_CLAIMS: tuple[tuple[str, str, str], ...] = (
    ("Approx. Optimal above ours", "approx_optimal", "ours"),
    ("Reputation Greedy above ours", "reputation_greedy", "ours"),
    ("ours above RRAFL", "ours", "rrafl"),
    ("ours above Vanilla FL", "ours", "vanilla"),
    ("ours above Proportional Share", "ours", "proportional_share"),
    ("ours above Bid Greedy", "ours", "bid_greedy"),
)
#: The paper's figure of each sweep.
FIGURES = {"budget": "Figure 4", "workers": "Figure 5"}


def medians_above(result: SweepResult, better: str, worse: str,
                  per: Per | None = None) -> np.ndarray:
    """Per x, whether the median over the trials of ``better`` is above that of ``worse`` in
    reading ``per`` (false where either median is NaN)."""
    median = summarize(result, per).median
    return median[result.index(better)] > median[result.index(worse)]


def check_claims(result: SweepResult, per: Per | None = None,
                 claims: Sequence[tuple[str, str, str]] = PAPER_CLAIMS) -> list[Claim]:
    """Check each pairwise claim ``(statement, better, worse)`` on ``result`` in reading
    ``per``: it holds when the median of ``better`` is above that of ``worse`` at every x.

    The finding gives the share of the xs where the medians agree with the claim, and the
    shares of the (x, trial) instances where ``better`` scores strictly higher and exactly the
    same; the verdict is by the share of the xs
    (:func:`~fedlib.analysis.claims.share_verdict`).
    """
    reading = per or result.per
    metric = result.metric(reading)
    out = []
    for statement, better, worse in claims:
        above = medians_above(result, better, worse, reading)
        a, b = result.index(better), result.index(worse)
        out.append(Claim.from_checks(
            f"{FIGURES[result.sweep]} (per {reading})", statement,
            f"medians agree at {np.mean(above):.0%} of the points; single trials agree "
            f"{np.mean(metric[a] > metric[b]):.1%}, ties {np.mean(metric[a] == metric[b]):.1%}",
            list(above)))
    return out


def gap_decomposition(result: SweepResult, mechanism: str = "ours",
                      reference: str = "approx_optimal") -> dict[str, np.ndarray]:
    """Split the per-unit-paid gap between ``reference`` and ``mechanism`` into selection and
    markup, per trial, on a log scale; arrays of shape (xs, trials).

    Since ``metric = re_per_cost / markup`` on every instance,
    ``total = ln(U_ref / U_m) = selection + markup`` with ``selection = ln(q_ref / q_m)`` (the
    reference's set holds more ``re`` per unit of cost) and ``markup = ln(k_m / k_ref)`` (the
    mechanism pays more per unit of cost).
    """
    m, r = result.index(mechanism), result.index(reference)
    U, q, k = result.metric("payment"), result.quantity("re_per_cost"), result.quantity("markup")
    with np.errstate(divide="ignore", invalid="ignore"):
        return {"total": np.log(U[r] / U[m]), "selection": np.log(q[r] / q[m]),
                "markup": np.log(k[m] / k[r])}


def budget_exceeded(result: SweepResult, rtol: float = RTOL) -> dict[str, int]:
    """Per mechanism, how many (x, trial) instances paid more than ``B (1 + rtol)``."""
    over = result.payment > result.budget[None, :, None] * (1 + rtol)
    return {name: int(over[a].sum()) for a, name in enumerate(result.mechanisms)}


def budget_feasible_mechanisms(result: SweepResult) -> tuple[str, ...]:
    """The mechanisms of ``result`` that claim budget feasibility in the registry."""
    return tuple(m for m in result.mechanisms if "budget_feasible" in MECHANISMS[m].claims)
