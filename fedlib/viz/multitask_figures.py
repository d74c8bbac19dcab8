"""Figures of the multi-task experiments (Tables 1-3 and what the paper lacks).

Pure functions of :class:`~fedlib.experiments.multitask.MultiTaskResult`,
:class:`~fedlib.experiments.budget_sweep.BudgetSweepResult` and
:class:`~fedlib.analysis.steady_state.SteadyState` objects returning
:class:`matplotlib.figure.Figure` objects; the tables are in :mod:`fedlib.viz.multitask_tables`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from fedlib.analysis.steady_state import BudgetWindow, SteadyState
from fedlib.experiments.budget_sweep import BudgetSweepResult
from fedlib.experiments.multitask import MultiTaskResult
from fedlib.experiments.table_summaries import (
    DATASET_LABELS,
    final_model,
    group_trajectories,
    round_curves,
    selection_matrix,
)
from fedlib.mechanism import MECHANISMS
from fedlib.viz.style import DATASET_COLORS, NEUTRAL, group_color, mechanism_style, styled

#: Width of one dataset's column of panels, in inches.
_PANEL = 4.5


def _label(dataset: str) -> str:
    return DATASET_LABELS.get(dataset, dataset)


def _mark_evaluation(ax: Axes, eval_from: int) -> None:
    """Shade the tasks left out of the statistics; integer task ticks."""
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if eval_from > 0:
        ax.axvspan(-0.5, eval_from - 0.5, color="0.9", zorder=0)


# ---------------------------------------------------------------------- trajectories


def _shared_legend(fig: Figure, ax: Axes) -> None:
    """One legend below the panels, from ``ax``'s labelled lines."""
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=min(len(labels), 3))


@styled
def trajectories_figure(runs: Mapping[str, MultiTaskResult], title: str | None = None) -> Figure:
    """Reputation (top) and payment (bottom) of each data-accuracy group, task by task, one
    column per dataset (the panels of a row share their y-axis).

    The reputation panel shows the group's mean ``Re`` after each task (line) and its range
    over the group's workers (band); the payment panel the mean payment of the group's winners
    in each task (markers; no marker when the group did not win). Shaded: tasks not evaluated.
    """
    fig = Figure(figsize=(_PANEL * len(runs), 8.6), layout="constrained")
    axes = fig.subplots(2, len(runs), squeeze=False, sharex="col", sharey="row")
    for col, (dataset, run) in enumerate(runs.items()):
        tasks = np.arange(len(run.records))
        top, bottom = axes[0, col], axes[1, col]
        for dacc, traj in group_trajectories(run).items():
            color = group_color(dacc)
            top.plot(tasks, traj.Re_mean, color=color, lw=2, label=f"dacc {dacc:.1f}")
            top.fill_between(tasks, traj.Re_min, traj.Re_max, color=color, alpha=0.18, lw=0)
            bottom.plot(tasks, traj.payment, color=color, marker="o", ms=4, lw=1)
        for ax in (top, bottom):
            _mark_evaluation(ax, run.config.eval_from)
        top.set_title(f"{_label(dataset)}: {MECHANISMS[run.config.mechanism].label}, "
                      f"B = {run.config.budget:g}")
        bottom.set_xlabel("task (shaded: not evaluated)")
        top.set_ylim(-0.03, 1.03)
    axes[0, 0].set_ylabel("accumulated reputation $Re$\n(line: group mean, band: range)")
    axes[1, 0].set_ylabel("mean payment of\nthe group's winners")
    _shared_legend(fig, axes[0, 0])
    if title:
        fig.suptitle(title)
    return fig


def _loss_accuracy_grid(datasets: list[str]) -> tuple[Figure, np.ndarray]:
    """A figure with test loss (top row) over test accuracy (bottom row), a column per dataset."""
    fig = Figure(figsize=(_PANEL * len(datasets), 7.8), layout="constrained")
    return fig, fig.subplots(2, len(datasets), squeeze=False, sharex="col")


def _finish_loss_accuracy_grid(fig: Figure, axes: np.ndarray, datasets: list[str], xlabel: str,
                               ylabels: tuple[str, str], title: str | None) -> Figure:
    """Titles, labels, the shared legend and the title of a :func:`_loss_accuracy_grid`."""
    for col, dataset in enumerate(datasets):
        axes[0, col].set_title(_label(dataset))
        axes[1, col].set_xlabel(xlabel)
    axes[0, 0].set_ylabel(ylabels[0])
    axes[1, 0].set_ylabel(ylabels[1])
    _shared_legend(fig, axes[0, 0])
    if title:
        fig.suptitle(title)
    return fig


#: How ours and RRAFL are drawn when a figure has both: as fedlib implements RRAFL the two
#: runs are the same run, so ours is a thick pale line underneath and RRAFL a thin dashed
#: line with hollow markers on top, and both stay visible where they coincide.
_OVERLAY = {"ours": {"lw": 6.0, "ms": 7, "alpha": 0.3, "zorder": 3},
            "rrafl": {"lw": 1.6, "ms": 4, "mfc": "white", "dashes": (4, 2), "zorder": 4}}


def _line_style(mechanism: str, width: float, markersize: float,
                overlay: bool) -> dict[str, Any]:
    """Keyword arguments of ``Axes.plot`` for ``mechanism``'s line; with ``overlay`` (ours and
    RRAFL in the same figure) ours and RRAFL as in :data:`_OVERLAY`."""
    color, marker, style, _ = mechanism_style(mechanism)
    return {"color": color, "ls": style, "lw": width, "marker": marker, "ms": markersize,
            "label": MECHANISMS[mechanism].label,
            **(_OVERLAY.get(mechanism, {}) if overlay else {})}


def _overlay(runs: Mapping[tuple[str, str], MultiTaskResult]) -> bool:
    """Whether ``runs`` hold both ours and RRAFL (drawn over one another, :data:`_OVERLAY`)."""
    return set(_OVERLAY) <= {mechanism for _, mechanism in runs}


@styled
def global_model_figure(runs: Mapping[tuple[str, str], MultiTaskResult],
                        title: str | None = None) -> Figure:
    """Test loss (top) and accuracy (bottom) of each task's final global model, one line per
    mechanism, one column per dataset. Shaded: tasks not evaluated. Ours is drawn thick
    under RRAFL's thin dashed line, which coincides with it under our reading of RRAFL."""
    datasets = list(dict.fromkeys(d for d, _ in runs))
    fig, axes = _loss_accuracy_grid(datasets)
    overlay = _overlay(runs)
    for (dataset, mechanism), run in runs.items():
        col = datasets.index(dataset)
        width = min(mechanism_style(mechanism)[3], 2)
        series = final_model(run)
        tasks = np.arange(len(run.records))
        for row, key in enumerate(("loss", "acc")):
            axes[row, col].plot(tasks, series[key],
                                **_line_style(mechanism, width, 3, overlay))
    for col, dataset in enumerate(datasets):
        run = next(r for (d, _), r in runs.items() if d == dataset)
        for row in range(2):
            _mark_evaluation(axes[row, col], run.config.eval_from)
    return _finish_loss_accuracy_grid(
        fig, axes, datasets, "task (shaded: not evaluated)",
        ("test loss of the\nfinal global model", "test accuracy of the\nfinal global model"),
        title)


@styled
def round_curves_figure(runs: Mapping[tuple[str, str], MultiTaskResult],
                        title: str | None = None) -> Figure:
    """Test loss (top) and accuracy (bottom) of the global model after each round of a task:
    median over the evaluated tasks (line) and quartiles (band), one line per mechanism."""
    datasets = list(dict.fromkeys(d for d, _ in runs))
    fig, axes = _loss_accuracy_grid(datasets)
    overlay = _overlay(runs)
    for (dataset, mechanism), run in runs.items():
        col = datasets.index(dataset)
        color = mechanism_style(mechanism)[0]
        for row, field in enumerate(("test_loss", "test_acc")):
            curves = round_curves(run, field)
            if not curves.size:
                continue
            rounds = np.arange(1, curves.shape[1] + 1)
            axes[row, col].xaxis.set_major_locator(MaxNLocator(integer=True))
            low, mid, high = np.percentile(curves, [25, 50, 75], axis=0)
            ax = axes[row, col]
            ax.plot(rounds, mid, **_line_style(mechanism, 1.8, 4, overlay))
            ax.fill_between(rounds, low, high, color=color, alpha=0.15, lw=0)
    return _finish_loss_accuracy_grid(
        fig, axes, datasets, "global round within a task",
        ("test loss (median over\nevaluated tasks, band: quartiles)", "test accuracy"), title)


@styled
def selection_figure(runs: Mapping[tuple[str, str], MultiTaskResult],
                     title: str | None = None) -> Figure:
    """Who won each task: one worker x task map per run, a row per mechanism and a column per
    dataset (rows of a map: workers, grouped by data accuracy; a coloured cell: the worker won
    that task, in its group's colour; dashed line: the evaluation starts)."""
    datasets = list(dict.fromkeys(d for d, _ in runs))
    mechanisms = list(dict.fromkeys(m for _, m in runs))
    first = next(iter(runs.values()))
    daccs = first.config.daccs
    groups = [float(d) for d, _ in first.config.groups]
    counts = np.array([c for _, c in first.config.groups])
    cmap = ListedColormap(["white", *(group_color(d) for d in groups)])
    code = np.array([groups.index(float(d)) + 1 for d in daccs])
    fig = Figure(figsize=(_PANEL * len(datasets), (0.06 * daccs.size + 0.8) * len(mechanisms)
                          + 0.9), layout="constrained")
    axes = fig.subplots(len(mechanisms), len(datasets), squeeze=False, sharex="col")
    for (dataset, mechanism), run in runs.items():
        ax = axes[mechanisms.index(mechanism), datasets.index(dataset)]
        chosen = selection_matrix(run)
        ax.imshow(np.where(chosen, code[:, None], 0), cmap=cmap, vmin=0, vmax=len(groups),
                  aspect="auto", interpolation="nearest")
        ax.grid(False)
        for b in np.cumsum(counts)[:-1]:
            ax.axhline(b - 0.5, color="0.3", lw=0.8)
        ax.axvline(run.config.eval_from - 0.5, color="black", ls="--", lw=1)
        centres = np.cumsum(counts) - counts / 2 - 0.5
        ax.set_yticks(centres, [f"dacc {d:.1f}" for d in groups])
        ax.set_title(f"{_label(dataset)}, {MECHANISMS[mechanism].label}:\n"
                     f"{chosen.sum(axis=0).mean():.1f} winners/task", loc="left")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    for col in range(len(datasets)):
        axes[-1, col].set_xlabel("task (dashed: evaluation starts)")
    if title:
        fig.suptitle(title)
    return fig


# ---------------------------------------------------------------------- budget


@styled
def budget_sweep_figure(sweep: BudgetSweepResult, paper_share: float, paper_payment: float,
                        paper_loss: float) -> Figure:
    """Ours at several budgets: winners per task, Table 2's share, Table 1's dacc 1.0 payment
    and Table 3's loss against the budget, with the paper's values as dashed lines."""
    rows = sweep.summary()
    budgets = [r["budget"] for r in rows]
    base = sweep.config.base
    fig = Figure(figsize=(9, 7.4), layout="constrained")
    axes = fig.subplots(2, 2, sharex=True).ravel()
    panels = (("winners", "winners per task\n(evaluated tasks)", None),
              ("share", "share of dacc 1.0 among winners\n(evaluated tasks, Table 2)",
               paper_share),
              ("payment", "mean payment of a dacc 1.0\nwinner (all tasks, Table 1)",
               paper_payment),
              ("loss", "mean test loss of the final\nmodel (evaluated tasks, Table 3)",
               paper_loss))
    for ax, (key, ylabel, paper) in zip(axes, panels, strict=True):
        ax.plot(budgets, [r[key] for r in rows], color="#d62728", marker="o", lw=2,
                label="ours (our runs)")
        if paper is not None:
            ax.axhline(paper, color="black", ls="--", lw=1.2, label="the paper's value")
        ax.set_ylabel(ylabel)
    for ax in axes[2:]:
        ax.set_xlabel("budget B per task")
    axes[1].set_ylim(-0.03, 1.05)
    axes[1].legend()
    fig.suptitle(f"{_label(base.dataset)}, {MECHANISMS[base.mechanism].label}: "
                 f"{base.n_tasks} tasks per budget,\nstatistics from task {base.eval_from}")
    return fig


@styled
def steady_state_figure(states: Mapping[str, SteadyState], windows: Mapping[str, BudgetWindow],
                        paper_payments: Mapping[str, float], floor: float = 1e-12) -> Figure:
    """The auction alone at the paper's Table 1 reputations: the dacc 1.0 winners' mean
    payment (left) and the probability that only dacc 1.0 workers win (right, log scale):
    dotted, one task (= all evaluated tasks when the bids are drawn once); solid, all evaluated
    tasks with bids redrawn every task. Values below ``floor`` sit on the bottom edge."""
    fig = Figure(figsize=(9, 10.5), layout="constrained")
    left, right = fig.subplots(2, 1, sharex=True)
    for dataset, state in states.items():
        color = DATASET_COLORS.get(dataset, NEUTRAL)
        window = windows[dataset]
        name = _label(dataset)
        left.plot(state.budgets, state.payment, color=color, marker="o", ms=4, lw=2,
                  label=f"{name}: auction at Table 1's reputations")
        left.axhline(paper_payments[dataset], color=color, ls="--", lw=1.2,
                     label=f"{name}: the paper's Table 1 ({paper_payments[dataset]:g})")
        right.semilogy(state.budgets, np.clip(state.clean_fixed, floor, None), color=color,
                       ls=":", lw=2, label=f"{name}: one task (or bids drawn once)")
        right.semilogy(state.budgets, np.clip(state.clean_redrawn, floor, None), color=color,
                       marker="o", ms=4, lw=2,
                       label=f"{name}: all {state.n_evaluated} tasks, bids redrawn")
        for ax in (left, right):
            if np.isfinite(window.payment_budget):
                ax.axvline(window.payment_budget, color=color, ls="-.", lw=1)
    plausible = next(iter(windows.values())).plausible
    n_eval = next(iter(states.values())).n_evaluated
    right.axhline(plausible, color="black", lw=1, ls="--", label=f"probability {plausible:g}")
    right.set_ylim(floor / 3, 2)
    left.set_ylabel("mean payment of\na dacc 1.0 winner")
    right.set_ylabel(f"P(only dacc 1.0 workers win)\n(bottom edge: below {floor:g})")
    left.set_title("Table 1: the payment grows with the budget")
    right.set_title(f"Table 2: a share of 1.000 over {n_eval} tasks")
    right.set_xlabel("budget B per task (dash-dot: the B giving Table 1's payment)")
    for ax in (left, right):
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12),
                  ncol=2, frameon=False)
    return fig
