"""The system model of the paper (its Figure 1, an empty placeholder in the source), redrawn."""

from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from fedlib.viz.style import styled

#: The steps of one federated task, in order: (who acts, what happens, paper reference). The
#: text is Markdown with TeX math, for :func:`task_steps_markdown`.
TASK_STEPS: tuple[tuple[str, str, str], ...] = (
    ("publisher", "announces a task with budget $B$", "Sec. 3.1"),
    ("workers", "submit sealed bids $b_i$; the true cost $c_i$ stays private", "Sec. 3.1"),
    ("publisher", "selects the winners $S$ by cost density $b_i / Re_i$ and fixes $\\rho^*$ "
     "and each $p_i^{up}$", "Alg. 1"),
    ("workers", "each global round $t$, train a local model $M_i$ from the global model "
     "$M^{t-1}$", "Sec. 4"),
    ("publisher", "checks each $M_i$, measures its contribution and aggregates the models "
     "into $M^t$", "Eqs. (2)-(3)"),
    ("publisher", "computes each winner's internal reputation $re_i = contrib_i \\cdot trust_i$",
     "Eqs. (4)-(5)"),
    ("publisher", "pays $p_i = \\min(p_i^{up}, p_i')$ and updates $Re_i$", "Eqs. (13), (16)"),
)

#: The messages of the figure: (step of :data:`TASK_STEPS`, to the workers?, label).
MESSAGES: tuple[tuple[int, bool, str], ...] = (
    (1, True, "task, budget $B$"),
    (2, False, "sealed bids $b_i$"),
    (3, True, "winners $S$"),
    (4, True, "global model $M^{t-1}$, each round"),
    (4, False, "local models $M_i$, each round"),
    (7, True, "payments $p_i$"),
)

#: Colours of the two actors.
ACTOR_COLORS = {"publisher": "#cfe2f3", "workers": "#fce5cd"}


def task_steps_markdown() -> str:
    """:data:`TASK_STEPS` as a Markdown table (step, who, what happens, where in the paper)."""
    lines = ["| Step | Who | What happens | Paper |", "|---|---|---|---|"]
    lines += [f"| {number} | {actor} | {what} | {where} |"
              for number, (actor, what, where) in enumerate(TASK_STEPS, start=1)]
    return "\n".join(lines)


def _box(ax, x: float, y: float, w: float, h: float, text: str, color: str,
         fontsize: str = "medium") -> None:
    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.01", facecolor=color,
                                edgecolor="0.2", lw=1.2))
    ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=fontsize,
            linespacing=1.4)


@styled
def system_model_figure(n_workers: int = 4) -> Figure:
    """Draw the publisher, the workers and the messages of one task, numbered as the steps of
    :data:`TASK_STEPS`.

    Every message is a horizontal arrow with its label above it (no label crosses an arrow);
    steps 3, 5 and 6 happen at the publisher and are named in its box.

    Parameters
    ----------
    n_workers : how many worker boxes to draw (2 to 8).

    Returns
    -------
    matplotlib.figure.Figure
    """
    if not 2 <= n_workers <= 8:
        raise ValueError(f"n_workers must be between 2 and 8, got {n_workers}")
    fig = Figure(figsize=(8, 4.6), layout="constrained")
    ax = fig.subplots()
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.axis("off")

    _box(ax, 0.01, 0.10, 0.27, 0.80,
         "budget $B$\nvalidation set $D$\ntest set\nreputations $Re_i$\n\n"
         "steps 3, 5, 6:\nselect, check,\nmeasure, rate", ACTOR_COLORS["publisher"])
    ax.text(0.145, 0.84, "Task publisher", ha="center", va="center", fontweight="bold")
    left, right = 0.72, 0.99
    ax.add_patch(FancyBboxPatch((left, 0.03), right - left, 0.94, boxstyle="round,pad=0.01",
                                facecolor="none", edgecolor="0.5", lw=1, ls="--"))
    height = 0.86 / n_workers
    for w in range(n_workers):
        y = 0.91 - (w + 1) * height
        _box(ax, left + 0.02, y + 0.012, right - left - 0.04, height - 0.024,
             f"Worker {w + 1}\ncost $c_{{{w + 1}}}$ (private)", ACTOR_COLORS["workers"],
             fontsize="small")
    ax.text((left + right) / 2, 0.935, "Workers", ha="center", va="center", fontweight="bold")

    start, end = 0.295, 0.705
    top, step = 0.80, 0.13
    for k, (number, to_workers, label) in enumerate(MESSAGES):
        y = top - k * step
        a, b = (start, end) if to_workers else (end, start)
        ax.add_patch(FancyArrowPatch((a, y), (b, y), arrowstyle="-|>", mutation_scale=16,
                                     lw=1.5, color="0.25"))
        ax.text((start + end) / 2, y + 0.025, f"{number}. {label}", ha="center", va="bottom")
    return fig
