"""Figures of the adversarial-workers chapter: who wins over time, who is paid, how good the
global model is, and one task with one attacker.

Pure functions of :class:`~fedlib.experiments.multitask.MultiTaskResult` runs (keyed by
mechanism) and :class:`~fedlib.experiments.adversarial.SingleTaskOutcome` objects, returning
:class:`matplotlib.figure.Figure` objects.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from fedlib.experiments.adversarial import (
    SingleTaskOutcome,
    group_label,
    group_summary,
    selection_shares,
)
from fedlib.experiments.multitask import MultiTaskResult
from fedlib.experiments.table_summaries import final_model
from fedlib.mechanism import MECHANISMS
from fedlib.table import html_table
from fedlib.viz.style import BEHAVIOUR_COLORS, mechanism_style, styled


def _label(mechanism: str) -> str:
    return MECHANISMS[mechanism].label if mechanism in MECHANISMS else mechanism


@styled
def selection_figure(runs: Mapping[str, MultiTaskResult]) -> Figure:
    """Share of each behaviour group's workers that won each task: one heat map per mechanism
    (rows: groups; columns: tasks). A dotted line marks the first task of a late attack (the
    quality drop), shading the tasks left out of the statistics."""
    fig = Figure(figsize=(8.5, 1.4 + 2.3 * len(runs)), layout="constrained")
    axes = fig.subplots(len(runs), 1, squeeze=False, sharex=True)[:, 0]
    image = None
    for ax, (mechanism, run) in zip(axes, runs.items(), strict=True):
        shares = selection_shares(run)
        grid = np.array(list(shares.values()))
        image = ax.imshow(grid, aspect="auto", cmap="Greys", vmin=0, vmax=1,
                          interpolation="nearest")
        ax.grid(False)
        ax.set_yticks(range(len(shares)), [group_label(g) for g in shares])
        ax.set_title(_label(mechanism))
        if run.config.eval_from:
            ax.axvline(run.config.eval_from - 0.5, color="tab:blue", lw=1.5)
        drop = min((a.from_task for a in run.config.attacks if a.from_task > 0), default=None)
        if drop is not None:
            ax.axvline(drop - 0.5, color=BEHAVIOUR_COLORS["quality_drop"], lw=2, ls=":")
    axes[-1].set_xlabel("task (blue line: statistics start; dotted: the quality drop)")
    axes[-1].xaxis.set_major_locator(MaxNLocator(integer=True))
    bar = fig.colorbar(image, ax=list(axes), shrink=0.8)
    bar.set_label("share of the group's workers selected")
    fig.suptitle("Who wins the auction, task by task")
    return fig


def _grouped_bars(runs: Mapping[str, MultiTaskResult], key: str, ylabel: str,
                  title: str) -> Figure:
    summaries = {m: group_summary(run) for m, run in runs.items()}
    groups = list(next(iter(summaries.values())))
    fig = Figure(figsize=(8.5, 4.8), layout="constrained")
    ax = fig.subplots()
    width = 0.8 / len(runs)
    x = np.arange(len(groups))
    for i, (mechanism, summary) in enumerate(summaries.items()):
        values = np.nan_to_num([summary[g][key] for g in groups])
        ax.bar(x + (i - (len(runs) - 1) / 2) * width, values, width,
               color=mechanism_style(mechanism)[0], label=_label(mechanism))
    ax.set_xticks(x, [group_label(g) for g in groups], rotation=25, ha="right")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=len(runs))
    ax.grid(False, axis="x")
    return fig


@styled
def payments_figure(runs: Mapping[str, MultiTaskResult]) -> Figure:
    """Mean payment per task and worker of each behaviour group (0 when losing), per
    mechanism, over the evaluated tasks."""
    return _grouped_bars(runs, "payment_per_task", "payment per task and worker",
                         "What each behaviour earns (evaluated tasks)")


@styled
def pass_rate_figure(runs: Mapping[str, MultiTaskResult]) -> Figure:
    """Share of the rounds played in which each behaviour group passed the leave-one-out
    check, per mechanism (a group that never won has no bar)."""
    return _grouped_bars(runs, "pass_rate", "share of rounds passed",
                         "The leave-one-out check, per behaviour (evaluated tasks)")


@styled
def accuracy_figure(runs: Mapping[str, MultiTaskResult],
                    honest: Mapping[str, MultiTaskResult] | None = None) -> Figure:
    """Test accuracy and loss of each task's final global model, per mechanism; with
    ``honest`` (the same mechanisms without attackers), their first tasks dashed."""
    fig = Figure(figsize=(8.5, 5.0), layout="constrained")
    axes = fig.subplots(1, 2)
    for mechanism, run in runs.items():
        color, marker, _, width = mechanism_style(mechanism)
        tasks = np.arange(len(run.records))
        for ax, key in zip(axes, ("acc", "loss"), strict=True):
            ax.plot(tasks, final_model(run)[key], color=color, marker=marker, ms=4, lw=width,
                    label=f"{_label(mechanism)}, with attackers")
            if honest is not None and mechanism in honest:
                base = final_model(honest[mechanism])[key][: tasks.size]
                ax.plot(np.arange(base.size), base, color=color, ls="--", lw=1.2,
                        label=f"{_label(mechanism)}, honest run")
    for ax, name in zip(axes, ("test accuracy", "test loss"), strict=True):
        ax.set_xlabel("task")
        ax.set_ylabel(f"final global model: {name}")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center",
               ncols=2)
    fig.suptitle("The global model")
    return fig


@styled
def single_task_figure(outcome: SingleTaskOutcome) -> Figure:
    """One task with one attacker (worker 0): contributions and weights per worker, hatched
    where the worker failed a leave-one-out check, and the global model's accuracy per round
    with and without the attacker. Sized to be read at about 700 pixels wide (a pre-drawn tab
    or an explorer's output at 72 dpi)."""
    fig = Figure(figsize=(9.5, 4.2), layout="constrained")
    axes = fig.subplots(1, 3, width_ratios=[1.2, 1.2, 1])
    workers = np.arange(outcome.contribution.size)
    colors = [BEHAVIOUR_COLORS.get(outcome.attack.kind, "k")] + [
        BEHAVIOUR_COLORS["dacc 1.0"]] * (workers.size - 1)
    for ax, values, name in ((axes[0], outcome.contribution, "task contribution"),
                             (axes[1], outcome.omega, "mean aggregation weight ω")):
        bars = ax.bar(workers, values, color=colors)
        for bar, ok in zip(bars, outcome.n_pass, strict=True):
            if ok < outcome.rounds:
                bar.set_hatch("//")
                bar.set_edgecolor("k")
        ax.set_xticks(workers, ["A"] + [str(w) for w in workers[1:]])
        ax.set_xlabel("worker (A: the attacker)")
        ax.set_ylabel(name)
        ax.grid(False, axis="x")
    axes[0].set_title(f"A failed {outcome.rounds - outcome.n_pass[0]} of "
                      f"{outcome.rounds} checks\n(hatched: failed a check)")
    rounds = np.arange(1, outcome.rounds + 1)
    axes[2].plot(rounds, outcome.acc_with, "o-", color=colors[0], label="with the attacker")
    axes[2].plot(rounds, outcome.acc_without, "s--", color=colors[1], label="without it")
    axes[2].set_xlabel("global round")
    axes[2].set_ylabel("test accuracy")
    axes[2].xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[2].legend(loc="lower right")
    attack = outcome.attack
    fig.suptitle(f"One task, attacker: {group_label(attack.kind)}, strength "
                 f"{attack.strength:g}")
    return fig


#: The columns of :func:`summary_html` and their headers.
SUMMARY_COLUMNS = {"win_share": "won", "pass_rate": "pass", "contribution": "contrib.",
                   "payment_per_task": "paid", "reputation": "Re"}
#: Decimals of each column of :func:`summary_html` (payments to the cent).
SUMMARY_DIGITS = {"win_share": 3, "pass_rate": 3, "contribution": 3, "payment_per_task": 2,
                  "reputation": 3}


def summary_html(runs: Mapping[str, MultiTaskResult]) -> str:
    """An HTML table, one row per behaviour group and mechanism (the group's rows merged):
    the share of (worker, task) pairs won, the share of rounds passed, the mean contribution
    when winning, the payment per task and worker, and the final mean reputation (evaluated
    tasks; a dash where the group never won). Long rather than wide, so that it fits a
    page's text column: the honest groups are named by their data accuracy alone."""
    summaries = {m: group_summary(run) for m, run in runs.items()}
    body = [[group_label(group).removeprefix("honest "), _label(mechanism),
             *(f"{summary[group][key]:.{SUMMARY_DIGITS[key]}f}"
               if np.isfinite(summary[group][key]) else "-" for key in SUMMARY_COLUMNS)]
            for group in next(iter(summaries.values()))
            for mechanism, summary in summaries.items()]
    return html_table(["group", "mechanism", *SUMMARY_COLUMNS.values()], body,
                      row_headers=True, merge_leading=1,
                      align=["left", "left", *["right"] * len(SUMMARY_COLUMNS)])
