"""The one strict-integer check every layer uses (:func:`fedlib.checks.integer`)."""

from __future__ import annotations

import numpy as np
import pytest

from fedlib.checks import integer


def test_integers_in_range_come_back_as_python_ints():
    assert integer(np.int64(4), "n") == 4 and type(integer(np.int64(4), "n")) is int
    assert integer(0, "seed", minimum=0) == 0
    assert integer(16, "workers", minimum=2, maximum=16) == 16


@pytest.mark.parametrize(("value", "minimum", "maximum", "message"), [
    (0, 1, None, "n must be a positive integer, got 0"),
    (True, 1, None, "n must be a positive integer, got True"),
    (3.0, 1, None, "n must be a positive integer, got 3.0"),
    ("3", 1, None, "n must be a positive integer, got '3'"),
    (-1, 0, None, "n must be a non-negative integer, got -1"),
    (1, 2, None, "n must be an integer >= 2, got 1"),
    (17, 2, 16, r"n must be an integer in \[2, 16\], got 17"),
])
def test_everything_else_is_refused_by_name(value, minimum, maximum, message):
    with pytest.raises(ValueError, match=f"^{message}$"):
        integer(value, "n", minimum, maximum)
