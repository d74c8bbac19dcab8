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
    """A bookmark per chapter, in book order, each on a page that begins with its title."""
    reader, _ = book
    titles = list(chapter_titles().values())
    assert [item.title for item in reader.outline] == titles
    starts = [reader.get_destination_page_number(item) for item in reader.outline]
    assert starts[0] == 0 and starts == sorted(set(starts)) and len(reader.pages) > starts[-1]
    for title, start in zip(titles, starts, strict=True):
        first_page = _squeezed(reader.pages[start].extract_text() or "")
        assert _squeezed(title) in first_page, f"{title!r} is not on its first page {start}"


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
