"""The look of :mod:`fedlib.viz`: the font size and the colour palettes.

Every figure takes its colours and sizes from here, so that a mechanism, a data-accuracy group
or a behaviour has the same colour in every chapter.
"""

from __future__ import annotations

#: Font size of axis labels (titles one or two points larger, ticks one smaller).
FONT = 12

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


def mechanism_style(name: str) -> tuple[str, str, str, float]:
    """(colour, marker, line style, line width) of the mechanism ``name``."""
    return MECHANISM_STYLES.get(name, OTHER_MECHANISM_STYLE)


def group_color(dacc: float) -> str:
    """The colour of the data-accuracy group ``dacc``."""
    return GROUP_COLORS.get(float(dacc), NEUTRAL)

