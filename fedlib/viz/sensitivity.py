"""Figures and a table of the sensitivity sweep (:mod:`fedlib.experiments.sensitivity`).

Pure functions of the rows of :func:`~fedlib.experiments.sensitivity.sensitivity_rows` (one
row per parameter and value, the center run counted once per parameter) returning
:class:`matplotlib.figure.Figure` objects or HTML strings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from fedlib.experiments.sensitivity import LABELS, ranking, rows_of
from fedlib.table import Markup, fixed_point, html_table
from fedlib.viz.style import ABOVE_DEFAULT, AT_DEFAULT, BELOW_DEFAULT, group_color, styled

#: What each outcome is called on an axis.
OUTCOME_LABELS = {"share": "share of dacc 1.0\namong winners (Table 2)",
                  "loss": "mean final test loss\n(Table 3)",
                  "paid": "total paid per task\n/ budget",
                  "winners": "winners per task"}


def short_label(name: str) -> str:
    """A parameter's symbol: ``"θ"`` for ``"theta"`` (its :data:`LABELS` entry before the
    parenthesis)."""
    return LABELS.get(name, name).split(" (")[0]


def values_label(rows: Sequence[Mapping[str, Any]], name: str) -> str:
    """``"θ\n0.2 / [0.4] / 0.5"``: the parameter's symbol, then its values, the default in
    brackets."""
    texts = [f"[{r['value']:g}]" if r["default"] else f"{r['value']:g}"
             for r in rows_of(rows, name)]
    return f"{short_label(name)}\n" + " / ".join(texts)


@styled
def tornado_figure(rows: Sequence[Mapping[str, Any]],
                   outcomes: Sequence[str] = ("share", "loss", "paid"),
                   title: str | None = None) -> Figure:
    """One panel per outcome, one line per parameter: the outcome at each of the parameter's
    values (blue below the default, red above, a black bar at the default), parameters sorted
    by how far they move the first outcome, largest on top."""
    order = [name for name, _ in ranking(rows, outcomes[0])]
    fig = Figure(figsize=(2.6 * len(outcomes) + 1.8, 0.75 * len(order) + 2.2),
                 layout="constrained")
    axes = fig.subplots(1, len(outcomes), sharey=True, squeeze=False)[0]
    for ax, outcome in zip(axes, outcomes, strict=True):
        for y, name in enumerate(reversed(order)):
            chosen = rows_of(rows, name)
            center = next(r["value"] for r in chosen if r["default"])
            # payments relative to the run's budget
            xs = [r["used"] if outcome == "paid" else r[outcome] for r in chosen]
            ax.plot([np.nanmin(xs), np.nanmax(xs)], [y, y], color="0.75", lw=6,
                    solid_capstyle="butt", zorder=1)
            for row, x in zip(chosen, xs, strict=True):
                if row["default"]:
                    ax.plot(x, y, marker="|", ms=22, mew=3, color=AT_DEFAULT, zorder=3)
                else:
                    color = BELOW_DEFAULT if row["value"] < center else ABOVE_DEFAULT
                    ax.plot(x, y, marker="o", ms=9, color=color, mec="white", zorder=2)
        ax.set_xlabel(OUTCOME_LABELS.get(outcome, outcome))
        ax.grid(False, axis="y")
        ax.xaxis.set_major_locator(MaxNLocator(4))
    axes[0].set_yticks(range(len(order)), [values_label(rows, n) for n in reversed(order)])
    axes[0].set_ylim(-0.6, len(order) - 0.4)
    handles = [axes[0].plot([], [], marker=m, ls="", color=c, ms=s, mew=w)[0]
               for m, c, s, w in (("o", BELOW_DEFAULT, 9, 1), ("|", AT_DEFAULT, 14, 3),
                                  ("o", ABOVE_DEFAULT, 9, 1))]
    fig.legend(handles, ["below the default", "default (center run)",
                         "above the default"], loc="outside lower center", ncol=3)
    if title:
        fig.suptitle(title)
    return fig


@styled
def parameter_figure(rows: Sequence[Mapping[str, Any]], name: str) -> Figure:
    """The runs of one parameter: Table 2's share, Table 3's loss and the mean payment per
    task to each accuracy group (stacked, with the budget as a dashed line) at each value.
    Sized to be read at about 700 pixels wide (a pre-drawn tab at 72 dpi)."""
    chosen = rows_of(rows, name)
    x = np.arange(len(chosen))
    ticks = [f"{r['value']:g}" + ("\n(default)" if r["default"] else "") for r in chosen]
    fig = Figure(figsize=(9.5, 4.4), layout="constrained")
    share, loss, paid = fig.subplots(1, 3)
    for ax, outcome in ((share, "share"), (loss, "loss")):
        ax.plot(x, [r[outcome] for r in chosen], color="#d62728", marker="o", lw=2, ms=8)
        ax.set_ylabel(OUTCOME_LABELS[outcome])
    share.set_ylim(-0.03, 1.05)
    bottom = np.zeros(len(chosen))
    for dacc in sorted(chosen[0]["group_paid"], reverse=True):
        heights = np.array([r["group_paid"][dacc] for r in chosen])
        paid.bar(x, heights, bottom=bottom, width=0.6, color=group_color(dacc),
                 label=f"dacc {dacc:.1f}")
        bottom += heights
    paid.plot(x, [r["budget"] for r in chosen], color="black", ls="--", marker="_", ms=30,
              lw=0, mew=2, label="budget B")
    paid.set_ylabel("mean paid per task\nto each accuracy group")
    fig.legend(*paid.get_legend_handles_labels(), loc="outside lower center",
               ncols=len(chosen[0]["group_paid"]) + 1)
    for ax in (share, loss, paid):
        ax.set_xticks(x, ticks)
        ax.set_xlim(-0.6, len(chosen) - 0.4)
        ax.grid(False, axis="x")
    fig.suptitle(f"Varying {LABELS.get(name, name)}, everything else at its default")
    return fig


def rows_html(rows: Sequence[Mapping[str, Any]], digits: int = 3) -> str:
    """Every row as an HTML table: the parameter's symbol (one cell for all its rows), its
    value (bold at the default), share, loss, winners per task, mean paid per task to each
    accuracy group (under one header) and in total relative to the budget."""
    daccs = sorted(rows[0]["group_paid"], reverse=True)
    head = ["", "value", "share", "loss", "winners", *(f"{d:.1f}" for d in daccs),
            "paid / budget"]
    body = [[short_label(r["parameter"]),
             Markup(f"<b>{r['value']:g}</b>") if r["default"] else f"{r['value']:g}",
             fixed_point(r["share"], digits), fixed_point(r["loss"], digits),
             fixed_point(r["winners"], 1), *(fixed_point(r["group_paid"][d], 1) for d in daccs),
             fixed_point(r["used"], 2)]
            for r in rows]
    return html_table(head, body, align="right", merge_leading=1,
                      column_groups=[("", 5), ("paid per task to dacc", len(daccs)),
                                     ("", 1)])


def first_task_html(diff: Mapping[str, Mapping[str, bool]]) -> str:
    """:func:`~fedlib.experiments.sensitivity.first_task` as a table: one row per run (named
    by the parameter's symbol and value, ``"θ = 0.2"``), one column per quantity of the first
    task, "changed" where it differs from the center run."""
    quantities = list(next(iter(diff.values())))
    head = ["run", *quantities]

    def run_name(key: str) -> str:
        name, _, value = key.partition("=")
        return f"{short_label(name)} = {value}" if value else key

    body = [[run_name(key), *(Markup("<b>changed</b>") if changed[q] else "same"
                              for q in quantities)]
            for key, changed in diff.items()]
    return html_table(head, body, align="center",
                      column_groups=[("", 1), ("the first task's", len(quantities))])
