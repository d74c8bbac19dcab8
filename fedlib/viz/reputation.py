"""Figures of the reputation chapter: trust, h, g, alpha, the update, trajectories, aggregation.

Every function is pure: it computes with :mod:`fedlib.mechanism.reputation` (or takes results
from :mod:`fedlib.analysis.reputation_paths`) and returns a new
:class:`matplotlib.figure.Figure`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from fedlib.analysis.reputation_paths import Recovery, ReputationPath, symmetric_changes
from fedlib.experiments.single_rounds import QualityExample
from fedlib.mechanism.reputation import (
    BETA1,
    BETA2,
    GOMPERTZ_C,
    THETA,
    attenuation,
    g,
    gompertz_trust,
    h,
    trust_input,
    update_reputation,
)
from fedlib.viz.style import OKABE_ITO, styled


def gompertz_curve(x: np.ndarray) -> np.ndarray:
    """``exp(-exp(-5.5 x))``, the paper's Gompertz curve, on any array of inputs x."""
    return np.exp(-np.exp(GOMPERTZ_C * np.asarray(x, dtype=float)))


@styled
def trust_figure(rounds: int = 10, thetas: Sequence[float] = (0.2, THETA, 0.5)) -> Figure:
    """Trust from the pass/fail counts of one task (Eq. (4) and the Gompertz curve).

    Left: the Gompertz curve over its input x. Right: trust after ``rounds`` checks against the
    number of failed ones, for several theta (the paper's 0.4 in bold).
    """
    fig = Figure(figsize=(9.5, 3.8), layout="constrained")
    left, right = fig.subplots(1, 2)
    x = np.linspace(-1, 1, 401)
    left.plot(x, gompertz_curve(x), color=OKABE_ITO[0], lw=2)
    left.axhline(float(gompertz_curve(1.0)), color="0.4", ls=":", lw=1)
    left.annotate(f"max {float(gompertz_curve(1.0)):.5f} at x = 1", (1, gompertz_curve(1.0)),
                  xytext=(-0.15, 0.8), fontsize="small", arrowprops={"arrowstyle": "->"})
    left.plot([0], [np.exp(-1)], "o", color=OKABE_ITO[1])
    left.annotate("x = 0: trust = 1/e", (0, np.exp(-1)), xytext=(0.15, 0.25), fontsize="small",
                  arrowprops={"arrowstyle": "->"})
    left.set(title="Gompertz curve: trust = exp(-exp(-5.5 x))", xlabel="input x (Eq. 4)",
             ylabel="trust")
    fails = np.arange(rounds + 1)
    for i, theta in enumerate(thetas):
        t = gompertz_trust(rounds - fails, fails, theta)
        bold = np.isclose(theta, THETA)
        right.plot(fails, t, "o-", color=OKABE_ITO[i % len(OKABE_ITO)], lw=2.5 if bold else 1.2,
                   ms=5, label=f"theta = {theta:g}" + (" (paper)" if bold else ""))
    right.set_xticks(fails)
    right.legend()
    right.set(title=f"Trust after {rounds} checks", xlabel="failed checks (of the task's rounds)",
              ylabel="trust")
    return fig


@styled
def internal_reputation_figure(rounds: int = 10, fails: Sequence[int] = (0, 1, 2, 3, 4),
                               theta: float = THETA) -> Figure:
    """Eq. (5): re = contrib x trust against the contribution, one line per failed-check count."""
    fig = Figure(figsize=(6.5, 3.8), layout="constrained")
    ax = fig.subplots()
    contrib = np.linspace(0, 1, 101)
    for i, nf in enumerate(fails):
        trust = float(gompertz_trust(rounds - nf, nf, theta))
        ax.plot(contrib, contrib * trust, lw=2, color=OKABE_ITO[i % len(OKABE_ITO)],
                label=f"{nf} of {rounds} checks failed (trust {trust:.3f})")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.legend(loc="upper left")
    ax.set(title="Internal reputation re = contrib x trust", xlabel="task contribution",
           ylabel="re (Eq. 5)")
    return fig


@styled
def h_figure() -> Figure:
    """Eq. (10): h(re) decreasing, and q(re) = h(re) re increasing on [0, 1]."""
    fig = Figure(figsize=(9.5, 3.4), layout="constrained")
    left, right = fig.subplots(1, 2)
    re = np.linspace(0, 1, 401)
    left.plot(re, h(re), color=OKABE_ITO[0], lw=2)
    left.set(title="h(re): small re, large weight", xlabel="internal reputation re", ylabel="h(re)")
    right.plot(re, h(re) * re, color=OKABE_ITO[2], lw=2)
    right.set(title="q(re) = h(re) re is increasing", xlabel="internal reputation re",
              ylabel="q(re)")
    return fig


@styled
def g_figure(beta1s: Sequence[float] = (0.25, BETA1, 1.0), beta2: float = BETA2,
             n_max: int = 15) -> Figure:
    """Eq. (11): g(n) for several beta1 (the paper's 1/2 in bold), asymptote beta2."""
    fig = Figure(figsize=(6.5, 3.8), layout="constrained")
    ax = fig.subplots()
    n = np.arange(n_max + 1)
    for i, beta1 in enumerate(beta1s):
        bold = np.isclose(beta1, BETA1)
        ax.plot(n, g(n, beta1, beta2), "o-", ms=4, lw=2.5 if bold else 1.2,
                color=OKABE_ITO[i % len(OKABE_ITO)],
                label=f"beta1 = {beta1:g}" + (" (paper)" if bold else ""))
    ax.axhline(beta2, color="0.4", ls=":", lw=1, label=f"beta2 = {beta2:g} (asymptote)")
    ax.set_ylim(0, 1.05)
    ax.legend()
    ax.set(title="g(n): a longer streak weighs the past less", xlabel="streak length n (n+ or n-)",
           ylabel="g(n)")
    return fig


@styled
def alpha_figure(streaks: Sequence[int] = (0, 1, 2, 5, 10)) -> Figure:
    """Eq. (12): alpha against re, one curve per streak length.

    ``f(n+, n-) = g(n+) g(n-)`` and one counter is always 0 after an update, so alpha depends on
    the length n of the current streak only, not on whether it is a good or a bad one. n = 0 is
    the reference ``f = 1``, where ``alpha = h(re)``.
    """
    fig = Figure(figsize=(6.5, 3.8), layout="constrained")
    ax = fig.subplots()
    re = np.linspace(0, 1, 401)
    zeros = np.zeros(re.shape, dtype=np.int64)
    for i, n in enumerate(streaks):
        a = attenuation(re, np.full(re.shape, n), zeros)
        ax.plot(re, a, lw=2, color=OKABE_ITO[i % len(OKABE_ITO)], ls="--" if n == 0 else "-",
                label="n = 0 (f = 1, alpha = h)" if n == 0 else f"streak of n = {n}")
    ax.set_ylim(0, 1.02)
    ax.legend(title="n+ or n-")
    ax.set(title="alpha: weight of the newest internal reputation", xlabel="internal reputation re",
           ylabel="alpha (Eq. 12)")
    return fig


@styled
def update_figure(Re_prev: float = 0.5, streaks: Sequence[int] = (0, 5)) -> Figure:
    """Eq. (13): the change ``Re^tau - Re^{tau-1}`` against re, from ``Re^{tau-1} = Re_prev``.

    One curve per good streak ``n+`` before the task (``n- = 0``); the dotted line is the change
    a plain average (alpha = 1/2) would make.
    """
    fig = Figure(figsize=(6.5, 4), layout="constrained")
    ax = fig.subplots()
    re = np.linspace(0, 1, 401)
    prev = np.full(re.shape, float(Re_prev))
    for i, streak in enumerate(streaks):
        new, _, _ = update_reputation(prev, re, np.full(re.shape, streak), np.zeros(re.shape, int))
        ax.plot(re, new - prev, lw=2, color=OKABE_ITO[i % len(OKABE_ITO)],
                label=f"good streak before the task: n+ = {streak}")
    ax.plot(re, 0.5 * (re - prev), ":", color="0.4", label="alpha = 1/2 for comparison")
    ax.axvline(Re_prev, color="0.6", lw=1)
    ax.axhline(0, color="0.6", lw=1)
    ax.legend(loc="upper left")
    ax.set(title=f"Change of Re in one task, from Re = {Re_prev:g}",
           xlabel="internal reputation re", ylabel="Re(new) - Re(old)")
    return fig


#: Line style, line width and marker of each scripted worker in :func:`trajectories_figure`:
#: paths that coincide (always good, turns bad once) stay apart by style, not colour alone.
TRAJECTORY_STYLES = {
    "always good": ("-", 4.0, "o"),
    "turns bad once": ("--", 2.0, "s"),
    "alternating": ("-", 1.3, "^"),
    "free-rider": ("-.", 2.0, "D"),
}


@styled
def trajectories_figure(paths: Mapping[str, ReputationPath]) -> Figure:
    """Re (lines) and re (markers) over tasks for named workers, and alpha below.

    Each worker has its own colour, line style and marker (:data:`TRAJECTORY_STYLES`; others
    get a solid line and dots); a later worker is drawn above an earlier one, so a dashed line
    shows where it coincides with a solid one. The legend sits below the panels, clear of the
    data.
    """
    fig = Figure(figsize=(9.5, 6.8), layout="constrained")
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[2, 1])
    handles = []
    for i, (name, path) in enumerate(paths.items()):
        color = OKABE_ITO[i % len(OKABE_ITO)]
        ls, lw, marker = TRAJECTORY_STYLES.get(name, ("-", 1.5, "."))
        tasks = np.arange(len(path) + 1)
        top.plot(tasks, path.Re, ls=ls, lw=lw, color=color, zorder=2 + i)
        top.plot(tasks[1:], path.re, marker, ls="none", ms=5, alpha=0.5, color=color,
                 zorder=2 + i)
        bottom.plot(tasks[1:], path.alpha, ls=ls, lw=min(lw, 2.0), marker=marker, ms=4,
                    color=color, zorder=2 + i)
        handles.append(Line2D([], [], ls=ls, lw=lw, marker=marker, ms=6, color=color,
                              label=name))
    top.set_ylim(-0.02, 1.02)
    top.set(title="Accumulated reputation Re (lines) and internal reputation re (markers)",
            ylabel="reputation")
    bottom.set_ylim(0, 1.02)
    bottom.set(title="alpha of each update", xlabel="task", ylabel="alpha")
    bottom.xaxis.set_major_locator(MaxNLocator(integer=True))
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles))
    return fig


@styled
def asymmetry_figure(recovery: Recovery, Re_prev: float = 0.5,
                     streaks: Sequence[int] = (0, 2, 5)) -> Figure:
    """'Easy to decline and difficult to improve', two ways.

    Left: a good worker's Re around one bad task, with the loss and the good tasks it takes to
    recover. Right: gain of a good task with ``re = Re_prev + d`` (for several streaks before it)
    and loss of a bad task with ``re = Re_prev - d``, against d.
    """
    fig = Figure(figsize=(10, 4.2), layout="constrained")
    left, right = fig.subplots(1, 2)
    path = recovery.path
    tasks = np.arange(len(path) + 1)
    left.plot(tasks, path.Re, lw=2, color=OKABE_ITO[0], label="Re")
    left.plot(tasks[1:], path.re, "o", ms=4, alpha=0.45, color=OKABE_ITO[0], label="re")
    bad = int(np.argmin(path.re)) + 1
    left.annotate("", (bad, recovery.after_bad), (bad, recovery.peak),
                  arrowprops={"arrowstyle": "->", "color": OKABE_ITO[1], "lw": 2})
    left.text(bad + 0.5, (recovery.peak + recovery.after_bad) / 2,
              f"one bad task: -{recovery.loss:.3f}", color=OKABE_ITO[1], fontsize="small")
    if recovery.tasks_to_recover > 0:
        back = bad + recovery.tasks_to_recover
        left.axvspan(bad, back, color=OKABE_ITO[2], alpha=0.12)
        left.text(bad + 0.5, 0.12, f"{recovery.tasks_to_recover} good tasks to recover",
                  color=OKABE_ITO[2], fontsize="small")
    left.set_ylim(-0.02, 1.02)
    left.legend(loc="center right")
    left.set(title="One bad task in a run of good ones", xlabel="task", ylabel="reputation")
    d = np.linspace(0.005, min(Re_prev, 1 - Re_prev), 100)
    loss = symmetric_changes(Re_prev, d)[1]
    right.plot(d, loss, lw=2.5, color=OKABE_ITO[1], label="loss, re = Re - d (any streak)")
    for i, streak in enumerate(streaks):
        gain = symmetric_changes(Re_prev, d, n_plus=streak)[0]
        right.plot(d, gain, lw=1.5, ls="--", color=OKABE_ITO[(i + 2) % len(OKABE_ITO)],
                   label=f"gain, re = Re + d, n+ = {streak} before")
    right.legend()
    right.set(title=f"Equal deviations from Re = {Re_prev:g}", xlabel="deviation d",
              ylabel="|change of Re|")
    return fig


@styled
def quality_figure(example: QualityExample, delta: float = -0.005) -> Figure:
    """The leave-one-out check and the aggregation weights of one round (bars per worker).

    Left: ``delta_l`` with the threshold. Middle: contribution and quality score. Right: omega
    with the corrected denominator next to omega as printed.
    """
    fig = Figure(figsize=(9.5, 7), layout="constrained")
    grid = fig.add_gridspec(2, 2)
    axes = [fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[0, 1]),
            fig.add_subplot(grid[1, :])]
    k = example.delta_l.size
    x = np.arange(k)
    names = [f"{i}\n({a:g})" for i, a in enumerate(example.dacc)]
    colors = [OKABE_ITO[2] if ok else OKABE_ITO[1] for ok in example.passed]
    axes[0].bar(x, example.delta_l, color=colors)
    axes[0].axhline(delta, color="0.3", ls="--", lw=1, label=f"threshold delta = {delta:g}")
    axes[0].legend()
    axes[0].set(title="Leave-one-out check (green: pass)", xlabel="worker (data accuracy)",
                ylabel="delta_l = l(-i) - l")
    width = 0.4
    axes[1].bar(x - width / 2, example.contrib, width, color=OKABE_ITO[0], label="contribution")
    axes[1].bar(x + width / 2, example.quality, width, color=OKABE_ITO[4], label="quality score")
    axes[1].set_ylim(0, 1.3)
    axes[1].legend(ncols=2, loc="upper center")
    axes[1].set(title="Round contribution and quality score", xlabel="worker (data accuracy)",
                ylabel="score")
    axes[2].bar(x - width / 2, example.omega, width, color=OKABE_ITO[0], label="corrected")
    axes[2].bar(x + width / 2, example.omega_printed, width, color=OKABE_ITO[6], alpha=0.6,
                label="as printed (quality cancels)")
    axes[2].set_ylim(0, 1.35 * max(np.max(example.omega), np.max(example.omega_printed)))
    axes[2].legend(ncols=2, loc="upper center")
    axes[2].set(title="Aggregation weight omega", xlabel="worker (data accuracy)", ylabel="omega")
    for ax in axes:
        ax.set_xticks(x, names)
    return fig


@styled
def trust_point_figure(n_pass: int, n_fail: int, theta: float = THETA,
                       max_count: int = 20) -> Figure:
    """Trust of one (n_pass, n_fail, theta): on the Gompertz curve and on the count grid.

    Left: the curve with the point ``(x, trust)``. Right: trust for every pass/fail count up
    to ``max_count`` at this theta, with the chosen counts marked.
    """
    fig = Figure(figsize=(9.5, 3.8), layout="constrained")
    left, right = fig.subplots(1, 2)
    x_all = np.linspace(-1, 1, 401)
    x = float(trust_input(n_pass, n_fail, theta))
    t = float(gompertz_trust(n_pass, n_fail, theta))
    left.plot(x_all, gompertz_curve(x_all), color=OKABE_ITO[0], lw=2)
    left.plot([x], [t], "o", ms=10, color=OKABE_ITO[1])
    left.annotate(f"x = {x:.3f}\ntrust = {t:.4f}", (x, t), xytext=(10, -30),
                  textcoords="offset points", fontsize="small")
    left.set(title=f"n_pass = {n_pass}, n_fail = {n_fail}, theta = {theta:g}",
             xlabel="input x (Eq. 4)", ylabel="trust")
    top = max(max_count, n_pass, n_fail)
    passes, fails = np.meshgrid(np.arange(top + 1), np.arange(top + 1))
    grid = gompertz_trust(passes, fails, theta)
    image = right.imshow(grid, origin="lower", cmap="viridis", vmin=0, vmax=1, aspect="auto")
    right.plot([n_pass], [n_fail], "o", ms=10, mfc="none", mec=OKABE_ITO[1], mew=2.5)
    fig.colorbar(image, ax=right, label="trust")
    right.set(title=f"Trust over the counts (theta = {theta:g})", xlabel="n_pass", ylabel="n_fail")
    right.grid(False)
    return fig


@styled
def path_figure(path: ReputationPath, title: str = "") -> Figure:
    """One worker's path: Re and re, alpha, and the streak counters n+ and n- per task."""
    fig = Figure(figsize=(9.5, 6.5), layout="constrained")
    top, middle, bottom = fig.subplots(3, 1, sharex=True, height_ratios=[2, 1, 1])
    tasks = np.arange(len(path) + 1)
    top.plot(tasks, path.Re, "o-", lw=2, ms=4, color=OKABE_ITO[0], label="Re (accumulated)")
    top.plot(tasks[1:], path.re, "s", ms=6, color=OKABE_ITO[1], alpha=0.7, label="re (this task)")
    top.set_ylim(-0.02, 1.02)
    top.legend(loc="lower left")
    top.set(title=title or "Reputation over tasks", ylabel="reputation")
    middle.bar(tasks[1:], path.alpha, color=OKABE_ITO[2])
    middle.set_ylim(0, 1)
    middle.set(title="alpha (Eq. 12)", ylabel="alpha")
    width = 0.4
    bottom.bar(tasks[1:] - width / 2, path.n_plus, width, color=OKABE_ITO[0], label="n+ (good)")
    bottom.bar(tasks[1:] + width / 2, path.n_minus, width, color=OKABE_ITO[1], label="n- (bad)")
    bottom.legend(loc="upper left")
    bottom.set(title="Streak counters after each task (Eqs. 7-8)", xlabel="task", ylabel="count")
    bottom.xaxis.set_major_locator(MaxNLocator(integer=True))
    bottom.yaxis.set_major_locator(MaxNLocator(integer=True))
    return fig
