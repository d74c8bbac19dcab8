"""Ex-ante against ex-post payment; the two readings of p' (analysis.payment_comparison)."""

from __future__ import annotations

import numpy as np

from fedlib.analysis.payment_comparison import denominator_comparison, payment_ratios
from fedlib.mechanism import synthetic_instance


def test_payment_ratios_bounds():
    insts = [synthetic_instance(50, 60.0, np.random.default_rng(s)) for s in range(10)]
    r = payment_ratios(insts)
    assert r.instances == 10 and r.paid.size == r.honest.size > 0
    assert np.allclose(r.paid_over_upper[r.honest], 1.0)
    d = ~r.honest
    assert np.all(r.paid_over_upper[d] <= 1 + 1e-12)
    assert np.all(r.paid_over_upper[d] >= r.re_over_Re[d] - 1e-12)
    assert np.all(r.spent_ex_post <= r.spent_ex_ante + 1e-9)
    assert np.all(r.spent_ex_ante <= r.budget * (1 + 1e-12))
    empty = payment_ratios([])
    assert empty.instances == 0 and empty.paid.size == 0


def test_denominator_comparison_max_is_redundant_with_Re():
    insts = [synthetic_instance(60, 70.0, np.random.default_rng(s)) for s in range(30)]
    t = denominator_comparison(insts)
    col = t.column("tasks where max() binds")
    assert t.column("p' divides by") == ["sum of re over S", "sum of Re over S"]
    assert col[1] == 0
    assert t.column("winners")[0] == t.column("winners")[1]
