"""The figure check itself: :func:`fedlib.viz.canvas.outside_canvas` finds what is cut and
passes what fits, so the figure tests that assert it empty can fail."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from fedlib.viz.canvas import outside_canvas  # noqa: E402


def _figure(legend_columns: int, title: str = "a title") -> plt.Figure:
    """Four series with long names; a legend of one column fits inside the axes, one of four
    columns centred under them is wider than the figure."""
    fig, ax = plt.subplots(figsize=(4, 3), dpi=100)
    for i in range(4):
        ax.plot([0, 1], [i, i + 1], label=f"a long series name {i}")
    ax.set_title(title)
    if legend_columns == 1:
        ax.legend(loc="upper left", fontsize="x-small")
    else:
        ax.legend(ncols=legend_columns, loc="upper center", bbox_to_anchor=(0.5, -0.15))
    return fig


def test_a_figure_that_fits_passes():
    fig = _figure(legend_columns=1)
    try:
        assert outside_canvas(fig) == []
    finally:
        plt.close(fig)


def test_a_legend_wider_than_the_figure_is_found():
    fig = _figure(legend_columns=4)
    try:
        found = outside_canvas(fig)
    finally:
        plt.close(fig)
    assert any("legend" in line for line in found), found


def test_a_title_past_the_edge_is_found():
    fig = _figure(legend_columns=1, title="a title much too long for a figure four inches "
                                          "wide, which the PNG would cut at both of its edges")
    try:
        found = outside_canvas(fig)
    finally:
        plt.close(fig)
    assert any("a title much too long" in line for line in found), found
