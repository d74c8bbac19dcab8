"""Trust, h, g, alpha, the counters, Eq. (13) and the ledger, checked by hand."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mech_strategies import FAST

from fedlib.mechanism import (
    ReputationLedger,
    attenuation,
    g,
    gompertz_trust,
    h,
    internal_reputation,
    select,
    trust_input,
    update_counters,
    update_reputation,
)


def _h(re: float) -> float:
    return 1 - 19 / (10 * math.pi) * math.atan(10 * re / math.pi)


def _g(n: int) -> float:
    return 2 * (1 - 0.25) / (1 + math.exp(0.5 * n)) + 0.25


@pytest.mark.parametrize("n_pass, n_fail, rounded", [
    (10, 0, 0.99592), (9, 1, 0.98052), (8, 2, 0.92119), (6, 4, 0.36788), (5, 5, 0.04958),
])
def test_trust_values(n_pass: int, n_fail: int, rounded: float) -> None:
    x = (0.4 * n_pass - 0.6 * n_fail) / (0.4 * n_pass + 0.6 * n_fail)
    assert trust_input(n_pass, n_fail) == pytest.approx(x, rel=1e-12)
    assert gompertz_trust(n_pass, n_fail) == pytest.approx(math.exp(-math.exp(-5.5 * x)))
    assert round(float(gompertz_trust(n_pass, n_fail)), 5) == rounded


def test_trust_without_checks_uses_x_zero() -> None:
    assert trust_input(0, 0) == 0.0
    assert gompertz_trust(0, 0) == pytest.approx(math.exp(-1))


def test_trust_is_vectorised_and_parametrised() -> None:
    got = gompertz_trust([3, 0], [1, 2], theta=0.3, a=0.9, b=-2.0, c=-4.0)
    x = ((0.3 * 3 - 0.7 * 1) / (0.3 * 3 + 0.7 * 1), -1.0)
    assert got == pytest.approx([0.9 * math.exp(-2 * math.exp(-4 * v)) for v in x])


@FAST
@given(st.integers(0, 10**6), st.integers(0, 10**6))
def test_trust_never_exceeds_its_bound(n_pass: int, n_fail: int) -> None:
    trust = gompertz_trust(n_pass, n_fail)
    assert 0 < trust <= math.exp(-math.exp(-5.5)) < 0.995922


def test_internal_reputation() -> None:
    assert internal_reputation([0.5, 1.0], [0.8, 0.25]).tolist() == [0.4, 0.25]


def test_h_and_g_by_hand() -> None:
    assert h(0) == 1.0 and g(0) == 1.0
    assert h(1.0) == pytest.approx(_h(1.0)) and h([0.3]) == pytest.approx([_h(0.3)])
    assert g(2) == pytest.approx(_g(2))
    assert g(3, beta1=1.0, beta2=0.5) == pytest.approx(2 * 0.5 / (1 + math.exp(3)) + 0.5)


def test_g_tends_to_beta2_without_overflow() -> None:
    with np.errstate(over="raise", invalid="raise"):
        assert g(10**6) == pytest.approx(0.25)


@FAST
@given(st.floats(0, 1), st.floats(0, 1))
def test_h_decreases_and_h_times_re_increases(a: float, b: float) -> None:
    lo, hi = min(a, b), max(a, b)
    assert h(lo) >= h(hi)
    assert h(lo) * lo <= h(hi) * hi + 1e-15


def test_attenuation_by_hand() -> None:
    hr = _h(0.8)
    assert attenuation(0.8, 1, 0) == pytest.approx(hr / (hr + (1 - hr) * _g(1) * _g(0)))
    assert attenuation(0.8, 0, 0) == pytest.approx(hr)  # f = 1: alpha = h
    assert attenuation(0.0, 3, 0) == 1.0


def test_counters() -> None:
    n_plus, n_minus = update_counters([0.6, 0.5], [0.6, 0.7], [2, 2], [0, 3])
    assert n_plus.tolist() == [3, 0] and n_minus.tolist() == [0, 4]


def test_update_reputation_updates_counters_first() -> None:
    # Honest: counters (2, 0) -> (3, 0), then alpha with f = g(3) g(0) = g(3).
    Re, n_plus, n_minus = update_reputation(0.5, 0.8, 2, 0)
    a = _h(0.8) / (_h(0.8) + (1 - _h(0.8)) * _g(3))
    assert (n_plus, n_minus) == (3, 0)
    assert Re == pytest.approx(a * 0.8 + (1 - a) * 0.5)
    # Dishonest: counters (4, 1) -> (0, 2), then f = g(0) g(2) = g(2).
    Re, n_plus, n_minus = update_reputation(0.9, 0.3, 4, 1)
    a = _h(0.3) / (_h(0.3) + (1 - _h(0.3)) * _g(2))
    assert (n_plus, n_minus) == (0, 2)
    assert Re == pytest.approx(a * 0.3 + (1 - a) * 0.9)


def test_zero_internal_reputation_is_absorbing() -> None:
    Re, _, _ = update_reputation(0.9, 0.0, 5, 0)
    assert Re == 0.0
    assert select([0.0, 1.0], [Re, 0.5], budget=100.0).winners.tolist() == [1]


@FAST
@given(st.floats(0, 1), st.floats(0, 1), st.integers(0, 50), st.integers(0, 50))
def test_new_reputation_lies_between_re_and_the_old_one(
        prev: float, re: float, n_plus: int, n_minus: int) -> None:
    a = attenuation(re, n_plus, n_minus)
    assert 0 < a <= 1
    Re, _, _ = update_reputation(prev, re, n_plus, n_minus)
    assert min(prev, re) - 1e-12 <= Re <= max(prev, re) + 1e-12


@FAST
@given(st.floats(0, 1), st.floats(0, 1), st.floats(0, 1))
def test_higher_re_gives_higher_reputation_when_counters_are_ignored(
        prev: float, a: float, b: float) -> None:
    lo, hi = min(a, b), max(a, b)

    def new(re: float) -> float:  # Eq. (13) with f = 1, the setting of Eq. (9)
        alpha = attenuation(re, 0, 0)
        return alpha * re + (1 - alpha) * prev

    assert new(lo) <= new(hi) + 1e-12


def test_ledger_updates_winners_only() -> None:
    ledger = ReputationLedger(3, initial_reputation=0.4)
    ledger.update([2, 0], [0.9, 0.1, 0.2])
    Re0, p0, m0 = update_reputation(0.4, 0.9, 0, 0)
    Re2, p2, m2 = update_reputation(0.4, 0.2, 0, 0)
    assert ledger.Re == pytest.approx([Re0, 0.4, Re2])
    assert ledger.n_plus.tolist() == [p0, 0, p2] == [1, 0, 0]
    assert ledger.n_minus.tolist() == [m0, 0, m2] == [0, 0, 1]
    ledger.update([], [0.0, 0.0, 0.0])
    assert ledger.Re == pytest.approx([Re0, 0.4, Re2])


def test_ledger_checkpoint_and_copy() -> None:
    ledger = ReputationLedger(2)
    ledger.update([1], [0.0, 0.7])
    restored = ReputationLedger.from_dict(json.loads(json.dumps(ledger.to_dict())))
    assert restored.Re.tolist() == ledger.Re.tolist()
    assert restored.n_plus.tolist() == ledger.n_plus.tolist() == [0, 1]
    snapshot = ledger.copy()
    ledger.update([0], [0.9, 0.0])
    assert snapshot.Re.tolist() == restored.Re.tolist() != ledger.Re.tolist()
    ledger.Re[0] = 5.0  # a copy: the ledger is not changed
    assert ledger.Re[0] != 5.0 and len(ledger) == 2


@pytest.mark.parametrize("call, name", [
    (lambda: trust_input(-1, 0), "n_pass"), (lambda: trust_input(1.5, 0), "n_pass"),
    (lambda: gompertz_trust(1, np.nan), "n_fail"), (lambda: gompertz_trust([1], [1, 2]), "n_pass"),
    (lambda: gompertz_trust(1, 1, theta=1.0), "theta"),
    (lambda: internal_reputation([0.5], [0.5, 0.5]), "contrib"),
    (lambda: internal_reputation([-0.5], [0.5]), "contrib"),
    (lambda: h(np.nan), "re"), (lambda: h(-1.0), "re"), (lambda: h([]), "re"),
    (lambda: g(-1), "n"), (lambda: g(1, beta1=0.0), "beta1"), (lambda: g(1, beta2=1.0), "beta2"),
    (lambda: attenuation([0.5], [1, 2], [1, 2]), "re"),
    (lambda: update_counters(0.5, np.inf, 0, 0), "Re_prev"),
    (lambda: update_reputation(-0.1, 0.5, 0, 0), "Re_prev"),
    (lambda: update_reputation(0.1, 0.5, 0, -1), "n_minus"),
    (lambda: ReputationLedger(0), "n_workers"),
    (lambda: ReputationLedger(2, initial_reputation=-0.5), "initial_reputation"),
    (lambda: ReputationLedger(2).update([0, 0], [0.1, 0.1]), "winners"),
    (lambda: ReputationLedger(2).update([2], [0.1, 0.1]), "winners"),
    (lambda: ReputationLedger(2).update([0.5], [0.1, 0.1]), "winners"),
    (lambda: ReputationLedger(2).update([0], [0.1]), "re"),
    (lambda: ReputationLedger(2).update([0], [np.nan, 0.1]), "re"),
])
def test_bad_inputs(call: object, name: str) -> None:
    with pytest.raises(ValueError, match=f"^{name} "):
        call()
