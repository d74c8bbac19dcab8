"""Figures of the contribution chapter: Eqs. (2)-(3) on a toy P, on real models, Figures 2-3.

Every function is pure and returns a new :class:`matplotlib.figure.Figure` (or, for
:func:`contribution_table`, a string).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from fedlib.analysis.contribution_checks import case1_trend, case2_stand_out, per_seed
from fedlib.mechanism.contribution import P_FLOOR, contributions, sample_weights
from fedlib.viz.style import OKABE_ITO, styled, two_column_panels

#: Display names and colours of the per-worker measures of a contribution record.
MEASURES = {
    "contribution": ("ours (weighted samples)", OKABE_ITO[0]),
    "benchmark": ("benchmark (equal weights)", OKABE_ITO[4]),
    "local_acc": ("local model accuracy", OKABE_ITO[2]),
}
#: Colour of the sample weights of Eq. (2).
WEIGHT_COLOR = OKABE_ITO[3]
#: The measures that are contributions (max-normalised per round): their panels share a y-axis.
CONTRIBUTION_MEASURES = ("contribution", "benchmark")
#: The y-axis label of each measure.
YLABELS = {"contribution": "contribution", "benchmark": "contribution",
           "local_acc": "test accuracy"}
#: Short names of the measures, for crowded axes.
SHORT = {"contribution": "ours", "benchmark": "benchmark", "local_acc": "local\naccuracy"}


def _names(prefix: str, n: int, names: Sequence[str] | None) -> list[str]:
    if names is None:
        return [f"{prefix}{i}" for i in range(n)]
    if len(names) != n:
        raise ValueError(f"expected {n} names, got {len(names)}")
    return list(names)


def contribution_table(P: ArrayLike, workers: Sequence[str] | None = None,
                       samples: Sequence[str] | None = None, digits: int = 3) -> str:
    """Eqs. (2)-(3) laid out as a text table a reader can check by hand.

    Rows: each worker's ``P_ij``, then the column sums of ``-ln P_ij``, the weights ``w_j``
    (Eq. (2)) and the equal weights ``1/|D|``; the last columns give each worker's
    contribution with the weights of Eq. (2) (ours) and with equal weights (the benchmark).
    """
    p = np.asarray(P, dtype=float)
    k, m = p.shape
    wn, sn = _names("worker ", k, workers), _names("s", m, samples)
    w = sample_weights(p)
    ours, equal = contributions(p), contributions(p, weighted=False)
    surprise = -np.log(np.clip(p, P_FLOOR, 1.0)).sum(axis=0)
    label = max(len(x) for x in [*wn, "sum_i -ln P_ij", "w_j (Eq. 2)"]) + 2
    cell = max(digits + 4, *(len(s) + 1 for s in sn))
    header = " " * label + "".join(f"{s:>{cell}}" for s in sn) + "  |  ours   equal"
    lines = [header, "-" * len(header)]
    for i in range(k):
        row = "".join(f"{v:>{cell}.{digits}f}" for v in p[i])
        lines.append(f"{wn[i]:<{label}}{row}  |  {ours[i]:.{digits}f}  {equal[i]:.{digits}f}")
    lines.append("-" * len(header))
    for name, values in (("sum_i -ln P_ij", surprise), ("w_j (Eq. 2)", w),
                         ("1/|D|", np.full(m, 1.0 / m))):
        lines.append(f"{name:<{label}}" + "".join(f"{v:>{cell}.{digits}f}" for v in values))
    return "\n".join(lines)


@styled
def toy_figure(P: ArrayLike, workers: Sequence[str] | None = None,
               samples: Sequence[str] | None = None) -> Figure:
    """P as an annotated heat map with the weights of Eq. (2) above it; contributions beside.

    Right panel: each worker's contribution (Eq. (3)) with the weights of Eq. (2) and with
    equal weights.
    """
    p = np.asarray(P, dtype=float)
    k, m = p.shape
    wn, sn = _names("worker ", k, workers), _names("s", m, samples)
    w = sample_weights(p)
    fig = Figure(figsize=(10, 4.4), layout="constrained")
    grid = fig.add_gridspec(2, 2, height_ratios=[1, 2.2], width_ratios=[1.4, 1])
    top, heat, right = fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[1, 0]), \
        fig.add_subplot(grid[:, 1])
    top.bar(np.arange(m), w, color=WEIGHT_COLOR, label="$w_j$, Eq. (2)")
    top.axhline(1 / m, color="0.3", ls="--", lw=1, label="equal weight $1/|D|$")
    top.set_xlim(-0.5, m - 0.5)
    top.set_xticks([])
    top.set_ylabel("weight")
    top.legend(loc="upper left")
    top.set_title("Sample weights and P (probability of the true label)")
    heat.imshow(p, cmap="Blues", vmin=0, vmax=1, aspect="auto")
    heat.grid(False)
    for i in range(k):
        for j in range(m):
            heat.text(j, i, f"{p[i, j]:.2f}", ha="center", va="center",
                      color="white" if p[i, j] > 0.6 else "black")
    heat.set_xticks(np.arange(m), sn)
    heat.set_yticks(np.arange(k), wn)
    heat.set_xlabel("validation sample j")
    width = 0.38
    x = np.arange(k)
    right.bar(x - width / 2, contributions(p), width, color=MEASURES["contribution"][1],
              label=MEASURES["contribution"][0])
    right.bar(x + width / 2, contributions(p, weighted=False), width,
              color=MEASURES["benchmark"][1], label=MEASURES["benchmark"][0])
    right.set_xticks(x, wn)
    right.set_ylabel("contribution, Eq. (3)")
    right.set_title("Contributions")
    right.set_ylim(0, 1.0)
    right.legend(loc="upper right")
    right.grid(False, axis="x")
    return fig


@styled
def snapshot_figure(dacc: ArrayLike, P: ArrayLike, val_labels: ArrayLike, weights: ArrayLike,
                    weighted: ArrayLike, equal: ArrayLike, local_acc: ArrayLike,
                    title: str = "", names: Sequence[str] | None = None) -> Figure:
    """Eqs. (2)-(3) on one round of real local models.

    Top left: the distribution of the sample weights relative to the equal weight 1/|D|. Top
    right: mean weight of the validation samples of each label (relative to 1/|D|). Bottom:
    each worker's contribution with and without the weights, and its local model's accuracy.
    Workers are labelled with ``names`` (default: index and data accuracy).
    """
    p, w = np.asarray(P, float), np.asarray(weights, float)
    labels = np.asarray(val_labels)
    m = w.size
    default = [f"{i}\n({a:g})" for i, a in enumerate(np.asarray(dacc, float))]
    names = default if names is None else _names("", len(default), names)
    fig = Figure(figsize=(10, 7), layout="constrained")
    (hist, per_label), (contrib, acc) = fig.subplots(2, 2)
    hist.hist(w * m, bins=50, color=WEIGHT_COLOR)
    hist.axvline(1.0, color="0.3", ls="--", lw=1, label="equal weight")
    hist.set_yscale("log")
    hist.set_xlabel(r"$w_j \times |D|$ (1 = equal weight)")
    hist.set_ylabel("validation samples")
    hist.set_title(f"Sample weights of {m} validation samples")
    hist.legend(loc="best")
    classes = np.arange(int(labels.max()) + 1)
    mean_w = np.array([w[labels == c].mean() * m if np.any(labels == c) else 0 for c in classes])
    per_label.bar(classes, mean_w, color=WEIGHT_COLOR)
    per_label.axhline(1.0, color="0.3", ls="--", lw=1)
    per_label.set_xticks(classes)
    per_label.set_xlabel("true label of the validation sample")
    per_label.set_ylabel(r"mean $w_j \times |D|$")
    per_label.set_title("Which labels are hard for these models")
    x = np.arange(p.shape[0])
    width = 0.38
    contrib.bar(x - width / 2, weighted, width, color=MEASURES["contribution"][1],
                label=MEASURES["contribution"][0])
    contrib.bar(x + width / 2, equal, width, color=MEASURES["benchmark"][1],
                label=MEASURES["benchmark"][0])
    contrib.set_xticks(x, names)
    contrib.set_xlabel("worker")
    contrib.set_ylabel("contribution, Eq. (3)")
    contrib.set_title("Contributions (before max-normalisation)")
    contrib.set_ylim(0, 1.5 * max(np.max(weighted), np.max(equal)))
    contrib.legend(loc="upper right")
    acc.bar(x, local_acc, color=MEASURES["local_acc"][1])
    acc.set_xticks(x, names)
    acc.set_xlabel("worker")
    acc.set_ylabel("test accuracy")
    acc.set_title("Local model accuracy")
    if title:
        fig.suptitle(title)
    return fig


def case_worker_names(case: int, dacc: Sequence[float]) -> list[str]:
    """Tick labels of a case's workers: data accuracy (Case 1), or in Case 2 the worker and
    the label it lacks ("-k")."""
    if case == 1:
        return [f"{a:g}" for a in dacc]
    return ["0\nall"] + [f"{k}\n-{k}" for k in range(1, len(dacc))]


@styled
def case_figure(records: Iterable[Mapping[str, Any]], case: int,
                metrics: Sequence[str] = tuple(MEASURES)) -> Figure:
    """Figure 2 (``case=1``) or Figure 3 (``case=2``) with the spread over seeds.

    One panel per measure (mean over seeds with a +-1 standard deviation band, each seed as a
    faint dot); the two contribution measures (ours and the benchmark, both max-normalised per
    round) share their y-axis, local model accuracy, another quantity, has its own. A last
    panel gives the statistic the chapter checks: Case 1, Spearman's correlation between the
    measure and the data accuracy; Case 2, how far worker 0 stands out (margin over the others'
    mean in units of their standard deviation). Dots are seeds, bars their mean.
    """
    records = list(records)
    fig, axes = two_column_panels(len(metrics) + 1, panel_height=3.9, width=10,
                                  extra=0.4)
    labels = case_worker_names(case, next(r for r in records if r["case"] == case)["dacc"])
    x = np.arange(len(labels))
    shared: Axes | None = None
    for ax, metric in zip(axes, metrics, strict=False):
        name, color = MEASURES.get(metric, (metric, "0.3"))
        values = per_seed(records, case, metric)
        mean, std = values.mean(axis=0), values.std(axis=0)
        for row in values:
            ax.plot(x, row, ".", color=color, alpha=0.35, ms=5)
        ax.fill_between(x, mean - std, mean + std, color=color, alpha=0.2)
        ax.plot(x, mean, "o-", color=color, lw=2, ms=5)
        if case == 2:
            ax.plot([0], [mean[0]], "o", ms=12, mfc="none", mec="black", mew=1.5)
        if metric in CONTRIBUTION_MEASURES:
            if shared is None:
                shared = ax
            else:
                ax.sharey(shared)
        ax.set_xticks(x, labels)
        ax.set_xlabel("worker's data accuracy" if case == 1 else "worker (-k: lacks label k)")
        ax.set_ylabel(YLABELS.get(metric, "value") + " (mean +- std)")
        ax.set_title(name)
    stat = axes[-1]
    for i, metric in enumerate(metrics):
        name, color = MEASURES.get(metric, (metric, "0.3"))
        v = case1_trend(records, metric).rho if case == 1 else case2_stand_out(records, metric)
        stat.bar(i, v.mean(), color=color, alpha=0.6)
        stat.plot(np.full(v.size, i), v, "k.", ms=6)
    stat.set_xticks(np.arange(len(metrics)), [SHORT.get(m, m) for m in metrics])
    stat.axhline(0, color="0.3", lw=1)
    if case == 1:
        stat.set_title("Rank correlation with data accuracy")
        stat.set_ylabel("Spearman rho (1 = perfectly ordered)")
        stat.set_ylim(-1.05, 1.05)
    else:
        stat.set_title("How far worker 0 stands out")
        stat.set_ylabel("(worker 0 - mean others) / std others")
    stat.grid(False, axis="x")
    fig.suptitle(f"Contribution measurement, Case {case} "
                 f"({'iid, data accuracy 1.0 to 0.1' if case == 1 else 'non-iid, clean'}; "
                 f"{len(per_seed(records, case, metrics[0]))} seeds)")
    return fig
