"""Figures and a table of the Fashion-MNIST cold-start map (:mod:`fedlib.experiments.coldstart`).

:func:`map_figure` shows, per setting, the share of clean winners in every task and the gap
between clean and noisy winners' contributions in every round; :func:`rows_html` and
:func:`separation_html` render :func:`~fedlib.experiments.coldstart.cold_start_rows` as two
tables that fit a page's text column.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from fedlib.experiments.coldstart import (
    SEPARATED,
    ColdStartResult,
    separation,
    setting_label,
)
from fedlib.table import Markup, fixed_point, html_table
from fedlib.viz.style import NEUTRAL, OKABE_ITO, styled


def _mean_over_tasks(values: np.ndarray) -> np.ndarray:
    """The mean of each column over the tasks that have a value (NaN where none has)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN column: no mixed task
        return np.nanmean(values, axis=0)


@styled
def map_figure(result: ColdStartResult) -> Figure:
    """Left: the share of clean winners (dacc 1.0) in every task, one line per setting (the
    default black and thick, the grey band the tasks Tables 1-3 leave out). Right: the mean gap
    between the clean and the noisy winners' contributions in every round, over the tasks
    that had both, with the level :data:`~fedlib.experiments.coldstart.SEPARATED` dashed."""
    fig = Figure(figsize=(9, 5.4), layout="constrained")
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
    share_ax.set(ylim=(-0.03, 1.03))
    share_ax.set_xlabel("task")
    share_ax.set_ylabel("share of dacc 1.0\namong the task's winners")
    share_ax.set_title("Who wins, task by task")
    share_ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    gap_ax.set_xlabel("round of the task")
    gap_ax.set_ylabel("contribution: clean minus noisy\n(mean over tasks with both)")
    gap_ax.set_title("When contributions separate")
    gap_ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    fig.legend(*share_ax.get_legend_handles_labels(), loc="outside lower center", ncols=4)
    return fig


def _setting_cell(value: Any) -> Any:
    return Markup("<b>default</b>") if value == "default" else value


def rows_html(rows: Sequence[Mapping[str, Any]], paper: Mapping[str, float]) -> str:
    """What each setting gives in the paper's tables, from the rows of
    :func:`~fedlib.experiments.coldstart.cold_start_rows`: Table 2's share of clean winners,
    Table 3's loss and Table 1's contributions of the noisiest and the clean workers, the
    default setting bold, then the paper's Table 2 share and Table 3 loss (``paper``, keys
    ``"share"`` and ``"loss"``) in a last row. :func:`separation_html` gives the rest of the
    rows' columns."""
    digits = {"share dacc 1.0": 3, "loss": 4, "contribution dacc 0.1": 3,
              "contribution dacc 1.0": 3}
    body = [[_setting_cell(row["setting"]), *(fixed_point(row[k], d) for k, d in digits.items())]
            for row in rows]
    body.append(["the paper", fixed_point(float(paper["share"]), 3),
                 fixed_point(float(paper["loss"]), 4), "", ""])
    return html_table(["setting", "share dacc 1.0", "loss", "dacc 0.1", "dacc 1.0"], body,
                      align="right",
                      column_groups=[("", 1), ("Table 2", 1), ("Table 3", 1),
                                     ("Table 1: contribution", 2)])


def separation_html(rows: Sequence[Mapping[str, Any]]) -> str:
    """How each setting's first tasks judge the winners, from the rows of
    :func:`~fedlib.experiments.coldstart.cold_start_rows`: the mean internal reputation of
    the clean and of the noisy winners in the first (not evaluated) tasks, and of the tasks
    that hired both, how many, how many separate, the median round of separation and the
    median test loss then; the default setting bold."""
    digits = {"re of clean winners, first tasks": 3, "re of noisy winners, first tasks": 3,
              "tasks with clean and noisy winners": 0, "of which separate": 0,
              "median round of separation": 1, "median test loss then": 3}
    body = [[_setting_cell(row["setting"]), *(fixed_point(row[k], d) for k, d in digits.items())]
            for row in rows]
    return html_table(["setting", "clean", "noisy", "all", "separate", "round",
                       "test loss"], body, align="right",
                      column_groups=[("", 1), ("re, first tasks", 2),
                                     ("tasks with clean and noisy", 2),
                                     ("median at separation", 2)])
