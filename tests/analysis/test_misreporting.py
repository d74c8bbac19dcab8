"""What a worker gains by misreporting (fedlib.analysis.misreporting)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fedlib.analysis.misreporting import critical_bid, gain_counts, gain_sweep, utility_curve
from fedlib.mechanism import MECHANISMS, Instance, synthetic_instance, truthfulness
from fedlib.paper.examples import THEOREM4, THEOREM4_HONEST
from fedlib.paper.settings import PAPER_BUDGETS

COUNTER = Instance(*THEOREM4)
HONEST = Instance(*THEOREM4_HONEST)


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
    assert utility_curve(HONEST, 0).gain == 0.0
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


def test_gain_counts_on_the_counterexample_and_honest_instance():
    winners, dishonest, could, gain = gain_counts(COUNTER)
    assert (winners, dishonest, could) == (2, 1, 1)
    assert gain == pytest.approx(4 - 10 / 3)
    assert gain_counts(HONEST)[2] == 0


def test_gain_counts_agree_with_exhaustive_truthfulness_check():
    insts = [synthetic_instance(12, 15.0, np.random.default_rng(s)) for s in range(6)]
    exhaustive = truthfulness(MECHANISMS["ours"], insts, workers="dishonest").violations
    assert exhaustive == sum(gain_counts(i)[2] for i in insts)


def test_gain_sweep_shapes_and_errors():
    s = gain_sweep("budget", PAPER_BUDGETS[:3], 30, 4, np.random.default_rng(0))
    assert s.winners.shape == (3, 4) and s.x.tolist() == list(PAPER_BUDGETS[:3])
    assert np.all(s.could_gain <= s.dishonest_winners)
    assert np.all((s.gain_share >= 0) & (s.gain_share <= s.dishonest_share))
    w = gain_sweep("n_workers", [5, 10], 10.0, 3, np.random.default_rng(0))
    assert w.parameter == "n_workers" and w.fixed == 10.0
    with pytest.raises(ValueError, match="parameter"):
        gain_sweep("B", [1], 1, 1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="trials"):
        gain_sweep("budget", [1], 1, 0, np.random.default_rng(0))
