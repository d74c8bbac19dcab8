"""Figures of the Shapley ground-truth chapter (pure functions returning ``Figure`` objects).

They read the records of :func:`fedlib.experiments.shapley_truth.run_shapley_truth`: per
(case, seed) the task and round values of the exact Shapley value and of every measure, the
costs, and the Monte-Carlo error curves.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from fedlib.analysis.contribution_checks import case_records
from fedlib.experiments.shapley_truth import MEASURES, agreement, correlations, game_values
from fedlib.viz.contribution import case_worker_names
from fedlib.viz.style import styled, two_column_panels

#: Display name and colour of every measure.
STYLE = {
    "ours": ("ours (weighted, Eqs. 2-3)", "tab:blue"),
    "equal": ("equal weights (benchmark)", "tab:orange"),
    "local": ("local model alone, v({i})", "tab:green"),
    "loo": ("leave-one-out", "tab:red"),
    "monte_carlo": ("Monte-Carlo Shapley", "tab:purple"),
}
SHORT = {"ours": "ours", "equal": "equal", "local": "local", "loo": "LOO",
         "monte_carlo": "MC"}
CASE_TITLE = {1: "Case 1 (iid, data accuracy 1.0 to 0.1)", 2: "Case 2 (non-iid, clean)"}
CASE_COLOR = {1: "tab:blue", 2: "tab:orange"}
CASE_MARKER = {1: "o", 2: "s"}

Record = Mapping[str, Any]


def _by_case(records: Sequence[Record]) -> list[tuple[int, list[Record]]]:
    """(case, its records) for every case present, in order."""
    return [(case, case_records(records, case)) for case in sorted({r["case"] for r in records})]


@styled
def worker_figure(records: Sequence[Record], case: int, round_index: int | None = None,
                  measures: Sequence[str] = MEASURES) -> Figure:
    """Each worker's exact Shapley value, and every measure plotted against it.

    The first panel shows the Shapley values (bars: mean over seeds, dots: seeds). Each further
    panel puts one measure (y) against the Shapley value (x), one dot per worker and seed,
    labelled with the worker; its title gives the mean Spearman correlation over seeds. A
    measure that ranks workers like Shapley lines its dots up monotonically (scales differ).
    Two panels a row, sized to be read at about 700 pixels wide (the width of a chapter's
    text, and of a pre-drawn tab at 72 dpi).

    Parameters
    ----------
    records : sequence of mapping
    case : {1, 2}
    round_index : int, optional
        Show one round's game instead of the task (mean over rounds).
    measures : sequence of str
    """
    chosen = case_records(records, case)
    values = game_values(chosen, round_index)
    what = "task (mean over rounds)" if round_index is None else f"round {round_index + 1}"
    names = case_worker_names(case, chosen[0]["dacc"])
    fig, grid = two_column_panels(len(measures) + 1, panel_height=3.1, width=9.5,
                                  extra=0.5)
    shapley = np.array([v["shapley"] for v in values])
    first = grid[0]
    x = np.arange(len(names))
    first.bar(x, shapley.mean(0), color="0.6")
    for row in shapley:
        first.plot(x, row, "k.", ms=6)
    first.axhline(0, color="0.3", lw=1)
    first.set_xticks(x, names)
    first.set_xlabel("worker's data accuracy" if case == 1 else "worker, label it lacks")
    first.set_ylabel(f"Shapley value\n({chosen[0]['utility']})")
    first.set_title("Exact Shapley value")
    first.grid(False, axis="x")
    for ax, m in zip(grid[1:], measures, strict=False):
        name, color = STYLE[m]
        measure = np.array([v[m] for v in values])
        ax.scatter(shapley.ravel(), measure.ravel(), color=color, s=28, alpha=0.8)
        for i, label in enumerate(names):
            ax.annotate(label.split("\n")[0], (shapley[0, i], measure[0, i]),
                        fontsize="small", xytext=(3, 2), textcoords="offset points")
        rho = np.nanmean(agreement(values)[m])
        ax.set_title(f"{name}\nSpearman with Shapley: {rho:.2f}")
        ax.set_xlabel("exact Shapley value")
        ax.set_ylabel(SHORT[m])
    for ax in grid[1:]:
        ax.xaxis.set_major_locator(MaxNLocator(4))
    for ax in grid:
        ax.yaxis.set_major_locator(MaxNLocator(5))
    fig.suptitle(f"{CASE_TITLE[case]}: {what}, {len(chosen)} seed(s)")
    return fig


@styled
def correlation_figure(records: Sequence[Record], method: str = "spearman",
                       measures: Sequence[str] = MEASURES) -> Figure:
    """Rank correlation of every measure with the exact Shapley values, per case.

    Large dots: the task values (one per seed); small grey dots and the box: each round's game
    on its own (one per seed and round), showing the spread.
    """
    groups = _by_case(records)
    fig = Figure(figsize=(4 * len(groups), 4.6), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, len(groups), sharey=True))
    for ax, (case, chosen) in zip(axes, groups, strict=True):
        task = correlations(chosen, method, "task")
        per_round = correlations(chosen, method, "round")
        positions = np.arange(len(measures))
        ax.boxplot([per_round[m][np.isfinite(per_round[m])] for m in measures],
                   positions=positions, widths=0.5, showfliers=False,
                   medianprops={"color": "0.3"})
        for i, m in enumerate(measures):
            jitter = np.linspace(-0.15, 0.15, per_round[m].size)
            ax.plot(i + jitter, per_round[m], ".", color="0.6", ms=4,
                    label="one round's game (box: their spread)" if i == 0 else None)
            ax.plot(np.full(task[m].size, i), task[m], "o", color=STYLE[m][1], ms=9,
                    mec="black", label="task, one per seed" if i == 0 else None)
        ax.set_xticks(positions, [SHORT[m] for m in measures])
        ax.axhline(0, color="0.3", lw=1)
        ax.set_ylim(-1.05, 1.05)
        ax.set_title(CASE_TITLE[case])
        ax.grid(False, axis="x")
    axes[0].set_ylabel(f"{method.capitalize()} correlation\nwith exact Shapley")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=2)
    return fig


@styled
def mc_error_figure(records: Sequence[Record], budget: int | None = None) -> Figure:
    """Monte-Carlo error against the number of coalitions evaluated.

    Thin lines: each (case, seed, round) game, the largest absolute error of the running
    estimate over the workers against the distinct coalitions its orders needed so far; thick
    line: the median over games after each order. The dotted line marks the exact
    computation's cost (``2**k``), a big dot (``budget`` given) the median after ``budget`` orders,
    the chapter's Monte-Carlo measure.
    """
    fig = Figure(figsize=(8, 4.5), layout="constrained")
    ax = fig.subplots()
    for case, chosen in _by_case(records):
        color = CASE_COLOR[case]
        errors = np.array([e for r in chosen for e in r["mc_error"]])
        evaluations = np.array([e for r in chosen for e in r["mc_evaluations"]])
        for e, n in zip(errors, evaluations, strict=True):
            ax.plot(n, e, color=color, alpha=0.12, lw=0.8)
        ax.plot(np.median(evaluations, 0), np.median(errors, 0), color=color, lw=2.5,
                label=f"{CASE_TITLE[case]}: median")
        if budget is not None:
            ax.plot(np.median(evaluations[:, budget - 1]), np.median(errors[:, budget - 1]),
                    "o", color=color, ms=9, mec="black")
    k = len(records[0]["dacc"])
    ax.axvline(2**k, color="0.2", ls=":", label=f"exact: all 2^{k} = {2**k} coalitions")
    if budget is not None:
        ax.plot([], [], "o", color="0.7", mec="black", label=f"after {budget} orders "
                "(the MC measure)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("distinct coalitions evaluated")
    ax.set_ylabel("largest |estimate - exact|\nover workers")
    ax.set_title("Monte-Carlo Shapley: error against cost")
    ax.grid(True, which="both")
    ax.legend()
    return fig


@styled
def cost_figure(records: Sequence[Record], method: str = "spearman",
                measures: Sequence[str] = MEASURES) -> Figure:
    """Agreement with Shapley against cost: one point per measure and case.

    x: models evaluated on the validation set per round (log scale; measures of equal cost are
    nudged apart); y: the mean task-level rank correlation with the exact Shapley values over
    seeds (bars: min to max over seeds). The exact computation itself sits at (2**k, 1).
    """
    fig = Figure(figsize=(8, 5.2), layout="constrained")
    ax = fig.subplots()
    for case, chosen in _by_case(records):
        marker = CASE_MARKER[case]
        task = correlations(chosen, method, "task")
        rounds = sum(len(r["v_empty"]) for r in chosen)
        ax.plot(chosen[0]["evaluations"]["shapley"] / len(chosen[0]["v_empty"]), 1.0, marker,
                color="0.3", ms=9, mec="black", label="exact Shapley" if case == 1 else None)
        for i, m in enumerate(measures):
            # Measures of equal cost are nudged apart sideways so that none hides another.
            cost = sum(r["evaluations"][m] for r in chosen) / rounds * 1.05 ** (i - 1)
            v = task[m]
            ax.errorbar(cost, v.mean(), yerr=[[v.mean() - v.min()], [v.max() - v.mean()]],
                        fmt=marker, color=STYLE[m][1], ms=9, mec="black", capsize=3,
                        label=STYLE[m][0] if case == 1 else None)
    for case, marker in CASE_MARKER.items():
        ax.plot([], [], marker, color="white", mec="black", label=f"Case {case}")
    ax.set_xscale("log")
    ax.set_ylim(-1.05, 1.05)
    ax.axhline(1, color="0.2", ls=":")
    ax.set_xlabel("models evaluated per round (exact Shapley: 2^k)")
    ax.set_ylabel(f"{method.capitalize()} correlation\nwith Shapley")
    ax.set_title("Agreement with the exact Shapley value against cost")
    ax.grid(True, which="both")
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center",
               ncols=3)
    return fig
