"""Print the built HTML book to one PDF: ``_build/pdf/book.pdf`` (and a copy beside the HTML).

Every page of the table of contents is opened in headless Chromium (the browser tests' driver,
``tests_book/browser.py``), given the time MathJax and the widget manager need (so formulas are
typeset and every widget shows its static figure), and printed through the WebDriver print
command; the pages are joined in book order with pypdf, each chapter a bookmark.

    python scripts/build_pdf.py [--html _build/full/_build/html] [--out _build/pdf/book.pdf]
"""

from __future__ import annotations

import argparse
import base64
import io
import shutil
import sys
from pathlib import Path

from pypdf import PdfReader, PdfWriter
from selenium.webdriver.common.print_page_options import PrintOptions

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests_book"))
from browser import check_page, open_browser  # noqa: E402

from fedlib.book import chapter_titles, toc_files  # noqa: E402


def print_book(html: Path, out: Path) -> int:
    """Print every page of the table of contents into ``out``; the number of PDF pages."""
    options = PrintOptions()
    options.background = True
    options.page_width, options.page_height = 21.0, 29.7  # A4, in centimetres
    titles = chapter_titles()
    writer = PdfWriter()
    driver = open_browser()
    try:
        for name in toc_files():
            report = check_page(driver, html / f"{name}.html")
            if report.problems:
                raise SystemExit(f"{name}: " + "; ".join(report.problems))
            pdf = PdfReader(io.BytesIO(base64.b64decode(driver.print_page(options))))
            first = len(writer.pages)
            for page in pdf.pages:
                writer.add_page(page)
            writer.add_outline_item(title=titles[Path(name).name], page_number=first)
            print(f"{name}: {len(pdf.pages)} pages", flush=True)
    finally:
        driver.quit()
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("wb") as file:
        writer.write(file)
    return len(writer.pages)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--html", type=Path, default=ROOT / "_build/full/_build/html")
    parser.add_argument("--out", type=Path, default=ROOT / "_build/pdf/book.pdf")
    args = parser.parse_args()
    if not (args.html / "index.html").exists():
        parser.error(f"no built book in {args.html}: run bash scripts/build_book.sh first")
    pages = print_book(args.html, args.out)
    shutil.copyfile(args.out, args.html / "book.pdf")  # linked from the introduction
    print(f"{args.out}: {pages} pages (and {args.html / 'book.pdf'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
