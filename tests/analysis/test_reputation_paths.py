"""Reputation paths of scripted workers, asymmetry of the update, Eq. (9), quality example."""

from __future__ import annotations

import numpy as np
import pytest

from fedlib.analysis.reputation_paths import (
    SCRIPTS,
    eq9_check,
    one_bad_task,
    reputation_path,
    scripted_paths,
    scripted_re,
    streak_where_gain_wins,
    symmetric_changes,
)
from fedlib.mechanism import ReputationLedger, h, update_reputation


def test_path_matches_the_ledger_task_by_task() -> None:
    re = [0.9, 0.2, 0.9, 0.9, 0.0, 0.5]
    path = reputation_path(re, initial=0.4)
    ledger = ReputationLedger(1, initial_reputation=0.4)
    for t, value in enumerate(re):
        ledger.update([0], [value])
        assert path.Re[t + 1] == pytest.approx(ledger.Re[0], abs=1e-15)
        assert (path.n_plus[t], path.n_minus[t]) == (ledger.n_plus[0], ledger.n_minus[0])


def test_path_is_eq13_with_its_own_alpha() -> None:
    path = reputation_path([0.8, 0.3, 0.6, 0.95], initial=0.5)
    expected = path.alpha * path.re + (1 - path.alpha) * path.Re[:-1]
    np.testing.assert_allclose(path.Re[1:], expected, rtol=1e-13)
    np.testing.assert_array_equal(path.honest, [True, False, True, True])
    np.testing.assert_array_equal(path.n_plus, [1, 0, 1, 2])
    np.testing.assert_array_equal(path.n_minus, [0, 1, 0, 0])
    # Eq. (13) moves Re by alpha times the gap between re and the previous Re
    np.testing.assert_allclose(path.change, path.alpha * (path.re - path.Re[:-1]), rtol=1e-12)


def test_first_step_by_hand() -> None:
    # Re^0 = 0.5, re = 0.7: honest, n+ = 1, f = g(1) = 1.5 / (1 + e^0.5) + 0.25.
    hr = 1 - 19 / (10 * np.pi) * np.arctan(7 / np.pi)
    f = 1.5 / (1 + np.exp(0.5)) + 0.25
    alpha = hr / (hr + (1 - hr) * f)
    path = reputation_path([0.7])
    assert path.alpha[0] == pytest.approx(alpha, rel=1e-13)
    assert path.Re[1] == pytest.approx(alpha * 0.7 + (1 - alpha) * 0.5, rel=1e-13)


@pytest.mark.parametrize("bad", [[], [[0.5]], [1.2], [-0.1], [np.nan]])
def test_path_rejects_bad_input(bad) -> None:
    with pytest.raises(ValueError):
        reputation_path(bad)


def test_path_rejects_bad_initial() -> None:
    with pytest.raises(ValueError, match="initial"):
        reputation_path([0.5], initial=1.5)


def test_scripts() -> None:
    assert scripted_re("always good", 4).tolist() == [0.9] * 4
    assert scripted_re("turns bad once", 4, bad_task=2).tolist() == [0.9, 0.9, 0.2, 0.9]
    assert scripted_re("alternating", 4).tolist() == [0.9, 0.2, 0.9, 0.2]
    assert scripted_re("free-rider", 3).tolist() == [0.05] * 3
    with pytest.raises(ValueError, match="kind"):
        scripted_re("saint")
    with pytest.raises(ValueError, match="bad_task"):
        scripted_re("turns bad once", 4, bad_task=4)
    with pytest.raises(ValueError, match="n_tasks"):
        scripted_re("always good", 0)
    paths = scripted_paths(n_tasks=12)
    assert tuple(paths) == SCRIPTS and all(len(p) == 12 for p in paths.values())


def test_scripted_workers_behave_as_the_paper_intends() -> None:
    paths = scripted_paths(n_tasks=30, bad_task=15)
    good, once = paths["always good"], paths["turns bad once"]
    assert np.all(np.diff(good.Re) > -1e-12) and good.Re[-1] == pytest.approx(0.9, abs=1e-3)
    assert once.Re[16] < once.Re[15] - 0.3  # one bad task: a large immediate drop
    # the alternating worker ends far below the mean of its internal reputations
    assert paths["alternating"].Re[-5:].mean() < paths["alternating"].re.mean() - 0.1
    assert paths["free-rider"].Re[-1] == pytest.approx(0.05, abs=1e-3)


def test_one_bad_task_costs_more_than_any_good_task_earns() -> None:
    rec = one_bad_task(good=0.9, bad=0.2, warmup=15, horizon=40)
    assert rec.loss == pytest.approx(rec.peak - rec.after_bad)
    assert rec.loss > rec.gains.max()
    assert rec.tasks_to_recover > 1
    assert rec.path.Re[15 + 1 + rec.tasks_to_recover] >= rec.peak - 0.01
    assert rec.path.Re[15 + rec.tasks_to_recover] < rec.peak - 0.01


def test_recovery_never_reached_reports_minus_one() -> None:
    assert one_bad_task(warmup=15, horizon=1, tol=1e-9).tasks_to_recover == -1
    with pytest.raises(ValueError):
        one_bad_task(warmup=0)


def test_symmetric_changes_fresh_counters_lose_more() -> None:
    prev, d = np.meshgrid(np.linspace(0.2, 0.8, 7), np.linspace(0.01, 0.2, 6))
    gain, loss = symmetric_changes(prev, d)
    assert np.all(gain > 0) and np.all(loss > gain)


def test_symmetric_changes_by_direct_update() -> None:
    gain, loss = symmetric_changes(0.5, 0.1, n_plus=4)
    up, _, _ = update_reputation(0.5, 0.6, 4, 0)
    down, _, _ = update_reputation(0.5, 0.4, 4, 0)
    assert gain == pytest.approx(float(up) - 0.5) and loss == pytest.approx(0.5 - float(down))
    with pytest.raises(ValueError):
        symmetric_changes(0.1, 0.2)


def test_streak_where_gain_wins() -> None:
    n = streak_where_gain_wins(0.5, 0.1)
    assert n >= 1
    gain_before, loss = symmetric_changes(0.5, 0.1, n_plus=n - 1)
    gain_at, _ = symmetric_changes(0.5, 0.1, n_plus=n)
    assert gain_before < loss <= gain_at
    assert streak_where_gain_wins(0.5, 0.1, max_streak=0) == -1


def test_eq9_needs_the_previous_reputation() -> None:
    for prev, ri, rj in [(0.5, 0.8, 0.3), (0.2, 0.9, 0.1), (0.7, 0.6, 0.65)]:
        c = eq9_check(prev, ri, rj)
        hi, hj = float(h(ri)), float(h(rj))
        direct = (hi * ri + (1 - hi) * prev) - (hj * rj + (1 - hj) * prev)
        assert c.direct == pytest.approx(direct, abs=1e-14)
        assert c.with_previous == pytest.approx(c.direct, abs=1e-14)
        assert abs(c.as_printed - c.direct) > 1e-4
