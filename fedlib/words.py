"""Lists said in words, for the sentences a chapter computes: ``"1, 3 and 4"``.

A chapter that names the seeds, settings or runs where a statement held glues the list into its
prose; an empty list reads "none", never an empty string in the middle of a sentence.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["listed"]


def listed(items: Iterable[object], empty: str = "none") -> str:
    """``items`` as an English list: commas between them and "and" before the last.

    Examples
    --------
    >>> listed([1, 3, 4])
    '1, 3 and 4'
    >>> listed(["B = 90"])
    'B = 90'
    >>> listed(["ours", "RRAFL"])
    'ours and RRAFL'
    >>> listed([])
    'none'
    """
    words = [str(item) for item in items]
    if len(words) <= 1:
        return words[0] if words else empty
    return f"{', '.join(words[:-1])} and {words[-1]}"
