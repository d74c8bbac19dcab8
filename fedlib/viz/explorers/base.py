"""The one base of the explorers, their caption, and pre-drawn figure tabs.

An explorer (:class:`Explorer`) is controls, a compute function and a draw function. A subclass
creates its controls, wires them with :meth:`Explorer.watch`, and calls :meth:`Explorer.start`
with the rows of its layout; it defines :meth:`~Explorer.compute` (the result for the controls'
values, raising ``ValueError`` when they cannot be used), :meth:`~Explorer.draw` (the result's
figures, from :mod:`fedlib.viz`'s figure functions) and, if it has one, the HTML summary of
:meth:`~Explorer.describe`. Every change of a watched control calls :meth:`~Explorer.update`:
compute, then draw, or show why the values cannot be used. The figures are written into an
Output's ``outputs`` as PNG, so they show the same in a live kernel, in a notebook executed by
nbclient (the built book keeps the widget state) and in a headless test, where
:attr:`~Explorer.result`, :attr:`~Explorer.error` and :attr:`~Explorer.figure` can be inspected.

Every explorer is shown with :meth:`Explorer.show`, which puts the one standard caption above it
(:func:`explorer_caption`): what it shows, and that the HTML book keeps its default state. An
explorer whose only control is a choice among a few options is better drawn as
:func:`figure_tabs`: every option's figure drawn once, so that the tabs work without a kernel.
"""

from __future__ import annotations

import base64
import io
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

import ipywidgets as widgets
import matplotlib.pyplot as plt
from IPython.display import HTML, display
from matplotlib.figure import Figure

#: Said beside every explorer: the saved widget state moves but recomputes nothing in the HTML.
FROZEN = ("In JupyterLab (see the introduction) its controls recompute it; in the HTML book "
          "they move, but it stays at its default.")
#: Said beside pre-drawn tabs (:func:`figure_tabs`), which work in the HTML book as well.
PREDRAWN = "Every tab was drawn when the page was built: the tabs work here and in JupyterLab."
#: What an explorer says, before the reason, when its controls' values cannot be used.
REFUSED = "Cannot use these values"

R = TypeVar("R")


def figure_output(fig: Figure, dpi: int = 72) -> dict[str, Any]:
    """A figure as a notebook ``display_data`` output (PNG and a text fallback)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    png = base64.b64encode(buffer.getvalue()).decode("ascii")
    return {"output_type": "display_data", "metadata": {},
            "data": {"image/png": png, "text/plain": repr(fig)}}


def message_output(text: str) -> dict[str, Any]:
    """A plain-text ``stream`` output (e.g. why the controls' values are not usable)."""
    return {"output_type": "stream", "name": "stdout", "text": text + "\n"}


def explorer_caption(text: str, note: str = FROZEN) -> HTML:
    """The caption of an explorer or of pre-drawn tabs: ``text`` (what it shows), then ``note``.

    It is HTML with the class ``explorer-caption``, which the book's browser test looks for: an
    image inside a widget counts as captioned only in a cell that holds one.
    """
    if not text.strip():
        raise ValueError("an explorer's caption must say what it shows")
    return HTML(f'<p class="explorer-caption"><strong>Explorer.</strong> {text} '
                f"<em>{note}</em></p>")


def figure_tabs(panels: dict[str, Callable[[], Figure]]) -> widgets.Tab:
    """One tab per option, each holding its figure, drawn now (``panels[title]()``).

    Switching tabs needs no kernel, so the tabs work in the HTML book too; use them instead of a
    dropdown-only explorer. The figures are closed once drawn (those made with pyplot would
    otherwise show again under the cell).
    """
    if not panels:
        raise ValueError("figure_tabs needs at least one panel")
    outputs = []
    for draw in panels.values():
        fig = draw()
        outputs.append(widgets.Output(outputs=(figure_output(fig),)))
        plt.close(fig)
    return widgets.Tab(children=outputs, titles=tuple(panels))


class Explorer(ABC, Generic[R]):
    """Controls, a compute function and a draw function; values that cannot be used are shown
    as a message.

    Attributes
    ----------
    widget : ipywidgets.VBox
        What to display: the layout's rows, then :attr:`summary`, then :attr:`output`.
    summary : ipywidgets.HTML
        :meth:`describe` of the last result (empty when there is none).
    output : ipywidgets.Output
        The last result's figures, or the message saying why there is no result.
    result : R or None
        The last result (None when the controls' values could not be used).
    error : str or None
        Why they could not (None when they could).
    figure : Figure or None
        The first figure drawn for :attr:`result`.
    """

    def __init__(self) -> None:
        self.output = widgets.Output()
        self.summary = widgets.HTML()
        self.widget = widgets.VBox()
        self.result: R | None = None
        self.error: str | None = None
        self.figure: Figure | None = None
        self._quiet = False

    @abstractmethod
    def compute(self) -> R:
        """The result for the controls' current values (no drawing).

        Raises
        ------
        ValueError
            If the values cannot be used; its message is shown instead of the figures.
        """

    @abstractmethod
    def draw(self, result: R) -> Sequence[Figure]:
        """The figures of ``result``, in the order they are shown."""

    def describe(self, result: R) -> str:
        """The HTML summary shown between the controls and the figures (default: none)."""
        return ""

    def watch(self, *controls: widgets.ValueWidget,
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

    def start(self, *rows: widgets.Widget) -> None:
        """Lay out ``rows`` (the controls, one row each) above the summary and the output,
        and draw the controls' initial values."""
        self.widget.children = (*rows, self.summary, self.output)
        self.update()

    def update(self) -> R | None:
        """Compute and draw for the controls' current values; the result, or None (with
        :attr:`error` saying why) when they cannot be used."""
        try:
            result = self.compute()
        except ValueError as err:
            self.result, self.error, self.figure = None, str(err), None
            self.summary.value = ""
            self.output.outputs = (message_output(f"{REFUSED}: {err}"),)
            return None
        figures = list(self.draw(result))
        self.result, self.error = result, None
        self.figure = figures[0] if figures else None
        self.summary.value = self.describe(result)
        self.output.outputs = tuple(figure_output(fig) for fig in figures)
        return result

    def show(self, caption: str) -> None:
        """Display the explorer under its caption (see :func:`explorer_caption`)."""
        display(explorer_caption(caption), self.widget)
