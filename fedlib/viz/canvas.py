"""Whether a figure's text fits its canvas: the check every figure function is tested with.

A legend or a label that reaches past the edge of the figure is cut in the PNG the book shows
(a legend of four columns under a narrow figure, a long title). :func:`outside_canvas` draws a
figure and lists every text, legend and axis (its tick labels and label) whose extent reaches
outside the canvas.
"""

from __future__ import annotations

from matplotlib.axis import Axis
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.text import Text
from matplotlib.transforms import Bbox


def outside_canvas(fig: Figure, tolerance: float = 1.0) -> list[str]:
    """What reaches outside ``fig``'s canvas once it is drawn (an empty list if nothing does).

    Every visible text with characters, every legend (the figure's and the axes') and every
    axis of an axes that shows its axes (their drawn tick labels, their label) is checked; one
    line says what reaches out and where, in pixels at the figure's dpi.

    Parameters
    ----------
    fig : Figure
        The figure; it is drawn on an Agg canvas, which becomes its canvas.
    tolerance : float
        Pixels an extent may pass the edge by (antialiasing).
    """
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    width, height = fig.bbox.width, fig.bbox.height
    found = []

    def check(what: str, box: Bbox | None) -> None:
        if box is None:
            return
        if (box.x0 < -tolerance or box.y0 < -tolerance or box.x1 > width + tolerance
                or box.y1 > height + tolerance):
            found.append(f"{what}: x {box.x0:.0f} to {box.x1:.0f} of {width:.0f} px, "
                         f"y {box.y0:.0f} to {box.y1:.0f} of {height:.0f} px")

    def check_all(where: str, artists: list, axes_drawn: bool = False) -> None:
        for artist in artists:
            if not artist.get_visible():
                continue
            if isinstance(artist, Text) and artist.get_text():
                check(f"{where}text {artist.get_text()!r}", artist.get_window_extent(renderer))
            elif isinstance(artist, Legend):
                check(f"{where}legend", artist.get_window_extent(renderer))
            elif isinstance(artist, Axis) and axes_drawn:
                check(f"{where}{artist.axis_name} axis", artist.get_tightbbox(renderer))

    check_all("figure: ", [*fig.texts, *fig.legends])
    for number, ax in enumerate(fig.axes):
        check_all(f"axes {number} ({ax.get_title() or ax.get_label() or 'untitled'}): ",
                  ax.get_children(), ax.axison)
    return found
