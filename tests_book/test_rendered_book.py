"""Every page of the built book, opened in a real browser, as a reader would see it."""

from __future__ import annotations

import fnmatch
import html as htmllib
import re
import sys
from pathlib import Path

import pytest
import yaml
from book import BACK_MATTER, ROOT, is_notebook, notebook_chapters, toc_files, toc_parts

sys.path.insert(0, str(Path(__file__).parent))
from browser import check_page  # noqa: E402

PAGES = toc_files()
#: The chapters of the book proper (every part but the back matter) compute and plot; the
#: introduction (the root, in no part), which reads its findings from the stored runs, and the
#: back matter (the status page among them) may be tables and text only.
PROPER = {name for caption, names in toc_parts().items() if caption != BACK_MATTER
          for name in names}


@pytest.mark.parametrize("name", PAGES)
def test_page_renders_cleanly(driver, html_dir, screenshot_dir, name):
    page = html_dir / f"{name}.html"
    assert page.exists(), f"{page} was not built"
    report = check_page(driver, page, screenshot_dir / f"{Path(name).name}.png")
    assert not report.problems, f"{name}: " + "; ".join(report.problems)
    if name in PROPER and is_notebook(ROOT / f"{name}.md"):
        assert report.figures >= 1, f"{name} has no figure"


#: How numpy 2 prints a scalar (``np.int64(3)``, ``np.True_``): a reader should see ``3``.
NUMPY_REPR = re.compile(r"np\.(?:u?int|float|complex|bool|str)\w*\(|np\.(?:True|False)_")


def test_no_page_shows_a_numpy_scalar_repr(html_dir):
    """Printed outputs and pasted numbers read as numbers, not as numpy's repr."""
    shown = {name: sorted(set(NUMPY_REPR.findall(
        htmllib.unescape(re.sub(r"<[^>]+>", "", (html_dir / f"{name}.html").read_text())))))
        for name in PAGES}
    assert not {name: found for name, found in shown.items() if found}, (
        "convert numpy scalars with int(), float() or .tolist() before printing or gluing")


def test_the_bibliography_links_to_the_paper(html_dir):
    page = (html_dir / "chapters" / "bibliography.html").read_text()
    assert 'href="https://arxiv.org/abs/2201.02410"' in page, "the paper's entry has no link"


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


def execution_rows(page: str) -> dict[str, str]:
    """The rows of a built page's execution table (myst-nb's ``nb-exec-table``): each executed
    document's status ("✅", or "❌" when it failed), by its name ("chapters/04_auction")."""
    tables = [table for table in re.findall(r"<table.*?</table>", page, flags=re.S)
              if "Run Time (s)" in table]
    if not tables:
        return {}
    rows = {}
    for row in re.findall(r"<tr.*?</tr>", tables[0].split("<tbody>", 1)[-1], flags=re.S):
        cells = [htmllib.unescape(re.sub(r"<[^>]+>", "", cell)).strip()
                 for cell in re.findall(r"<td.*?</td>", row, flags=re.S)]
        rows[cells[0]] = cells[-1]
    return rows


def execution_problems(page: str, executed: list[str]) -> list[str]:
    """What the execution table of ``page`` gets wrong about the ``executed`` documents: a
    document without its row, or a row whose execution failed (empty when none)."""
    rows = execution_rows(page)
    if not rows:
        return ["no execution table"]
    return ([f"{name}: no row" for name in executed if name not in rows]
            + [f"{name}: {status}" for name, status in rows.items() if status != "✅"])


def executed_chapters(html_dir: Path) -> list[str]:
    """The notebook chapters the build of ``html_dir`` executed: all of them but those that
    its configuration's ``execute: exclude_patterns`` leave out. A build with a configuration
    of its own keeps it beside its output (``<out>/_config.yml``, ``<out>/_build/html``); the
    book's build uses the book's, which leaves none out, in fast mode as at full scale."""
    config = html_dir.parent.parent / "_config.yml"
    config = yaml.safe_load((config if config.is_file() else ROOT / "_config.yml").read_text())
    skipped = (config.get("execute") or {}).get("exclude_patterns") or []
    names = [str(path.relative_to(ROOT)) for path in notebook_chapters()]
    return [name.removesuffix(".md") for name in names
            if not any(fnmatch.fnmatch(name, pattern) for pattern in skipped)]


def test_a_missing_or_failed_execution_is_found():
    row = ('<tr class="row-even"><td><p><a class="xref doc reference internal" href="{0}.html">'
           '<span class="doc">chapters/{0}</span></a></p></td>\n<td><p>2026-11-28 06:34</p></td>'
           '\n<td><p>cache</p></td>\n<td><p>22.21</p></td>\n<td><p>{1}</p></td>\n</tr>')
    page = ('<table class="fedlib-table"><tbody><tr><td>CPU</td><td>x</td></tr></tbody></table>'
            '<table class="table"><thead><tr class="row-odd"><th class="head"><p>Document</p>'
            '</th><th class="head"><p>Run Time (s)</p></th></tr></thead><tbody>'
            + row.format("01_a", "✅")
            + row.format("02_b", '<abbr title="AssertionError: wrong">❌</abbr>')
            + "</tbody></table>")
    assert execution_rows(page) == {"chapters/01_a": "✅", "chapters/02_b": "❌"}
    assert execution_problems(page, ["chapters/01_a"]) == ["chapters/02_b: ❌"]
    assert execution_problems(page.replace("❌", "✅"), ["chapters/01_a", "chapters/03_c"]) == [
        "chapters/03_c: no row"]
    assert execution_problems(page.replace("Run Time (s)", "Time"), []) == ["no execution table"]


def test_the_status_page_lists_every_executed_chapter(html_dir):
    """The status page's execution table has a row for every chapter the build executed, and
    each ran without an error."""
    executed = executed_chapters(html_dir)
    assert "chapters/status" in executed and len(executed) >= len(notebook_chapters()) - 2
    page = (html_dir / "chapters" / "status.html").read_text()
    assert execution_problems(page, executed) == []
