"""Build one chapter as a one-page book, open it in headless Chromium and report what the
book's browser test would: raw TeX, broken images, tables wider than their column, figures
without a caption, error outputs. For writers of chapters; the full build is
``scripts/build_book.sh``.

    FEDLIB_DATA=... python scripts/preview_chapter.py chapters/04_auction.md [--full]

Fast mode (``FEDLIB_FAST=1``) unless ``--full``. The page and a full-page screenshot go to
``_build/preview/<chapter>/``. Links to other chapters are not resolved in a one-page book;
the build's warnings are printed, not fatal. Exit status 1 if the page has a problem.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests_book"))


def build(chapter: Path, out: Path, full: bool) -> Path:
    """A one-page book rooted at ``chapter`` in ``out``; the path of its HTML page."""
    if out.exists():  # a fresh build: Sphinx does not notice some changes of the configuration
        shutil.rmtree(out)
    book = out / "book"
    book.mkdir(parents=True)
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    config["execute"]["execute_notebooks"] = "force"
    # Key order matters: the widget manager's scripts load in the order they are listed.
    (book / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    (book / "_toc.yml").write_text(yaml.safe_dump(
        {"format": "jb-book", "root": f"chapters/{chapter.stem}"}))
    for name in ("chapters", "_vendor", "results"):
        (book / name).symlink_to(ROOT / name)
    env = dict(os.environ, FEDLIB_QUIET="1")
    env.pop("FEDLIB_FAST", None)
    if not full:
        env["FEDLIB_FAST"] = "1"
    subprocess.run(["jupyter-book", "build", str(book), "--path-output", str(out)],
                   check=True, env=env)
    return out / "_build" / "html" / "chapters" / f"{chapter.stem}.html"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chapter", type=Path, help="a chapter's .md, e.g. chapters/04_auction.md")
    parser.add_argument("--full", action="store_true", help="paper scale, not fast mode")
    args = parser.parse_args()
    data = os.environ.get("FEDLIB_DATA", "")
    if not data or not Path(data).is_dir():
        parser.error("FEDLIB_DATA must name a folder holding MNIST/raw and FashionMNIST/raw "
                     f"(in this project: FEDLIB_DATA=../shared/data); got {data!r}")
    os.environ["FEDLIB_DATA"] = str(Path(data).resolve())  # chapters run in chapters/
    chapter = args.chapter.resolve()
    if not chapter.is_file() or chapter.parent != ROOT / "chapters":
        parser.error(f"{args.chapter}: not a chapter in {ROOT / 'chapters'}")
    out = ROOT / "_build" / "preview" / chapter.stem
    page = build(chapter, out, args.full)
    from browser import check_page, open_browser

    driver = open_browser()
    try:
        report = check_page(driver, page, out / f"{chapter.stem}.png")
    finally:
        driver.quit()
    print(f"page: {page}\nscreenshot: {out / (chapter.stem + '.png')}")
    print(f"figures {report.figures}, widgets {report.widgets}, math {report.math}")
    for problem in report.problems:
        print("PROBLEM:", problem)
    return 1 if report.problems else 0


if __name__ == "__main__":
    sys.exit(main())
