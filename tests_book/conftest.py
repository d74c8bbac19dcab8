"""Fixtures for the browser tests, which run after the book is built."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from browser import open_browser  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def html_dir() -> Path:
    """The built HTML: ``FEDLIB_HTML`` or the full build's output folder."""
    path = Path(os.environ.get("FEDLIB_HTML", ROOT / "_build/full/_build/html"))
    if not (path / "index.html").exists():
        pytest.fail(f"no built book in {path}: run `bash scripts/build_book.sh` first")
    return path


@pytest.fixture(scope="session")
def driver():
    browser = open_browser()
    yield browser
    browser.quit()


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    """Screenshots are kept as a CI artifact folder (git-ignored)."""
    return Path(os.environ.get("FEDLIB_SCREENSHOTS", ROOT / "artifacts/screenshots"))
