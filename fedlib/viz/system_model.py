"""The system model of the paper (its Figure 1, an empty placeholder in the source), redrawn."""

from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

#: The steps of one federated task, in order: (who acts, what happens, paper reference).
TASK_STEPS: tuple[tuple[str, str, str], ...] = (
    ("publisher", "announces a task with budget $B$", "Sec. 3.1"),
    ("workers", "submit sealed bids $b_i$ (true cost $c_i$ is private)", "Sec. 3.1"),
    ("publisher", "selects $S$ by cost density $b_i/Re_i$; fixes $\\rho^*$, $p_i^{up}$", "Alg. 1"),
    ("workers", "train local models each global round", "Sec. 4"),
    ("publisher", "quality check, contributions, aggregation", "Eqs. 2-3"),
    ("publisher", "internal reputation $re_i$ = contribution x trust", "Eqs. 4-5"),
    ("publisher", "pays $p_i = \\min(p_i^{up}, p_i')$ and updates $Re_i$", "Eqs. 13, 16"),
)


def _box(ax, x: float, y: float, w: float, h: float, text: str, color: str) -> None:
    ax.add_patch(
        FancyBboxPatch(
            (x, y), w, h, boxstyle="round,pad=0.02", facecolor=color, edgecolor="0.2", lw=1.2
        )
    )
    ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=10, wrap=True)


def _arrow(ax, start: tuple[float, float], end: tuple[float, float], label: str, dy: float):
    ax.add_patch(
        FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=14, lw=1.3, color="0.25")
    )
    mid = ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2 + dy)
    ax.text(*mid, label, ha="center", va="center", fontsize=8.5,
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.0})


def system_model_figure(n_workers: int = 4) -> Figure:
    """Draw the publisher, the workers and the numbered steps of one task.

    Parameters
    ----------
    n_workers : how many worker boxes to draw (2 to 8).

    Returns
    -------
    matplotlib.figure.Figure
        Left: the actors and the messages between them. Right: one task's timeline, the steps
        of :data:`TASK_STEPS` with the paper's equation or section for each.
    """
    if not 2 <= n_workers <= 8:
        raise ValueError(f"n_workers must be between 2 and 8, got {n_workers}")
    fig = Figure(figsize=(12, 5.2), layout="constrained")
    left, right = fig.subplots(1, 2, width_ratios=[1.05, 1])
    for ax in (left, right):
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.axis("off")

    _box(left, 0.03, 0.38, 0.27, 0.24,
         "Task publisher\nbudget $B$\nvalidation + test set", "#cfe2f3")
    height = 0.8 / n_workers
    for w in range(n_workers):
        y = 0.92 - (w + 1) * height
        _box(left, 0.70, y + 0.015, 0.28, height - 0.03,
             f"Worker {w + 1}\nprivate $c_{{{w + 1}}}$, public $Re_{{{w + 1}}}$", "#fce5cd")
    top, bottom = (0.70, 0.74), (0.70, 0.30)
    _arrow(left, (0.30, 0.60), top, "1. task, budget", 0.03)
    _arrow(left, top, (0.30, 0.56), "2. sealed bids $b_i$", -0.03)
    _arrow(left, (0.30, 0.47), (0.70, 0.50), "3. winners $S$, global model", 0.03)
    _arrow(left, (0.70, 0.42), (0.30, 0.43), "4. local models (each round)", -0.03)
    _arrow(left, (0.30, 0.38), bottom, "5. payments $p_i$", -0.03)
    left.set_title("Actors and messages", fontsize=12)

    right.set_title("One task, step by step", fontsize=12)
    colors = {"publisher": "#cfe2f3", "workers": "#fce5cd"}
    step_h = 0.92 / len(TASK_STEPS)
    for s, (actor, what, ref) in enumerate(TASK_STEPS):
        y = 0.96 - (s + 1) * step_h
        _box(right, 0.02, y + 0.01, 0.74, step_h - 0.025, f"{s + 1}. {actor}: {what}",
             colors[actor])
        right.text(0.79, y + step_h / 2, ref, va="center", fontsize=9, color="0.3")
    right.annotate("", xy=(0.95, 0.06), xytext=(0.95, 0.94),
                   arrowprops={"arrowstyle": "-|>", "color": "0.4"})
    right.text(0.975, 0.5, "time", rotation=270, va="center", fontsize=9, color="0.4")
    return fig
