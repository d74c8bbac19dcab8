"""Hypothesis strategies for auction instances: ties, zeros and magnitudes 1e-6..1e6.

Non-zero values stay within 1e-6..1e6: densities beyond float64's range count as +inf (never
selected), a documented limit of :func:`fedlib.mechanism.select`.
"""

from __future__ import annotations

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st

from fedlib.mechanism import Instance

#: Settings of the property tests: enough examples, no deadline (the machine is shared). The
#: seeded loops of test_mech_properties.py add thousands of instances.
FAST = settings(max_examples=150, deadline=None)
MANY = settings(max_examples=400, deadline=None)

# Few distinct levels make equal densities and boundary cases frequent.
_money = st.one_of(st.sampled_from([0.0, 1e-6, 0.5, 1.0, 2.0, 3.0, 1e6]),
                   st.floats(1e-6, 1e6))
_reputation = st.one_of(st.sampled_from([0.0, 1e-6, 0.25, 0.5, 1.0]),
                        st.floats(1e-6, 1.0),
                        st.floats(1e-6, 1e6))


@st.composite
def instances(draw: st.DrawFn, min_workers: int = 1, max_workers: int = 7) -> Instance:
    """A truthful instance (bids = costs) with a budget from tiny to above the sum of bids."""
    n = draw(st.integers(min_workers, max_workers))
    bids = np.array(draw(st.lists(_money, min_size=n, max_size=n)))
    Re = np.array(draw(st.lists(_reputation, min_size=n, max_size=n)))
    # re: equal to Re (honest at the boundary), a multiple of it, or unrelated.
    re = np.array([draw(st.one_of(st.just(r), st.floats(0.0, 2.0).map(lambda f, r=r: f * r),
                                  _reputation)) for r in Re])
    fraction = draw(st.floats(1e-3, 1.5))
    budget = draw(st.one_of(st.just(fraction * max(bids.sum(), 1e-6)),
                            st.floats(1e-6, 1e7)))
    return Instance(bids, Re, budget, re, seed=draw(st.integers(0, 2**31)))


def scale(instance: Instance) -> float:
    """Absolute tolerance for money comparisons on ``instance``."""
    return 1e-9 * instance.scale
