"""Figures 4-5: the ex-post utility of unit payments of every mechanism, with its spread.

Pure functions of :class:`~fedlib.analysis.sweep_results.SweepResult` objects returning
:class:`matplotlib.figure.Figure`: a line per mechanism at the median over the trials and a
shaded band between the quartiles.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from fedlib.analysis.sweep_results import Per, SweepResult, summarize
from fedlib.mechanism import MECHANISMS
from fedlib.table import Markup, html_table
from fedlib.viz.style import mechanism_style, styled

# RRAFL's dashed line above ours: in the per-budget reading the two coincide.
_ZORDER = {"ours": 3, "rrafl": 4}
#: y-axis label of each reading of the metric.
READINGS: dict[str, str] = {
    "payment": r"per unit paid: $\Sigma_{i \in S}\, re_i \;/\; \Sigma_i\, p_i$",
    "budget": r"per unit of budget: $\Sigma_{i \in S}\, re_i \;/\; B$",
}


def _setting(result: SweepResult) -> str:
    c = result.config
    fixed = f"$n$ = {c.n_workers}" if result.sweep == "budget" else f"$B$ = {c.budget:g}"
    return f"{fixed}, {result.trials} trials per point"


def plot_sweep(ax: Axes, result: SweepResult, per: Per | None = None,
               quantity: str = "metric", mechanisms: Sequence[str] | None = None,
               band: bool = True) -> None:
    """Draw the median (line) and interquartile band of every mechanism on ``ax``.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    result : SweepResult
    per : {"payment", "budget"}, optional
        Reading of the metric (default: the result's).
    quantity : {"metric", "winners", "budget_used"}
        What to plot (see :func:`~fedlib.analysis.sweep_results.summarize`).
    mechanisms : sequence of str, optional
        A subset to draw (default: all of the result's).
    band : bool
        Shade the interquartile range.
    """
    summary = summarize(result, per, quantity)  # type: ignore[arg-type]
    for name in mechanisms or result.mechanisms:
        a = result.index(name)
        colour, marker, line, width = mechanism_style(name)
        ax.plot(result.xs, summary.median[a], color=colour, marker=marker, linestyle=line,
                linewidth=width, markersize=6 if name != "approx_optimal" else 9,
                label=MECHANISMS[name].label, zorder=_ZORDER.get(name, 2))
        if band:
            ax.fill_between(result.xs, summary.q25[a], summary.q75[a], color=colour,
                            alpha=0.13, linewidth=0)
    ax.set_xlabel(result.x_label)


def _legend(fig: Figure, ax: Axes, ncol: int = 4) -> None:
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=ncol, frameon=False)


@styled
def sweep_figure(result: SweepResult, per: Per | None = None, title: str | None = None,
                 mechanisms: Sequence[str] | None = None) -> Figure:
    """One sweep (our Figure 4 or 5): metric against the varied quantity, every mechanism.

    Parameters
    ----------
    result : SweepResult
    per : {"payment", "budget"}, optional
        Reading of the metric (default: the result's).
    title : str, optional
        Default: what is plotted and the setting (fixed n or B, trials).
    mechanisms : sequence of str, optional
        A subset to draw.
    """
    reading = per or result.per
    fig = Figure(figsize=(8.5, 5.8), layout="constrained")
    ax = fig.subplots()
    plot_sweep(ax, result, reading, mechanisms=mechanisms)
    ax.set_ylabel(READINGS[reading])
    what = "budget" if result.sweep == "budget" else "number of workers"
    ax.set_title(title or f"Ex-post utility of unit payments against the {what}\n"
                 f"({_setting(result)}; line: median, band: quartiles)")
    _legend(fig, ax)
    return fig


@styled
def readings_figure(budget_result: SweepResult, worker_result: SweepResult,
                    mechanisms: Sequence[str] | None = None) -> Figure:
    """Both sweeps (columns) in both readings of the metric (rows): per unit paid and per unit
    of budget."""
    fig = Figure(figsize=(9, 8.6), layout="constrained")
    axes = fig.subplots(2, 2, sharex="col")
    for row, reading in enumerate(("payment", "budget")):
        for col, result in enumerate((budget_result, worker_result)):
            ax = axes[row, col]
            plot_sweep(ax, result, reading, mechanisms=mechanisms)
            ax.set_title(f"per {reading}: {_setting(result)}")
            if col == 0:
                ax.set_ylabel(READINGS[reading])
            if row == 0:
                ax.set_xlabel("")
    fig.suptitle("The two readings of the paper's metric\n(line: median, band: quartiles)")
    _legend(fig, axes[0, 0])
    return fig


@styled
def spending_figure(result: SweepResult, mechanisms: Sequence[str] | None = None) -> Figure:
    """What lies behind the metric: how many workers are selected, how much of the budget is
    paid, how much ``re`` the selected set holds per unit of true cost, and the markup (total
    payment over the winners' true costs). Per unit paid, metric = re per cost / markup."""
    fig = Figure(figsize=(9, 8.6), layout="constrained")
    axes = fig.subplots(2, 2, sharex=True)
    panels = (("winners", "winners $|S|$", "Workers selected"),
              ("budget_used", "total payment / $B$", "Share of the budget paid out"),
              ("re_per_cost", r"$\Sigma_{i \in S}\, re_i \;/\; \Sigma_{i \in S}\, c_i$",
               "Set quality: re per unit of true cost"),
              ("markup", r"$\Sigma_i\, p_i \;/\; \Sigma_{i \in S}\, c_i$",
               "Markup: payment per unit of cost"))
    for ax, (quantity, ylabel, title) in zip(axes.flat, panels, strict=True):
        plot_sweep(ax, result, quantity=quantity, mechanisms=mechanisms)
        ax.set_ylabel(ylabel)
        ax.set_title(title)
    for ax in axes[0]:
        ax.set_xlabel("")
    fig.suptitle(f"Selection and spending ({_setting(result)};\nline: median, band: quartiles)")
    _legend(fig, axes[0, 0])
    return fig


def _code(text: str) -> str:
    """HTML-escape ``text`` and turn its reStructuredText ````literals```` into <code>."""
    return re.sub(r"``(.+?)``", r"<code>\1</code>", html.escape(text, quote=False))


def mechanism_table_html(rows: Sequence[Mapping[str, str]]) -> str:
    """An HTML table of :func:`~fedlib.experiments.auction_sweeps.mechanism_table` rows."""
    body = [[Markup(_code(v)) for v in (r["label"], r["knows"], r["claims"].replace("_", " "),
                                        r["rule"] or r["summary"])] for r in rows]
    return html_table(["Mechanism", "Knows", "Claims (registry)", "Selection and payment"],
                      body, align="left")
