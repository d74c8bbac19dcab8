"""The pieces every explorer shares: its caption and pre-drawn figure tabs."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest

from fedlib.viz._explorer import FROZEN, PREDRAWN, explorer_caption, figure_tabs


def _line(slope: float):
    def draw():
        fig, ax = plt.subplots()
        ax.plot([0, 1], [0, slope])
        return fig
    return draw


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
