"""Explorer of the Shapley chapter: every measure against the exact Shapley value, by case and
round (see :mod:`fedlib.viz._explorer` for the explorer conventions)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as widgets
import numpy as np

from fedlib.experiments.shapley_truth import agreement, game_values
from fedlib.viz._explorer import Explorer
from fedlib.viz.shapley import worker_figure
from fedlib.viz.style import control_style


@dataclass(frozen=True, eq=False)
class ShapleyView:
    """What :class:`ShapleyExplorer` shows.

    Attributes
    ----------
    case : int
    round_index : int or None
        None: the task (mean over rounds).
    shapley : numpy.ndarray
        (seeds, workers) exact Shapley values.
    spearman : dict
        Measure -> mean Spearman correlation with the Shapley values over seeds.
    """

    case: int
    round_index: int | None
    shapley: np.ndarray
    spearman: dict[str, float]


class ShapleyExplorer(Explorer):
    """Pick a case and the task or one round; see each measure against the Shapley values.

    Parameters
    ----------
    records : sequence of mapping
        Records of :func:`fedlib.experiments.shapley_truth.run_shapley_truth`.
    """

    def __init__(self, records: Sequence[Mapping[str, Any]]) -> None:
        super().__init__()
        self.records = list(records)
        if not self.records:
            raise ValueError("records must not be empty")
        rounds = len(self.records[0]["v_empty"])
        self.case = widgets.Dropdown(options=sorted({r["case"] for r in self.records}),
                                     description="case", **control_style())
        self.round = widgets.Dropdown(
            options=[("task (mean)", -1)] + [(f"round {t + 1}", t) for t in range(rounds)],
            value=-1, description="game", **control_style())
        self._watch(self.case, self.round)
        self.widget = widgets.VBox([widgets.HBox([self.case, self.round]), self.output])
        self.update()

    def update(self) -> ShapleyView:
        """Redraw for the chosen case and game; return what is shown."""
        round_index = None if self.round.value < 0 else self.round.value
        values = game_values([r for r in self.records if r["case"] == self.case.value],
                             round_index)
        shapley = np.array([v["shapley"] for v in values])
        spearman = {m: float(np.nanmean(v)) for m, v in agreement(values).items()}
        self.result = ShapleyView(self.case.value, round_index, shapley, spearman)
        self._show(worker_figure(self.records, self.case.value, round_index))
        return self.result
