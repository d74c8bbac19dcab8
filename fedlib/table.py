"""The one table renderer of the library: rows of values as aligned text and as HTML.

:class:`Table` is what the analyses of :mod:`fedlib.experiments` return (it prints as aligned
text and displays as HTML in Jupyter); :func:`html_table` is the HTML renderer behind it and
behind every table of :mod:`fedlib.viz`. Cells are formatted by :func:`format_cell` and
HTML-escaped, except :class:`Markup` cells, which are inserted as they are. On it:
:func:`key_value_html` (a mapping, or rows of mappings) and :func:`grouped_html` (columns under
a second header row). :func:`fitted_table` is the other renderer, for cells of prose: fixed
column widths that fill the text column and never grow past it; :func:`folded` folds a long
one behind a summary line.

This module imports no other part of fedlib (it sits at the bottom of the layers).
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

Align = Literal["left", "right", "center"]


class Markup(str):
    """A cell that is already HTML (a link, a badge, ``<b>``): :func:`html_table` does not
    escape it."""


def format_cell(value: Any, digits: int = 4) -> str:
    """A value as a table cell: booleans as yes/no, integers as they are, floats with
    ``digits`` significant digits (``-`` for NaN, ``inf``/``-inf``), anything else ``str``.

    >>> format_cell(True), format_cell(2), format_cell(0.123456), format_cell(float("nan"))
    ('yes', '2', '0.1235', '-')
    """
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


def fixed_point(value: Any, digits: int, signed: bool = False) -> str:
    """A number with ``digits`` decimals (and a sign if ``signed``); an en dash when it is not
    finite; anything that is not a float as ``str``.

    >>> fixed_point(0.5, 3), fixed_point(-0.25, 2, signed=True), fixed_point(float("nan"), 2)
    ('0.500', '-0.25', '–')
    """
    if isinstance(value, bool | int | np.integer) or not isinstance(value, float | np.floating):
        return str(value)
    if not np.isfinite(value):
        return "\u2013"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def _cell_html(tag: str, value: Any, align: Align, digits: int, attributes: str = "",
               wrap_after: int = 20) -> str:
    text = value if isinstance(value, Markup) else format_cell(value, digits)
    nowrap = "; white-space: nowrap" if len(text) <= wrap_after else ""
    text = text if isinstance(value, Markup) else html.escape(text, quote=False)
    return (f'<{tag}{attributes} style="padding: 2px 10px; text-align: {align}{nowrap}">'
            f"{text}</{tag}>")


def _spans(rows: Sequence[Sequence[Any]], leading: int) -> list[list[int]]:
    """Row spans of the first ``leading`` columns: equal values in consecutive rows (under the
    same values to their left) merge into one cell, spanning the run; 0 marks a merged cell."""
    spans = [[1] * leading for _ in rows]
    for j in range(leading):
        start = 0
        for i in range(1, len(rows) + 1):
            if i == len(rows) or tuple(rows[i][: j + 1]) != tuple(rows[start][: j + 1]):
                spans[start][j] = i - start
                for merged in range(start + 1, i):
                    spans[merged][j] = 0
                start = i
    return spans


def html_table(columns: Sequence[Any], rows: Sequence[Sequence[Any]], *, caption: str = "",
               digits: int = 4, align: Align | Sequence[Align] | None = None,
               row_headers: bool = False, column_groups: Sequence[tuple[str, int]] = (),
               merge_leading: int = 0) -> str:
    """Rows of values as an HTML table with one header row.

    Parameters
    ----------
    columns : sequence
        The header cells.
    rows : sequence of sequence
        The body, one value per column (see :func:`format_cell`; :class:`Markup` unescaped).
    caption : str, optional
        Text above the table.
    digits : int
        Significant digits of float cells.
    align : str or sequence of str, optional
        One alignment for every column, or one per column; default: the first column left,
        the others right.
    row_headers : bool
        The first cell of each row is a header cell (``<th>``).
    column_groups : sequence of (str, int), optional
        A header row above ``columns``: each label spans that many columns.
    merge_leading : int
        In the first ``merge_leading`` columns, runs of equal values become one cell spanning
        the run's rows; a line above a row separates the runs.
    """
    if align is None:
        aligns: Sequence[Align] = ["left"] + ["right"] * (len(columns) - 1)
    else:
        aligns = [align] * len(columns) if isinstance(align, str) else align
    groups = "".join(
        _cell_html("th", label, "center", digits, f' colspan="{span}"' if span > 1 else "", 12)
        for label, span in column_groups)
    head = "".join(_cell_html("th", c, a, digits, wrap_after=12)
                   for c, a in zip(columns, aligns, strict=True))
    spans = _spans(rows, merge_leading)
    body = []
    for i, (row, row_spans) in enumerate(zip(rows, spans, strict=True)):
        cells = []
        for j, (value, a) in enumerate(zip(row, aligns, strict=True)):
            span = row_spans[j] if j < merge_leading else 1
            if span:
                tag = "th" if row_headers and j == 0 else "td"
                cells.append(_cell_html(tag, value, a, digits,
                                        f' rowspan="{span}"' if span > 1 else ""))
        separated = i > 0 and any(s > 0 for s in row_spans)
        start = '<tr style="border-top: 2px solid #888">' if separated else "<tr>"
        body.append(start + "".join(cells) + "</tr>")
    caption_html = f"<caption>{html.escape(caption, quote=False)}</caption>" if caption else ""
    group_row = f"<tr>{groups}</tr>" if column_groups else ""
    return (f'<table class="fedlib-table">{caption_html}<thead>{group_row}<tr>{head}</tr>'
            f"</thead><tbody>{''.join(body)}</tbody></table>")


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

    def __str__(self) -> str:
        cells = [list(self.columns),
                 *([format_cell(v, self.digits) for v in row] for row in self.rows)]
        widths = [max(len(r[j]) for r in cells) for j in range(len(self.columns))]
        lines = ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in cells]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(([self.title] if self.title else []) + lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        return html_table(self.columns, self.rows, caption=self.title, digits=self.digits)


def _plain(value: Any) -> str:
    """A float with up to 6 significant digits (``:g``), anything else ``str``."""
    if isinstance(value, float | np.floating) and not isinstance(value, bool):
        return f"{value:g}"
    return str(value)


def key_value_html(items: Mapping[str, Any] | Sequence[Mapping[str, Any]],
                   columns: Sequence[str] | None = None) -> str:
    """A two-column table of a mapping, or a table of several mappings (one row each, the
    ``columns`` given, default the first mapping's keys)."""
    if isinstance(items, Mapping):
        return html_table(["Setting", "Value"], [[k, _plain(v)] for k, v in items.items()],
                          align="left")
    columns = list(columns or (items[0].keys() if items else []))
    return html_table(columns, [[_plain(item[c]) for c in columns] for item in items],
                      align="left")


def grouped_html(rows: Sequence[Mapping[str, Any]],
                 columns: Sequence[tuple[str, str, str]]) -> str:
    """A table of several mappings (one row each) under two header rows.

    ``columns`` lists (group, label, key): the cell of each row is ``row[key]``, the header
    ``label``, and consecutive columns of the same ``group`` share one cell above their
    labels (an empty group: no title). Short labels under a group keep a wide table in its
    column."""
    groups: list[tuple[str, int]] = []
    for group, _, _ in columns:
        if groups and groups[-1][0] == group:
            groups[-1] = (group, groups[-1][1] + 1)
        else:
            groups.append((group, 1))
    body = [[_plain(row[key]) for _, _, key in columns] for row in rows]
    return html_table([label for _, label, _ in columns], body, align="left",
                      column_groups=groups)


#: A fitted table fills its column and never grows past it: fixed column widths, and long
#: words break (a cell may hold a long list of numbers); headers wrap between words only.
_FITTED = "style='width:100%;table-layout:fixed;border-collapse:collapse'"
_FITTED_CELL = ("style='text-align:left;vertical-align:top;padding:3px 6px;"
                "overflow-wrap:anywhere'")
_FITTED_HEAD = "style='text-align:left;vertical-align:bottom;padding:3px 6px'"


def fitted_row(cells: Sequence[str]) -> str:
    """One ``<tr>`` of :func:`fitted_table`: a cell per column, each already HTML."""
    return "<tr>" + "".join(f"<td {_FITTED_CELL}>{cell}</td>" for cell in cells) + "</tr>"


def fitted_table(head: Sequence[tuple[str, int]], rows: Sequence[Sequence[str]] | str) -> str:
    """An HTML table that fills its column and never grows past it.

    Parameters
    ----------
    head : sequence of (str, int)
        Each column's header (text) and width in percent of the column.
    rows : sequence of sequence of str, or str
        The body: one HTML cell per column in each row, or the ``<tr>`` rows as one string
        (:func:`fitted_row` makes one).
    """
    body = rows if isinstance(rows, str) else "".join(fitted_row(r) for r in rows)
    cols = "".join(f"<col style='width:{width}%'>" for _, width in head)
    cells = "".join(f"<th {_FITTED_HEAD}>{html.escape(h)}</th>" for h, _ in head)
    return (f"<table {_FITTED}><colgroup>{cols}</colgroup><thead><tr>{cells}</tr></thead>"
            f"<tbody>{body}</tbody></table>")


def folded(summary: str, body: str) -> str:
    """``body`` folded behind a one-line ``summary`` (both HTML): a ``<details>`` of class
    ``fedlib-fold``, closed on the page until a reader clicks the summary, and printed open
    (the book's ``_static/print.js``). For a table many screens long, in pieces a reader can
    choose among."""
    return f"<details class='fedlib-fold'><summary>{summary}</summary>{body}</details>"
