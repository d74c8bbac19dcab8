"""The Figures 4-5 generator and the ex-post utility of unit payments."""

from __future__ import annotations

import numpy as np
import pytest

from fedlib.mechanism import MECHANISMS, synthetic_instance, utility_per_payment

ONE = MECHANISMS["rrafl"].select([1.0], [1.0], 2.0)


def test_synthetic_workers_follow_the_paper_ranges() -> None:
    inst = synthetic_instance(10_000, 125.0, np.random.default_rng(0))
    Re, b, re = inst.Re, inst.bids, inst.re
    assert np.all((Re >= 0.1) & (Re <= 1.0))
    assert np.all((b >= 10 / 3 * Re + 2 / 3) & (b <= 10 / 3 * Re + 8 / 3))
    assert np.all((re >= np.maximum(0, Re - 0.1)) & (re <= np.minimum(1, Re + 0.1)))
    assert np.array_equal(inst.costs, b) and inst.budget == 125.0
    # Uniform draws: the mean offset of the bid within its interval is about 1 (of width 2).
    assert np.mean(b - 10 / 3 * Re - 2 / 3) == pytest.approx(1.0, abs=0.05)


def test_synthetic_workers_are_reproducible() -> None:
    a = synthetic_instance(50, 10.0, np.random.default_rng(5))
    b = synthetic_instance(50, 10.0, np.random.default_rng(5))
    assert np.array_equal(a.bids, b.bids) and np.array_equal(a.re, b.re) and a.seed == b.seed


def test_utility_per_payment_by_hand() -> None:
    m = MECHANISMS["rrafl"]
    allocation = m.select([1.0, 1.0, 9.0], [1.0, 1.0, 1.0], 4.0)  # 1 <= 4, 1 <= 2, 9 > 4/3
    payments = m.pay(allocation, [0.5, 0.7, 1.0])  # rho* = min(9, 2) = 2: pays 2 and 2
    re = [0.5, 0.7, 1.0]
    assert utility_per_payment(allocation, payments, re) == pytest.approx(1.2 / 4.0)
    assert utility_per_payment(allocation, payments, re, per="budget", budget=8.0) == \
        pytest.approx(1.2 / 8.0)


def test_utility_per_payment_without_payments() -> None:
    m = MECHANISMS["ours"]
    nobody = m.select([5.0], [1.0], 1.0)
    assert np.isnan(utility_per_payment(nobody, [0.0], [0.3]))
    free = m.select([0.0], [1.0], 1.0)  # a winner paid 0 that gives re = 0.3
    assert utility_per_payment(free, [0.0], [0.3]) == np.inf


@pytest.mark.parametrize("call, name", [
    (lambda: synthetic_instance(0, 1.0, np.random.default_rng(0)), "n_workers"),
    (lambda: synthetic_instance(3, 0.0, np.random.default_rng(0)), "budget"),
    (lambda: synthetic_instance(3, 1.0, 0), "rng"),
    (lambda: utility_per_payment(ONE, [1.0, 1.0], [1.0]), "payments"),
    (lambda: utility_per_payment(ONE, [1.0], [np.nan]), "re"),
    (lambda: utility_per_payment(ONE, [1.0], [1.0], per="x"), "per"),
    (lambda: utility_per_payment(ONE, [1.0], [1.0], per="budget"),
     "budget"),
])
def test_bad_inputs(call: object, name: str) -> None:
    with pytest.raises(ValueError, match=f"^{name} "):
        call()
