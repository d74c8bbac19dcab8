"""Figures of certificates: which properties hold as a mechanism's parameter moves, how
often each one is violated, and the ex-post regret against the number of workers.

Pure functions of :class:`~fedlib.conformance.search.Search` results returning
:class:`matplotlib.figure.Figure`; green means no counterexample was found, red that one was.
Claimed properties are named in bold. All are built under :data:`fedlib.viz.style.STYLE`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from fedlib.conformance.search import PAPER_SIZES, Search
from fedlib.mechanism.properties import RTOL
from fedlib.viz.style import styled

#: Colours of a property that holds and of one that fails.
HOLDS, FAILS = "#1b7837", "#b2182b"


def _shares(result: Search) -> tuple[list[str], np.ndarray]:
    """The properties judged and the share of their checked cases that violate them."""
    names = [v.property for v in result.verdicts]
    return names, np.array([v.violations / v.checks if v.checks else 0.0
                            for v in result.verdicts])


def _bold_claimed(labels: Sequence, claims: frozenset[str]) -> None:
    for label in labels:
        if label.get_text() in claims:
            label.set_fontweight("bold")


@styled
def certificate_map(results: Sequence[Search], values: Sequence[float], parameter: str,
                    claims: frozenset[str]) -> Figure:
    """One column per value of a mechanism's parameter, one row per property: green where no
    counterexample was found, red where one was, with the share of the checked cases that
    violate it written in the cell.

    Parameters
    ----------
    results : sequence of Search
        One search per value, in the order of ``values``.
    values : sequence of float
        The parameter's values.
    parameter : str
        Its name, for the axis.
    claims : frozenset of str
        The claimed properties (their names in bold).
    """
    if not results or len(results) != len(values):
        raise ValueError("certificate_map needs one search per value (at least one)")
    names = _shares(results[0])[0]
    shares = np.array([_shares(r)[1] for r in results]).T
    fig = Figure(figsize=(9, 0.45 * len(names) + 2), layout="constrained")
    ax = fig.subplots()
    ax.imshow(shares > 0, cmap=ListedColormap([HOLDS, FAILS]), vmin=0, vmax=1, aspect="auto")
    for (i, j), share in np.ndenumerate(shares):
        ax.text(j, i, f"{share:.0%}" if share else "holds", ha="center", va="center",
                color="white")
    ax.set_xticks(range(len(values)), [f"{v:g}" for v in values])
    ax.set_yticks(range(len(names)), names)
    ax.grid(False)
    _bold_claimed(ax.get_yticklabels(), claims)
    ax.set_xlabel(parameter)
    ax.set_title("Counterexamples found (share of the cases checked), claimed properties in "
                 "bold")
    return fig


@styled
def violations_figure(result: Search, claims: frozenset[str]) -> Figure:
    """The share of checked cases that violate each property, one bar per property (red:
    violated somewhere, green: no counterexample), claimed properties in bold."""
    names, shares = _shares(result)
    fig = Figure(figsize=(8, 0.4 * len(names) + 1.6), layout="constrained")
    ax = fig.subplots()
    rows = np.arange(len(names))
    ax.barh(rows, shares, color=[FAILS if s > 0 else HOLDS for s in shares])
    for row, share in zip(rows, shares, strict=True):
        ax.text(share, row, f" {share:.1%}" if share else " holds", va="center")
    ax.set_yticks(rows, names)
    ax.invert_yaxis()
    _bold_claimed(ax.get_yticklabels(), claims)
    ax.set_xlim(0, max(0.1, float(shares.max()) * 1.25))
    ax.set_xlabel("share of the cases checked that violate the property")
    ax.set_title(f"{result.mechanism}: {result.cases} instances searched")
    return fig


@styled
def regret_figure(result: Search) -> Figure:
    """Each instance's largest ex-post regret (Eq. (1) utilities; relative to the worker's
    true cost) against its number of workers, the paper's 30-100 shaded, red above the
    relative tolerance ``RTOL``: a mechanism whose incentives break only at scale shows its
    regret rising on the right."""
    records = result.records
    if not records:
        raise ValueError("regret_figure needs a search with at least one instance")
    n = np.array([r.n for r in records])
    regret = np.array([r.relative_regret for r in records])
    fig = Figure(figsize=(8, 3.6), layout="constrained")
    ax = fig.subplots()
    ax.axvspan(*PAPER_SIZES, color="#dddddd", label="the paper's 30-100 workers")
    ax.scatter(n, regret, s=14, color=[FAILS if r > RTOL else HOLDS for r in regret])
    ax.set_xscale("log")
    ax.set_xlabel("workers in the instance")
    ax.set_ylabel("largest regret / cost")
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.legend(loc="upper left")
    ax.set_title(f"{result.mechanism}: ex-post regret of the examined workers, "
                 f"{len(records)} instances")
    return fig
