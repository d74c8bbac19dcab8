"""The explorers' controls: their widths, and the numbers typed into a text control."""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
import numpy as np

#: Width of a control alone on its row and of one of two side by side: a share of the column
#: the widget is drawn in (less its margins), and at most a fixed width, so that a control fits
#: a narrow page (the book's column) and does not stretch across a wide one (JupyterLab's).
WIDE, NARROW = ("calc(100% - 4px)", "680px"), ("calc(50% - 4px)", "340px")
#: Width of a matrix cell.
CELL = "72px"
#: Width of a control's description, and of a long one.
LABEL, LONG_LABEL = "120px", "190px"


def control_style(width: tuple[str, str] = NARROW, label: str = LABEL) -> dict[str, Any]:
    """Keyword arguments of an ipywidgets control: its width (:data:`WIDE` or :data:`NARROW`)
    and its description's width."""
    share, most = width
    return {"layout": widgets.Layout(width=share, max_width=most),
            "style": {"description_width": label}}


def parse_numbers(text: str, name: str) -> np.ndarray:
    """The numbers of a text control, separated by commas, semicolons or spaces."""
    parts = text.replace(";", " ").replace(",", " ").split()
    if not parts:
        raise ValueError(f"{name}: enter at least one number")
    try:
        return np.array([float(p) for p in parts])
    except ValueError:
        raise ValueError(f"{name}: {text!r} is not a list of numbers") from None
