"""The pieces every explorer shares: the base (controls, compute, draw, errors shown as a
message), its caption and pre-drawn figure tabs."""

from __future__ import annotations

import ipywidgets as widgets
import matplotlib.pyplot as plt
import pytest
from matplotlib.figure import Figure

from fedlib.viz.explorers import (
    FROZEN,
    PREDRAWN,
    REFUSED,
    Explorer,
    explorer_caption,
    figure_tabs,
)


def _line(slope: float):
    def draw():
        fig, ax = plt.subplots()
        ax.plot([0, 1], [0, slope])
        return fig
    return draw


class _Slope(Explorer[float]):
    """A line of the chosen slope; a preset fills the slope; negative slopes are refused."""

    def __init__(self) -> None:
        super().__init__()
        self.computed = 0
        self.slope = widgets.FloatText(value=1.0)
        self.preset = widgets.Dropdown(options=[("flat", 0.0), ("steep", 5.0)], value=None)
        self.watch(self.preset, effect=self._load)
        self.watch(self.slope)
        self.start(self.preset, self.slope)

    def _load(self, value: float) -> None:
        self.slope.value = value

    def compute(self) -> float:
        self.computed += 1
        if self.slope.value < 0:
            raise ValueError("the slope must be non-negative")
        return float(self.slope.value)

    def draw(self, result: float) -> list[Figure]:
        fig = Figure()
        fig.subplots().plot([0, 1], [0, result])
        return [fig]

    def describe(self, result: float) -> str:
        return f"<b>slope {result:g}</b>"


def test_an_explorer_computes_draws_and_describes_on_every_change():
    explorer = _Slope()
    assert explorer.result == 1.0 and explorer.error is None and explorer.computed == 1
    assert explorer.widget.children == (explorer.preset, explorer.slope, explorer.summary,
                                        explorer.output)
    first = explorer.output.outputs[0]["data"]["image/png"]
    explorer.slope.value = 2.0
    assert explorer.result == 2.0 and explorer.summary.value == "<b>slope 2</b>"
    assert explorer.figure.axes[0].get_lines()[0].get_ydata()[1] == 2.0
    assert explorer.output.outputs[0]["data"]["image/png"] != first


def test_values_that_cannot_be_used_are_shown_as_a_message():
    explorer = _Slope()
    explorer.slope.value = -1.0
    assert explorer.result is None and explorer.figure is None and explorer.summary.value == ""
    assert explorer.error == "the slope must be non-negative"
    assert explorer.output.outputs == ({"output_type": "stream", "name": "stdout",
                                        "text": f"{REFUSED}: the slope must be non-negative\n"},)
    explorer.slope.value = 3.0
    assert explorer.result == 3.0 and explorer.error is None and explorer.figure is not None


def test_an_effect_sets_other_controls_and_updates_once():
    explorer = _Slope()
    explorer.preset.value = 5.0
    assert explorer.slope.value == 5.0 and explorer.result == 5.0
    assert explorer.computed == 2  # on creation, then once for the preset and its slope


def test_caption_says_what_and_that_the_html_is_frozen():
    html = explorer_caption("Payments against the budget.").data
    assert 'class="explorer-caption"' in html
    assert "Payments against the budget." in html and FROZEN in html
    assert PREDRAWN in explorer_caption("Tabs.", PREDRAWN).data


@pytest.mark.parametrize("text", ["", "   "])
def test_caption_must_say_something(text):
    with pytest.raises(ValueError, match="must say what it shows"):
        explorer_caption(text)


def test_figure_tabs_hold_one_drawn_figure_per_option():
    open_before = len(plt.get_fignums())
    tabs = figure_tabs({"flat": _line(0.0), "steep": _line(2.0)})
    assert tabs.titles == ("flat", "steep")
    images = [child.outputs[0]["data"]["image/png"] for child in tabs.children]
    assert len(images) == 2 and images[0] != images[1]
    assert len(plt.get_fignums()) == open_before  # drawn, then closed


def test_figure_tabs_need_a_panel():
    with pytest.raises(ValueError, match="at least one panel"):
        figure_tabs({})
