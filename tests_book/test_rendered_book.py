"""Every page of the built book, opened in a real browser, as a reader would see it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from fedlib.book import BACK_MATTER, ROOT, is_notebook, toc_files, toc_parts

sys.path.insert(0, str(Path(__file__).parent))
from browser import check_page  # noqa: E402

PAGES = toc_files()
#: The chapters of the book proper compute and plot; the back matter (the status page among
#: them) may be tables and text only.
BACK = set(toc_parts()[BACK_MATTER])


@pytest.mark.parametrize("name", PAGES)
def test_page_renders_cleanly(driver, html_dir, screenshot_dir, name):
    page = html_dir / f"{name}.html"
    assert page.exists(), f"{page} was not built"
    report = check_page(driver, page, screenshot_dir / f"{Path(name).name}.png")
    assert not report.problems, f"{name}: " + "; ".join(report.problems)
    if name not in BACK and is_notebook(ROOT / f"{name}.md"):
        assert report.figures >= 1, f"{name} has no figure"


def test_search_page_finds_a_chapter(driver, html_dir):
    driver.get((html_dir / "search.html").resolve().as_uri() + "?q=reputation")
    import time

    for _ in range(50):
        hits = driver.execute_script(
            "return document.querySelectorAll('#search-results li').length")
        if hits:
            break
        time.sleep(0.2)
    assert hits > 0, "the offline search found nothing for 'reputation'"
