"""Flower's Deployment Runtime in the suite (fedlib.flower.node_failure, fedlib.flower.launch): a
SuperLink and one SuperNode per worker on the loopback, the first winner's SuperNode stopped
once it has answered its first training request, the run completed without it, and no process
left behind. One task of the smoke-sized federation (chapter 9 runs two, against the batched
engine's decisions); about two minutes of one CPU.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

pytest.importorskip("flwr", reason="the Flower tests need the flower extra: "
                    "pip install -r requirements-flower.txt")

from fedlib.experiments.flower_presets import fast_federation
from fedlib.experiments.multitask import MultiTaskConfig
from fedlib.flower.messages import BID, PAYMENT, TRAIN
from fedlib.flower.node_failure import stop_a_winner

CONFIG = replace(fast_federation(MultiTaskConfig(dataset="mnist", device="cpu")), n_tasks=1,
                 eval_from=0)


def test_a_task_we_cannot_stop_in_is_refused():
    with pytest.raises(ValueError, match=r"task must be in 0\.\.0"):
        stop_a_winner(CONFIG, task=1)


@pytest.mark.slow
def test_a_winner_stopped_mid_task_fails_its_rounds_and_leaves_no_process():
    lost = stop_a_winner(CONFIG, task=0)
    rounds, workers = CONFIG.task.rounds, CONFIG.daccs.size
    [record] = lost.records
    [reference] = lost.reference
    # the run completed on the bids the batched engine drew, and exactly the victim's node
    # was stopped: it answered one training request and missed every later round
    assert record["bids"] == reference["bids"] and record["winners"] == reference["winners"]
    assert lost.stopped == {f"supernode-{lost.victim}"}
    assert lost.missed_rounds() == list(range(1, rounds))
    d = record["winners"].index(lost.victim)
    assert [row[d] for row in record["rounds"]["omega"][1:]] == [0] * (rounds - 1)
    # the server's record: every worker answered its bid request, each other winner every
    # training request and its payment query, the victim nothing after its first round
    answered = lost.run.answered
    assert all(answered[w].get(BID) == 1 for w in range(workers))
    assert answered[lost.victim].get(TRAIN) == 1 and PAYMENT not in answered[lost.victim]
    for w in set(record["winners"]) - {lost.victim}:
        assert answered[w].get(TRAIN) == rounds and answered[w].get(PAYMENT) == 1
    # a SuperLink and a SuperNode per worker ran, they started ClientApp processes, and
    # none of them outlived the run
    assert set(lost.pids) == {"superlink", *(f"supernode-{w}" for w in range(workers))}
    assert lost.children and not lost.survivors()
    # Flower's conventions are current: no process of the run logged a deprecation
    assert {"superlink", f"supernode-{lost.victim}"} <= set(lost.run.logs)
    assert not lost.run.deprecations()
