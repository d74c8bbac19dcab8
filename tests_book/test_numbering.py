"""Figures are numbered per chapter ("Fig. 3.2", the second figure of chapter 3), so that the
book's figure numbers are never taken for the paper's (chapter 2's third figure is not "Fig. 3",
which a reader would read as the paper's Figure 3). The chapters of the book's parts are
numbered (``numbered: 1`` in ``_toc.yml``) and Sphinx then numbers figures within them."""

from __future__ import annotations

import re

import pytest
from book import BACK_MATTER, toc_parts

NUMBERED = [name for caption, names in toc_parts().items() if caption != BACK_MATTER
            for name in names]


def _chapter_number(page: str) -> str | None:
    heading = re.search(r"<h1[^>]*>\s*<span class=\"section-number\">(\d+)\.\s*</span>", page)
    return heading.group(1) if heading else None


def test_the_chapters_of_the_parts_are_numbered_in_order(html_dir):
    numbers = [_chapter_number((html_dir / f"{name}.html").read_text()) for name in NUMBERED]
    assert numbers == [str(i) for i in range(1, len(NUMBERED) + 1)], numbers


def numbering_problems(page: str) -> list[str]:
    """The figure, table and listing numbers of a built page (captions and references) that
    lack their chapter ("Fig. 3"), and its figure captions numbered for another chapter."""
    chapter = _chapter_number(page)
    captions = re.findall(r'<span class="caption-number">([^<]*)</span>', page)
    references = re.findall(r'<span class="std std-numref">([^<]*)</span>', page)
    flat = [f"without their chapter: {text.strip()}" for text in captions + references
            if re.match(r"(Fig\.|Table|Listing)\s*\d+\s*$", text.strip())]
    other = [f"not of chapter {chapter}: {text.strip()}" for text in captions
             if text.strip().startswith("Fig")
             and not re.match(rf"Fig\.\s*{chapter}\.\d+", text.strip())]
    return flat + other


def test_numbers_without_their_chapter_are_found():
    heading = '<h1><span class="section-number">3. </span>Title</h1>'
    good = heading + ('<span class="caption-number">Fig. 3.1 </span>'
                      '<span class="std std-numref">Fig. 3.1</span>')
    assert numbering_problems(good) == []
    flat = heading + ('<span class="caption-number">Fig. 2 </span>'
                      '<span class="std std-numref">Fig. 4</span>'
                      '<span class="caption-number">Fig. 2.1 </span>')
    assert numbering_problems(flat) == ["without their chapter: Fig. 2",
                                        "without their chapter: Fig. 4",
                                        "not of chapter 3: Fig. 2", "not of chapter 3: Fig. 2.1"]


@pytest.mark.parametrize("name", NUMBERED)
def test_figure_numbers_carry_their_chapter(html_dir, name):
    problems = numbering_problems((html_dir / f"{name}.html").read_text())
    assert not problems, f"{name}: {problems[:5]}"


#: The number sphinx-proof gives the book's own boxes ("Theorem 5.4"), which a reader takes for
#: the paper's: the book prints the paper's numbers only (notation page).
BOOK_PROOF_NUMBER = re.compile(r"\b(?:Theorem|Lemma|Corollary|Algorithm|Definition)\s+\d+\.\d+")


def book_proof_numbers(page: str) -> list[str]:
    return BOOK_PROOF_NUMBER.findall(re.sub(r"<[^>]+>", "", page))


def test_a_book_number_for_a_theorem_is_found():
    assert book_proof_numbers('<p class="caption">Theorem <span>5.4</span> (x)</p>') == [
        "Theorem 5.4"]
    assert book_proof_numbers("<p>the paper's Theorem 4 and Algorithm 1</p>") == []


@pytest.mark.parametrize("name", NUMBERED)
def test_theorems_carry_the_papers_numbers(html_dir, name):
    found = book_proof_numbers((html_dir / f"{name}.html").read_text())
    assert not found, f"{name}: {found[:5]}"
