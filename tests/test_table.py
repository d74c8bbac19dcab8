"""The table renderer (fedlib.table): cell formats, text and HTML."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fedlib.table import (
    Markup,
    Table,
    fitted_table,
    fixed_point,
    format_cell,
    grouped_html,
    html_table,
    key_value_html,
)


def test_table_renders_as_text_and_html_and_gives_columns():
    t = Table(("a", "b"), ((1, 0.5), (True, math.inf)), title="T")
    text = str(t)
    assert text.splitlines()[0] == "T" and "yes" in text and "inf" in text
    assert "<table" in t._repr_html_() and "<caption>T</caption>" in t._repr_html_()
    assert t._repr_html_().count("<td") == 4
    assert t.column("b") == [0.5, math.inf]
    with pytest.raises(ValueError, match="every row"):
        Table(("a",), ((1, 2),))


def test_cells_are_formatted():
    assert [format_cell(v, 3) for v in (np.bool_(False), np.int64(7), -math.inf, 1 / 3, "x")] \
        == ["no", "7", "-inf", "0.333", "x"]
    assert fixed_point(np.float64(0.1), 2, signed=True) == "+0.10"
    assert fixed_point(3, 2) == "3" and fixed_point(math.inf, 2) == "\u2013"


def test_html_escapes_text_but_not_markup():
    page = html_table(["a<b", "c"], [["<x>", Markup("<b>y</b>")]])
    assert "a&lt;b" in page and "&lt;x&gt;" in page and "<b>y</b>" in page


def test_html_alignment_row_headers_and_column_groups():
    page = html_table(["g", "x", "y"], [["r", 1, 2.5]], align="center", row_headers=True,
                      column_groups=[("", 1), ("both", 2)])
    assert page.count("text-align: center") == 3 + 3 + 2
    assert '<th colspan="2"' in page and "<tr><th" in page.split("<tbody>")[1]
    with pytest.raises(ValueError):
        html_table(["a", "b"], [[1, 2]], align=["left"])


def test_html_merges_runs_of_leading_values():
    rows = [["A", "p", 1], ["A", "p", 2], ["A", "q", 3], ["B", "q", 4]]
    page = html_table(["d", "k", "v"], rows, merge_leading=2)
    body = page.split("<tbody>")[1]
    assert body.count('rowspan="3"') == 1 and body.count('rowspan="2"') == 1
    assert body.count("<td") == 3 + 1 + 2 + 3  # A and p merged; q restarts under B
    # a line above each new run (rows 3 and 4), none above row 2
    assert body.count("border-top") == 2 and body.startswith("<tr>")


def test_key_value_html_of_a_mapping_or_of_rows():
    kv = key_value_html({"seed": 0, "budget": 60.0, "redrawn": True, "label": "<x>"})
    assert ">Setting<" in kv and ">0<" in kv and ">60<" in kv and ">True<" in kv
    assert "&lt;x&gt;" in kv and kv.count("<tr>") == 1 + 4
    rows = key_value_html([{"a": 1, "b": "x"}, {"a": 2.5, "b": "y"}], ["b"])
    assert rows.count("<tr>") == 3 and ">a<" not in rows and ">y<" in rows
    assert ">2.5<" in key_value_html([{"a": 2.5}])  # the first row's keys by default


def test_grouped_html_puts_a_group_over_its_columns():
    page = grouped_html([{"x": 1, "lo": 0.25, "hi": 0.75}],
                        [("", "x", "x"), ("range", "low", "lo"), ("range", "high", "hi")])
    assert page.count('colspan="2"') == 1 and ">range<" in page and ">0.25<" in page
    assert page.index(">low<") < page.index(">high<")
    with pytest.raises(KeyError):
        grouped_html([{"a": 1}], [("", "b", "b")])


def test_fitted_table_takes_cells_or_rows():
    head = [("a", 40), ("b", 60)]
    page = fitted_table(head, [["<b>x</b>", "y"]])
    assert page.count("<td") == 2 and "<b>x</b>" in page  # cells are HTML already
    assert "width:100%;table-layout:fixed" in page and page.count("<col style=") == 2
    assert "<tr><td>raw</td></tr>" in fitted_table(head, "<tr><td>raw</td></tr>")

