"""The reproducibility report's tables and figures."""

from __future__ import annotations

import html
import re

from fedlib.paper.readings import READINGS
from fedlib.storage.comparison import Comparison
from fedlib.storage.stored import Provenance
from fedlib.storage.tolerance import FOREIGN_TOLERANCE
from fedlib.viz.canvas import outside_canvas
from fedlib.viz.report import compute_figure, drift_figure, readings_html


def test_readings_come_folded_by_the_chapter_that_measures_them_and_fit_its_column():
    titles = {"07_federated": "Federated experiments"}
    page = readings_html(READINGS, titles)
    chapters = list(dict.fromkeys(r.chapter for r in READINGS))
    folds = re.findall(r"<details class='fedlib-fold'><summary>(.*?)</summary>(.*?)</details>",
                       page)
    assert len(folds) == len(chapters) > 1 and "".join(
        f"<details class='fedlib-fold'><summary>{s}</summary>{b}</details>"
        for s, b in folds) == page  # nothing outside the folds
    for chapter, (summary, table) in zip(chapters, folds, strict=True):
        group = [r for r in READINGS if r.chapter == chapter]
        link = f"<a href='{chapter}.html'>{html.escape(titles.get(chapter, chapter))}</a>"
        assert summary == f"Measured in {link} ({len(group)} reading{'s' * (len(group) > 1)})"
        assert table.count("<tr>") == 1 + len(group)
        assert all(f"<code>{html.escape(r.parameter)}</code>" in table for r in group)
        # three columns of fixed widths that fill the text column, whatever the text
        assert table.startswith("<table style='width:100%;table-layout:fixed")
        assert table.count("<col style=") == 3 and table.count("<th ") == 3
    assert "Re^(" not in page and "Re<sup>τ−1</sup>" in page  # the paper's notation


def test_compute_figure_totals_the_minutes_per_configuration():
    rows = [Provenance(name, "stored", None, "abc", "cpu", seconds, "2026", "cmd")
            for name, seconds in (("a", 600.0), ("b", 1200.0), ("b_s1", 300.0),
                                  ("b_s2", 300.0))]
    fig = compute_figure(rows)
    assert "40 minutes" in fig.axes[0].get_title()
    assert sorted(p.get_width() for p in fig.axes[0].patches) == [10.0, 30.0]  # b's 3 seeds
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["a (1 seed)",
                                                                      "b (3 seeds)"]
    assert outside_canvas(fig) == []


def test_drift_figure_has_a_panel_per_dataset_with_the_tolerance():
    comparisons = {}
    for dataset in ("mnist", "fashion"):
        comparison = Comparison(FOREIGN_TOLERANCE[dataset])
        for rounds in (1, 2, 3):
            comparison.values(1.0, 1.0 + 10.0 ** (rounds - 8), "loss", "test_loss", rounds)
        comparisons[dataset] = comparison
    fig = drift_figure(comparisons)
    axes = fig.get_axes()
    assert [ax.get_title() for ax in axes] == ["MNIST", "Fashion-MNIST"]
    tolerance, measured = axes[0].get_lines()
    assert list(measured.get_xdata()) == [1, 2, 3]
    assert tolerance.get_ydata()[0] == FOREIGN_TOLERANCE["mnist"]["test_loss"].rtol
    assert outside_canvas(fig) == []
