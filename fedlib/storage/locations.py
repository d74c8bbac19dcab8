"""Where the book's checkout is, if there is one: found from the working folder, never from where
fedlib is installed.

An installed fedlib (a wheel in any environment) knows nothing of the repository it was built
from. The book's chapters, its tests and ``python -m fedlib reproduce`` run inside a checkout,
and there the stored results (``results/``) and the lock file (``requirements.lock``) are
read from the checkout that holds the working folder: :func:`book_root` walks up from it to the
first folder with the book's table of contents (``_toc.yml``) and a ``fedlib`` package beside
it. Outside a checkout there is none, and whoever needs one says so (``$FEDLIB_RESULTS`` names a
results folder anywhere).
"""

from __future__ import annotations

import os
from pathlib import Path

#: What marks a folder as the book's checkout.
MARKERS = ("_toc.yml", "fedlib")


def book_root(start: str | os.PathLike[str] | None = None) -> Path | None:
    """The checkout holding ``start`` (default: the working folder), or None outside one.

    >>> book_root("/") is None
    True
    """
    here = Path(start if start is not None else Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if all((folder / marker).exists() for marker in MARKERS):
            return folder
    return None
