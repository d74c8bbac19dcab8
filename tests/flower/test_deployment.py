"""The mechanism on Flower's Deployment Runtime over the loopback: a SuperLink and six
SuperNodes, each a process of its own on 127.0.0.1, and ``flwr run`` of the app bundle.

One run of the first two tasks of the smoke-sized federation, named by the run configuration's
keys (``fast=true tasks=2``; every message starts a ClientApp process, so each task costs about
a minute of a 2-core machine), with one SuperNode stopped mid-run: task 1's first winner, as
soon as its first training request of that task arrives. Task 0 is compared with the batched
engine under the cross-machine rule; task 1 shows the rule for failing workers on the real
runtime.
"""

from __future__ import annotations

import json

import pytest

from fedlib.experiments.multitask import run_multitask
from fedlib.flower.launch import LocalFederation, _alive, _descendants, stage_app
from fedlib.flower.settings import RunSettings
from fedlib.flower.simulation import read_run
from fedlib.storage.comparison import compare_records

#: The run, as the ServerApp reads it from the run configuration.
RUN = {"fast": True, "tasks": 2}
CONFIG = RunSettings.from_run_config(RUN).config
#: The task in which a winner's SuperNode is stopped.
STOPPED_TASK = 1


@pytest.fixture(scope="module")
def batched():
    return [json.loads(json.dumps(r)) for r in run_multitask(CONFIG).records]


@pytest.fixture(scope="module")
def deployment(batched, tmp_path_factory):
    """The run; the stopped worker; the recorded process ids and those alive after the run."""
    folder = tmp_path_factory.mktemp("deployment")
    stopped = batched[STOPPED_TASK]["winners"][0]
    trained_before = CONFIG.task.rounds * sum(stopped in r["winners"]
                                              for r in batched[:STOPPED_TASK])
    children: list[int] = []

    def stop_mid_task(federation: LocalFederation) -> None:
        if (f"supernode-{stopped}" not in federation.stopped
                and federation.received(stopped).get("train", 0) > trained_before):
            federation.stop_node(stopped)

    with LocalFederation(folder) as federation:
        federation.add_supernodes(range(CONFIG.daccs.size))
        pids = federation.pids
        ran = federation.run(stage_app(folder / "app"),
                             {**RUN, "out": str(folder / "out")}, on_poll=stop_mid_task)
        received = {w: federation.received(w) for w in range(CONFIG.daccs.size)}
        children = [c for pid in pids.values() for c in _descendants(pid)]
        assert federation.stopped == {f"supernode-{stopped}"}, ran.stdout[-3000:]
    run = read_run(folder / "out", CONFIG, ran.stdout)
    alive = [pid for pid in [*pids.values(), *children] if _alive(pid)]
    return run.result.records, stopped, pids, alive, received


def test_a_superlink_and_six_supernodes_ran_as_processes_and_were_stopped(deployment):
    _, stopped, pids, alive, received = deployment
    assert set(pids) == {"superlink", *(f"supernode-{w}" for w in range(6))}
    assert len(set(pids.values())) == 7 and not alive
    # every node answered the bid requests of the tasks it lived through
    assert all(received[w]["query.bid"] == CONFIG.n_tasks for w in range(6))


def test_the_deployment_makes_the_batched_engines_decisions(batched, deployment):
    records = deployment[0]
    assert len(records) == CONFIG.n_tasks == 2 and CONFIG.daccs.size == 6
    before = slice(0, STOPPED_TASK)
    comparison, stops = compare_records(CONFIG.to_dict(), batched[before], records[before],
                                        "foreign")
    assert not comparison.mismatches and not stops
    for ours, theirs in zip(batched, records, strict=True):
        assert theirs["winners"] == ours["winners"] and theirs["bids"] == ours["bids"]
    for ours, theirs in zip(batched[before], records[before], strict=True):
        assert theirs["rounds"]["passed"] == ours["rounds"]["passed"]
        assert "no_reply" not in theirs


def test_a_stopped_supernode_fails_its_rounds_and_the_run_completes(batched, deployment):
    records, stopped, _, _, _ = deployment
    record, clean = records[STOPPED_TASK], batched[STOPPED_TASK]
    i = record["winners"].index(stopped)
    gone = [r for r, w in record["no_reply"] if w == stopped]
    assert gone and gone == list(range(gone[0], CONFIG.task.rounds))  # from the stop on
    for r in gone:
        assert record["rounds"]["passed"][r][i] is False
        assert record["rounds"]["omega"][r][i] == 0 and record["rounds"]["margin"][r][i] is None
    assert record["n_fail"][i] >= clean["n_fail"][i] + 1
    assert record["re"][i] < clean["re"][i]
    assert record["payments"][i] <= clean["payments"][i]
    assert sum(record["payments"]) <= CONFIG.budget + 1e-9
