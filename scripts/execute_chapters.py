"""Execute the book's chapters in parallel into the jupyter-cache that ``jupyter-book build``
reads (scripts/build_book.sh runs this first).

Jupyter Book's ``execute_notebooks: cache`` runs the chapters one after another, and several
of them compute on one core. Two at a time on two cores, the chapters at the paper's scale
took 936 s here instead of about 1170 s. This script reads each chapter with myst-nb's own
reader and the book's MyST extensions (so the same code cells and the same cache key as the
build), skips those the cache already holds, executes the others in ``--jobs`` processes
(``--first`` first, then the slowest by their previous execution times in the cache), and
stores each executed notebook in the cache. The build then finds every chapter there ("Using
cached notebook") and only renders.

A chapter that fails here is reported with its traceback and not cached, and the script
exits non-zero after the others finish: the build would fail on it anyway.

Usage: python scripts/execute_chapters.py --cache DIR [--jobs N] [--first CHAPTER.md ...] --
CHAPTER.md ...
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from pathlib import Path

import nbformat
import yaml
from jupyter_cache import get_cache
from jupyter_cache.base import CacheBundleIn
from jupyter_cache.executors.utils import single_nb_execution
from myst_nb.core.config import NbParserConfig
from myst_nb.core.read import create_nb_reader
from myst_parser.config.main import MdParserConfig

ROOT = Path(__file__).resolve().parent.parent


def myst_extensions(book: Path) -> set[str]:
    """The MyST extensions of a book's ``_config.yml`` (they decide what a code cell is)."""
    config = yaml.safe_load((book / "_config.yml").read_text())
    return set(config.get("parse", {}).get("myst_enable_extensions", []))


def read_chapter(path: Path, extensions: set[str]) -> nbformat.NotebookNode:
    """The notebook myst-nb makes of a MyST chapter: its own reader, the book's extensions."""
    text = path.read_text()
    reader = create_nb_reader(str(path), MdParserConfig(enable_extensions=extensions),
                              NbParserConfig(), text)
    if reader is None:
        raise ValueError(f"{path} is not a MyST notebook (no jupytext or mystnb front matter)")
    return reader.read(text)


def execute(path: str, extensions: set[str],
            timeout: int) -> tuple[str, str | None, float, str | None]:
    """Run one chapter in its folder: (path, executed notebook as JSON or None, seconds,
    traceback or None)."""
    notebook = read_chapter(Path(path), extensions)
    result = single_nb_execution(notebook, cwd=str(Path(path).parent), timeout=timeout,
                                 allow_errors=False, meta_override=True)
    if result.err is not None:
        return path, None, result.time, result.exc_string
    return path, nbformat.writes(notebook), result.time, None


def previous_seconds(cache, path: Path) -> float:
    """How long the chapter took when the cache last executed it (0 when unknown)."""
    records = [record for record in cache.list_cache_records() if record.uri == str(path)]
    if not records:
        return 0.0
    latest = max(records, key=lambda record: record.created)
    return float(latest.data.get("execution_seconds", 0.0))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("chapters", nargs="+", type=Path)
    parser.add_argument("--cache", required=True, type=Path,
                        help="the build's jupyter-cache folder")
    parser.add_argument("--book", type=Path, default=ROOT,
                        help="the book's folder, whose _config.yml names the MyST extensions "
                             "(default: this repository)")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                        help="chapters executed at once (default: 2, or 1 on one core)")
    parser.add_argument("--timeout", type=int, default=2400, help="seconds per cell")
    parser.add_argument("--first", nargs="*", type=Path, default=[],
                        help="chapters to start before the others, in this order (the slowest)")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    missing = [str(path) for path in [*args.chapters, *args.first] if not path.is_file()]
    if missing:
        parser.error(f"no such chapter: {', '.join(missing)}")

    extensions = myst_extensions(args.book)
    cache = get_cache(str(args.cache))
    chapters = [path.resolve() for path in args.chapters]
    todo = []
    for path in chapters:
        try:
            cache.match_cache_notebook(read_chapter(path, extensions))
            print(f"cached already: {path.name}", flush=True)
        except KeyError:
            todo.append(path)
    first = [path.resolve() for path in args.first]
    todo.sort(key=lambda path: (first.index(path) if path in first else len(first),
                                -previous_seconds(cache, path)))

    failed = []
    start = time.perf_counter()
    with ProcessPoolExecutor(args.jobs, mp_context=get_context("spawn")) as pool:
        futures = [pool.submit(execute, str(path), extensions, args.timeout) for path in todo]
        for done, future in enumerate(as_completed(futures), 1):
            path, text, seconds, traceback = future.result()
            name = Path(path).name
            if traceback is not None:
                failed.append(name)
                print(f"[{done}/{len(todo)}] FAILED {name} after {seconds:.0f} s:\n{traceback}",
                      file=sys.stderr, flush=True)
                continue
            cache.cache_notebook_bundle(
                CacheBundleIn(nbformat.reads(text, as_version=4), path,
                              data={"execution_seconds": seconds}),
                check_validity=False, overwrite=True)
            print(f"[{done}/{len(todo)}] {name} in {seconds:.0f} s", flush=True)
    print(f"{len(todo)} chapter(s) executed in {time.perf_counter() - start:.0f} s "
          f"with {args.jobs} job(s)", flush=True)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
