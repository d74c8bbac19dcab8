"""Theorem 4's counterexample replayed in a Flower federation (fedlib.flower.replay and
fedlib.flower.counterexample_replay): the play travels exactly in the run configuration; in a
running federation on the Deployment Runtime (one SuperNode per worker) the payments and
utilities measured equal the kit's, and on the Simulation Runtime (the module's Ray head) a
worker that delivers other than the play says is caught while the other play agrees. (Chapter
10 replays the counterexample its search finds on the Simulation Runtime and asserts the same
as :func:`_check_theorem4`; CI executes it twice, in fast mode and in the full build, so this
module does not repeat that run.)"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

pytest.importorskip("flwr", reason="the Flower tests need the flower extra: "
                    "pip install -r requirements-flower.txt")

from fedlib.conformance.protocol import Player
from fedlib.conformance.search import Deviation, evaluate
from fedlib.flower import replay_counterexample
from fedlib.flower.counterexample_replay import TOLERANCE, PlayReplay, replayable
from fedlib.flower.replay import ReplayPlan
from fedlib.flower.settings import RunSettings
from fedlib.mechanism import MECHANISMS, Instance
from fedlib.paper.examples import THEOREM4, THEOREM4_LIE

OURS = MECHANISMS["ours"]
INSTANCE = Instance(*THEOREM4)
#: Theorem 4's counterexample as the kit states it: worker 0 bids 6 instead of its cost 4.
THEOREM4_CEX = evaluate(Player(OURS), "truthful", INSTANCE, 0,
                        [Deviation(THEOREM4_LIE, INSTANCE.re[0])])


def test_a_play_travels_in_the_run_configuration_exactly():
    awkward = Instance([0.1, 1 / 3, 1e6], [1e-300, 2 / 3, 0.7], np.pi, [0.3, 1e-7, 5.0],
                       costs=[0.1, 0.2 + 0.1, 7.0], seed=12)
    plan = ReplayPlan("ours", awkward, [0.1, 6.000000000000001, 1e6], [0.15, 1e-7, 0.0])
    read = RunSettings.from_run_config({"replay": plan.to_json()}).replay
    assert read.mechanism == "ours" and read.instance.seed == 12
    for name in ("bids", "Re", "re", "costs"):
        assert getattr(read.instance, name).tolist() == getattr(awkward, name).tolist()
    assert read.instance.budget == np.pi
    assert read.bids.tolist() == plan.bids.tolist() and read.re.tolist() == plan.re.tolist()
    assert RunSettings.from_run_config({}).replay is None
    with pytest.raises(ValueError, match="one entry per worker"):
        ReplayPlan("ours", awkward, [1.0, 2.0], awkward.re)
    with pytest.raises(ValueError, match="partition-id 3 names no worker"):
        plan.worker(3)


def test_what_cannot_be_replayed_is_refused_naming_why():
    assert THEOREM4_CEX is not None and replayable(THEOREM4_CEX) == ""
    for bad, message in ((replace(THEOREM4_CEX, plays=()), "no plays"),
                         (replace(THEOREM4_CEX, worker=None), "no worker misreports"),
                         (replace(THEOREM4_CEX, worker=3), "worker 3 is out of range")):
        with pytest.raises(ValueError, match=message):
            replay_counterexample(bad, OURS)
    with pytest.raises(ValueError, match="runtime must be one of"):
        replay_counterexample(THEOREM4_CEX, OURS, runtime="cluster")


def test_a_measurement_off_by_more_than_the_tolerance_disagrees():
    truth = THEOREM4_CEX.plays[0]
    utilities = np.array([truth.utility(w, INSTANCE.costs[w]) for w in range(3)])
    measured = PlayReplay("truthful", truth, utilities, truth.bids, truth.re, (0, 1),
                          truth.payments.copy(), utilities.copy())
    assert measured.agrees
    assert not replace(measured, payments=truth.payments + [2 * TOLERANCE, 0, 0]).agrees
    assert not replace(measured, winners=(0,)).agrees


def _check_theorem4(replay):
    """The replay measured the kit's payments, winners and the misreport's gain."""
    assert replay.agrees and replay.max_payment_error <= TOLERANCE
    truth, lie = replay.plays
    assert truth.winners == (0, 1) and 0 not in lie.winners
    np.testing.assert_allclose(truth.payments[0], 10 / 3, rtol=0, atol=TOLERANCE)
    measured, predicted = replay.gain
    assert abs(measured - THEOREM4_CEX.margin) <= TOLERANCE and predicted > 0
    assert lie.utilities[0] > truth.utilities[0]


@pytest.mark.slow
def test_theorem4_pays_off_on_the_deployment_runtime():
    _check_theorem4(replay_counterexample(THEOREM4_CEX, OURS, runtime="deployment"))


@pytest.mark.slow
def test_a_winner_delivering_other_than_the_play_says_is_caught(shared_ray_head):
    """Planted fault: the truthful play's winner 0 delivers re = 0.25, not the 0.5 the kit
    paid for, so it is paid less than predicted."""
    truth, lie = THEOREM4_CEX.plays
    tampered = replace(THEOREM4_CEX, plays=(replace(truth, re=np.array([0.25, 1.0, 1.0])), lie))
    replay = replay_counterexample(tampered, OURS, runtime="simulation")
    assert not replay.agrees and not replay.plays[0].agrees and replay.plays[1].agrees
    assert replay.max_payment_error > 0.1
