"""Tables of the multi-task experiments beside Tables 1-3: how far a second machine moves
Table 2's share and Table 3's loss, and what the budget does to them.

Pure functions returning HTML strings rendered by :mod:`fedlib.table`; the figures of the same
experiments are in :mod:`fedlib.viz.multitask_figures`, Tables 1-3 over the seeds in
:mod:`fedlib.viz.seed_tables`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fedlib.experiments.budget_sweep import BudgetSweepResult
from fedlib.table import fixed_point, grouped_html, html_table


def spread_html(rows: Sequence[Mapping[str, Any]]) -> str:
    """:func:`~fedlib.storage.comparison.machine_spread` rows: Table 2's share and Table 3's
    loss on the first machine and how far the second moved them (second minus first), the
    shares with 3 decimals and the losses with 4, as the paper prints them, the moves in
    scientific notation (they are float noise or whole decisions)."""
    def short(row: Mapping[str, Any]) -> dict[str, Any]:
        cells = dict(row)
        for prefix, digits in (("share", 3), ("loss", 4)):
            cells[f"{prefix}, first"] = fixed_point(row[f"{prefix}, first"], digits)
            cells[f"{prefix} moved"] = f"{row[f'{prefix} moved']:.1e}"
        return cells

    return grouped_html([short(row) for row in rows], [
        ("", "dataset", "dataset"), ("", "mechanism", "mechanism"),
        *((f"{name} (Table {number})", label, f"{prefix}{key}")
          for name, number, prefix in (("share", 2, "share"), ("loss", 3, "loss"))
          for label, key in (("first machine", ", first"), ("moved", " moved"))),
        ("", "runs part at", "the runs part at")])


def sweep_table_html(sweep: BudgetSweepResult) -> str:
    """One row per budget of :meth:`~fedlib.experiments.budget_sweep.BudgetSweepResult.summary`.
    """
    head = ["Budget B", "dacc 1.0 among the first task's winners", "winners per task",
            "share of dacc 1.0 (Table 2)", "payment of a dacc 1.0 winner (Table 1)",
            "loss (Table 3)"]
    body = [[f"{r['budget']:g}", fixed_point(r["first_share"], 2), fixed_point(r["winners"], 1),
             fixed_point(r["share"], 3), fixed_point(r["payment"], 3),
             fixed_point(r["loss"], 4)] for r in sweep.summary()]
    return html_table(head, body, align="right")
