"""A small table of results that renders as HTML in notebooks and as fixed-width text elsewhere.

The chapters on Algorithm 1 and its theorems show their numbers as :class:`Table`; the
analyses behind them live in :mod:`fedlib.experiments.auction_steps`,
:mod:`~fedlib.experiments.misreporting`, :mod:`~fedlib.experiments.property_checks`,
:mod:`~fedlib.experiments.payment_comparison` and :mod:`~fedlib.experiments.selection_timing`.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from typing import Any

import numpy as np


def _cell(value: Any, digits: int) -> str:
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        v = float(value)
        if math.isnan(v):
            return "-"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return f"{v:.{digits}g}"
    return str(value)


@dataclass(frozen=True)
class Table:
    """A small table of results: ``columns`` and ``rows`` (tuples of values).

    Displays as HTML in Jupyter and as aligned text with ``print``; :meth:`column` gives one
    column's raw values for ``assert`` cells.
    """

    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    title: str = ""
    digits: int = 4

    def __post_init__(self) -> None:
        bad = [r for r in self.rows if len(r) != len(self.columns)]
        if bad:
            raise ValueError(f"every row needs {len(self.columns)} values, got {bad[0]!r}")

    def column(self, name: str) -> list[Any]:
        """The raw values of the column ``name``."""
        j = self.columns.index(name)
        return [row[j] for row in self.rows]

    def _text_rows(self) -> list[list[str]]:
        return [[_cell(v, self.digits) for v in row] for row in self.rows]

    def __str__(self) -> str:
        cells = [list(self.columns), *self._text_rows()]
        widths = [max(len(r[j]) for r in cells) for j in range(len(self.columns))]
        lines = ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in cells]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(([self.title] if self.title else []) + lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        def style(j: int, text: str, limit: int = 20) -> str:
            align = "left" if j == 0 else "right"
            wrap = "; white-space: nowrap" if len(text) <= limit else ""
            return f'style="padding: 2px 10px; text-align: {align}{wrap}"'

        head = "".join(f"<th {style(j, c, 12)}>{html.escape(c)}</th>"
                       for j, c in enumerate(self.columns))
        body = "".join("<tr>" + "".join(f"<td {style(j, c)}>{html.escape(c)}</td>"
                                        for j, c in enumerate(row)) + "</tr>"
                       for row in self._text_rows())
        caption = f"<caption>{html.escape(self.title)}</caption>" if self.title else ""
        return (f'<table class="fedlib-table">{caption}<thead><tr>{head}</tr></thead>'
                f"<tbody>{body}</tbody></table>")
