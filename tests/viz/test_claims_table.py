"""The one claims table (with verdict badges, severities and, for the report, a band per
chapter linking to it), claims under two readings side by side, and the verdict-count
figure."""

from __future__ import annotations

import re

from fedlib.analysis.claims import VERDICTS, Claim, pair_readings
from fedlib.viz.canvas import outside_canvas
from fedlib.viz.claims import (
    VERDICT_COLORS,
    claims_html,
    reading_pairs_html,
    verdict_figure,
)

TITLES = {"05_proofs": "Proofs <and> counterexamples"}
PROOFS = [Claim("Theorem 4", "truthfulness", "u = -0.667 < 0", "the paper is wrong",
                "false theorem"),
          Claim("Theorem 2", "budget feasibility", "0 of 9", "reproduced")]
TABLES = [Claim.from_checks("Table 2", "share", "0.5", [True, False])]


def _fits_its_column(page: str) -> bool:
    """Every table fills its column and no more: width 100%, fixed layout, column widths
    in percent adding up to 100, long words broken."""
    tables = re.findall(r"<table style='([^']*)'>(.*?)</table>", page)
    return bool(tables) and all(
        "width:100%" in style and "table-layout:fixed" in style
        and sum(int(w) for w in re.findall(r"<col style='width:(\d+)%'>", body)) == 100
        and ("overflow-wrap:anywhere" in body or "<td" not in body)
        for style, body in tables)


def test_a_row_per_claim_with_its_verdict_badge_and_escaped_text():
    page = claims_html([*PROOFS, *TABLES])
    assert page.count("<tr>") == 1 + 3 and "Evidence" not in page and "<a href" not in page
    assert "u = -0.667 &lt; 0" in page and "<b>Theorem 4</b><br>truthfulness" in page
    for claim in (*PROOFS, *TABLES):
        assert (f"background:{VERDICT_COLORS[claim.verdict]};color:white;padding:1px 6px;"
                f"border-radius:3px;display:inline-block;font-size:0.85em'>{claim.verdict}"
                "</span>") in page
    assert _fits_its_column(page)


def test_the_severity_stands_beneath_a_wrong_verdict():
    page = claims_html(PROOFS)
    assert "the paper is wrong</span><br><small>false theorem</small>" in page
    assert page.count("<small>false theorem</small>") == 1  # the reproduced claim has none


def test_claims_by_chapter_come_under_a_band_that_links_to_it():
    page = claims_html({"05_proofs": PROOFS, "07_federated": TABLES}, TITLES)
    assert page.count("<tr>") == 1 + 2 + 3  # header, two bands, three claims
    assert page.count("<a href='05_proofs.html'>Proofs &lt;and&gt; counterexamples</a>") == 1
    assert "<a href='07_federated.html'>07_federated</a>" in page  # no title: the file name
    assert page.index("05_proofs.html") < page.index("Theorem 4") < page.index(
        "07_federated.html") < page.index("Table 2")  # each band above its claims
    assert "colspan='3'" in page and _fits_its_column(page)


def test_reading_pairs_side_by_side_with_whether_the_verdict_changes():
    fresh = [Claim.from_checks("Table 2", "ours: only clean", "share 0.0", [False]),
             Claim.from_checks("Table 3", "ours: loss", "2.25", [False]),
             Claim.from_checks("Table 2", "RRAFL: only clean", "share 0.0", [False])]
    carried = [Claim.from_checks("Table 2", "ours: only clean", "share 1.0", [True]),
               Claim.from_checks("Table 3", "ours: loss", "0.61", [False])]
    page = reading_pairs_html(pair_readings(fresh, carried), "Fresh", "Carried",
                              missing="no stored run")
    rows = page.split("<tr>")[2:]
    assert len(rows) == 3 and ">Fresh</th>" in page and ">Carried</th>" in page
    assert ">Verdict changes?</th>" in page
    assert "share 0.0" in rows[0] and "share 1.0" in rows[0] and "<b>yes</b>" in rows[0]
    assert rows[1].count(">not reproduced</span>") == 2 and ">no</td>" in rows[1]
    assert "<i>no stored run</i>" in rows[2] and "&ndash;" in rows[2]
    assert _fits_its_column(page)


def test_verdict_figure_stacks_the_counts_per_chapter():
    fig = verdict_figure({"05_proofs": PROOFS, "07_federated": TABLES}, TITLES)
    ax = fig.axes[0]
    widths = sorted(p.get_width() for p in ax.patches if p.get_width() > 0)
    assert widths == [1, 1, 1]
    assert len(ax.patches) == 2 * len(VERDICTS)  # two chapters, one bar per verdict each
    # long titles wrap onto two lines, leaving the bars room
    assert [t.get_text() for t in ax.get_yticklabels()] == ["Proofs <and>\ncounterexamples",
                                                           "07_federated"]
    assert outside_canvas(fig) == []


def test_claims_by_chapter_fold_into_a_table_each_behind_their_band_and_counts():
    page = claims_html({"05_proofs": PROOFS, "07_federated": TABLES}, TITLES, fold=True)
    folds = re.findall(r"<details class='fedlib-fold'><summary>(.*?)</summary>(.*?)</details>",
                       page)
    assert [summary for summary, _ in folds] == [
        "Evidence: <a href='05_proofs.html'>Proofs &lt;and&gt; counterexamples</a> "
        "(2 claims: 1 reproduced, 1 the paper is wrong)",
        f"Evidence: <a href='07_federated.html'>07_federated</a> "
        f"(1 claim: 1 {TABLES[0].verdict})"]
    assert [table.count("<tr>") for _, table in folds] == [1 + 2, 1 + 1]  # no band rows
    assert "Theorem 4" in folds[0][1] and "Table 2" in folds[1][1]
    assert all(_fits_its_column(table) for _, table in folds)


def test_claims_and_findings_are_written_in_the_papers_notation():
    claim = Claim("Eq. (9)", "ends with Re^(tau-1)", "beta1 <= 0.5 in 3 of 3 seeds",
                  "reproduced")
    page = claims_html([claim]) + reading_pairs_html(pair_readings([claim], [claim]), "a", "b")
    assert "Re^(" not in page and "beta1" not in page and "&lt;=" not in page
    assert page.count("ends with Re<sup>τ−1</sup>") == 2
    assert page.count("β<sub>1</sub> ≤ 0.5 in 3 of 3 seeds") == 3
