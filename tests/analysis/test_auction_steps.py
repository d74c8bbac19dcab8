"""Algorithm 1 step by step on one auction (fedlib.analysis.auction_steps)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fedlib.analysis.auction_steps import payment_breakdown, selection_trace, worker_label
from fedlib.mechanism import ex_post_payments, select
from fedlib.paper.examples import BOOK_AUCTION

BIDS, RE, BUDGET, RE_REALISED = BOOK_AUCTION


def test_worker_labels_are_one_based():
    assert worker_label(0) == "1"


def test_selection_trace_follows_algorithm_1():
    a = select(BIDS, RE, BUDGET)
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
    a = select(BIDS, RE, BUDGET)
    br = payment_breakdown(a, RE_REALISED)
    assert np.array_equal(br.ex_post, ex_post_payments(a, RE_REALISED))
    assert np.array_equal(br.ex_ante, a.upper)
    honest, dishonest = br.honest, br.dishonest
    assert honest.any() and dishonest.any()
    assert np.allclose(br.ex_post[honest], br.upper[honest])  # Theorem 1's proof
    assert np.all(br.ex_post[dishonest] <= br.upper[dishonest] + 1e-12)
    assert np.all(br.ex_post[dishonest] >= a.rho_star * br.re[dishonest] - 1e-12)
    assert br.budget_used_ex_post <= BUDGET + 1e-9 and br.budget_used_ex_ante <= BUDGET + 1e-9
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
    a = select(BIDS, RE, BUDGET)
    br = payment_breakdown(a, RE_REALISED, temp_denominator="Re")
    assert np.array_equal(br.ex_post, ex_post_payments(a, RE_REALISED, temp_denominator="Re"))
    with pytest.raises(ValueError, match="costs"):
        payment_breakdown(a, RE_REALISED, costs=[1, 2])
    with pytest.raises(ValueError, match="re"):
        payment_breakdown(a, [1, 2])
