"""An explorer for Figure 4: vary the budget range, the workers and the trials, and redraw.

It is an :class:`~fedlib.viz.explorers.Explorer` and draws its default on creation.
"""

from __future__ import annotations

from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from fedlib.analysis.sweep_results import (
    Per,
    Summary,
    SweepResult,
    budget_exceeded,
    summarize,
)
from fedlib.experiments.auction_sweeps import WorkerDistribution, budget_sweep
from fedlib.viz.explorers.base import Explorer
from fedlib.viz.explorers.controls import control_style
from fedlib.viz.mechanisms import sweep_figure


@dataclass(frozen=True, eq=False)
class SweepView:
    """What :class:`MechanismExplorer` shows.

    Attributes
    ----------
    sweep : SweepResult
        The budget sweep.
    reading : {"payment", "budget"}
        The reading of the metric.
    summary : Summary
        Medians and quartiles in the chosen reading.
    over_budget : dict
        Instances over budget per mechanism (all zero for the paper's mechanisms).
    """

    sweep: SweepResult
    reading: Per
    summary: Summary
    over_budget: dict[str, int]


class MechanismExplorer(Explorer[SweepView]):
    """Figure 4 with its knobs: budget range, number of workers, the workers' distribution
    (reputation range, bid spread, how far ``re`` strays from ``Re``), trials and the reading.

    Every change reruns the sweep (a change of the reading alone reuses it); the default
    figure is drawn on creation.
    """

    def __init__(self, budget_range: tuple[float, float] = (25.0, 250.0), points: int = 10,
                 n_workers: int = 100, trials: int = 50, seed: int = 0) -> None:
        super().__init__()
        paper = WorkerDistribution()
        common = {**control_style(), "continuous_update": False}
        self.budget_range = widgets.FloatRangeSlider(
            value=budget_range, min=5.0, max=500.0, step=5.0, description="budget range B",
            readout_format=".0f", **common)
        self.points = widgets.IntSlider(value=points, min=2, max=20,
                                        description="budgets in range", **common)
        self.n_workers = widgets.IntSlider(value=n_workers, min=5, max=300, step=5,
                                           description="workers n", **common)
        self.Re_range = widgets.FloatRangeSlider(
            value=(paper.Re_low, paper.Re_high), min=0.0, max=1.0, step=0.05,
            description="Re range", readout_format=".2f", **common)
        self.bid_spread = widgets.FloatSlider(
            value=paper.bid_spread, min=0.0, max=3.2, step=0.1,
            description="bid spread", readout_format=".1f", **common)
        self.re_noise = widgets.FloatSlider(value=paper.re_noise, min=0.0, max=0.5, step=0.05,
                                            description="re - Re at most", readout_format=".2f",
                                            **common)
        self.trials = widgets.IntSlider(value=trials, min=1, max=500, step=1,
                                        description="trials per point", **common)
        self.reading = widgets.ToggleButtons(
            options=[("per unit paid", "payment"), ("per unit of budget", "budget")],
            value="payment", description="reading", style=common["style"])
        self.seed = widgets.BoundedIntText(value=seed, min=0, max=2**31 - 1,
                                           description="seed", **control_style())
        self.watch(self.budget_range, self.points, self.n_workers, self.Re_range,
                   self.bid_spread, self.re_noise, self.trials, self.reading, self.seed)
        note = widgets.HTML(
            "<small>Workers: Re ~ U[Re range]; bid ~ U[10/3 Re + 5/3 -/+ spread/2] (the "
            "paper: spread 2); re ~ U[Re -/+ stray] clipped to [0, 1]. Defaults are the "
            "paper's.</small>")
        self._cache: tuple[tuple, SweepResult] | None = None
        self.start(widgets.HBox([widgets.VBox([self.budget_range, self.points, self.n_workers,
                                               self.trials]),
                                 widgets.VBox([self.Re_range, self.bid_spread, self.re_noise,
                                               self.seed])]),
                   self.reading, note)

    def distribution(self) -> WorkerDistribution:
        """The worker distribution the controls describe (raises ValueError if impossible)."""
        low, high = self.Re_range.value
        return WorkerDistribution(Re_low=float(low), Re_high=float(high),
                                  re_noise=float(self.re_noise.value)).with_bid_spread(
            float(self.bid_spread.value))

    def budgets(self) -> tuple[float, ...]:
        """The budgets of the sweep: ``points`` evenly spaced over the range."""
        low, high = self.budget_range.value
        return tuple(float(b) for b in np.unique(np.linspace(low, high, self.points.value)))

    def compute(self) -> SweepView:
        """The sweep for the current controls (the last one again when only the reading
        changed)."""
        distribution = self.distribution()
        key = (self.budgets(), self.n_workers.value, self.trials.value, self.seed.value,
               distribution)
        if self._cache is None or self._cache[0] != key:
            self._cache = (key, budget_sweep(key[0], key[1], trials=key[2], seed=key[3],
                                             distribution=distribution))
        result, reading = self._cache[1], self.reading.value
        return SweepView(result, reading, summarize(result, reading), budget_exceeded(result))

    def draw(self, result: SweepView) -> list[Figure]:
        return [sweep_figure(result.sweep, result.reading)]

    def describe(self, result: SweepView) -> str:
        sweep = result.sweep
        return (f"<small>{sweep.trials} trials x {len(sweep.xs)} budgets x "
                f"{len(sweep.mechanisms)} mechanisms in {sweep.wall_time_s:.1f} s</small>")
