"""Print the built HTML book to one PDF, ``_build/pdf/book.pdf``, a book a reader can cite and
navigate (and copy it where the introduction's link to it resolves).

Every page of the table of contents is opened in headless Chromium (the browser tests' driver,
``tests_book/browser.py``), given the time MathJax and the widget manager need, readied for
print (``beforeprint``: folded outputs and solutions open, see ``_static/print.js``; the print
stylesheet ``_static/print.css`` removes the screen chrome) and printed to A4. Then:

* a title page (title, subtitle, authors and version as in ``CITATION.cff``, date, commit)
  and a printed table of contents with page numbers are printed the same way and put first;
* every link between pages of the book (cross-references, citations, notation, the contents)
  becomes a jump inside the PDF: Chromium prints a link to another page as a ``file://`` URI
  and keeps a destination only for an element that a link on its own page names, so each
  page is given a hidden link to each of its ids before it is printed, and each ``file://``
  link is rewritten to the page and height of its target. A link to a file that is not a page
  of the book (a notebook download, the MyST source) has no public address: it is left as
  plain text. Web links stay as they are;
* bookmarks nest part, chapter, section and subsection; every page but the title page carries
  its number in the footer (an overlay printed by Chromium and merged onto the page).

The script fails if any internal link has no target.

    python scripts/build_pdf.py [--html _build/full/_build/html] [--out _build/pdf/book.pdf]
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import html as htmllib
import io
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

import yaml
from pypdf import PdfReader, PdfWriter
from pypdf.generic import ArrayObject, FloatObject, NameObject, NullObject

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests_book"))
from book import chapter_titles, toc_files, toc_parts  # noqa: E402
from browser import check_page, open_browser, print_problems  # noqa: E402

#: A4 in inches, and the margins of a chapter's page (the bottom one holds the page number).
PAPER = {"paperWidth": 8.27, "paperHeight": 11.69, "marginTop": 0.55, "marginBottom": 0.75,
         "marginLeft": 0.6, "marginRight": 0.6, "printBackground": True,
         "preferCSSPageSize": False}

#: Run in a loaded page readied for print (``browser.print_problems`` fired ``beforeprint``):
#: give every id a link on its own page (so that Chromium writes a destination for it) and
#: return the page's sections.
PREPARE_JS = r"""
const holder = document.createElement('div');
holder.style.display = 'none';
for (const el of document.querySelectorAll('[id]')) {
  const a = document.createElement('a');
  a.href = '#' + encodeURIComponent(el.id);
  holder.appendChild(a);
}
document.body.appendChild(holder);
const main = document.querySelector('main') || document.body;
const sections = [];
for (const s of main.querySelectorAll('section[id]')) {
  const h = s.querySelector(':scope > h1, :scope > h2, :scope > h3');
  if (!h) continue;
  const clone = h.cloneNode(true);
  clone.querySelectorAll('.headerlink').forEach((x) => x.remove());
  clone.querySelectorAll('mjx-container').forEach((m) => {
    const mml = m.querySelector('mjx-assistive-mml');
    m.replaceWith(document.createTextNode(mml ? mml.textContent : ''));
  });
  sections.push({id: s.id, level: Number(h.tagName[1]),
                 title: clone.textContent.replace(/\s+/g, ' ').trim()});
}
return sections;
"""

PAGE_CSS = """
@page { size: A4; margin: 0; }
body { font-family: "DejaVu Serif", Georgia, serif; margin: 0; color: #111;
       font-variant-ligatures: none; }
"""


@dataclass
class Printed:
    """One page of the book printed on its own: its PDF, its sections and its destinations."""

    name: str
    pdf: PdfReader
    sections: list[dict]
    #: id -> (page within this PDF, left, top)
    dests: dict[str, tuple[int, float, float]] = field(default_factory=dict)


def _print(driver, options: dict | None = None) -> PdfReader:
    result = driver.execute_cdp_cmd("Page.printToPDF", {**PAPER, **(options or {})})
    return PdfReader(io.BytesIO(base64.b64decode(result["data"])))


def _destinations(pdf: PdfReader) -> dict[str, tuple[int, float, float]]:
    found = {}
    for name, dest in pdf.named_destinations.items():
        page = pdf.get_destination_page_number(dest)
        found[unquote(str(name).lstrip("/"))] = (page, float(dest.left or 0),
                                                  float(dest.top or 0))
    return found


def print_pages(driver, html: Path) -> list[Printed]:
    """Print every page of the table of contents on its own, in book order."""
    printed, problems = [], []
    for name in toc_files():
        report = check_page(driver, html / f"{name}.html")
        problems += [f"{name}: {problem}" for problem in report.problems]
        if not driver.execute_script(
                "return !!document.querySelector('link[href*=\"print.css\"]')"):
            problems.append(f"{name}: the page does not load _static/print.css")
        problems += [f"{name}: {problem}" for problem in print_problems(driver)]
        sections = driver.execute_script(PREPARE_JS)
        pdf = _print(driver)
        printed.append(Printed(name, pdf, sections, _destinations(pdf)))
        print(f"{name}: {len(pdf.pages)} pages", flush=True)
    if problems:
        raise SystemExit(f"{len(problems)} problems of the printed pages:\n" + "\n".join(problems))
    return printed


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def title_page_html() -> str:
    """Title, subtitle, authors, version, date and the commit the book was built from."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    paper = (cff.get("references") or [{}])[0]
    paper_authors = ", ".join(f"{a.get('given-names', '')} {a.get('family-names', '')}".strip()
                              for a in paper.get("authors", []))
    authors = ", ".join(a.get("name") or f"{a.get('given-names', '')} {a.get('family-names', '')}"
                        for a in cff.get("authors", []))
    commit = _git("rev-parse", "--short=12", "HEAD") or "unknown"
    if _git("status", "--porcelain", "--untracked-files=no"):
        commit += " (with uncommitted changes)"
    today = dt.datetime.now(dt.UTC).date().isoformat()
    e = htmllib.escape
    paper_line = (f"{e(paper.get('title', ''))}&rdquo; by {e(paper_authors)} "
                  f"({paper.get('year', '')})")
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>{e(config['title'])}</title>
<style>{PAGE_CSS}
.page {{ height: 297mm; box-sizing: border-box; padding: 55mm 25mm 20mm; display: flex;
         flex-direction: column; }}
h1 {{ font-size: 26pt; line-height: 1.25; margin: 0 0 10mm; }}
.subtitle {{ font-size: 14pt; line-height: 1.4; color: #333; margin-bottom: 18mm; }}
.authors {{ font-size: 14pt; margin-bottom: 4mm; }}
.meta {{ margin-top: auto; font-size: 10.5pt; line-height: 1.6; color: #333; }}
</style></head><body><div class="page">
<h1>{e(config['title'])}</h1>
<div class="subtitle">A reproduction, in executable chapters and the <code>fedlib</code> package,
of &ldquo;{paper_line}</div>
<div class="authors">{e(authors)}</div>
<div class="meta">Version {e(str(cff.get('version', '')))}<br>
Printed on {today} from commit {e(commit)}<br>
License: {e(str(cff.get('license', '')))}. Cite this book as in <code>CITATION.cff</code>.</div>
</div></body></html>"""


def numbered(page: Printed, title: str) -> str:
    """A chapter's title with its number ("3. Selecting and paying workers"), as its heading
    shows it when the table of contents numbers it (figures are numbered "Fig. 3.1" after it)."""
    heading = next((s["title"] for s in page.sections if s["level"] == 1), "")
    number = re.match(r"(\d+)\.\s", heading)
    return f"{number.group(1)}. {title}" if number else title


def contents_html(html: Path, printed: list[Printed], first_page: dict[str, int]) -> str:
    """The printed table of contents: parts, chapters and their sections, with page numbers
    (as printed in the footers) and links to them, within a chapter's page margins (the
    bottom one holds the footer)."""
    by_name = {p.name: p for p in printed}
    titles = chapter_titles()

    def entry(name: str, anchor: str, title: str, level: int) -> str:
        page = first_page[name] + (by_name[name].dests.get(anchor, (0,))[0] if anchor else 0)
        uri = (html / f"{name}.html").resolve().as_uri() + (f"#{anchor}" if anchor else "")
        return (f'<li class="l{level}"><a href="{htmllib.escape(uri)}"><span class="t">'
                f'{htmllib.escape(title)}</span><span class="n">{page + 1}</span></a></li>')

    def chapter(name: str) -> str:
        rows = [entry(name, "", numbered(by_name[name], titles[Path(name).name]), 1)]
        rows += [entry(name, s["id"], s["title"], 2) for s in by_name[name].sections
                 if s["level"] == 2]
        return "".join(rows)

    body = [chapter(toc_files()[0])]
    for caption, names in toc_parts().items():
        body.append(f'<li class="part">{htmllib.escape(caption)}</li>')
        body += [chapter(name) for name in names]
    margins = " ".join(f"{PAPER[f'margin{side}']}in" for side in ("Top", "Right", "Bottom", "Left"))
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>Contents</title>
<style>{PAGE_CSS}
@page {{ margin: {margins}; }}
h1 {{ font-size: 22pt; margin: 0 0 8mm; }}
ul {{ list-style: none; padding: 0; margin: 0; font-size: 10.5pt; }}
li a {{ display: flex; color: inherit; text-decoration: none; }}
li .t {{ flex: 1; }} li .n {{ padding-left: 4mm; font-variant-numeric: tabular-nums; }}
li.part {{ font-weight: bold; font-size: 12pt; margin: 5mm 0 1.5mm; break-after: avoid; }}
li.l1 {{ font-weight: 600; margin-top: 2mm; break-after: avoid; }}
li.l2 {{ padding-left: 7mm; color: #333; }}
</style></head><body><h1 id="contents">Contents</h1><ul>{''.join(body)}</ul></body></html>"""


def footers_html(count: int, title: str) -> str:
    """``count`` A4 pages, each with only its footer: the book's title and the page number
    (from 2: the title page has none)."""
    pages = "".join(f'<div class="p"><div class="f"><span>{htmllib.escape(title)}</span>'
                    f'<span>{n}</span></div></div>' for n in range(2, count + 2))
    return f"""<!doctype html><html><head><meta charset="utf-8"><style>{PAGE_CSS}
.p {{ height: 297mm; position: relative; break-after: page; overflow: hidden; }}
.p:last-child {{ break-after: auto; }}
.f {{ position: absolute; left: 15mm; right: 15mm; bottom: 7mm; display: flex;
      justify-content: space-between; font-size: 8.5pt; color: #555;
      font-family: "DejaVu Sans", Arial, sans-serif; }}
</style></head><body>{pages}</body></html>"""


def _print_html(driver, source: str, folder: Path, name: str, options: dict) -> PdfReader:
    path = folder / name
    path.write_text(source)
    driver.get(path.as_uri())
    return _print(driver, options)


def _internal_target(uri: str, html: Path, names: set[str]) -> tuple[str, str] | None:
    """(page name, fragment) of a ``file://`` link to a page of the book, else None."""
    parts = urlsplit(uri)
    try:
        relative = Path(unquote(parts.path)).resolve().relative_to(html.resolve())
    except ValueError:
        return None
    name = relative.with_suffix("").as_posix()
    if relative.suffix != ".html" or name not in names:
        return None
    return name, unquote(parts.fragment)


def link_pages(writer: PdfWriter, html: Path, printed: list[Printed], first_page: dict[str, int],
               page_owner: list[str | None]) -> tuple[int, list[str]]:
    """Rewrite every link between pages of the book as a jump within the PDF and drop the
    links to local files that are not pages; the number of internal links and the problems."""
    by_name = {p.name: p for p in printed}
    names = set(by_name)
    problems, internal = [], 0
    for index, page in enumerate(writer.pages):
        annotations = page.get("/Annots")
        if annotations is None:
            continue
        kept = ArrayObject()
        for ref in annotations.get_object():
            annotation = ref.get_object()
            if annotation.get("/Subtype") != "/Link":
                kept.append(ref)
                continue
            action = annotation.get("/A")
            action = action.get_object() if action is not None else None
            target = None
            if "/Dest" in annotation or (action is not None and action.get("/S") == "/GoTo"):
                dest = annotation.get("/Dest") or action.get("/D")
                owner = page_owner[index]
                if owner is None or not isinstance(dest, str):  # our own pages: none
                    kept.append(ref)
                    continue
                target = (owner, unquote(str(dest).lstrip("/")))
            elif action is not None and action.get("/S") == "/URI":
                uri = str(action.get("/URI"))
                if not uri.startswith("file:"):
                    kept.append(ref)  # a web address
                    continue
                target = _internal_target(uri, html, names)
                if target is None:
                    continue  # a local file with no public address: plain text
            else:
                kept.append(ref)
                continue
            name, fragment = target
            if fragment:
                if fragment not in by_name[name].dests:
                    problems.append(f"page {index + 1}: link to {name}#{fragment} has no target")
                    continue
                local, left, top = by_name[name].dests[fragment]
            else:
                local, left, top = 0, 0.0, float(writer.pages[first_page[name]].mediabox.top)
            goal = writer.pages[first_page[name] + local].indirect_reference
            for key in ("/A", "/Dest"):
                if key in annotation:
                    del annotation[NameObject(key)]
            annotation[NameObject("/Dest")] = ArrayObject(
                [goal, NameObject("/XYZ"), FloatObject(left), FloatObject(top), NullObject()])
            internal += 1
            kept.append(ref)
        page[NameObject("/Annots")] = kept
    return internal, problems


def add_outline(writer: PdfWriter, printed: list[Printed], first_page: dict[str, int],
                contents_page: int) -> None:
    """Bookmarks: the contents, the introduction, then each part > chapter > section >
    subsection."""
    from pypdf.generic import Fit

    by_name = {p.name: p for p in printed}
    titles = chapter_titles()

    def chapter(name: str, parent=None) -> None:
        item = writer.add_outline_item(title=numbered(by_name[name], titles[Path(name).name]),
                                       page_number=first_page[name], parent=parent)
        stack = {1: item}
        for section in by_name[name].sections:
            level = section["level"]
            if level < 2 or section["id"] not in by_name[name].dests:
                continue
            local, left, top = by_name[name].dests[section["id"]]
            above = stack.get(level - 1, item)
            stack[level] = writer.add_outline_item(
                title=section["title"], page_number=first_page[name] + local, parent=above,
                fit=Fit.xyz(left, top))
            for deeper in [k for k in stack if k > level]:
                del stack[deeper]

    writer.add_outline_item(title="Contents", page_number=contents_page)
    chapter(toc_files()[0])
    for caption, names in toc_parts().items():
        part = writer.add_outline_item(title=caption, page_number=first_page[names[0]])
        for name in names:
            chapter(name, part)


def print_book(html: Path, out: Path) -> int:
    """Print the book into ``out``; the number of its pages."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    driver = open_browser()
    try:
        printed = print_pages(driver, html)
        with tempfile.TemporaryDirectory() as folder:
            folder = Path(folder)
            bare = {"marginTop": 0, "marginBottom": 0, "marginLeft": 0, "marginRight": 0}
            title = _print_html(driver, title_page_html(), folder, "title.html", bare)
            if len(title.pages) != 1:
                raise SystemExit(f"the title page printed on {len(title.pages)} pages")
            contents_pages = 1
            for _ in range(3):  # the contents' length moves every page number after it
                first_page, page = {}, 1 + contents_pages
                for p in printed:
                    first_page[p.name] = page
                    page += len(p.pdf.pages)
                contents = _print_html(driver, contents_html(html, printed, first_page), folder,
                                       "contents.html", {})
                if len(contents.pages) == contents_pages:
                    break
                contents_pages = len(contents.pages)
            writer = PdfWriter()
            owner: list[str | None] = []
            for source, name in [(title, None), (contents, None)] + [(p.pdf, p.name)
                                                                     for p in printed]:
                for page in source.pages:
                    writer.add_page(page)
                    owner.append(name)
            footers = _print_html(driver, footers_html(len(writer.pages) - 1, config["title"]),
                                  folder, "footers.html", bare)
    finally:
        driver.quit()
    for index, overlay in enumerate(footers.pages, start=1):
        writer.pages[index].merge_page(overlay)
    internal, problems = link_pages(writer, html, printed, first_page, owner)
    if problems:
        raise SystemExit(f"{len(problems)} internal links without a target:\n"
                         + "\n".join(problems[:40]))
    add_outline(writer, printed, first_page, contents_page=1)
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    writer.add_metadata({"/Title": config["title"],
                         "/Author": ", ".join(a.get("name", "") for a in cff.get("authors", [])),
                         "/Subject": f"fedlib {cff.get('version', '')}"})
    writer.page_mode = "/UseOutlines"
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("wb") as file:
        writer.write(file)
    print(f"{internal} internal links, every one resolved")
    return len(writer.pages)


def pdf_link_targets(html: Path) -> list[Path]:
    """Where the built pages' links to ``book.pdf`` resolve (the introduction has one)."""
    found = set()
    for page in html.rglob("*.html"):
        for href in re.findall(r'href="([^"#?]*book\.pdf)"', page.read_text(errors="ignore")):
            found.add((page.parent / href).resolve())
    return sorted(found)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--html", type=Path, default=ROOT / "_build/full/_build/html")
    parser.add_argument("--out", type=Path, default=ROOT / "_build/pdf/book.pdf")
    args = parser.parse_args()
    if not (args.html / "index.html").exists():
        parser.error(f"no built book in {args.html}: run bash scripts/build_book.sh first")
    pages = print_book(args.html, args.out)
    html = args.html.resolve()
    # Beside the HTML, and where the pages' links to it resolve (the introduction's, from
    # chapters/), so that the link opens it.
    copies = list(dict.fromkeys([html / "book.pdf"] + [
        copy for copy in pdf_link_targets(html) if copy.is_relative_to(html)]))
    for copy in copies:
        shutil.copyfile(args.out, copy)
    print(f"{args.out}: {pages} pages (and " + ", ".join(map(str, copies)) + ")")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
