"""Tables of the chapter "Federated experiments" (fedlib.viz.multitask_tables), on hand-made
rows and a fast (smoke-sized) budget sweep."""

from __future__ import annotations

import numpy as np

from fedlib.viz import multitask_tables as ftab


def test_spread_table_rounds_as_the_paper_and_moves_in_scientific_notation():
    spread = [{"dataset": "MNIST", "mechanism": "RRAFL", "share, first": 1.0,
               "share, second": 1.0, "share moved": 0.0, "loss, first": 0.52,
               "loss, second": 0.5201, "loss moved": 1e-4, "the runs part at": "never"}]
    html = ftab.spread_html(spread)
    assert html.count('colspan="2"') == 3 and "share (Table 2)" in html and "loss (Table 3)" in html
    assert html.count("<tr") == 3 and ">0.5200<" in html and ">never<" in html
    assert ">1.000<" in html and ">1.0e-04<" in html and "0.5201" not in html


def test_sweep_table(fast_sweep):
    table = ftab.sweep_table_html(fast_sweep)
    assert table.count("<tr") == 1 + 2 and ">30<" in table and ">75<" in table
    if any(not np.isfinite(r["payment"]) for r in fast_sweep.summary()):
        assert ">\u2013<" in table  # a budget whose dacc 1.0 workers never won
