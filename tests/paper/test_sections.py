"""The book's references to the paper's sections name sections that exist, and the notation
table cites each symbol to the section of the paper that introduces it."""

from __future__ import annotations

import re

import pytest
from book import ROOT

from fedlib.paper.readings import PAPER_SECTIONS, READINGS

CHAPTERS = sorted((ROOT / "chapters").glob("*.md"))
#: "Section 4.2", "Sec. 6", "Sections 4.1"; the number without a trailing full stop.
REFERENCE = re.compile(r"\bSec(?:tions?|\.)\s*(\d+(?:\.\d+)*)")
#: Where the paper introduces the symbols that the notation table cites to a section (read
#: from the paper: dacc in the experiments' setting of Tables 1-3; the leave-one-out loss
#: change and its threshold in the quality check that opens Section 4.2, "Reputation
#: Modeling", and omega in the paragraph on aggregation that closes it).
INTRODUCED_IN = {"$dacc$": "6", r"$\omega_i$": "4.2", r"$\Delta l_i$, $\delta$": "4.2"}


def sections_cited(text: str) -> list[str]:
    return REFERENCE.findall(text)


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_every_section_a_chapter_cites_exists(chapter):
    unknown = [s for s in sections_cited(chapter.read_text()) if s not in PAPER_SECTIONS]
    assert unknown == [], f"{chapter.name} cites sections {unknown}"


def test_every_section_a_reading_cites_exists():
    cited = {s for r in READINGS for s in sections_cited(r.paper)}
    assert cited and cited <= set(PAPER_SECTIONS)


def notation_rows() -> dict[str, str]:
    """Symbol cell -> 'Paper' cell of every row of the notation tables."""
    rows = {}
    for line in (ROOT / "chapters" / "notation.md").read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| $") and len(cells) == 4:
            rows[cells[0]] = cells[2]
    return rows


def test_notation_cites_each_symbol_to_the_section_that_introduces_it():
    rows = notation_rows()
    by_section = {symbol: sections_cited(paper) for symbol, paper in rows.items()
                  if sections_cited(paper)}
    assert by_section == {symbol: [section] for symbol, section in INTRODUCED_IN.items()}


def test_a_wrong_section_is_caught():
    assert sections_cited("| a worker's data accuracy | Sec. 5 |") == ["5"]
    assert sections_cited("see Section 4.2, and Sec. 6.") == ["4.2", "6"]
    assert "8" not in PAPER_SECTIONS
