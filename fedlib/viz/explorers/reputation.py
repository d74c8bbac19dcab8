"""Explorers of the reputation chapter: trust from pass/fail counts, and a reputation simulator.

Both are :class:`~fedlib.viz.explorers.Explorer` objects and draw their default on creation.
"""

from __future__ import annotations

from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from fedlib.analysis.reputation_paths import (
    SCRIPTS,
    ReputationPath,
    reputation_path,
    scripted_re,
)
from fedlib.mechanism.reputation import (
    BETA1,
    BETA2,
    INITIAL_REPUTATION,
    THETA,
    gompertz_trust,
    trust_input,
)
from fedlib.viz.explorers.base import Explorer
from fedlib.viz.explorers.controls import WIDE, control_style, parse_numbers
from fedlib.viz.reputation import path_figure, trust_point_figure


@dataclass(frozen=True)
class TrustResult:
    """What :class:`TrustExplorer` shows: the Gompertz input x (Eq. 4) and the trust."""

    n_pass: int
    n_fail: int
    theta: float
    x: float
    trust: float


class TrustExplorer(Explorer[TrustResult]):
    """Trust against theta and the pass/fail counts of one task.

    Controls: ``theta`` (weight of passes), ``n_pass`` and ``n_fail``.
    """

    def __init__(self, n_pass: int = 8, n_fail: int = 2, theta: float = THETA,
                 max_count: int = 20) -> None:
        super().__init__()
        self.max_count = max_count
        self.theta = widgets.FloatSlider(value=theta, min=0.05, max=0.95, step=0.05,
                                         description="theta", **control_style())
        self.n_pass = widgets.IntSlider(value=n_pass, min=0, max=max_count,
                                        description="passed checks", **control_style())
        self.n_fail = widgets.IntSlider(value=n_fail, min=0, max=max_count,
                                        description="failed checks", **control_style())
        self.watch(self.theta, self.n_pass, self.n_fail)
        self.start(self.theta, self.n_pass, self.n_fail)

    def compute(self) -> TrustResult:
        """x and trust for the controls' values."""
        p, f, theta = int(self.n_pass.value), int(self.n_fail.value), float(self.theta.value)
        return TrustResult(p, f, theta, float(trust_input(p, f, theta)),
                           float(gompertz_trust(p, f, theta)))

    def draw(self, result: TrustResult) -> list[Figure]:
        return [trust_point_figure(result.n_pass, result.n_fail, result.theta, self.max_count)]


def parse_sequence(text: str) -> np.ndarray:
    """Internal reputations (in [0, 1]) from text such as ``"0.9, 0.9 0.2; 0.9"``."""
    values = parse_numbers(text, "internal reputations")
    if not np.all(np.isfinite(values)) or values.min() < 0 or values.max() > 1:
        raise ValueError("every internal reputation must lie in [0, 1]")
    return values


class ReputationSimulator(Explorer[ReputationPath]):
    """Edit a worker's internal reputations task by task; see Re, alpha and the counters.

    Controls: ``preset`` (one of the scripted workers, or ``"custom"``), ``sequence`` (comma
    separated re values, editable), ``initial`` (Re^0), ``beta1`` and ``beta2`` (Eq. (11)).
    Choosing a preset writes its sequence into ``sequence``; editing ``sequence`` sets
    ``preset`` to ``"custom"``.
    """

    def __init__(self, preset: str = "turns bad once", n_tasks: int = 16,
                 initial: float = INITIAL_REPUTATION) -> None:
        super().__init__()
        self.n_tasks = n_tasks
        self.preset = widgets.Dropdown(options=(*SCRIPTS, "custom"), value=preset,
                                       description="worker", **control_style())
        self.sequence = widgets.Text(value=self._preset_text(preset), continuous_update=False,
                                     description="re per task", **control_style(WIDE))
        self.initial = widgets.FloatSlider(value=initial, min=0.0, max=1.0, step=0.05,
                                           description="Re^0", **control_style())
        self.beta1 = widgets.FloatSlider(value=BETA1, min=0.05, max=2.0, step=0.05,
                                         description="beta1", **control_style())
        self.beta2 = widgets.FloatSlider(value=BETA2, min=0.05, max=0.95, step=0.05,
                                         description="beta2", **control_style())
        self.watch(self.preset, effect=self._load_preset)
        self.watch(self.sequence, effect=self._mark_custom)
        self.watch(self.initial, self.beta1, self.beta2)
        self.start(widgets.HBox([self.preset, self.initial]), self.sequence,
                   widgets.HBox([self.beta1, self.beta2]))

    def _preset_text(self, preset: str) -> str:
        if preset == "custom":
            return "0.9, 0.9, 0.9, 0.2, 0.9, 0.9, 0.9"
        return ", ".join(f"{v:g}" for v in scripted_re(preset, self.n_tasks,
                                                        bad_task=self.n_tasks // 2))

    def _load_preset(self, preset: str) -> None:
        if preset != "custom":
            self.sequence.value = self._preset_text(preset)

    def _mark_custom(self, _sequence: str) -> None:
        self.preset.value = "custom"

    def compute(self) -> ReputationPath:
        """Eqs. (7)-(13) over the sequence."""
        return reputation_path(parse_sequence(self.sequence.value), float(self.initial.value),
                               beta1=float(self.beta1.value), beta2=float(self.beta2.value))

    def draw(self, result: ReputationPath) -> list[Figure]:
        final = (f"final Re = {result.Re[-1]:.4f} after {len(result)} tasks; "
                 f"mean re = {result.re.mean():.4f}")
        return [path_figure(result, f"Reputation over tasks ({final})")]
