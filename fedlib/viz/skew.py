"""Figures of the skewed-data chapter (:mod:`fedlib.experiments.noniid`, beyond the paper).

* :func:`label_histograms`: every worker's labels, one heat map per alpha, the workers in rows
  with their kind (:func:`~fedlib.analysis.skew.worker_kinds`) marked beside them;
* :func:`kind_paths_figure`: per run (say one per alpha), a kind's mean accumulated reputation
  ``Re`` (Eq. (13)), or another path of :func:`~fedlib.analysis.skew.kind_paths`, task by task;
* :func:`kind_shares_figure`: per alpha and mechanism, the share of the payments (or a share
  of :func:`~fedlib.experiments.noniid.summary_rows`) that a kind received, every seed a dot.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from fedlib.analysis.skew import KINDS, kind_paths
from fedlib.experiments.multitask import MultiTaskResult
from fedlib.experiments.noniid import kinds_of
from fedlib.mechanism import MECHANISMS
from fedlib.viz.style import mechanism_style, styled

#: The colour of each kind of worker: clean green, noisy red, skewed dark, balanced light.
KIND_COLORS = {"clean skewed": "#1b7837", "clean balanced": "#a6dba0",
               "noisy skewed": "#b2182b", "noisy balanced": "#f4a582"}
#: The paths :func:`kind_paths_figure` can draw, with their axis labels.
PATH_LABELS = {"Re": "mean accumulated reputation Re", "re": "mean internal reputation re\n"
               "of the kind's winners", "contribution": "mean contribution\nof the kind's "
               "winners", "won": "share of the kind's workers\nthat won the task"}


def _check_kinds(kinds: Sequence[Any], n_workers: int) -> np.ndarray:
    k = np.asarray(kinds)
    if k.shape != (n_workers,) or not set(k.tolist()) <= set(KINDS):
        raise ValueError(f"kinds must name one of {KINDS} per worker ({n_workers}), got "
                         f"{k.tolist()!r}")
    return k


@styled
def label_histograms(label_counts: Sequence[np.ndarray], kinds: Sequence[Any],
                     titles: Sequence[str]) -> Figure:
    """Heat maps of each worker's share of every label, one per entry of ``label_counts`` (an
    int array (workers, 10) each, titled by ``titles``), the workers in rows and a strip on the
    left coloured by their kind (``kinds``, one per worker, the same in every panel)."""
    if len(label_counts) != len(titles) or not label_counts:
        raise ValueError(f"one title per panel: {len(label_counts)} panels, {len(titles)} "
                         "titles")
    counts = [np.asarray(c, dtype=float) for c in label_counts]
    shapes = {c.shape for c in counts}
    if len(shapes) != 1 or len(next(iter(shapes))) != 2 or (np.array([c.min() for c in counts])
                                                             < 0).any():
        raise ValueError(f"label counts must be non-negative arrays of one shape (workers, "
                         f"labels), got shapes {sorted(shapes)}")
    n_workers, n_labels = counts[0].shape
    k = _check_kinds(kinds, n_workers)
    fig = Figure(figsize=(2.3 * len(counts) + 1.4, 6.4), layout="constrained")
    axes = fig.subplots(1, len(counts), sharey=True, squeeze=False)[0]
    strip = np.array([KINDS.index(kind) for kind in k])[:, None]
    kind_map = ListedColormap([KIND_COLORS[kind] for kind in KINDS])
    for ax, c, title in zip(axes, counts, titles, strict=True):
        share = c / np.maximum(c.sum(axis=1, keepdims=True), 1)
        image = ax.imshow(share, cmap="Greys", vmin=0, vmax=1, aspect="auto",
                          extent=(-0.5, n_labels - 0.5, n_workers - 0.5, -0.5))
        ax.imshow(strip, cmap=kind_map, vmin=-0.5, vmax=len(KINDS) - 0.5, aspect="auto",
                  extent=(-1.6, -0.6, n_workers - 0.5, -0.5))
        ax.set(xlim=(-1.6, n_labels - 0.5), title=title, xlabel="label")
        ax.set_xticks(range(0, n_labels, 3))
        ax.grid(False)
    axes[0].set_ylabel("worker")
    fig.colorbar(image, ax=axes, shrink=0.6, label="share of the worker's samples")
    fig.legend(handles=[Patch(color=KIND_COLORS[kind], label=kind) for kind in KINDS
                        if kind in k], loc="outside lower center",
               ncols=4 if len(counts) > 2 else 2)
    return fig


@styled
def kind_paths_figure(runs: Mapping[str, MultiTaskResult], path: str | Sequence[str] = "Re",
                      title: str = "") -> Figure:
    """Per run of ``runs`` (a panel each, titled by its key), every kind's ``path`` (a key of
    :data:`PATH_LABELS`, or one per panel) task by task, the tasks Tables 1-3 leave out shaded.

    For a grid: ``{alpha_label(a): grid.run_of(a, mechanism) for a in grid.config.alphas}``;
    for one run seen two ways: ``kind_paths_figure({"Re": run, "wins": run}, ("Re", "won"))``.
    """
    paths = [path] * len(runs) if isinstance(path, str) else list(path)
    unknown = [p for p in paths if p not in PATH_LABELS]
    if unknown:
        raise ValueError(f"path must be one of {sorted(PATH_LABELS)}, got {unknown[0]!r}")
    if not runs:
        raise ValueError("kind_paths_figure needs at least one run")
    if len(paths) != len(runs):
        raise ValueError(f"one path per run: {len(paths)} paths for {len(runs)} runs")
    shared = len(set(paths)) == 1
    fig = Figure(figsize=(2.4 * len(runs) + 1.6 + (0 if shared else 0.6 * len(runs)), 3.9),
                 layout="constrained")
    axes = fig.subplots(1, len(runs), sharey=shared, squeeze=False)[0]
    for ax, (label, run), shown in zip(axes, runs.items(), paths, strict=True):
        tasks = np.arange(1, len(run.records) + 1)
        ax.axvspan(0.5, run.config.eval_from + 0.5, color="0.92", zorder=0)
        for kind, values in kind_paths(run.records, kinds_of(run.config)).items():
            ax.plot(tasks, values[shown], color=KIND_COLORS[kind], lw=2, label=kind)
        ax.set(title=label, xlabel="task")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        if not shared or ax is axes[0]:
            ax.set_ylabel(PATH_LABELS[shown])
    handles, labels = max((ax.get_legend_handles_labels() for ax in axes),
                          key=lambda hl: len(hl[1]))
    fig.legend(handles, labels, loc="outside lower center", ncols=4 if len(runs) > 2 else 2)
    if title:
        fig.suptitle(title)
    return fig


@styled
def kind_shares_figure(summary: Sequence[dict[str, Any]], column: str,
                       ylabel: str) -> Figure:
    """``column`` of :func:`~fedlib.experiments.skew_claims.seed_summary` per alpha (on the
    x axis, in the rows' order) and mechanism (a colour each): the mean over the seeds as a
    bar, every seed as a dot. Rows whose ``column`` is missing or None are left out."""
    rows = [r for r in summary if r.get(column) is not None]
    if not rows:
        raise ValueError(f"no row has a value of {column!r}")
    alphas = list(dict.fromkeys(r["alpha"] for r in rows))
    mechanisms = list(dict.fromkeys(r["mechanism"] for r in rows))
    width = 0.8 / len(mechanisms)
    fig = Figure(figsize=(8.5, 4.0), layout="constrained")
    ax = fig.subplots()
    for j, mechanism in enumerate(mechanisms):
        color = mechanism_style(mechanism)[0]
        for row in rows:
            if row["mechanism"] != mechanism:
                continue
            x = alphas.index(row["alpha"]) - 0.4 + width * (j + 0.5)
            statistic = row[column]
            ax.bar(x, statistic.mean, width * 0.9, color=color, alpha=0.45)
            ax.plot(np.full(statistic.n, x), statistic.values, "o", color=color, ms=4)
        ax.bar(0, 0, 0, color=color, alpha=0.45, label=MECHANISMS[mechanism].label)
    ax.set_xticks(range(len(alphas)), alphas)
    ax.set_ylabel(ylabel)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig
