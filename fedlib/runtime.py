"""Process-wide switches: fast mode, progress bars and the compute device."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TypeVar

T = TypeVar("T")


def fast_mode() -> bool:
    """True when ``FEDLIB_FAST=1``: chapters and experiments shrink to a quick smoke run."""
    return os.environ.get("FEDLIB_FAST", "0") not in ("", "0", "false", "False")


def quiet() -> bool:
    """Progress bars stay quiet in fast mode, in CI (``CI`` set) and when ``FEDLIB_QUIET=1``.

    The book build sets ``FEDLIB_QUIET=1``: a progress bar's widget would leave an empty box
    in the rendered page.
    """
    return fast_mode() or bool(os.environ.get("CI")) or os.environ.get("FEDLIB_QUIET") == "1"


def progress(iterable: Iterable[T], desc: str, total: int | None = None) -> Iterable[T]:
    """Wrap a long loop in a ``tqdm.auto`` progress bar unless :func:`quiet`."""
    from tqdm.auto import tqdm

    return tqdm(iterable, desc=desc, total=total, disable=quiet(), leave=False)
