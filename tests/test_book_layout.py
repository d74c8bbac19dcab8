"""The book's structure: table of contents, chapters, paired notebooks and the environment."""

from __future__ import annotations

import re
from pathlib import Path

import jupytext
import pytest
import yaml
from jupytext.config import load_jupytext_config

from fedlib.book import ROOT, chapter_titles, notebook_chapters, toc_files


def test_every_toc_entry_has_a_markdown_file():
    missing = [name for name in toc_files() if not (ROOT / f"{name}.md").exists()]
    assert not missing, f"_toc.yml lists chapters without a .md: {missing}"


def test_every_markdown_chapter_is_in_the_toc():
    listed = set(toc_files())
    on_disk = {f"chapters/{path.stem}" for path in (ROOT / "chapters").glob("*.md")}
    assert not on_disk - listed, f"chapters missing from _toc.yml: {sorted(on_disk - listed)}"


def test_chapter_titles_come_from_the_first_heading(tmp_path):
    (tmp_path / "_toc.yml").write_text("root: intro\nparts:\n  - chapters:\n"
                                       "      - file: chapters/01_a\n"
                                       "      - file: chapters/02_b\n")
    (tmp_path / "chapters").mkdir()
    (tmp_path / "intro.md").write_text("---\ntitle: x\n---\n\n## Not this\n# Welcome\n")
    (tmp_path / "chapters" / "01_a.md").write_text("# First  \n# Second\n")
    assert chapter_titles(tmp_path) == {"intro": "Welcome", "01_a": "First", "02_b": "02_b"}


@pytest.mark.parametrize("chapter", notebook_chapters(), ids=lambda p: p.stem)
def test_chapter_markdown_is_canonical_myst(chapter: Path):
    """The .md is what jupytext itself would write, so pairing never rewrites it."""
    text = chapter.read_text()
    config = load_jupytext_config(str(chapter.parent))
    notebook = jupytext.reads(text, fmt="md:myst")
    assert jupytext.writes(notebook, fmt="md:myst", config=config) == text


@pytest.mark.parametrize("chapter", notebook_chapters(), ids=lambda p: p.stem)
def test_generated_notebook_is_in_sync(chapter: Path):
    """When the .ipynb twin exists (CI makes it with jupytext --sync), its cells match."""
    twin = chapter.with_suffix(".ipynb")
    if not twin.exists():
        pytest.fail(f"{twin.name} is missing: run `jupytext --sync {chapter}` first")
    md_cells = jupytext.read(chapter).cells
    nb_cells = jupytext.read(twin).cells
    assert [(c.cell_type, c.source) for c in md_cells] == [
        (c.cell_type, c.source) for c in nb_cells
    ], f"{chapter.name} and {twin.name} differ: run `jupytext --sync {chapter}`"


def _requirement_name(spec: str) -> str:
    return re.split(r"[<>=!~\[ ;]", spec, maxsplit=1)[0].lower()


def test_environment_yml_installs_the_project_with_its_extras():
    pyproject = __import__("tomllib").loads((ROOT / "pyproject.toml").read_text())
    extras = set(pyproject["project"]["optional-dependencies"])
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip_section = next(dep["pip"] for dep in env["dependencies"] if isinstance(dep, dict))
    editable = [line for line in pip_section if line.startswith("-e .")]
    assert len(editable) == 1, "environment.yml must install the project itself with pip -e ."
    requested = set(re.search(r"\[(.*)\]", editable[0]).group(1).split(","))
    assert requested == extras, f"environment.yml extras {requested} != pyproject {extras}"
    python = next(dep for dep in env["dependencies"] if str(dep).startswith("python"))
    minimum = pyproject["project"]["requires-python"].removeprefix(">=")
    assert tuple(map(int, python.split("=")[1].split("."))) >= tuple(map(int, minimum.split(".")))
