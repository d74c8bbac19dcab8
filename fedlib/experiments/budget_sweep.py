"""How Tables 1 and 2 depend on the budget, which the paper does not state.

:class:`BudgetSweepConfig` is the multi-task experiment of Tables 1-3
(:mod:`fedlib.experiments.multitask`) for one mechanism at several budgets, with fewer tasks
than the paper's 50 (default 20, the first 5 not evaluated). Stored as
``results/budgets_<dataset>_<mechanism>.json`` by ``python -m fedlib reproduce budgets``. The
auction-only side of the same question (the budgets Table 1's payment and Table 2's share each
ask for) is :mod:`fedlib.analysis.steady_state`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar

import numpy as np

from fedlib.experiments import table_summaries
from fedlib.experiments.grid import (
    SWEEP_ROUND_FIELDS,
    SWEEP_TASKS,
    Grid,
    GridResult,
)
from fedlib.experiments.multitask import DEFAULT_BUDGET, MultiTaskConfig
from fedlib.experiments.registry import register

#: Budgets of the stored sweep.
SWEEP_BUDGETS: tuple[float, ...] = (30.0, 45.0, 60.0, 75.0, 90.0)


class BudgetSweepResult(GridResult):
    """A budget sweep: one :class:`~fedlib.experiments.multitask.MultiTaskResult` per budget,
    whose records keep the rounds' :data:`~fedlib.experiments.grid.SWEEP_ROUND_FIELDS` (enough
    for :func:`~fedlib.experiments.table_summaries.table1`, ``table2`` and ``table3``)."""

    def summary(self, dacc: float = 1.0) -> list[dict[str, float]]:
        """One row per budget: ``budget``; ``winners`` (mean per evaluated task); ``share``
        (Table 2); ``payment`` of a ``dacc`` winner over all tasks (Table 1's definition);
        ``reputation`` (final mean ``Re`` of the ``dacc`` group); ``loss`` (Table 3);
        ``first_share``, the share of ``dacc`` among the first task's winners."""
        rows = []
        for budget, run in zip(self.config.budgets, self.runs, strict=True):
            t1 = table_summaries.table1(run)[dacc]
            first = run.config.daccs[run.records[0]["winners"]]
            rows.append({
                "budget": budget,
                "winners": float(np.mean([len(r["winners"]) for r in run.evaluated])),
                "share": table_summaries.table2(run, dacc),
                "payment": t1["payment"],
                "reputation": t1["reputation"],
                "loss": table_summaries.table3(run),
                "first_share": float(np.mean(first == dacc)) if first.size else float("nan"),
            })
        return rows


def _default_base() -> MultiTaskConfig:
    return MultiTaskConfig(n_tasks=SWEEP_TASKS)


@register
@dataclass(frozen=True)
class BudgetSweepConfig(Grid):
    """The multi-task experiment ``base`` run once per budget (a
    :class:`~fedlib.experiments.grid.Grid`, ``python -m fedlib reproduce budgets``, stored as
    ``budgets_<dataset>_<mechanism>.json``).

    Attributes
    ----------
    budgets : tuple of float
        Budgets per task, increasing; ``base.budget`` is ignored (and not stored).
    base : MultiTaskConfig
        Everything else: dataset, mechanism, tasks, workers, seed, device; default ours on MNIST
        with :data:`~fedlib.experiments.grid.SWEEP_TASKS` tasks.
    """

    budgets: tuple[float, ...] = SWEEP_BUDGETS
    base: MultiTaskConfig = field(default_factory=_default_base)

    kind: ClassVar[str] = "budgets"
    result_type: ClassVar[type] = BudgetSweepResult
    axis: ClassVar[str] = "budgets"
    pinned: ClassVar[tuple[str, ...]] = ("budget",)
    round_fields: ClassVar[tuple[str, ...]] = SWEEP_ROUND_FIELDS

    def __post_init__(self) -> None:
        budgets = tuple(float(b) for b in self.budgets)
        if not budgets or not all(np.isfinite(b) and b > 0 for b in budgets):
            raise ValueError(f"budgets must be positive numbers, got {self.budgets!r}")
        if list(budgets) != sorted(set(budgets)):
            raise ValueError(f"budgets must be increasing and distinct, got {self.budgets!r}")
        object.__setattr__(self, "budgets", budgets)
        # The base's own budget plays no role: pin it so that equal sweeps compare equal.
        object.__setattr__(self, "base", replace(self.base, budget=DEFAULT_BUDGET))

    def run_configs(self) -> list[MultiTaskConfig]:
        return [replace(self.base, budget=budget) for budget in self.budgets]

    def run_labels(self) -> list[str]:
        return [f"b{budget:g}" for budget in self.budgets]
