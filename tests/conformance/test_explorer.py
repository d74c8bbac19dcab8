"""The certificate's figures and its explorer, driven headlessly."""

from __future__ import annotations

import pytest
from broken_mechanisms import ExAnte

from fedlib.conformance.explorer import CertificateExplorer
from fedlib.conformance.figures import FAILS, HOLDS, certificate_map, violations_figure
from fedlib.conformance.protocol import claimed
from fedlib.conformance.search import search
from fedlib.viz.canvas import outside_canvas


class Stretched(ExAnte):
    """Selects on ``stretch`` times the budget: overspends above 1."""

    name = "stretched"

    def __init__(self, stretch: float = 1.0) -> None:
        self.stretch = stretch


@pytest.fixture(scope="module")
def searches():
    return [search(Stretched(s), 4, seed=2, timing=False) for s in (1.0, 1.5)]


def test_the_map_marks_what_fails_at_each_value(searches):
    fig = certificate_map(searches, [1.0, 1.5], "stretch", claimed(ExAnte.claims))
    ax = fig.axes[0]
    cells = ax.images[0].get_array()
    row = [t.get_text() for t in ax.get_yticklabels()].index("budget_feasible")
    assert cells[row].tolist() == [False, True]  # holds at 1, fails at 1.5
    assert ax.get_yticklabels()[row].get_fontweight() == "bold"
    texts = [t.get_text() for t in ax.texts]
    assert texts.count("holds") == cells.size - cells.sum()
    assert outside_canvas(fig) == []
    with pytest.raises(ValueError, match="one search per value"):
        certificate_map(searches, [1.0], "stretch", frozenset())


def test_the_violations_figure_colours_each_property(searches):
    fig = violations_figure(searches[1], frozenset({"budget_feasible"}))
    bars = fig.axes[0].patches
    names = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    colours = {name: bar.get_facecolor() for name, bar in zip(names, bars, strict=True)}
    assert colours["budget_feasible"] == pytest.approx(_rgba(FAILS))
    assert colours["truthful"] == pytest.approx(_rgba(HOLDS))
    assert outside_canvas(fig) == []


def _rgba(colour: str) -> tuple[float, ...]:
    from matplotlib.colors import to_rgba

    return to_rgba(colour)


def test_moving_the_slider_changes_the_certificate():
    explorer = CertificateExplorer(Stretched, [1.0, 1.5], 1.0, "stretch", instances=3)
    assert explorer.result.failed == () and "no counterexample" in explorer.summary.value
    explorer.value.value = 1.5
    assert explorer.result.failed == ("budget_feasible",)
    assert "REFUTED" in explorer.summary.value and explorer.figure is not None
    assert explorer.claims == claimed(ExAnte.claims)
