"""A mechanism of one's own beside the paper's seven in the Figures 4-5 sweeps.

Both sweeps of :mod:`fedlib.experiments.auction_sweeps` (the budget at 100 workers, the number
of workers at B = 125, on the paper's synthetic workers) with the user's mechanism registered
next to :data:`~fedlib.experiments.auction_sweeps.SEVEN`: every mechanism plays the same
workers, so the curves differ only by the mechanisms. The figures are those of chapter 6
(:mod:`fedlib.viz.mechanisms`): the utility of unit payments, and what lies behind it (winners,
share of the budget paid, reputation per unit of cost, markup).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from fedlib.analysis.sweep_results import SweepResult, summarize
from fedlib.experiments.auction_sweeps import SEVEN, budget_sweep, worker_sweep
from fedlib.mechanism.mechanisms import MECHANISMS, registered
from fedlib.paper.settings import FIG4_WORKERS, FIG5_BUDGET, PAPER_BUDGETS, PAPER_WORKERS
from fedlib.table import Table
from fedlib.viz.mechanisms import spending_figure, sweep_figure

#: Trials per point of each sweep by default (chapter 6 runs 1000).
DEFAULT_TRIALS = 200
#: What :meth:`Comparison.table` averages over each sweep's points.
COLUMNS = {"metric": "utility per unit paid", "winners": "winners",
           "budget_used": "share of B paid"}


@dataclass(frozen=True, eq=False)
class Comparison:
    """Both sweeps with the user's mechanism among the seven.

    Attributes
    ----------
    mechanism
        The user's mechanism (registered again to draw the figures, which read its label).
    budget, workers : SweepResult
        Figure 4's sweep (the budget) and Figure 5's (the number of workers).
    """

    mechanism: Any
    budget: SweepResult
    workers: SweepResult

    def figures(self) -> dict[str, Figure]:
        """Captioned figures: the metric against the budget and against ``n``, and what lies
        behind it against both."""
        with registered(self.mechanism):
            return {
                "The utility of unit payments against the budget (Figure 4's setting)":
                    sweep_figure(self.budget),
                "The utility of unit payments against the number of workers (Figure 5's "
                "setting)": sweep_figure(self.workers),
                "Winners, share of the budget paid, reputation per unit of cost and markup "
                "against the budget": spending_figure(self.budget),
                "The same against the number of workers": spending_figure(self.workers)}

    def table(self) -> Table:
        """Per mechanism, the medians over the trials averaged over each sweep's points."""
        rows = []
        for name in self.budget.mechanisms:
            row: list[Any] = [self.mechanism.label if name == self.mechanism.name
                              else MECHANISMS[name].label]
            for result in (self.budget, self.workers):
                for quantity in COLUMNS:
                    median = summarize(result, quantity=quantity).row(name)  # type: ignore[arg-type]
                    row.append(float(np.nanmean(median)) if np.isfinite(median).any()
                               else float("nan"))
            rows.append(tuple(row))
        columns = [f"{what}, {sweep}" for sweep in ("budget sweep", "worker sweep")
                   for what in COLUMNS.values()]
        return Table(("mechanism", *columns), tuple(rows), digits=3,
                     title=f"Medians over {self.budget.trials} trials, averaged over the "
                           "points of each sweep")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: :meth:`table`'s rows, and each sweep's summary records."""
        table = self.table()
        return {"trials": self.budget.trials, "columns": list(table.columns),
                "rows": [list(row) for row in table.rows],
                "budget_sweep": self.budget.summary_records(),
                "worker_sweep": self.workers.summary_records()}


def compare(mechanism: Any, trials: int = DEFAULT_TRIALS, seed: int = 0) -> Comparison:
    """Run both sweeps (the paper's budgets and numbers of workers) with the seven and
    ``mechanism``, ``trials`` worker pools per point."""
    names = (*SEVEN, mechanism.name)
    with registered(mechanism):
        budget = budget_sweep(PAPER_BUDGETS, FIG4_WORKERS, trials=trials, seed=seed,
                              mechanisms=names)
        workers = worker_sweep(PAPER_WORKERS, FIG5_BUDGET, trials=trials, seed=seed,
                               mechanisms=names)
    return Comparison(mechanism, budget, workers)
