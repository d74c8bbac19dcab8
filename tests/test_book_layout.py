"""The book's structure: table of contents, chapters, paired notebooks and the README's layout
(the environment's pins: tests/test_pins.py)."""

from __future__ import annotations

import itertools
import re
import subprocess
from pathlib import Path

import jupytext
import pytest
from book import (
    BACK_MATTER,
    FULL_SCALE_ONLY,
    ROOT,
    chapter_titles,
    fast_checked_chapters,
    notebook_chapters,
    toc_files,
    toc_parts,
)
from jupytext.config import load_jupytext_config


def test_every_toc_entry_has_a_markdown_file():
    missing = [name for name in toc_files() if not (ROOT / f"{name}.md").exists()]
    assert not missing, f"_toc.yml lists chapters without a .md: {missing}"


def test_every_markdown_chapter_is_in_the_toc():
    listed = set(toc_files())
    on_disk = {f"chapters/{path.stem}" for path in (ROOT / "chapters").glob("*.md")}
    assert not on_disk - listed, f"chapters missing from _toc.yml: {sorted(on_disk - listed)}"


def test_ci_executes_every_chapter_in_fast_mode_but_the_full_scale_only_ones():
    every = {path.stem for path in notebook_chapters()}
    assert set(FULL_SCALE_ONLY) <= every, f"not notebook chapters: {set(FULL_SCALE_ONLY) - every}"
    assert {path.stem for path in fast_checked_chapters()} == every - set(FULL_SCALE_ONLY)


def test_chapter_titles_come_from_the_first_heading(tmp_path):
    (tmp_path / "_toc.yml").write_text("root: intro\nparts:\n  - chapters:\n"
                                       "      - file: chapters/01_a\n"
                                       "      - file: chapters/02_b\n")
    (tmp_path / "chapters").mkdir()
    (tmp_path / "intro.md").write_text("---\ntitle: x\n---\n\n## Not this\n# Welcome\n")
    (tmp_path / "chapters" / "01_a.md").write_text("# First  \n# Second\n")
    assert chapter_titles(tmp_path) == {"intro": "Welcome", "01_a": "First", "02_b": "02_b"}



#: A label of a chapter's section, figure or exercise carries the chapter's number
#: (``(fig-07-shares)=`` in ``07_federated.md``).
CHAPTER_LABEL = re.compile(r"^\((?:sec|fig|ex)-(\d+)-", flags=re.MULTILINE)


def numbering_problems(numbered: list[str], texts: dict[str, str]) -> list[str]:
    """How the files of the numbered parts (``chapters/07_federated``, in ``_toc.yml``'s order)
    disagree with the numbers the book prints for them: Sphinx numbers the chapters of the
    numbered parts 1, 2, 3... in that order, so the n-th file's name must start with n (two
    digits), and the labels in its text (``texts``, by file) with the same number."""
    problems = []
    for printed, name in enumerate(numbered, start=1):
        stem = name.rsplit("/", 1)[-1]
        if not stem.startswith(f"{printed:02d}_"):
            problems.append(f"{stem} prints as chapter {printed}")
        labels = {int(n) for n in CHAPTER_LABEL.findall(texts.get(name, ""))} - {printed}
        problems += [f"{stem} has labels of chapter {n}" for n in sorted(labels)]
    return problems


def test_file_numbers_are_the_printed_chapter_numbers():
    numbered = [name for caption, names in toc_parts().items() if caption != BACK_MATTER
                for name in names]
    texts = {name: (ROOT / f"{name}.md").read_text() for name in numbered}
    assert numbering_problems(numbered, texts) == []


def test_a_file_number_other_than_the_printed_one_is_found():
    numbered = ["chapters/01_a", "chapters/03_b", "chapters/02_c"]
    texts = {"chapters/01_a": "(fig-01-x)=\n(sec-02-y)=\n", "chapters/03_b": "(ex-02-z)=\n"}
    assert numbering_problems(numbered, texts) == [
        "01_a has labels of chapter 2", "03_b prints as chapter 2", "02_c prints as chapter 3"]


#: A paste of a number from another page without a format: the bare ``{glue}`` role prints it
#: as a code chip, and ``{glue:text}`` splits ``page.md::key`` at its last colon, reading the
#: key as a format (MyST-NB 1.4), so a paste from another page must end in a format (``:d``).
UNFORMATTED_PASTE = re.compile(r"\{glue(?::text)?\}`[^`]*::[^`:]*`")


@pytest.mark.parametrize("chapter", sorted((ROOT / "chapters").glob("*.md")), ids=lambda p: p.stem)
def test_numbers_from_other_pages_are_pasted_as_formatted_text(chapter: Path):
    found = UNFORMATTED_PASTE.findall(chapter.read_text())
    assert not found, f"{chapter.name}: write {{glue:text}}`page.md::key:d` for {found}"


#: The book's theorem-like boxes (sphinx-proof numbers them per chapter, "Theorem 5.4", which a
#: reader takes for the paper's Theorem 5.4), references to them, and a lemma cited by a number.
PROOF_BOX = re.compile(r"^```\{prf:(?!proof)(\w+)\}[^\n]*\n((?::[^\n]*\n)*)", re.MULTILINE)
BARE_PROOF_REF = re.compile(r"\{prf:ref\}`[^`<]*`")
NUMBERED_LEMMA = re.compile(r"\b(?:Lemma|Corollary)s? \d")


def book_numbering_problems(text: str) -> list[str]:
    """What in a chapter's text would print the book's number where the paper's is meant."""
    boxes = [f"a numbered {kind} box" for kind, options in PROOF_BOX.findall(text)
             if ":nonumber:" not in options]
    refs = [f"{ref} prints a number: write {{prf:ref}}`Theorem 1 <label>`"
            for ref in BARE_PROOF_REF.findall(text)]
    return boxes + refs + [f"{m}...: the book's lemmas are named" for m in
                           NUMBERED_LEMMA.findall(text)]


def test_a_numbered_proof_box_or_reference_is_found():
    text = ("```{prf:theorem} T, the paper's Theorem 1\n:label: thm-a\n\nbody\n```\n"
            "```{prf:lemma} L\n:label: lem-b\n:nonumber:\n```\n```{prf:proof}\nx\n```\n"
            "by {prf:ref}`thm-a` and {prf:ref}`Theorem 1 <thm-a>`, as Lemma 2 says.")
    assert book_numbering_problems(text) == [
        "a numbered theorem box",
        "{prf:ref}`thm-a` prints a number: write {prf:ref}`Theorem 1 <label>`",
        "Lemma 2...: the book's lemmas are named"]


@pytest.mark.parametrize("chapter", sorted((ROOT / "chapters").glob("*.md")), ids=lambda p: p.stem)
def test_theorem_numbers_are_the_papers(chapter: Path):
    """"Theorem 4" always means the paper's (notation page): no box or reference prints the
    book's own number for a theorem, lemma or algorithm."""
    problems = book_numbering_problems(chapter.read_text())
    assert not problems, f"{chapter.name}: {problems}"


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


def test_the_readme_layout_names_every_folder_of_the_repository():
    """Every tracked top-level folder has a row in the README's Layout (``fedlib/`` its own
    paragraph), and no row names a folder that is gone."""
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.splitlines()
    folders = {path.split("/", 1)[0] for path in tracked if "/" in path} - {"fedlib"}
    layout = (ROOT / "README.md").read_text().split("## Layout", 1)[1]
    rows = set(re.findall(r"^\| `([^`/]+)/", layout, flags=re.MULTILINE))
    assert rows == folders


NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5}


def test_a_heading_that_counts_its_items_has_that_many():
    """"Three ways through the book" lists three ways (a reader found "two" over three)."""
    lines = (ROOT / "chapters" / "intro.md").read_text().splitlines()
    counted = [(i, NUMBER_WORDS[m.group(1).lower()]) for i, line in enumerate(lines)
               if (m := re.match(r"## (\w+) ways\b", line)) and m.group(1).lower() in NUMBER_WORDS]
    assert counted, "the introduction's 'ways through the book' heading is gone"
    for start, number in counted:
        section = itertools.takewhile(lambda line: not line.startswith("## "), lines[start + 1:])
        assert sum(line.startswith("- ") for line in section) == number, lines[start]


#: Symbols the chapters use that a reader looked for on the notation page.
NOTATION_SYMBOLS = (r"\Delta l_i", r"\delta", "n^+", "n^-", "$f$", "Re^0", r"U_{\text{paid}}",
                    r"\phi_i", r"\alpha")


def test_the_notation_page_lists_the_symbols_readers_look_for():
    text = (ROOT / "chapters" / "notation.md").read_text()
    assert [s for s in NOTATION_SYMBOLS if s not in text] == []


def test_the_introduction_states_what_a_reader_needs():
    """A newcomer looked for the prerequisites and found none (issue 46's reader items)."""
    text = (ROOT / "chapters" / "intro.md").read_text()
    section = text.split("## What you need before reading", 1)
    assert len(section) == 2, "the introduction has no prerequisites section"
    needs = section[1].split("\n## ", 1)[0]
    assert all(word in needs for word in ("Python", "Probability", "Machine learning"))


def test_the_readme_lab_reads_the_books_jupyterlab_defaults(monkeypatch):
    """The README's JupyterLab command names jupyter_config/, and JupyterLab's settings server
    reads from it that a notebook opens without windowing (cells out of view stay rendered)."""
    settings = pytest.importorskip(
        "jupyterlab_server.settings_utils",
        reason="needs the lab extra: pip install -r requirements-lab.txt")
    readme = (ROOT / "README.md").read_text()
    assert "export JUPYTER_CONFIG_PATH=$PWD/jupyter_config" in readme
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", str(ROOT / "jupyter_config"))
    overrides, error = settings._get_overrides(str(ROOT / "no_app_settings"))
    assert not error
    assert overrides["@jupyterlab/notebook-extension:tracker"]["windowingMode"] == "none"
