"""Figures of Algorithm 1 and its theorems: selection, payments, utility against bid, scaling.

Pure functions returning :class:`matplotlib.figure.Figure`; the numbers come from
:mod:`fedlib.mechanism` and the analyses of :mod:`fedlib.experiments` (``auction_steps``,
``misreporting``, ``payment_comparison``, ``selection_timing``). Workers are labelled 1-based
("worker 1" is index 0), as in the paper.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle
from matplotlib.transforms import blended_transform_factory

from fedlib.analysis.auction_steps import PaymentBreakdown, worker_label
from fedlib.analysis.misreporting import GainSweep, UtilityCurve
from fedlib.analysis.payment_comparison import PaymentRatios
from fedlib.analysis.selection_timing import ScalingResult
from fedlib.mechanism import Auction
from fedlib.viz.style import (
    COST,
    CRITICAL,
    DISHONEST,
    EX_ANTE,
    EX_POST,
    HONEST,
    LOSER,
    NEXT,
    WINNER,
    styled,
)

#: Widths (inches) of one- and two-panel figures. The book shows a figure about 600 pixels
#: wide: a one-panel figure keeps about 85% of its size, a two-panel one about 70%.
ONE_PANEL, TWO_PANELS = 6.8, 8.6


# --------------------------------------------------------------------------------------------
# Selection: densities, the budget curve and who wins
# --------------------------------------------------------------------------------------------

@styled
def selection_figure(auction: Auction, title: str | None = None) -> Figure:
    """Algorithm 1's selection drawn as a supply curve against the budget curve.

    Workers are bars in cost-density order: bar ``t`` spans the accumulated reputations
    ``[sum_{j<t} Re_j, sum_{j<=t} Re_j]`` and its height is its density ``b/Re``. The curve
    ``B / x`` is the proportional share: worker ``t`` passes the test of Algorithm 1 (line 3)
    iff the top right corner of its bar lies on or below the curve (the markers). The dashed
    line is ``rho*`` (Eq. (14)); the shaded rectangle, of area ``rho* sum_S Re``, is the total
    of the upper payments ``p_up = Re rho*`` (Eq. (15)), which fits under the curve, so within
    ``B``.

    Returns
    -------
    matplotlib.figure.Figure
        One axes; bars are labelled with the worker numbers, and the legend names winners, the
        first loser (whose density may set ``rho*``), the other losers, the budget curve,
        ``rho*`` and the upper payments.
    """
    b, Re, B = np.asarray(auction.bids), np.asarray(auction.Re), auction.budget
    order = np.asarray(auction.order)
    positive = order[Re[order] > 0]
    dens = b[positive] / Re[positive]
    right = np.cumsum(Re[positive])
    left = right - Re[positive]
    fig = Figure(figsize=(ONE_PANEL, 5.6), layout="constrained")
    ax = fig.subplots()
    rho = auction.rho_star
    finite_rho = math.isfinite(rho)
    top_data = float(dens.max()) if dens.size else 1.0
    cap = 2.5 * rho if finite_rho and rho > 0 else top_data
    ymax = 1.15 * min(top_data, max(cap, float(np.median(dens)) if dens.size else 1.0))
    ymax = ymax if ymax > 0 else 1.0
    for t, (i, d, lo, hi) in enumerate(zip(positive, dens, left, right, strict=True)):
        color = WINNER if auction.selected[i] else (NEXT if t == auction.k else LOSER)
        h = min(d, ymax * 0.97)
        ax.add_patch(Rectangle((lo, 0), hi - lo, h, facecolor=color, edgecolor="0.3", lw=0.8))
        text = worker_label(i) if d <= ymax * 0.97 else f"{worker_label(i)}\n({d:.3g}, cut)"
        ax.text((lo + hi) / 2, h, text, ha="center", va="bottom", fontsize="small")
    xmax = float(right[-1]) * 1.05 if right.size else 1.0
    xs = np.linspace(max(xmax, 1e-12) * 1e-3, xmax, 400)
    ax.plot(xs, B / xs, color="0.15", lw=1.6, label="budget share $B/\\sum Re$")
    if right.size:
        share = B / right
        passed = dens <= share
        ax.scatter(right[passed], share[passed], color="0.15", zorder=3, s=22,
                   label="test passed")
        ax.scatter(right[~passed], share[~passed], facecolor="white", edgecolor="0.15",
                   zorder=3, s=22, label="test failed")
    if auction.k > 0 and finite_rho:
        width = float(Re[auction.winners].sum())
        ax.add_patch(Rectangle((0, 0), width, rho, facecolor=WINNER, alpha=0.15, hatch="//",
                               edgecolor=WINNER, lw=0))
        ax.axhline(rho, color=CRITICAL, ls="--", lw=1.4, label=f"$\\rho^*$ = {rho:.4g}")
    ax.set_xlim(0, xmax)
    ax.set_ylim(0, ymax)
    handles, labels = ax.get_legend_handles_labels()
    extra = [Patch(facecolor=WINNER, edgecolor="0.3", label="selected (S)"),
             Patch(facecolor=NEXT, edgecolor="0.3", label="first loser (k+1)"),
             Patch(facecolor=LOSER, edgecolor="0.3", label="not reached"),
             Patch(facecolor=WINNER, alpha=0.15, hatch="//", edgecolor=WINNER,
                   label="$\\sum_S p^{up} = \\rho^* \\sum_S Re$")]
    ax.legend(handles=extra + handles, labels=[h.get_label() for h in extra] + labels,
              loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3)
    zero = [worker_label(i) for i in order if Re[i] <= 0]
    note = f"  (Re = 0, never selected: {', '.join(zero)})" if zero else ""
    ax.set(title=title or f"Algorithm 1 with B = {B:.4g}: k = {auction.k} selected{note}",
           xlabel="accumulated reputation $\\sum Re$ (workers in density order)",
           ylabel="cost density $b_i / Re_i$")
    return fig


# --------------------------------------------------------------------------------------------
# Payments: ex ante against ex post
# --------------------------------------------------------------------------------------------

def _winner_ticks(br: PaymentBreakdown) -> list[str]:
    return [f"{worker_label(i)}\n{'honest' if br.honest[i] else 'dishonest'}"
            for i in br.auction.winners]


@styled
def payments_figure(br: PaymentBreakdown, title: str | None = None) -> Figure:
    """Each winner's true cost, ex-ante payment ``p_up`` and ex-post payment ``p``; utilities.

    Left: grouped bars per winner (cost, ``p_up``, ``p = min(p_up, p')``) with ``p'`` as a
    marker. Right: the winners' utilities under both payment rules. Tick labels say which
    winners are honest (``re >= Re``). Losers are paid 0 and not drawn. One legend, below
    the panels, names the bars of both.
    """
    fig = Figure(figsize=(TWO_PANELS, 4.8), layout="constrained")
    left, right = fig.subplots(1, 2, width_ratios=[1.3, 1])
    w = np.asarray(br.auction.winners)
    if w.size == 0:
        for ax in (left, right):
            ax.text(0.5, 0.5, "nobody is selected: no payments", ha="center", va="center",
                    transform=ax.transAxes)
            ax.set_axis_off()
        return fig
    x = np.arange(w.size)
    width = 0.26
    left.bar(x - width, br.costs[w], width, color=COST, label="true cost $c_i$")
    left.bar(x, br.upper[w], width, color=EX_ANTE, label="ex ante: $p_i^{up}$")
    left.bar(x + width, br.ex_post[w], width, color=EX_POST, label="ex post: $p_i$")
    left.scatter(x + width, br.temporary[w], marker="_", s=260, color="k", zorder=3, lw=2,
                 label="temporary $p_i'$")
    left.set_xticks(x, _winner_ticks(br))
    for tick, i in zip(left.get_xticklabels(), w, strict=True):
        tick.set_color(HONEST if br.honest[i] else DISHONEST)
    left.set(title=title or f"Payments, B = {br.auction.budget:.4g}", xlabel="winning worker",
             ylabel="money")
    right.bar(x - width / 2, br.utility_ex_ante[w], width, color=EX_ANTE)
    right.bar(x + width / 2, br.utility_ex_post[w], width, color=EX_POST)
    right.axhline(0, color="k", lw=1)
    right.set_xticks(x, _winner_ticks(br))
    for tick, i in zip(right.get_xticklabels(), w, strict=True):
        tick.set_color(HONEST if br.honest[i] else DISHONEST)
    right.set(title="Utility $u_i = p_i - c_i$", xlabel="winning worker", ylabel="utility")
    fig.legend(*left.get_legend_handles_labels(), loc="outside lower center", ncols=4)
    return fig


@styled
def payment_ratio_figure(ratios: PaymentRatios, title: str | None = None) -> Figure:
    """Ex-post over ex-ante payment, ``p/p_up``, against ``re/Re``, for many winners.

    Honest winners (``re >= Re``) sit on ``p/p_up = 1``; dishonest ones lie between the
    floor ``re/Re`` (from ``p' >= rho* re``) and 1.
    """
    fig = Figure(figsize=(ONE_PANEL, 4.6), layout="constrained")
    ax = fig.subplots()
    h = ratios.honest
    ax.scatter(ratios.re_over_Re[h], ratios.paid_over_upper[h], s=6, alpha=0.4, color=HONEST,
               label=f"honest winners ({int(h.sum())})")
    ax.scatter(ratios.re_over_Re[~h], ratios.paid_over_upper[~h], s=6, alpha=0.4,
               color=DISHONEST, label=f"dishonest winners ({int((~h).sum())})")
    x = ratios.re_over_Re
    hi = float(max(1.0, x.max())) if x.size else 1.0
    lo = float(min(1.0, x.min())) if x.size else 0.0
    lo = max(0.0, lo - 0.05 * (hi - lo + 1e-9))
    ax.plot([lo, 1], [lo, 1], color="k", ls=":", lw=1.2, label="floor $p/p^{up} = re/Re$")
    ax.plot([1, hi], [1, 1], color="k", ls="--", lw=1.0)
    ax.axvline(1, color="0.5", lw=0.8)
    ax.set_xlim(lo, hi + 0.02 * (hi - lo + 1e-9))
    ax.set_ylim(lo, 1.0 + 0.05 * (1.0 - lo + 1e-9))
    ax.legend(loc="lower right", markerscale=3)
    ax.set(title=title or "Ex-post payment as a share of the ex-ante payment",
           xlabel="$re_i / Re_i$ (realised over accumulated reputation)",
           ylabel="$p_i / p_i^{up}$")
    return fig


# --------------------------------------------------------------------------------------------
# Utility against bid (Theorem 4)
# --------------------------------------------------------------------------------------------

def _curve_title(c: UtilityCurve) -> str:
    re_i, Re_i = c.instance.re[c.worker], c.instance.Re[c.worker]
    kind = "honest" if c.honest else "dishonest"
    return (f"worker {worker_label(c.worker)}, {kind}: re = {re_i:.3g} "
            f"{'>=' if c.honest else '<'} Re = {Re_i:.3g}")


def _mark_bid(ax, x: float, text: str, color: str, left: bool) -> None:
    """Write ``text`` at the top of the vertical line at bid ``x``, on its left or right."""
    at = blended_transform_factory(ax.transData, ax.transAxes)
    ax.text(x, 0.97, f" {text} ", transform=at, ha="right" if left else "left", va="top",
            color=color)


@styled
def utility_figure(curves: Sequence[UtilityCurve],
                   ex_ante: Sequence[UtilityCurve] | None = None,
                   titles: Sequence[str] | None = None) -> Figure:
    """One panel per curve: the worker's utility against its bid, true cost marked.

    Each panel shows the utility under the paper's ex-post payment (dark line), optionally
    under the ex-ante variant (``ex_ante``, same worker, wide light line), the true cost
    ``c_i`` (vertical line), the critical bid ``\\bar b_i = rho* Re_i`` above which the worker
    loses (dotted), both written at the top of their lines, the truthful point (circle) and
    the best bid found (star, only where a lie pays). Winning bids all give the same utility
    (the lemma of the proofs chapter), so the curve is a step. One legend, below the panels,
    names the lines; the panels share their utility axis.
    """
    if not curves:
        raise ValueError("need at least one utility curve")
    if ex_ante is not None and len(ex_ante) != len(curves):
        raise ValueError("ex_ante needs one curve per curve")
    one = len(curves) == 1
    width = ONE_PANEL if one else TWO_PANELS / 2 * len(curves)
    fig = Figure(figsize=(width, 4.6), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, len(curves), sharey=True))
    legend: dict[str, object] = {}
    for k, (ax, c) in enumerate(zip(axes, curves, strict=True)):
        if ex_ante is not None:  # drawn first and wider, so that the ex-post curve stays visible
            e = ex_ante[k]
            ax.plot(e.bids, e.utilities, color=EX_ANTE, lw=5, alpha=0.6,
                    label="ex ante ($p_i^{up}$)")
        ax.plot(c.bids, c.utilities, color=EX_POST, lw=2, label="ex post (the paper)")
        ax.axhline(0, color="k", lw=0.8)
        ax.axvline(c.cost, color=COST, lw=1.5, label="true cost $c_i$")
        critical = math.isfinite(c.critical_bid)
        if critical:
            ax.axvline(c.critical_bid, color=CRITICAL, ls=":", lw=1.5,
                       label="critical bid $\\bar b_i$")
        cost_left = not critical or c.cost <= c.critical_bid
        _mark_bid(ax, c.cost, f"$c_i$ = {c.cost:.3g}", COST, cost_left)
        if critical:
            _mark_bid(ax, c.critical_bid, f"$\\bar b_i$ = {c.critical_bid:.3g}", CRITICAL,
                      not cost_left)
        ax.scatter([c.cost], [c.truthful_utility], color=COST, zorder=4, s=50,
                   label="bid = true cost")
        if c.gain > 0:
            j = int(np.argmax(c.utilities))
            if c.won[j]:
                x_best = c.best_bid
            else:  # every losing bid is as good: mark the middle of the losing range
                lost = c.bids[~c.won]
                x_best = float((lost.min() + lost.max()) / 2)
            ax.scatter([x_best], [c.best_utility], marker="*", color=DISHONEST, zorder=5,
                       s=160, label="best lie")
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            legend.setdefault(label, handle)
        ax.set(title=titles[k] if titles is not None else _curve_title(c), xlabel="bid $b_i$",
               ylabel="utility $u_i$" if k == 0 else "")
    low, high = axes[0].get_ylim()  # shared: room for the labels of the lines, once
    axes[0].set_ylim(low, high + 0.15 * (high - low))
    fig.legend(list(legend.values()), list(legend), loc="outside lower center",
               ncols=3 if len(legend) > 4 else len(legend))
    return fig


# --------------------------------------------------------------------------------------------
# Dishonest workers in the synthetic setting; Theorem 3 scaling
# --------------------------------------------------------------------------------------------

def _band(ax, x: np.ndarray, values: np.ndarray, color: str, label: str) -> None:
    mean = values.mean(axis=1)
    lo, hi = np.quantile(values, [0.1, 0.9], axis=1)
    ax.plot(x, mean, color=color, marker="o", ms=4, lw=1.8, label=f"{label}: mean")
    ax.fill_between(x, lo, hi, color=color, alpha=0.2, label=f"{label}: 10-90% of tasks")


@styled
def gain_figure(budget_sweep: GainSweep, worker_sweep: GainSweep) -> Figure:
    """Share of winners that are dishonest, and share that could gain by misreporting.

    Left: against the budget (Figure 4's setting); right: against the number of workers
    (Figure 5's setting). Mean over trials with the 10-90% band of the trials; the panels
    share their y-axis and one legend, below them.
    """
    fig = Figure(figsize=(TWO_PANELS, 4.6), layout="constrained")
    axes = fig.subplots(1, 2, sharey=True)
    for ax, s, xlabel in ((axes[0], budget_sweep, "budget $B$"),
                          (axes[1], worker_sweep, "number of workers $n$")):
        _band(ax, s.x, s.dishonest_share, DISHONEST, "dishonest")
        _band(ax, s.x, s.gain_share, "#6a040f", "gain by lying")
        fixed = (f"n = {int(s.fixed)}" if s.parameter == "budget" else f"B = {s.fixed:.4g}")
        ax.set(title=f"{fixed}, {s.winners.shape[1]} tasks per point", xlabel=xlabel,
               ylabel="share of the winners" if ax is axes[0] else "", ylim=(0, 1))
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=2)
    return fig


@styled
def scaling_figure(result: ScalingResult) -> Figure:
    """Theorem 3 measured: time of ``select`` against ``n log2 n`` (log-log), and per unit.

    Left: median time with the min-max spread of the repeats, a reference line proportional to
    ``n log n`` and one proportional to ``n^2``, both through the median at the largest ``n``.
    Right: median time divided by ``n log2 n``; a flat line means ``n log n`` growth. The
    legend of the left panel is below the panels.
    """
    fig = Figure(figsize=(TWO_PANELS, 4.2), layout="constrained")
    left, right = fig.subplots(1, 2)
    x = result.n_log_n
    med = result.median
    lo, hi = result.times.min(axis=1), result.times.max(axis=1)
    left.errorbar(x, med, yerr=[med - lo, hi - med], fmt="o-", color=EX_POST, capsize=3,
                  label=f"median of {result.times.shape[1]} runs (bars: min-max)")
    left.plot(x, med[-1] * x / x[-1], color="k", ls="--", lw=1, label="$\\propto n \\log n$")
    n = result.sizes.astype(float)
    left.plot(x, med[-1] * (n / n[-1]) ** 2, color="#d62828", ls=":", lw=1.2,
              label="$\\propto n^2$ (for contrast)")
    left.set_xscale("log")
    left.set_yscale("log")
    left.set_ylim(med.min() / 5, hi.max() * 3)
    left.set(title="Time of select()", xlabel="$n \\log_2 n$", ylabel="seconds per call")
    right.semilogx(result.sizes, result.per_n_log_n * 1e9, "o-", color=EX_POST)
    right.set_ylim(0, float(np.max(result.per_n_log_n)) * 1e9 * 1.3)
    right.set(title="Time per unit of $n \\log_2 n$", xlabel="number of workers $n$",
              ylabel="ns per $n \\log_2 n$")
    fig.legend(*left.get_legend_handles_labels(), loc="outside lower center", ncols=3)
    return fig
