"""The critical-value lemma and the property tables (fedlib.analysis.property_checks)."""

from __future__ import annotations

import numpy as np

from fedlib.analysis.property_checks import critical_value_check, property_table
from fedlib.mechanism import MECHANISMS, Instance, budget_feasibility, random_instances


def test_critical_value_lemma_holds_on_random_instances():
    rep = critical_value_check(random_instances(np.random.default_rng(5), 60))
    assert rep.instances == 60 and rep.checks > 1000
    assert rep.violations == 0


def test_critical_value_check_detects_a_wrong_claim(monkeypatch):
    # A selection that ignores the bid of the first worker breaks the lemma: the check sees it.
    import fedlib.analysis.property_checks as checks

    real = checks.select

    def broken(bids, Re, budget):
        b = np.array(bids, dtype=float)
        b[0] = 0.0
        return real(b, Re, budget)

    monkeypatch.setattr(checks, "select", broken)
    rep = critical_value_check([Instance([1, 2], [1, 1], 3, [1, 1])])
    assert rep.violations > 0


def test_property_table_rows():
    inst = list(random_instances(np.random.default_rng(1), 20))
    rep = budget_feasibility(MECHANISMS["ours"], inst)
    t = property_table([("Theorem 2", rep)])
    assert t.column("instances tried") == [20] and t.column("violations found") == [0]
    assert t.column("mechanism") == ["ours"]
