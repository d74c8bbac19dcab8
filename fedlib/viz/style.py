"""The look of :mod:`fedlib.viz`: one matplotlib style and the colour palettes.

Every figure function is decorated with :func:`styled`, which builds its figure under
:data:`STYLE` (font sizes, a light grid), so that no figure sets a font size, a grid or a tick
size of its own; the figures are 8 to 10 inches wide and shown at the width of the text
column, where these sizes read at 9 points or more. A figure takes its colours from the
palettes here, so that a mechanism, a data-accuracy group or a behaviour has the same colour
in every chapter.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec

import matplotlib as mpl
from matplotlib.axes import Axes
from matplotlib.figure import Figure

#: The matplotlib settings every figure is built under: text at 12 points (titles 13, the
#: figure's title 14, tick labels and legends 11) and a light grid on every axes (heat maps
#: and diagrams turn it off).
STYLE = {
    "font.size": 12,
    "axes.titlesize": 13,
    "axes.labelsize": 12,
    "xtick.labelsize": 11,
    "ytick.labelsize": 11,
    "legend.fontsize": 11,
    "legend.title_fontsize": 11,
    "figure.titlesize": 14,
    "axes.grid": True,
    "grid.alpha": 0.3,
}

P = ParamSpec("P")


def styled(draw: Callable[P, Figure]) -> Callable[P, Figure]:
    """Decorate a figure function: its figure is built under :data:`STYLE`.

    Matplotlib reads the settings when an artist is created, so the figure keeps the style
    wherever it is drawn later; the settings of the caller are left as they were.
    """
    @functools.wraps(draw)
    def build(*args: P.args, **kwargs: P.kwargs) -> Figure:
        with mpl.rc_context(STYLE):
            return draw(*args, **kwargs)

    return build

#: One colour per series, colour-blind safe (Okabe-Ito).
OKABE_ITO = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")

#: Line style of each mechanism: (colour, marker, line style, line width).
MECHANISM_STYLES: dict[str, tuple[str, str, str, float]] = {
    "ours": ("#d62728", "o", "-", 2.8),
    "rrafl": ("#ff7f0e", "s", "--", 1.8),
    "vanilla": ("#7f7f7f", "v", "-", 1.5),
    "proportional_share": ("#9467bd", "D", "-", 1.5),
    "bid_greedy": ("#2ca02c", "^", "-", 1.5),
    "reputation_greedy": ("#1f77b4", "P", "-", 1.8),
    "approx_optimal": ("#000000", "*", ":", 1.8),
    "approx_optimal_exact": ("#8c564b", "X", ":", 1.5),
}
#: The style of a mechanism :data:`MECHANISM_STYLES` does not list.
OTHER_MECHANISM_STYLE = ("#17becf", ".", "-", 1.5)

#: Colour of each data-accuracy group (dacc), from good data (green) to bad (dark red).
GROUP_COLORS = {1.0: "#1a9850", 0.7: "#4575b4", 0.4: "#f46d43", 0.1: "#a50026"}
#: Colour of what has no colour of its own (a group, a dataset).
NEUTRAL = "#7f7f7f"
#: Colour of each dataset.
DATASET_COLORS = {"mnist": "#1f77b4", "fashion": "#d62728"}
#: Colours of the behaviour groups of the adversarial chapter (honest groups by their dacc).
BEHAVIOUR_COLORS = {"free_rider": "#6a3d9a", "noise": "#b15928", "label_flip": "#e7298a",
                    "quality_drop": "#ff7f00",
                    **{f"dacc {d:.1f}": color for d, color in GROUP_COLORS.items()}}
#: Colours of parameter values below and above the default, and of the default.
BELOW_DEFAULT, ABOVE_DEFAULT, AT_DEFAULT = "#4575b4", "#d73027", "black"
#: Colours of the bars and markers of Algorithm 1's figures.
WINNER, LOSER, NEXT = "#2a9d8f", "#c8c8c8", "#e9c46a"
HONEST, DISHONEST = "#264653", "#e76f51"
EX_ANTE, EX_POST, COST = "#8ab17d", "#287271", "#6c757d"
#: Colour of the critical values in Algorithm 1's figures (rho*, the critical bid).
CRITICAL = "#d62828"


def two_column_panels(n_panels: int, *, panel_height: float, width: float,
                      extra: float) -> tuple[Figure, list[Axes]]:
    """A figure ``width`` inches wide of ``n_panels`` axes in two columns, ``panel_height``
    inches per row plus ``extra`` (a spare last cell removed)."""
    n_rows = (n_panels + 1) // 2
    fig = Figure(figsize=(width, panel_height * n_rows + extra), layout="constrained")
    grid = fig.subplots(n_rows, 2, squeeze=False).ravel()
    for spare in grid[n_panels:]:
        spare.remove()
    return fig, list(grid[:n_panels])


def mechanism_style(name: str) -> tuple[str, str, str, float]:
    """(colour, marker, line style, line width) of the mechanism ``name``."""
    return MECHANISM_STYLES.get(name, OTHER_MECHANISM_STYLE)


def group_color(dacc: float) -> str:
    """The colour of the data-accuracy group ``dacc``."""
    return GROUP_COLORS.get(float(dacc), NEUTRAL)

