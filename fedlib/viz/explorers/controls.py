"""The explorers' controls: their widths, and the numbers typed into a text control."""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
import numpy as np

#: Width of a control alone on its row, of one of two side by side, and of a matrix cell.
WIDE, NARROW, CELL = "680px", "340px", "72px"
#: Width of a control's description, and of a long one.
LABEL, LONG_LABEL = "120px", "190px"


def control_style(width: str = NARROW, label: str = LABEL) -> dict[str, Any]:
    """Keyword arguments of an ipywidgets control: its width and its description's width."""
    return {"layout": widgets.Layout(width=width), "style": {"description_width": label}}


def parse_numbers(text: str, name: str) -> np.ndarray:
    """The numbers of a text control, separated by commas, semicolons or spaces."""
    parts = text.replace(";", " ").replace(",", " ").split()
    if not parts:
        raise ValueError(f"{name}: enter at least one number")
    try:
        return np.array([float(p) for p in parts])
    except ValueError:
        raise ValueError(f"{name}: {text!r} is not a list of numbers") from None
