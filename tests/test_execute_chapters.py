"""scripts/execute_chapters.py: chapters executed in parallel land where the book build finds
them, a failing chapter is reported and not cached, and a cached one is not run again."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from book import ROOT, notebook_chapters
from jupyter_cache import get_cache

SCRIPT = ROOT / "scripts" / "execute_chapters.py"
FRONT = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---
"""


def _script():
    spec = importlib.util.spec_from_file_location("execute_chapters", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _chapter(folder: Path, name: str, code: str) -> Path:
    path = folder / f"{name}.md"
    path.write_text(f"{FRONT}\n# {name}\n\n```{{code-cell}} ipython3\n{code}\n```\n")
    return path


def _exercise_chapter(folder: Path, name: str, check: str) -> Path:
    """A chapter that ends with one exercise whose gated solution runs ``check``."""
    path = folder / f"{name}.md"
    path.write_text(f"""{FRONT}
# {name}

## Exercises

:::{{exercise}} Add
:label: ex-add

Add one and one. You should find two.
:::

:::{{solution-start}} ex-add
:class: dropdown
:::

```{{code-cell}} ipython3
{check}
```

:::{{solution-end}}
:::
""")
    return path


def test_every_chapter_reads_as_a_notebook_with_the_books_extensions():
    script = _script()
    extensions = script.myst_extensions(ROOT)
    assert {"dollarmath", "colon_fence"} <= extensions
    for path in notebook_chapters():
        notebook = script.read_chapter(path, extensions)
        assert any(cell.cell_type == "code" for cell in notebook.cells), path


def test_a_plain_markdown_file_is_refused(tmp_path):
    script = _script()
    page = tmp_path / "page.md"
    page.write_text("# Just text\n")
    with pytest.raises(ValueError, match="not a MyST notebook"):
        script.read_chapter(page, set())


@pytest.mark.slow
def test_the_build_uses_what_the_script_executed(tmp_path):
    """A one-page book: the script executes its page into the cache, then ``jupyter-book
    build`` renders it from there without running it (and a failing page, one whose
    exercise has a wrong solution, is reported and not cached)."""
    book = tmp_path / "book"
    book.mkdir()
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    (book / "_config.yml").write_text(yaml.safe_dump(  # the book's execution and MyST parsing
        {"title": "t", "execute": config["execute"], "parse": config["parse"]}))
    (book / "_toc.yml").write_text("format: jb-book\nroot: good\n")
    good = _chapter(book, "good", "print(6 * 7)")
    # a chapter whose exercise has a wrong solution (its assert fails)
    bad = _exercise_chapter(tmp_path, "bad", "assert 1 + 1 == 3, 'this chapter fails'")
    cache = book / "_build" / ".jupyter_cache"
    run = [sys.executable, str(SCRIPT), "--cache", str(cache), "--book", str(book), "--jobs", "2"]

    failed = subprocess.run([*run, "--", str(good), str(bad)], capture_output=True, text=True)
    assert failed.returncode == 1
    assert "FAILED bad.md" in failed.stderr and "this chapter fails" in failed.stderr
    assert "AssertionError" in failed.stderr
    assert [Path(r.uri).name for r in get_cache(str(cache)).list_cache_records()] == ["good.md"]

    again = subprocess.run([*run, "--", str(good)], capture_output=True, text=True, check=True)
    assert "cached already: good.md" in again.stdout and "0 chapter(s) executed" in again.stdout

    build = subprocess.run(["jupyter-book", "build", str(book), "-W"], capture_output=True,
                           text=True)
    log = build.stdout + build.stderr
    assert "Using cached notebook" in log and "Executing notebook" not in log, log[-3000:]
    assert "42" in (book / "_build" / "html" / "good.html").read_text()


def test_a_gated_solutions_code_is_a_cell_of_its_chapter(tmp_path):
    """The code of a gated solution ({solution-start} ... {solution-end}) is read as a code
    cell of the chapter, so it runs with the others: a wrong solution fails the execution
    (test_the_build_uses_what_the_script_executed, whose failing chapter is such a one)."""
    chapter = _exercise_chapter(tmp_path, "wrong", "assert 1 + 1 == 3")
    script = _script()
    notebook = script.read_chapter(chapter, script.myst_extensions(ROOT))
    assert [cell.source for cell in notebook.cells if cell.cell_type == "code"] == [
        "assert 1 + 1 == 3"]
