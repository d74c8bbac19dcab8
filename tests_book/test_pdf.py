"""The whole book as one PDF (``scripts/build_pdf.sh``, after the HTML build): every chapter in
it, math typeset, and linked from the introduction; and every chapter offers its notebook and
its MyST source for download."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from pypdf import PdfReader

from fedlib.book import ROOT, chapter_titles, notebook_chapters, toc_files

PDF = Path(os.environ.get("FEDLIB_PDF", ROOT / "_build/pdf/book.pdf"))
#: TeX that MathJax would have typeset: left in the PDF's text it means raw formulas.
RAW_TEX = ("\\frac", "$$", "\\begin{", "\\mathrm", "\\sum_", "\\tag{")


@pytest.fixture(scope="module")
def book() -> tuple[PdfReader, str]:
    if not PDF.exists():
        pytest.fail(f"no PDF at {PDF}: run `bash scripts/build_pdf.sh` after the HTML build")
    reader = PdfReader(PDF)
    return reader, "\n".join(page.extract_text() or "" for page in reader.pages)


def _squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_every_chapter_is_in_the_pdf_in_book_order(book):
    reader, text = book
    titles = list(chapter_titles().values())
    assert len(reader.pages) >= 2 * len(titles)
    assert [item.title for item in reader.outline] == titles
    flat = _squeezed(text)
    positions = [flat.find(_squeezed(title)) for title in titles]
    missing = [t for t, p in zip(titles, positions, strict=True) if p < 0]
    assert not missing, missing
    assert positions == sorted(positions)


def test_the_math_is_typeset(book):
    _, text = book
    assert not [tex for tex in RAW_TEX if tex in text]


def test_the_pdf_is_linked_from_the_introduction(html_dir):
    intro = (html_dir / f"{toc_files()[0]}.html").read_text()
    assert 'href="book.pdf"' in intro
    assert (html_dir / "book.pdf").read_bytes() == PDF.read_bytes()


@pytest.mark.parametrize("chapter", [path.stem for path in notebook_chapters()])
def test_each_chapter_offers_its_notebook_and_source(html_dir, chapter):
    page = (html_dir / "chapters" / f"{chapter}.html").read_text()
    for suffix in (".ipynb", ".md"):
        link = re.search(rf'href="(\.\./_downloads/[0-9a-f]+/{chapter}\{suffix})"', page)
        assert link, f"{chapter}: no download of its {suffix}"
        assert (html_dir / "chapters" / link.group(1)).resolve().is_file()
