"""What the explorers of :mod:`fedlib.viz` share: an Output that shows the latest figure.

An explorer is a small class with ``.widget`` (the ipywidgets container to display), its controls
as attributes, and ``update()``, which recomputes, returns a plain result object and redraws the
Output. The figure is written into the Output's ``outputs`` as a PNG, so it shows the same in a
live kernel, in a notebook executed by nbclient (the built book keeps the widget state) and in a
headless test, where ``figure`` and ``result`` can be inspected directly.

Every explorer is shown with :meth:`Explorer.show`, which puts the one standard caption above it
(:func:`explorer_caption`): what it shows, and that the HTML book keeps its default state. An
explorer whose only control is a choice among a few options is better drawn as
:func:`figure_tabs`: every option's figure drawn once, so that the tabs work without a kernel.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import HTML, display
from matplotlib.figure import Figure

#: Said beside every explorer: the saved widget state moves but recomputes nothing in the HTML.
FROZEN = ("In JupyterLab (see the introduction) its controls recompute it; in the HTML book "
          "they move, but it stays at its default.")
#: Said beside pre-drawn tabs (:func:`figure_tabs`), which work in the HTML book as well.
PREDRAWN = "Every tab was drawn when the page was built: the tabs work here and in JupyterLab."


def figure_output(fig: Figure, dpi: int = 72) -> dict[str, Any]:
    """A figure as a notebook ``display_data`` output (PNG and a text fallback)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    png = base64.b64encode(buffer.getvalue()).decode("ascii")
    return {"output_type": "display_data", "metadata": {},
            "data": {"image/png": png, "text/plain": repr(fig)}}


def parse_numbers(text: str, name: str) -> np.ndarray:
    """The numbers of a text control, separated by commas, semicolons or spaces.

    Raises
    ------
    ValueError
        Naming the control ``name``, if there is no number or a part is not one.
    """
    parts = text.replace(";", " ").replace(",", " ").split()
    if not parts:
        raise ValueError(f"{name}: enter at least one number")
    try:
        return np.array([float(p) for p in parts])
    except ValueError:
        raise ValueError(f"{name}: {text!r} is not a list of numbers") from None


def explorer_caption(text: str, note: str = FROZEN) -> HTML:
    """The caption of an explorer or of pre-drawn tabs: ``text`` (what it shows), then ``note``.

    It is HTML with the class ``explorer-caption``, which the book's browser test looks for: an
    image inside a widget counts as captioned only in a cell that holds one.

    Raises
    ------
    ValueError
        If ``text`` is empty.
    """
    if not text.strip():
        raise ValueError("an explorer's caption must say what it shows")
    return HTML(f'<p class="explorer-caption"><strong>Explorer.</strong> {text} '
                f"<em>{note}</em></p>")


def figure_tabs(panels: dict[str, Callable[[], Figure]]) -> widgets.Tab:
    """One tab per option, each holding its figure, drawn now (``panels[title]()``).

    Switching tabs needs no kernel, so the tabs work in the HTML book too; use them instead of a
    dropdown-only explorer. The figures are closed once drawn.

    Raises
    ------
    ValueError
        If there is no panel.
    """
    if not panels:
        raise ValueError("figure_tabs needs at least one panel")
    outputs = []
    for draw in panels.values():
        fig = draw()
        outputs.append(widgets.Output(outputs=(figure_output(fig),)))
        plt.close(fig)
    return widgets.Tab(children=outputs, titles=tuple(panels))


def message_output(text: str) -> dict[str, Any]:
    """A plain-text ``stream`` output (e.g. why the controls' values are not usable)."""
    return {"output_type": "stream", "name": "stdout", "text": text + "\n"}


class Explorer:
    """Base of the explorers: an Output, the last figure and result, and control wiring."""

    def __init__(self) -> None:
        self.output = widgets.Output()
        self.figure: Figure | None = None
        self.result: Any = None
        self.widget: widgets.Widget = widgets.VBox()
        self._quiet = False

    def _watch(self, *controls: widgets.ValueWidget,
               effect: Callable[[Any], None] | None = None) -> None:
        """Call :meth:`update` whenever one of ``controls`` changes value.

        ``effect(new_value)``, if given, runs first: it may set other controls (a preset that
        fills a text box), which then do not update on their own.
        """
        def changed(change: dict[str, Any]) -> None:
            if self._quiet:
                return
            if effect is not None:
                self._quiet = True
                try:
                    effect(change["new"])
                finally:
                    self._quiet = False
            self.update()

        for control in controls:
            control.observe(changed, names="value")

    def _show(self, *figures: Figure, message: str = "") -> None:
        """Replace the Output's content with ``message`` (if any) and ``figures``; the first
        figure (None if there is none) becomes :attr:`figure`."""
        self.figure = figures[0] if figures else None
        outputs = [message_output(message)] if message else []
        outputs += [figure_output(fig) for fig in figures]
        self.output.outputs = tuple(outputs)

    def show(self, caption: str) -> None:
        """Display the explorer under its caption (see :func:`explorer_caption`)."""
        display(explorer_caption(caption), self.widget)

    def update(self) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError
