"""The whole book as one PDF (``scripts/build_pdf.sh``, after the HTML build), read as a reader
would use it: a title page that says what and whose it is, a table of contents within the page
margins whose page numbers find the sections, a number on every page and no page with nothing
else, chapters headed by their numbers, bookmarks by part, chapter and section, every link
inside the book a jump inside the PDF, no screen chrome, folded outputs printed, math typeset,
captions and tables in readable print, status marks printed; linked from the introduction;
every chapter offers its notebook and source."""

from __future__ import annotations

import functools
import html as htmllib
import math
import os
import re
import sys
import unicodedata
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from book import (
    BACK_MATTER,
    ROOT,
    chapter_titles,
    exercises,
    notebook_chapters,
    teaching_chapters,
    toc_files,
    toc_parts,
)

PdfReader = pytest.importorskip("pypdf", reason="needs the release extra: "
                                "pip install -r requirements-tools.txt").PdfReader

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(ROOT / "scripts"))
from browser import print_problems  # noqa: E402
from build_pdf import PAPER  # noqa: E402  (build_pdf imports pypdf too)

PDF = Path(os.environ.get("FEDLIB_PDF", ROOT / "_build/pdf/book.pdf"))
#: TeX that MathJax would have typeset: left in the PDF's text it means raw formulas.
RAW_TEX = ("\\frac", "$$", "\\begin{", "\\mathrm", "\\sum_", "\\tag{")
#: Screen chrome that must not print: myst-nb's fold bars, widget markup, the theme's buttons,
#: a text's call to click (on paper everything is open).
CHROME = ("Show code cell", "Hide code cell", "application/vnd.jupyter", "widget-view",
          "Loading widget", "Copy to clipboard", "Skip to main content", "Back to top",
          "click")


@pytest.fixture(scope="module")
def book() -> tuple[PdfReader, list[str]]:
    if not PDF.exists():
        pytest.fail(f"no PDF at {PDF}: run `bash scripts/build_pdf.sh` after the HTML build")
    reader = PdfReader(PDF)
    return reader, [page.extract_text() or "" for page in reader.pages]


def _squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _page_of(reader: PdfReader, item) -> int:
    return reader.get_destination_page_number(item)


def _outline_tree(reader: PdfReader, items=None) -> list[tuple[str, int, list]]:
    """The bookmarks as (title, page index, children); a chapter's number ("3. ") left out."""
    items = reader.outline if items is None else items
    tree = []
    for item in items:
        if isinstance(item, list):
            title, page, _ = tree[-1]
            tree[-1] = (title, page, _outline_tree(reader, item))
        else:
            tree.append((re.sub(r"^\d+\. ", "", item.title), _page_of(reader, item), []))
    return tree


def test_the_title_page_says_what_and_whose_the_book_is(book):
    reader, texts = book
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    first = _squeezed(texts[0])
    assert _squeezed(config["title"]) in first
    for author in cff["authors"]:
        assert _squeezed(author["name"]) in first
    assert f"Version{cff['version']}" in first
    assert re.search(r"Printedon\d{4}-\d{2}-\d{2}fromcommit[0-9a-f]{7,}", first), texts[0]
    assert _squeezed(cff["references"][0]["title"]) in first  # the paper it reproduces
    assert reader.metadata.title == config["title"]


def test_every_page_but_the_title_page_has_its_number_in_the_footer(book):
    _, texts = book
    assert len(texts) > 20
    unnumbered = [index + 1 for index, text in enumerate(texts[1:], start=1)
                  if not re.search(rf"(^|\D){index + 1}\s*$", text.strip())]
    assert not unnumbered, f"pages without their number in the footer: {unnumbered[:20]}"


def blank_pages(texts: list[str], images: list[int], title: str) -> list[int]:
    """The pages (numbered from 1) after the title page that print nothing but their footer:
    no image and no text besides the book's ``title`` and the page's number."""
    return [number for number, (text, count) in enumerate(zip(texts, images, strict=True), 1)
            if number > 1 and not count
            and not _squeezed(text).replace(_squeezed(title), "").removesuffix(str(number))]


def test_a_page_with_only_its_footer_is_found():
    texts = ["Title page", "Book 2", "Some text\nBook 3", "", "Book 5"]
    assert blank_pages(texts, [0, 0, 0, 0, 1], "Book") == [2, 4]


def test_no_page_prints_only_its_footer(book):
    """A block kept whole but taller than a page is not pushed to a fresh page past an empty
    one (print.js lets it break)."""
    reader, texts = book
    title = yaml.safe_load((ROOT / "_config.yml").read_text())["title"]
    blank = blank_pages(texts, [len(page.images) for page in reader.pages], title)
    assert not blank, f"pages with only their footer: {blank}"


@dataclass(frozen=True)
class Run:
    """A piece of a PDF page's text as printed: where it starts (points from the bottom left),
    its font's size in points, its fill colour (RGB in 0-1) and its font's name."""

    text: str
    x: float
    y: float
    size: float
    fill: tuple[float, float, float]
    font: str


def text_runs(page) -> list[Run]:
    """The text of a PDF page as pypdf reads it, with each piece's position, size and colour
    (the fill colour set by ``rg`` or ``g``, saved and restored with ``q`` and ``Q``)."""
    runs, saved = [], []
    fill = (0.0, 0.0, 0.0)

    def operator(op, args, cm, tm):
        nonlocal fill
        if op == b"q":
            saved.append(fill)
        elif op == b"Q" and saved:
            fill = saved.pop()
        elif op == b"rg":
            fill = tuple(float(a) for a in args)
        elif op == b"g":
            fill = (float(args[0]),) * 3

    def text(words, cm, tm, font, size):
        if words.strip():
            runs.append(Run(words, tm[4] * cm[0] + tm[5] * cm[2] + cm[4],
                            tm[4] * cm[1] + tm[5] * cm[3] + cm[5],
                            size * math.hypot(tm[0], tm[1]) * math.hypot(cm[0], cm[1]), fill,
                            str((font or {}).get("/BaseFont", ""))))

    page.extract_text(visitor_text=text, visitor_operand_before=operator)
    return runs


def contrast_on_white(rgb: tuple[float, float, float]) -> float:
    """WCAG's contrast ratio of a colour against white (1 to 21)."""
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    luminance = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    return 1.05 / (luminance + 0.05)


def outside_margins(runs: list[Run], width: float, height: float, footer: set[str]) -> list[str]:
    """The runs of a page printed outside its text column (``PAPER``'s margins, in points; the
    bottom margin is the footer's band), but for the footer's own ``footer`` texts."""
    left, right = PAPER["marginLeft"] * 72, width - PAPER["marginRight"] * 72
    bottom, top = PAPER["marginBottom"] * 72, height - PAPER["marginTop"] * 72
    return [f"{run.text.strip()[:30]!r} at ({run.x:.0f}, {run.y:.0f})" for run in runs
            if run.text.strip() not in footer
            and not (left - 1 <= run.x < right and bottom <= run.y <= top)]


def test_text_outside_the_margins_is_found():
    black = (0.0, 0.0, 0.0)
    runs = [Run("Contents", 70, 780, 22, black, "Serif"), Run("Book", 43, 22, 8.5, black, "Sans"),
            Run("3", 550, 22, 8.5, black, "Sans"), Run("The runs", 20, 830, 10, black, "Serif"),
            Run("Explore 81", 70, 20, 10, black, "Serif")]
    assert outside_margins(runs, 595.9, 841.9, {"Book", "3"}) == [
        "'The runs' at (20, 830)", "'Explore 81' at (70, 20)"]


def test_the_contents_keep_the_page_margins(book):
    """The printed contents lie within a chapter's page margins, clear of the footer."""
    reader, texts = book
    title = yaml.safe_load((ROOT / "_config.yml").read_text())["title"]
    intro = _outline_tree(reader)[1][1]
    problems = []
    for index in range(1, intro):
        page = reader.pages[index]
        for problem in outside_margins(text_runs(page), float(page.mediabox.width),
                                       float(page.mediabox.height), {title, str(index + 1)}):
            problems.append(f"page {index + 1}: {problem}")
    assert not problems, f"{len(problems)} texts outside the margins, e.g. {problems[:6]}"


def test_the_contents_list_every_chapter_at_its_page(book):
    """The printed contents (page 2 on) name each chapter and its page number, and that page
    of the PDF begins the chapter."""
    reader, texts = book
    assert texts[1].lstrip().startswith("Contents")
    intro = _outline_tree(reader)[1][1]  # the contents fill the pages before the introduction
    contents = _squeezed("".join(texts[1:intro]))
    titles = chapter_titles()
    for name in toc_files():
        title = titles[Path(name).name]
        found = re.search(re.escape(_squeezed(title)) + r"(\d+)", contents)
        assert found, f"{title!r} is not in the printed contents"
        page = int(found.group(1))
        assert _squeezed(title) in _squeezed(texts[page - 1]), \
            f"the contents put {title!r} on page {page}, which does not show it"
    # The chapters carry their numbers, which figure numbers ("Fig. 3.1") refer to.
    numbered = [name for caption, names in toc_parts().items() if caption != BACK_MATTER
                for name in names]
    for number, name in enumerate(numbered, start=1):
        assert f"{number}.{_squeezed(titles[Path(name).name])}" in contents, name


def test_each_chapter_opens_with_its_number_and_title(book):
    """A numbered chapter's first page begins with its heading as the contents print it
    ("7. Federated experiments ..."), the number its figures' numbers ("Fig. 7.1") refer to."""
    reader, texts = book
    titles = chapter_titles()
    first_pages = {title: page for _, _, chapters in _outline_tree(reader)[2:]
                   for title, page, _ in chapters}
    numbered = [name for caption, names in toc_parts().items() if caption != BACK_MATTER
                for name in names]
    wrong = []
    for number, name in enumerate(numbered, start=1):
        title = titles[Path(name).name]
        heading = unicodedata.normalize("NFKC", _squeezed(f"{number}. {title}"))
        page = first_pages[title]
        printed = unicodedata.normalize("NFKC", _squeezed(texts[page]))
        if not printed.startswith(heading):
            wrong.append(f"page {page + 1} begins {printed[:len(heading) + 8]!r}, not {heading!r}")
    assert not wrong, wrong


def test_bookmarks_nest_parts_chapters_and_sections(book):
    reader, texts = book
    tree = _outline_tree(reader)
    titles = chapter_titles()
    parts = toc_parts()
    assert [title for title, _, _ in tree] == (
        ["Contents", titles[Path(toc_files()[0]).name]] + list(parts))
    chapters_seen = []
    for (_, page, children), names in zip(tree[2:], parts.values(), strict=True):
        assert [title for title, _, _ in children] == [titles[Path(n).name] for n in names]
        assert page == children[0][1]
        chapters_seen += children
    starts = [page for _, page, _ in chapters_seen]
    assert starts == sorted(set(starts))
    for title, start, _ in chapters_seen:
        assert _squeezed(title) in _squeezed(texts[start]), f"{title!r} is not on page {start + 1}"
    with_sections = [title for title, _, sections in chapters_seen if sections]
    assert len(with_sections) >= len(chapters_seen) - 2, "chapters without section bookmarks"
    for title, start, sections in chapters_seen:
        for _, page, _ in sections:
            assert start <= page < len(texts), f"a section of {title!r} points outside it"


def _links(reader: PdfReader):
    for index, page in enumerate(reader.pages):
        for ref in page.get("/Annots") or []:
            annotation = ref.get_object()
            if annotation.get("/Subtype") == "/Link":
                yield index, annotation


def test_links_jump_inside_the_pdf_or_to_the_web(book):
    """No link to the machine that built the PDF; every internal link names a page of it."""
    reader, _ = book
    pages = {page.indirect_reference.idnum: index for index, page in enumerate(reader.pages)}
    internal, bad = 0, []
    for index, annotation in _links(reader):
        action = annotation.get("/A")
        action = action.get_object() if action is not None else {}
        if action.get("/S") == "/URI":
            uri = str(action["/URI"])
            if not re.match(r"(https?|mailto):", uri):
                bad.append(f"page {index + 1}: {uri}")
            continue
        dest = annotation.get("/Dest", action.get("/D"))
        dest = dest.get_object() if hasattr(dest, "get_object") else dest
        if isinstance(dest, list) and dest and dest[0].idnum in pages:
            internal += 1
        else:
            bad.append(f"page {index + 1}: internal link without a page: {dest!r}")
    assert not bad, f"{len(bad)} dead links, e.g. {bad[:5]}"
    assert internal > 200, f"only {internal} internal links"


def test_no_screen_chrome_is_printed(book):
    _, texts = book
    found = {token: [i + 1 for i, text in enumerate(texts) if token in text] for token in CHROME}
    assert not {token: pages for token, pages in found.items() if pages}


def test_the_math_is_typeset(book):
    _, texts = book
    text = "\n".join(texts)
    assert not [tex for tex in RAW_TEX if tex in text]


class _FoldedOutputs(HTMLParser):
    """The text of every output folded behind "Show code cell output(s)" (hide-output: below
    its source, or alone, above the output, when the source is removed), and of every fold
    of a long table (fedlib.table.folded)."""

    def __init__(self):
        super().__init__()
        self.depth, self.texts = 0, []

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        folded = ("hide" in classes and {"below-input", "above-output"} & set(classes)
                  or "fedlib-fold" in classes)
        if tag == "details" and self.depth == 0 and folded:
            self.depth, self.texts = 1, [*self.texts, ""]
        elif self.depth and tag == "details":
            self.depth += 1

    def handle_endtag(self, tag):
        if self.depth and tag == "details":
            self.depth -= 1

    def handle_data(self, data):
        if self.depth:
            self.texts[-1] += data


def test_folded_outputs_are_printed(book, html_dir):
    """An output folded in the HTML (e.g. chapter 12's table of the attacks, chapter 6's medians
    behind its figures) prints."""
    _, texts = book
    printed = _squeezed("".join(texts))
    missing = []
    for name in toc_files():
        parser = _FoldedOutputs()
        parser.feed((html_dir / f"{name}.html").read_text())
        for text in parser.texts:
            words = re.sub(r"(Show|Hide) code cell outputs?", "", text)
            words = _squeezed(words)[:30]
            if len(words) >= 12 and words not in printed:
                missing.append(f"{name}: {words}")
    assert not missing


def figure_captions(page: str) -> list[str]:
    """The start of every figure caption of a built page, squeezed: its number ("Fig. 3.2")
    and the caption's words up to its first formula (MathJax prints formulas as paths, which
    the PDF's text leaves out), at most 16 characters of them."""
    starts = []
    for caption in re.findall(r"<figcaption>(.*?)</figcaption>", page, flags=re.S):
        words = re.split(r'<span class="math|\\\(', caption)[0]
        words = htmllib.unescape(re.sub(r"<[^>]+>", "", words))
        if words.strip().startswith("Fig"):
            number, _, text = _squeezed(words).partition(".")
            digits = re.match(r"[\d.]*\d", text).group(0)
            starts.append(f"{number}.{digits}{text[len(digits):][:16]}")
    return starts


def captions_apart(captions: list[str], texts: list[str], images: list[int]) -> list[str]:
    """The captions printed on a page without any image (their figure went to another page),
    or not printed at all. ``texts`` and ``images`` give every page's text and image count."""
    pages = [unicodedata.normalize("NFKC", _squeezed(text)) for text in texts]
    problems = []
    for caption in map(functools.partial(unicodedata.normalize, "NFKC"), captions):
        found = [index for index, text in enumerate(pages) if caption in text]
        if not found:
            problems.append(f"{caption}: not printed")
        elif not images[found[0]]:
            problems.append(f"{caption}: on page {found[0] + 1}, its figure on another")
    return problems


def test_captions_that_left_their_figure_are_found():
    texts = ["Fig. 1.1 Left: the \ufb01rst curve", "text", "a figure", "Fig. 1.2 Right: the other"]
    assert captions_apart(["Fig.1.1Left:thefirstcurve"], texts, [1, 0, 1, 0]) == []
    assert captions_apart(["Fig.1.2Right:the"], texts, [1, 0, 1, 0]) == [
        "Fig.1.2Right:the: on page 4, its figure on another"]
    assert captions_apart(["Fig.1.3Gone"], texts, [1, 0, 1, 0]) == ["Fig.1.3Gone: not printed"]
    page = ('<figcaption><p><span class="caption-number">Fig. 3.3 </span>'
            '<span class="caption-text">Eq. (10): <span class="math notranslate">x</span> '
            'falls</span></p></figcaption>')
    assert figure_captions(page) == ["Fig.3.3Eq.(10):"]


def test_every_figure_is_printed_with_its_caption(book, html_dir):
    """A figure and its caption share a page: the print stylesheet keeps a figure whole."""
    reader, texts = book
    images = [len(page.images) for page in reader.pages]
    captions = [caption for name in toc_files()
                for caption in figure_captions((html_dir / f"{name}.html").read_text())]
    assert len(captions) > 30, f"only {len(captions)} figure captions found in the HTML"
    problems = captions_apart(captions, texts, images)
    assert not problems, problems


def table_cells(page: str) -> list[str]:
    """The start of each table's first long enough cell of a built page, squeezed (up to 24
    characters, before any formula): text to find the table by in the PDF."""
    starts = []
    for table in re.findall(r"<table.*?</table>", page, flags=re.S):
        for cell in re.findall(r"<td[^>]*>(.*?)</td>", table, flags=re.S):
            words = re.split(r'<span class="math|\\\(', cell)[0]
            words = _squeezed(htmllib.unescape(re.sub(r"<[^>]+>", "", words)))
            if len(words) >= 24:
                starts.append(words[:24])
                break
    return starts


def runs_of(runs: list[Run], words: str) -> list[Run]:
    """The runs that print the first occurrence of ``words`` (squeezed) on their page."""
    text, owner = "", []
    for index, run in enumerate(runs):
        piece = unicodedata.normalize("NFKC", _squeezed(run.text))
        text += piece
        owner += [index] * len(piece)
    at = text.find(unicodedata.normalize("NFKC", words))
    return [] if at < 0 else [runs[i] for i in sorted(set(owner[at:at + len(words)]))]


def small_print(runs: list[Run], words: str, least: float) -> list[str]:
    """What makes the runs printing ``words`` hard to read: a size under ``least`` points, a
    light weight, a colour of less than 7:1 contrast on white. Code (a monospace font) has the
    size of the code around it and is left out (the code of a cell printing a table may come
    first on its page)."""
    problems = []
    for run in runs_of(runs, words):
        if "Mono" in run.font:
            continue
        if run.size < least - 0.05:
            problems.append(f"{run.size:.1f} pt")
        if "Light" in run.font:
            problems.append(run.font.split("+")[-1])
        if contrast_on_white(run.fill) < 7:
            problems.append(f"contrast {contrast_on_white(run.fill):.1f}:1")
    return [f"{words}: {', '.join(sorted(set(problems)))}"] if problems else []


def test_small_print_is_found():
    grey, black = (0.28, 0.34, 0.42), (0.2, 0.2, 0.2)
    runs = [Run("Fig. 8.1 ", 0, 0, 9.1, grey, "DejaVuSans-Oblique"),
            Run("How many claims", 0, 0, 9.1, (0.6, 0.6, 0.6), "AA+DejaVuSans-ExtraLight"),
            Run("ours 0.77 in 8 of 10", 0, 0, 8.6, black, "DejaVuSans"),
            Run("print(x)", 0, 0, 8.0, black, "DejaVuSansMono")]
    assert small_print(runs, "Fig.8.1How", 10) == [
        "Fig.8.1How: 9.1 pt, DejaVuSans-ExtraLight, contrast 2.8:1"]
    assert small_print(runs, "ours0.77in8of10print", 8.5) == []
    assert round(contrast_on_white((0.2, 0.2, 0.2)), 1) == 12.6
    assert table_cells('<table><tr><td>a</td><td>every worker is paid at least its bid'
                       '</td></tr></table>') == ["everyworkerispaidatleast"]


def test_captions_and_tables_print_large_and_dark_enough(book, html_dir):
    """Captions print at 10 pt or more in a regular weight and a dark grey (7:1 on white or
    more), the tables' text at 8.5 pt or more."""
    reader, texts = book
    pages = [unicodedata.normalize("NFKC", _squeezed(text)) for text in texts]
    runs = functools.cache(lambda index: text_runs(reader.pages[index]))
    problems, checked = [], 0
    for name in toc_files():
        built = (html_dir / f"{name}.html").read_text()
        for words, least in ([(c, 10.0) for c in figure_captions(built)]
                             + [(c, 8.5) for c in table_cells(built)]):
            words = unicodedata.normalize("NFKC", words)
            index = next((i for i, text in enumerate(pages) if words in text), None)
            if index is not None:
                checked += 1
                problems += [f"page {index + 1}: {p}" for p in small_print(runs(index), words,
                                                                          least)]
    assert checked > 40, f"only {checked} captions and tables found in the PDF"
    assert not problems, f"{len(problems)} in small print, e.g. {problems[:6]}"


def test_the_status_marks_print(book, html_dir):
    """The execution table's status marks (emoji in the HTML, which the print fonts lack)
    print as check or cross marks, not as empty boxes."""
    reader, texts = book
    marks = len(re.findall("[\u2705\u274c]", (html_dir / "chapters/status.html").read_text()))
    start = _outline_tree(reader)[-1][2][-1][1]
    printed = "".join(texts[start:])
    assert _squeezed(chapter_titles()["status"]) in _squeezed(texts[start])
    assert marks > 10
    assert len(re.findall("[\u2713\u2717]", printed)) == marks
    assert not re.search("[\x00\ufffd\u2705\u274c]", printed)  # \x00: a missing glyph


def exercise_headings(page: str) -> dict[str, tuple[str, str]]:
    """The printed headings of the exercises of a built page, by label: the exercise's
    ("Exercise 4.1 (Algorithm 1 by hand)", numbered by sphinx-exercise) and its solution's
    ("Solution to Exercise 4.1 (...)"), each up to its first formula (printed as paths)."""

    def words(title: str) -> str:
        title = re.split(r'<span class="math|\\\(', title)[0]
        return htmllib.unescape(re.sub(r"<[^>]+>", "", title))

    exercise = re.findall(r'<div class="exercise[^"]*" id="([^"]+)">\s*'
                          r'<p class="admonition-title">(.*?)</p>', page, flags=re.S)
    solution = dict(re.findall(r'<p class="admonition-title">Solution to<a class="reference '
                               r'internal" href="#([^"]+)">(.*?)</a></p>', page, flags=re.S))
    return {label: (words(title), "Solution to" + words(solution.get(label, " ?")))
            for label, title in exercise}


def exercises_misprinted(expected: list[tuple[str, str, str | None]],
                         texts: list[str]) -> list[str]:
    """What is missing or out of order in the printed ``texts`` (every page's text, in
    reading order) among the ``expected`` exercises, each (its heading, its solution's heading,
    a line of its solution's code or None), in the book's order: each heading printed after
    the one before it, the code after its solution's heading and before the next exercise."""
    text = unicodedata.normalize("NFKC", _squeezed("".join(texts)))
    problems, at = [], 0
    for heading, solution, code in expected:
        for what, words in (("exercise", heading), ("solution", solution), ("code", code)):
            if words is None:
                continue
            words = unicodedata.normalize("NFKC", _squeezed(words))
            found = text.find(words, at)
            # an exercise's heading is also the end of its solution's ("Solution to Exercise")
            while what == "exercise" and found >= 0 and text[:found].endswith("Solutionto"):
                found = text.find(words, found + 1)
            if found < 0:
                where = "out of order" if words in text else "not printed"
                problems.append(f"{what} {words[:60]}: {where}")
            else:
                at = found + len(words)
    return problems


def test_a_misprinted_exercise_is_found():
    page = ('<div class="exercise admonition" id="ex-sum">\n<p class="admonition-title">'
            '<span class="caption-number">Exercise 2.1 </span> (Sum to <span class="math '
            'notranslate nohighlight">\\(n\\)</span>)</p></div>\n<div class="solution dropdown '
            'admonition" id="s-1">\n<p class="admonition-title">Solution to<a class="reference '
            'internal" href="#ex-sum"> Exercise 2.1 (Sum to <span class="math">n</span>)</a></p>')
    assert exercise_headings(page) == {
        "ex-sum": ("Exercise 2.1  (Sum to ", "Solution to Exercise 2.1 (Sum to ")}
    expected = [("Exercise 2.1 (Sum", "Solution to Exercise 2.1 (Sum", "assert s == 6"),
                ("Exercise 2.2 (Pay", "Solution to Exercise 2.2 (Pay", None)]
    printed = ["✏ Exercise 2.1 (Sum to n)\nAdd.\nSolution to Exercise 2.1 (Sum to\nn)\n",
               "s = 1 + 2 + 3\nassert s ==\n6\n✏ Exercise 2.2 (Pay)\n",
               "Solution to Exercise 2.2 (Pay)"]
    assert exercises_misprinted(expected, printed) == []
    code_first = ["✏ Exercise 2.1 (Sum)\nassert s == 6\nSolution to Exercise 2.1 (Sum)\n",
                  "✏ Exercise 2.2 (Pay)\nSolution to Exercise 2.2 (Pay)"]
    assert exercises_misprinted(expected, code_first) == ["code asserts==6: out of order"]
    assert exercises_misprinted(expected[::-1], printed) == [
        "exercise Exercise2.1(Sum: out of order", "solution SolutiontoExercise2.1(Sum: "
        "out of order", "code asserts==6: out of order"]
    no_solution = [printed[0].replace("Solution to Exercise 2.1", "Exercise 2.1"), *printed[1:]]
    assert exercises_misprinted(expected, no_solution) == [
        "solution SolutiontoExercise2.1(Sum: not printed"]


@pytest.fixture(scope="module")
def reading_order(book) -> list[str]:
    """Every page's text in reading order: a page that prints an exercise's or a solution's
    heading is read by its layout (its plain text puts the boxes' headings at its end)."""
    reader, texts = book
    return [page.extract_text(extraction_mode="layout") if "Exercise" in text else text
            for page, text in zip(reader.pages, texts, strict=True)]


def test_every_exercise_is_printed_with_its_solution(reading_order, html_dir):
    """Each teaching chapter's exercises print in the book's order, each with its heading
    (numbered as in the HTML), then its solution's, then its solution's code (the first
    assert), unfolded."""
    expected = []
    for path in teaching_chapters():
        name = path.relative_to(ROOT).with_suffix("")
        headings = exercise_headings((html_dir / f"{name}.html").read_text())
        listed = exercises(path.read_text())
        assert list(headings) == [e.label for e in listed], f"{name}: the HTML's exercises"
        for e in listed:
            first = next((line for cell in e.code for line in cell.splitlines()
                          if line.lstrip().startswith("assert ")), None)
            expected.append((*headings[e.label], first))
    assert sum(code is not None for *_, code in expected) >= 2 * len(teaching_chapters()) - 2
    problems = exercises_misprinted(expected, reading_order)
    assert not problems, problems


def test_the_pdf_link_of_the_introduction_resolves(html_dir):
    """Followed from the page it is on, the introduction's link opens this PDF."""
    intro = html_dir / f"{toc_files()[0]}.html"
    links = re.findall(r'href="([^"#?]*book\.pdf)"', intro.read_text())
    assert links, "the introduction does not link to the PDF"
    for link in links:
        target = (intro.parent / link).resolve()
        assert target.is_file(), f"{link} from {intro.name} resolves to nothing ({target})"
        assert target.read_bytes() == PDF.read_bytes()


def test_the_print_check_sees_screen_chrome(driver, tmp_path):
    """The check the PDF script runs on every page before printing it fails a page that would
    print a widget, a fold bar, a folded output, cut code and a table too wide for paper, and
    lets a fold of fedlib.table.folded print its summary line, which heads its group."""
    page = tmp_path / "broken.html"
    page.write_text("""<!doctype html><html><body><main>
<details class="fedlib-fold" open><summary>MNIST, fresh model</summary><p>rows</p></details>
<details class="hide below-input"><summary>Show code cell output</summary><p>out</p></details>
<details class="hide above-output"><summary>Show code cell outputs</summary><p>out</p></details>
<div class="jupyter-widgets widget-slider"><span>slider</span></div><input type="text">
<pre style="white-space: pre; overflow: auto">""" + "x" * 400 + """</pre>
<table style="width: 1500px"><tr><td>wide</td></tr></table>
</main></body></html>""")
    driver.get(page.as_uri())
    problems = " | ".join(print_problems(driver))
    assert problems.count("a folded output is left out") == 2, problems
    for expected in ("printed screen chrome (summary)", "printed screen chrome (input)",
                     "printed screen chrome (.widget-slider)", "a folded output is left out",
                     "code cut off", "table wider than the printed column"):
        assert expected in problems, f"{expected!r} not reported in: {problems}"
    assert "MNIST, fresh model" not in problems, problems


@pytest.mark.parametrize("chapter", [path.stem for path in notebook_chapters()])
def test_each_chapter_offers_its_notebook_and_source(html_dir, chapter):
    page = (html_dir / "chapters" / f"{chapter}.html").read_text()
    for suffix in (".ipynb", ".md"):
        link = re.search(rf'href="(\.\./_downloads/[0-9a-f]+/{chapter}\{suffix})"', page)
        assert link, f"{chapter}: no download of its {suffix}"
        assert (html_dir / "chapters" / link.group(1)).resolve().is_file()
