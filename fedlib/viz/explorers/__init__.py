"""Explorers: ipywidgets controls that recompute and redraw a figure of :mod:`fedlib.viz`.

The one base (:class:`Explorer`), the caption every explorer is shown under
(:func:`explorer_caption`) and pre-drawn tabs (:func:`figure_tabs`) are here; the explorers of
each chapter are in the modules of this package (``fedlib.viz.explorers.auction`` and so on).
This is the only part of :mod:`fedlib.viz` that imports ipywidgets: the figure modules import
matplotlib alone.
"""

from fedlib.viz.explorers.base import (
    FROZEN,
    PREDRAWN,
    REFUSED,
    Explorer,
    explorer_caption,
    figure_tabs,
)

__all__ = ["FROZEN", "PREDRAWN", "REFUSED", "Explorer", "explorer_caption", "figure_tabs"]
