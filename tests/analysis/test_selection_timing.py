"""Timing Algorithm 1's selection (fedlib.analysis.selection_timing)."""

from __future__ import annotations

import numpy as np
import pytest

from fedlib.analysis.selection_timing import time_select


def test_time_select_and_slope():
    r = time_select([100, 1000, 10000], 3, np.random.default_rng(0))
    assert r.times.shape == (3, 3) and np.all(r.times > 0)
    assert r.per_n_log_n.shape == (3,)
    assert r.slope() < 2.0
    assert r.table().column("n") == [100, 1000, 10000]
    with pytest.raises(ValueError, match="two sizes"):
        r.slope(min_size=10**6)
    with pytest.raises(ValueError, match="repeats"):
        time_select([10], 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="sizes"):
        time_select([1], 1, np.random.default_rng(0))
