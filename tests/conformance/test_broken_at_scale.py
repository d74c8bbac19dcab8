"""Defects that appear only at the paper's scale (tens or hundreds of workers) are caught by
the default search, each by the property it breaks, with a counterexample of that size."""

from __future__ import annotations

import numpy as np
import pytest
from broken_mechanisms import OverspendsAt80, PaysBelowBidAt40, RewardsOverbiddingAt150

from fedlib.conformance.mechanism_check import DEFAULT_INSTANCES
from fedlib.conformance.search import SIZES, search

AT_SCALE = {PaysBelowBidAt40: ("ir", 40), OverspendsAt80: ("budget_feasible", 80),
            RewardsOverbiddingAt150: ("truthful", 150)}


@pytest.fixture(scope="module")
def found():
    """Each searched as the kit does by default (the default count, no timing)."""
    return {m: search(m(), DEFAULT_INSTANCES, seed=0, timing=False) for m in AT_SCALE}


@pytest.mark.parametrize("mechanism", list(AT_SCALE), ids=lambda m: m.name)
def test_a_defect_that_switches_on_with_many_workers_is_caught(found, mechanism):
    prop, workers = AT_SCALE[mechanism]
    result = found[mechanism]
    assert prop in result.failed
    cex = result.verdict(prop).counterexample
    assert cex.instance.n >= workers  # it cannot shrink below the size that breaks it
    assert result.verdict(prop).measure.max > 0


def test_the_counterexamples_at_scale_show_the_breakage(found):
    ir = found[PaysBelowBidAt40].verdict("ir").counterexample
    w = ir.worker
    assert ir.plays[0].payments[w] == pytest.approx(0.9 * ir.instance.costs[w])
    over = found[OverspendsAt80].verdict("budget_feasible").counterexample
    assert over.plays[0].payments.sum() > over.instance.budget
    lie = found[RewardsOverbiddingAt150].verdict("truthful").counterexample
    truth, deviant = lie.plays
    assert deviant.selected[lie.worker] and lie.deviations[0].bid > lie.instance.costs[lie.worker]


def test_the_default_sizes_cover_the_papers_range_and_beyond():
    (low, high, _), *_ = SIZES
    assert (low, high) == (1, 6)
    assert any(lo <= 30 and hi >= 100 for lo, hi, _ in SIZES)
    assert max(hi for _, hi, _ in SIZES) >= 200
    assert np.isclose(sum(share for *_, share in SIZES), 1.0)
