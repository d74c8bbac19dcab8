"""The explorer of the sensitivity chapter: pick a parameter, see its runs' outcomes.

It has ``.widget`` (display it), its control as an attribute and ``update()``, which redraws and
returns a plain result (see :mod:`fedlib.viz._explorer`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as widgets

from fedlib.experiments.sensitivity import LABELS, rows_of
from fedlib.viz._explorer import Explorer
from fedlib.viz.sensitivity import parameter_figure
from fedlib.viz.style import WIDE, control_style


@dataclass(frozen=True)
class ParameterRuns:
    """What :class:`SensitivityExplorer` shows: one parameter's values and their outcomes."""

    parameter: str
    values: tuple[float, ...]
    default: float
    share: tuple[float, ...]
    loss: tuple[float, ...]
    paid: tuple[float, ...]


class SensitivityExplorer(Explorer):
    """One parameter of the sweep at a time.

    Parameters
    ----------
    rows : sequence of dict
        :func:`~fedlib.experiments.sensitivity.sensitivity_rows`.
    parameter : str, optional
        Shown first; default the first parameter of ``rows``.

    Controls: ``parameter``, a dropdown of the swept parameters (and the budget when the rows
    hold it).
    """

    def __init__(self, rows: Sequence[Mapping[str, Any]], parameter: str | None = None) -> None:
        super().__init__()
        self.rows = list(rows)
        names = list(dict.fromkeys(r["parameter"] for r in self.rows))
        if parameter is not None and parameter not in names:
            raise ValueError(f"parameter must be one of {names}, got {parameter!r}")
        self.parameter = widgets.Dropdown(
            options=[(LABELS.get(n, n), n) for n in names], value=parameter or names[0],
            description="parameter", **control_style(WIDE))
        self._watch(self.parameter)
        self.widget = widgets.VBox([self.parameter, self.output])
        self.update()

    def update(self) -> ParameterRuns:
        """Collect the chosen parameter's runs and redraw."""
        name = self.parameter.value
        chosen = rows_of(self.rows, name)
        self.result = ParameterRuns(
            name, tuple(r["value"] for r in chosen),
            next(r["value"] for r in chosen if r["default"]),
            tuple(r["share"] for r in chosen), tuple(r["loss"] for r in chosen),
            tuple(r["paid"] for r in chosen))
        self._show(parameter_figure(self.rows, name))
        return self.result
