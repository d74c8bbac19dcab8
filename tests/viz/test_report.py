"""The reproducibility report's tables and figures."""

from __future__ import annotations

import html

from fedlib.experiments.report import VERDICTS, Finding
from fedlib.experiments.stored import Provenance
from fedlib.experiments.verification import FOREIGN_TOLERANCE, Comparison
from fedlib.paper.readings import READINGS
from fedlib.viz.report import (
    compute_figure,
    drift_figure,
    findings_html,
    readings_html,
    verdict_figure,
)

TITLES = {"04_proofs": "Proofs <and> counterexamples"}
FINDINGS = [Finding("Theorem 4", "truthfulness", "u = -0.667 < 0", "the paper is wrong",
                    "04_proofs"),
            Finding("Theorem 2", "budget feasibility", "0 of 9", "reproduced", "04_proofs"),
            Finding("Table 2", "share", "0.5", "partly", "06_federated")]


def test_findings_table_links_every_chapter_and_escapes_text():
    page = findings_html(FINDINGS, TITLES)
    assert page.count("<tr>") == 1 + len(FINDINGS)
    assert "<a href='04_proofs.html'>Proofs &lt;and&gt; counterexamples</a>" in page
    assert "<a href='06_federated.html'>06_federated</a>" in page  # no title: the file name
    assert "u = -0.667 &lt; 0" in page and "the paper is wrong" in page


def test_readings_table_has_a_row_per_reading():
    page = readings_html(READINGS, {})
    assert page.count("<tr>") == 1 + len(READINGS)
    assert all(f"<code>{html.escape(r.parameter)}</code>" in page for r in READINGS)


def test_verdict_figure_stacks_the_counts_per_chapter():
    fig = verdict_figure(FINDINGS, TITLES)
    ax = fig.axes[0]
    widths = sorted(p.get_width() for p in ax.patches if p.get_width() > 0)
    assert widths == [1, 1, 1]
    assert len(ax.patches) == 2 * len(VERDICTS)  # two chapters, one bar per verdict each
    assert [t.get_text() for t in ax.get_yticklabels()] == ["Proofs <and> counterexamples",
                                                           "06_federated"]


def test_compute_figure_totals_the_minutes():
    rows = [Provenance(name, "stored", None, "abc", "cpu", seconds, "2026", "cmd")
            for name, seconds in (("a", 600.0), ("b", 1200.0))]
    fig = compute_figure(rows)
    assert "30 minutes" in fig.axes[0].get_title()
    assert sorted(p.get_width() for p in fig.axes[0].patches) == [10.0, 20.0]


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
