"""Checks of arguments shared by every layer (numpy only, so the mechanism layer can use them).

Examples
--------
>>> integer(3, "rounds")
3
>>> integer(True, "rounds")
Traceback (most recent call last):
...
ValueError: rounds must be a positive integer, got True
"""

from __future__ import annotations

from typing import Any

import numpy as np


def integer(value: Any, name: str, minimum: int = 1, maximum: int | None = None) -> int:
    """``value`` as a Python ``int``, if it is an integer in ``[minimum, maximum]``.

    A Python or numpy integer is accepted; a bool, a float (even ``3.0``) or anything else is
    not, so that a count or a seed never arrives silently converted.

    Parameters
    ----------
    value
        The argument to check.
    name
        Its name in the error message.
    minimum, maximum : int, default 1 and None (no upper bound)
        The accepted range, both ends included.

    Returns
    -------
    int
    """
    if (isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum
            or (maximum is not None and value > maximum)):
        wanted = (f"an integer in [{minimum}, {maximum}]" if maximum is not None else
                  "a positive integer" if minimum == 1 else
                  "a non-negative integer" if minimum == 0 else f"an integer >= {minimum}")
        raise ValueError(f"{name} must be {wanted}, got {value!r}")
    return int(value)
