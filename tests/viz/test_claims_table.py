"""The one claims table (with verdict badges and, for the report, links to the chapters) and
the verdict-count figure."""

from __future__ import annotations

from fedlib.analysis.claims import VERDICTS, Claim
from fedlib.viz.claims import VERDICT_COLORS, claims_html, verdict_figure

TITLES = {"04_proofs": "Proofs <and> counterexamples"}
PROOFS = [Claim("Theorem 4", "truthfulness", "u = -0.667 < 0", False, "the paper is wrong"),
          Claim("Theorem 2", "budget feasibility", "0 of 9", True, "reproduced")]
TABLES = [Claim.from_checks("Table 2", "share", "0.5", [True, False])]


def test_a_row_per_claim_with_its_verdict_badge_and_escaped_text():
    page = claims_html([*PROOFS, *TABLES])
    assert page.count("<tr>") == 1 + 3 and "Evidence" not in page and "<a href" not in page
    assert "u = -0.667 &lt; 0" in page and ">Theorem 4<" in page
    for claim in (*PROOFS, *TABLES):
        assert (f"background:{VERDICT_COLORS[claim.verdict]};color:white;padding:1px 6px;"
                f"border-radius:3px;white-space:nowrap'>{claim.verdict}</span>") in page


def test_claims_by_chapter_link_every_row_to_its_chapter():
    page = claims_html({"04_proofs": PROOFS, "06_federated": TABLES}, TITLES)
    assert page.count("<tr>") == 1 + 3 and ">Evidence</th>" in page
    assert page.count("<a href='04_proofs.html'>Proofs &lt;and&gt; counterexamples</a>") == 2
    assert "<a href='06_federated.html'>06_federated</a>" in page  # no title: the file name
    assert page.index("Theorem 2") < page.index("Table 2")  # the chapters' order


def test_verdict_figure_stacks_the_counts_per_chapter():
    fig = verdict_figure({"04_proofs": PROOFS, "06_federated": TABLES}, TITLES)
    ax = fig.axes[0]
    widths = sorted(p.get_width() for p in ax.patches if p.get_width() > 0)
    assert widths == [1, 1, 1]
    assert len(ax.patches) == 2 * len(VERDICTS)  # two chapters, one bar per verdict each
    assert [t.get_text() for t in ax.get_yticklabels()] == ["Proofs <and> counterexamples",
                                                           "06_federated"]
