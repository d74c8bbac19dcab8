"""The numbers behind the auction and proofs chapters (fedlib.experiments.auction_walkthrough)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fedlib.experiments.auction_walkthrough import (
    SYNTHETIC_BUDGETS,
    critical_bid,
    critical_value_check,
    denominator_comparison,
    gain_counts,
    gain_sweep,
    payment_breakdown,
    payment_ratios,
    property_table,
    selection_trace,
    time_select,
    utility_curve,
    worker_label,
)
from fedlib.mechanism import (
    MECHANISMS,
    Instance,
    budget_feasibility,
    ex_post_payments,
    random_instances,
    select,
    synthetic_instance,
    truthfulness,
)

BIDS = [3, 5, 2.5, 6, 4, 7]
RE = [0.9, 0.6, 0.5, 0.8, 0.95, 0.4]
RE_REALISED = [0.95, 0.6, 0.3, 0.8, 0.8, 0.4]
# PAPER_NOTES.md: the counterexample to Theorem 4.
COUNTER = Instance([4, 4.5, 100], [1, 1, 1], 10, [0.5, 1, 1])


def test_worker_labels_are_one_based():
    assert worker_label(0) == "1"


def test_selection_trace_follows_algorithm_1():
    a = select(BIDS, RE, 15)
    t = selection_trace(a)
    results = t.column("result")
    assert results[: a.k] == ["selected"] * a.k
    assert results[a.k] == "fails: stop"
    assert all(r == "not reached" for r in results[a.k + 1:])
    passes = t.column("b/Re <= share")
    assert passes[: a.k] == [True] * a.k and not passes[a.k]
    assert t.column("worker")[: a.k] == [worker_label(i) for i in a.winners]
    # rho* is the min of the last winner's share and the first loser's density
    share, dens = t.column("share"), t.column("b/Re")
    assert a.rho_star == pytest.approx(min(share[a.k - 1], dens[a.k]))


def test_selection_trace_when_everyone_or_nobody_wins():
    everyone = selection_trace(select([1, 1], [1, 1], 100))
    assert everyone.column("result") == ["selected", "selected"]
    nobody = selection_trace(select([5, 5], [1, 0], 1))
    assert nobody.column("result") == ["fails: stop", "not reached"]
    assert nobody.column("b/Re")[1] == math.inf


def test_payment_breakdown_matches_the_library_and_the_theorems():
    a = select(BIDS, RE, 15)
    br = payment_breakdown(a, RE_REALISED)
    assert np.array_equal(br.ex_post, ex_post_payments(a, RE_REALISED))
    assert np.array_equal(br.ex_ante, a.upper)
    honest, dishonest = br.honest, br.dishonest
    assert honest.any() and dishonest.any()
    assert np.allclose(br.ex_post[honest], br.upper[honest])  # Theorem 1's proof
    assert np.all(br.ex_post[dishonest] <= br.upper[dishonest] + 1e-12)
    assert np.all(br.ex_post[dishonest] >= a.rho_star * br.re[dishonest] - 1e-12)
    assert br.budget_used_ex_post <= 15 + 1e-9 and br.budget_used_ex_ante <= 15 + 1e-9
    assert np.all(np.isnan(br.temporary[~a.selected]))
    assert np.all(br.utility_ex_post[~a.selected] == 0)
    assert br.table().column("worker") == [worker_label(i) for i in a.winners]


def test_temporary_payments_alone_can_exceed_the_budget():
    # honest winners with re > Re: p' = rho* re sums to more than B; the min with p_up saves it
    a = select([1, 1, 100], [0.5, 0.5, 1], 10)
    br = payment_breakdown(a, [1, 1, 1])
    assert br.temporary_total > 10
    assert br.budget_used_ex_post <= 10 + 1e-12


def test_payment_breakdown_with_the_Re_denominator_and_errors():
    a = select(BIDS, RE, 15)
    br = payment_breakdown(a, RE_REALISED, temp_denominator="Re")
    assert np.array_equal(br.ex_post, ex_post_payments(a, RE_REALISED, temp_denominator="Re"))
    with pytest.raises(ValueError, match="costs"):
        payment_breakdown(a, RE_REALISED, costs=[1, 2])
    with pytest.raises(ValueError, match="re"):
        payment_breakdown(a, [1, 2])


def test_utility_curve_on_the_counterexample():
    c = utility_curve(COUNTER, 0)
    assert c.critical_bid == pytest.approx(5.0)
    assert c.truthful_utility == pytest.approx(10 / 3 - 4)
    assert not c.honest and c.gain == pytest.approx(4 - 10 / 3)
    assert c.best_bid > c.critical_bid and c.best_utility == 0.0
    # winning bids all give the same utility; losing bids give 0
    assert np.allclose(c.utilities[c.won], c.truthful_utility)
    assert np.all(c.utilities[~c.won] == 0)
    assert np.all(c.bids[c.won] <= c.critical_bid + 1e-9)
    assert c.cost == 4.0


def test_ex_ante_utility_curve_is_truthful_and_honest_worker_is_too():
    assert utility_curve(COUNTER, 0, "rrafl").gain == 0.0
    honest = Instance([4, 4.5, 100], [1, 1, 1], 10, [1, 1, 1])
    assert utility_curve(honest, 0).gain == 0.0
    custom = utility_curve(COUNTER, 0, bids=[6.0, 1.0])
    assert custom.bids.tolist() == [1.0, 6.0] and custom.utilities[1] == 0.0


def test_utility_curve_errors_and_zero_reputation():
    with pytest.raises(ValueError, match="mechanism"):
        utility_curve(COUNTER, 0, "nope")
    with pytest.raises(ValueError, match="worker"):
        utility_curve(COUNTER, 3)
    zero = Instance([1, 1], [0, 1], 10, [0, 1])
    assert critical_bid(zero, 0) == 0.0
    c = utility_curve(zero, 0)
    assert not c.won.any()
    vanilla = utility_curve(COUNTER, 0, "bid_greedy", points=11)
    assert math.isnan(vanilla.critical_bid)


def test_critical_value_lemma_holds_on_random_instances():
    rep = critical_value_check(random_instances(np.random.default_rng(5), 60))
    assert rep.instances == 60 and rep.checks > 1000
    assert rep.violations == 0


def test_critical_value_check_detects_a_wrong_claim(monkeypatch):
    # A selection that ignores the bid of the first worker breaks the lemma: the check sees it.
    import fedlib.experiments.auction_walkthrough as aw

    real = aw.select

    def broken(bids, Re, budget):
        b = np.array(bids, dtype=float)
        b[0] = 0.0
        return real(b, Re, budget)

    monkeypatch.setattr(aw, "select", broken)
    rep = critical_value_check([Instance([1, 2], [1, 1], 3, [1, 1])])
    assert rep.violations > 0


def test_property_table_rows():
    inst = list(random_instances(np.random.default_rng(1), 20))
    rep = budget_feasibility(MECHANISMS["ours"], inst)
    t = property_table([("Theorem 2", rep)])
    assert t.column("instances tried") == [20] and t.column("violations found") == [0]
    assert t.column("mechanism") == ["ours"]


def test_gain_counts_on_the_counterexample_and_honest_instance():
    winners, dishonest, could, gain = gain_counts(COUNTER)
    assert (winners, dishonest, could) == (2, 1, 1)
    assert gain == pytest.approx(4 - 10 / 3)
    assert gain_counts(Instance([4, 4.5, 100], [1, 1, 1], 10, [1, 1, 1]))[2] == 0


def test_gain_counts_agree_with_exhaustive_truthfulness_check():
    insts = [synthetic_instance(12, 15.0, np.random.default_rng(s)) for s in range(6)]
    exhaustive = truthfulness(MECHANISMS["ours"], insts, workers="dishonest").violations
    assert exhaustive == sum(gain_counts(i)[2] for i in insts)


def test_gain_sweep_shapes_and_errors():
    s = gain_sweep("budget", SYNTHETIC_BUDGETS[:3], 30, 4, np.random.default_rng(0))
    assert s.winners.shape == (3, 4) and s.x.tolist() == list(SYNTHETIC_BUDGETS[:3])
    assert np.all(s.could_gain <= s.dishonest_winners)
    assert np.all((s.gain_share >= 0) & (s.gain_share <= s.dishonest_share))
    w = gain_sweep("n_workers", [5, 10], 10.0, 3, np.random.default_rng(0))
    assert w.parameter == "n_workers" and w.fixed == 10.0
    with pytest.raises(ValueError, match="parameter"):
        gain_sweep("B", [1], 1, 1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="trials"):
        gain_sweep("budget", [1], 1, 0, np.random.default_rng(0))


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
