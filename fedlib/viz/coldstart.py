"""Figures and a table of the Fashion-MNIST cold-start map (:mod:`fedlib.experiments.coldstart`).

:func:`map_figure` shows, per setting, the share of clean winners in every task and the gap
between clean and noisy winners' contributions in every round; :func:`rows_html` renders
:func:`~fedlib.experiments.coldstart.cold_start_rows`.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from fedlib.experiments.coldstart import (
    SEPARATED,
    ColdStartResult,
    separation,
    setting_label,
)
from fedlib.table import Markup, html_table
from fedlib.viz.style import FONT, NEUTRAL, OKABE_ITO


def _mean_over_tasks(values: np.ndarray) -> np.ndarray:
    """The mean of each column over the tasks that have a value (NaN where none has)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN column: no mixed task
        return np.nanmean(values, axis=0)


def map_figure(result: ColdStartResult) -> Figure:
    """Left: the share of clean winners (dacc 1.0) in every task, one line per setting (the
    default black and thick, the grey band the tasks Tables 1-3 leave out). Right: the mean gap
    between the clean and the noisy winners' contributions in every round, over the tasks
    that had both, with the level :data:`~fedlib.experiments.coldstart.SEPARATED` dashed."""
    fig = Figure(figsize=(12.5, 4.6), layout="constrained")
    share_ax, gap_ax = fig.subplots(1, 2)
    eval_from = result.config.base.eval_from
    share_ax.axvspan(0.5, eval_from + 0.5, color="0.92", zorder=0)
    palette = [c for c in OKABE_ITO if c != "#000000"]  # black is the default's
    for i, (point, run) in enumerate(zip(result.config.points, result.runs, strict=True)):
        default = point[0] is None
        color = "black" if default else palette[(i - 1) % len(palette)]
        style = {"color": color, "lw": 3.0 if default else 1.6,
                 "ls": "-" if default or i <= len(palette) else "--",
                 "label": setting_label(*point)}
        sep = separation(run)
        share_ax.plot(np.arange(1, len(run.records) + 1), sep["clean_share"], marker=".",
                      **style)
        gap_ax.plot(np.arange(1, run.config.task.rounds + 1), _mean_over_tasks(sep["gap"]),
                    marker="o", ms=4, **style)
    gap_ax.axhline(SEPARATED, color=NEUTRAL, ls="--", lw=1)
    gap_ax.axhline(0, color=NEUTRAL, lw=0.8)
    share_ax.set(xlabel="task", ylabel="share of dacc 1.0 among the task's winners",
                 ylim=(-0.03, 1.03), title="Who wins, task by task")
    gap_ax.set(xlabel="round of the task",
               ylabel="contribution: clean minus noisy winners\n(mean over tasks with both)",
               title="When contributions separate")
    for ax in (share_ax, gap_ax):
        ax.title.set_fontsize(FONT + 1)
        ax.grid(alpha=0.3)
    gap_ax.legend(fontsize=FONT - 2, loc="upper left", ncols=2)
    return fig


def rows_html(rows: Sequence[Mapping[str, Any]], paper: Mapping[str, float]) -> str:
    """The rows of :func:`~fedlib.experiments.coldstart.cold_start_rows` as an HTML table, the
    default setting bold, then the paper's Table 2 share and Table 3 loss (``paper``, keys
    ``"share"`` and ``"loss"``) in a last row."""
    head = list(rows[0])
    body = [[Markup("<b>default</b>") if value == "default" else value
             for value in row.values()] for row in rows]
    body.append(["the paper (Tables 2-3)", paper["share"], paper["loss"],
                 *[""] * (len(head) - 3)])
    return html_table(head, body, align="right")
