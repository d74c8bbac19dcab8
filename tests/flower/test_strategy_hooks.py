"""The strategy's hooks, the publisher's bid collection and the server's record of the answers
(fedlib.flower.answers) on Flower's mock messages: no
SuperLink, no Ray, no training. Replies are ``Mock(spec=Message)`` objects as Flower's own
strategy tests make them (``create_mock_reply`` in ``flwr/serverapp/strategy``), so each hook is
checked on exactly the replies it is handed: a failed worker (an error reply), a missing reply,
a NaN update, a model of the wrong shape, a bid that is missing, negative or for no worker.
"""

from __future__ import annotations

import logging
from unittest.mock import Mock

import numpy as np
import pytest
import torch

pytest.importorskip("flwr", reason="the Flower tests need the flower extra: "
                    "pip install -r requirements-flower.txt")

from flwr.app import ArrayRecord, ConfigRecord, Message, MetricRecord, RecordDict
from flwr.supercore.task_identity import TaskIdentity

from fedlib.fl.engine import BatchedEngine
from fedlib.fl.models import preprocess
from fedlib.fl.seeding import torch_generator
from fedlib.fl.task import TaskOptions
from fedlib.flower.answers import ANSWERS, AnsweringGrid, count_answers
from fedlib.flower.messages import BID, TRAIN, model_of, model_record, order_of
from fedlib.flower.publisher import collect_bids
from fedlib.flower.strategy import MechanismStrategy, TaskPlan, round_records

NODES = (11, 12, 13)
WINNERS = (4, 0, 7)
ROUNDS = 2


def _sample(generator: torch.Generator, n: int) -> tuple[torch.Tensor, torch.Tensor]:
    images = torch.randint(0, 256, (n, 28, 28), dtype=torch.uint8, generator=generator)
    labels = torch.randint(0, 10, (n,), generator=generator)
    return preprocess(images, "cpu", torch.float32), labels


@pytest.fixture(autouse=True)
def in_a_run(monkeypatch):
    """The run, node and task a ServerApp's messages come from (Flower sets them when it starts
    the app)."""
    monkeypatch.setattr(TaskIdentity, "_run_id", 7)
    monkeypatch.setattr(TaskIdentity, "_node_id", 1)
    monkeypatch.setattr(TaskIdentity, "_task_id", 1)


@pytest.fixture(scope="module")
def engine():
    return BatchedEngine("mlp", device="cpu")


@pytest.fixture
def strategy(engine):
    generator = torch_generator(0)
    orders = torch.stack([torch.stack([torch.randperm(20, generator=generator)[None]
                                       for _ in WINNERS]) for _ in range(ROUNDS)])
    plan = TaskPlan(task=3, winners=WINNERS, nodes=NODES, orders=orders)
    return MechanismStrategy(plan, engine, _sample(generator, 64), _sample(generator, 64),
                             TaskOptions(rounds=ROUNDS))


@pytest.fixture
def global_model(engine):
    return model_record(engine.init_params(torch_generator(1)))


def mock_reply(node: int, content: RecordDict | None = None) -> Mock:
    """A reply from ``node`` holding ``content``; an error reply when ``content`` is None."""
    message = Mock(spec=Message)
    message.content = content if content is not None else RecordDict({})
    message.has_error.side_effect = lambda: content is None
    message.has_content.side_effect = lambda: content is not None
    message.metadata.src_node_id = node
    return message


def trained(global_model: ArrayRecord, step: float) -> ArrayRecord:
    """The global model moved by ``step`` in every weight: a local model as a worker returns it."""
    return model_record({key: value + step for key, value in model_of(global_model).items()})


def model_reply(node: int, arrays: ArrayRecord) -> Mock:
    return mock_reply(node, RecordDict({"arrays": arrays}))


def test_configure_train_sends_each_winner_the_model_and_its_batch_order(strategy, global_model):
    messages = list(strategy.configure_train(2, global_model, ConfigRecord({"lr": 0.05}), None))
    assert [m.metadata.dst_node_id for m in messages] == list(NODES)
    for i, message in enumerate(messages):
        assert message.metadata.message_type == TRAIN
        config = message.content.config_records["config"]
        assert (config["task"], config["server-round"], config["lr"]) == (3, 2, 0.05)
        assert torch.equal(order_of(message.content.array_records["order"]),
                           strategy.plan.orders[1, i])
        assert message.content.array_records["arrays"] is global_model


def same_rounds(a: dict, b: dict) -> bool:
    """Two rounds' metrics are equal, NaN (a missing winner's margin) equal to NaN."""
    return a.keys() == b.keys() and all(
        np.array_equal(np.asarray(a[k], float), np.asarray(b[k], float), equal_nan=True)
        for k in a)


def _round(strategy, global_model, replies):
    strategy.configure_train(1, global_model, ConfigRecord(), None)
    arrays, metrics = strategy.aggregate_train(1, replies)
    return arrays, dict(metrics)


def test_every_winners_model_counts_when_all_arrive(strategy, global_model):
    replies = [model_reply(node, trained(global_model, 0.01 * (i + 1)))
               for i, node in enumerate(NODES)]
    arrays, metrics = _round(strategy, global_model, replies)
    assert metrics["arrived"] == [1, 1, 1]
    assert all(np.isfinite(metrics[key]).all() for key in ("delta_l", "contrib", "omega"))
    assert sum(metrics["omega"]) == pytest.approx(1.0) or not any(metrics["passed"])


@pytest.mark.parametrize("fault", ["error reply", "no reply", "NaN update", "wrong shape",
                                   "no arrays"])
def test_a_winner_without_a_usable_model_fails_the_round_alone(strategy, global_model, fault,
                                                               caplog):
    """The faulty winner (node 12, winner 0) is recorded as failing with contribution and
    weight 0; the two others are scored as if it had not been there: the same round as one
    where its reply never came."""
    good = {node: model_reply(node, trained(global_model, 0.01 * (i + 1)))
            for i, node in enumerate(NODES)}
    broken = dict(model_of(good[12].content.array_records["arrays"]))
    first = next(iter(broken))
    faulty = {
        "error reply": mock_reply(12),
        "NaN update": model_reply(12, model_record({**broken, first: broken[first] * np.nan})),
        "wrong shape": model_reply(12, model_record({**broken, first: broken[first][:1]})),
        "no arrays": mock_reply(12, RecordDict({"metrics": MetricRecord({"worker": 0})})),
    }
    replies = [good[11], good[13]] + ([faulty[fault]] if fault in faulty else [])
    with caplog.at_level(logging.WARNING, logger="fedlib.flower.strategy"):
        arrays, metrics = _round(strategy, global_model, replies)
    assert metrics["arrived"] == [1, 0, 1]
    assert (metrics["passed"][1], metrics["contrib"][1], metrics["omega"][1]) == (0, 0.0, 0.0)
    assert np.isnan(metrics["margin"][1]) and np.isnan(metrics["delta_l"][1])
    assert all(torch.isfinite(v).all() for v in model_of(arrays).values())
    _, without = _round(strategy, global_model, [good[11], good[13]])
    assert same_rounds(metrics, without)
    assert (fault in ("NaN update", "wrong shape", "no arrays")) == any(
        "counts as no model" in r.getMessage() for r in caplog.records)


def test_no_usable_model_keeps_the_global_model(strategy, global_model):
    arrays, metrics = _round(strategy, global_model, [mock_reply(node) for node in NODES])
    assert metrics["arrived"] == [0, 0, 0] and metrics["passed"] == [0, 0, 0]
    kept, sent = model_of(arrays), model_of(global_model)
    assert all(torch.equal(kept[key], sent[key]) for key in sent)


def test_a_reply_from_a_node_of_no_winner_is_ignored(strategy, global_model, caplog):
    replies = [model_reply(node, trained(global_model, 0.01)) for node in NODES]
    _, expected = _round(strategy, global_model, replies)
    with caplog.at_level(logging.WARNING, logger="fedlib.flower.strategy"):
        _, metrics = _round(strategy, global_model,
                            replies + [model_reply(99, trained(global_model, 0.5))])
    assert same_rounds(metrics, expected)
    assert any("node 99" in r.getMessage() for r in caplog.records)


def test_the_own_label_variant_is_refused_on_flower(strategy, engine):
    """The variant beyond the paper runs on the batched engine only: the strategy says so
    rather than measure every sample under a configuration that asks otherwise."""
    with pytest.raises(ValueError, match="own_labels .* runs on the batched engine only"):
        MechanismStrategy(strategy.plan, engine, strategy.validation, strategy.test,
                          TaskOptions(rounds=ROUNDS, own_labels=True))


def test_aggregate_train_needs_a_model_sent_first(strategy):
    with pytest.raises(RuntimeError, match="before configure_train"):
        strategy.aggregate_train(1, [])


def test_evaluation_is_the_publishers_own(strategy, global_model):
    assert list(strategy.configure_evaluate(1, global_model, ConfigRecord(), None)) == []
    assert strategy.aggregate_evaluate(1, [mock_reply(11)]) is None


def test_the_rounds_read_back_from_the_metrics_are_the_rounds_scored(strategy, global_model):
    replies = [model_reply(node, trained(global_model, 0.01 * (i + 1)))
               for i, node in enumerate(NODES)]
    _, metrics = _round(strategy, global_model, replies)
    (record,) = round_records(Mock(train_metrics_clientapp={1: MetricRecord(metrics)}))
    assert record.contrib.tolist() == metrics["contrib"]
    assert record.passed.tolist() == [bool(p) for p in metrics["passed"]]
    assert record.test_loss == metrics["test_loss"]


class MockGrid:
    """A grid that answers the bid requests with the given replies (by node)."""

    def __init__(self, answers: dict[int, Mock]):
        self.answers, self.sent = answers, []

    def send_and_receive(self, messages, timeout=None):
        self.sent = list(messages)
        return [self.answers[m.metadata.dst_node_id] for m in self.sent
                if m.metadata.dst_node_id in self.answers]


def bid_reply(node: int, worker: int, bid: float) -> Mock:
    return mock_reply(node, RecordDict({"metrics": MetricRecord({"worker": worker, "bid": bid})}))


def test_bids_come_from_every_node_that_answers(caplog):
    grid = MockGrid({21: bid_reply(21, 0, 2.5), 22: bid_reply(22, 2, 3.0)})
    bids, node_of = collect_bids(grid, [21, 22, 23], task=5, workers=3, timeout=1.0)
    assert [m.metadata.message_type for m in grid.sent] == [BID] * 3
    assert [m.content.config_records["config"]["task"] for m in grid.sent] == [5] * 3
    assert bids[0] == 2.5 and bids[2] == 3.0 and np.isnan(bids[1])
    assert node_of == {0: 21, 2: 22}


@pytest.mark.parametrize("answer, warned", [
    (bid_reply(23, 1, float("nan")), "not a finite"),
    (bid_reply(23, 1, -1.0), "not a finite"),
    (bid_reply(23, 1, float("inf")), "not a finite"),
    (bid_reply(23, 3, 1.0), "workers 0..2"),
    (bid_reply(23, -1, 1.0), "workers 0..2"),
    (bid_reply(23, 0, 1.0), "workers 0..2"),  # worker 0 already bid from node 21
    (mock_reply(23, RecordDict({"metrics": MetricRecord({"worker": 1})})), "without a worker"),
    (mock_reply(23), None),  # an error reply: no bid, nothing to warn of
])
def test_a_bad_bid_leaves_its_worker_out_and_touches_no_other(answer, warned, caplog):
    grid = MockGrid({21: bid_reply(21, 0, 2.5), 22: bid_reply(22, 2, 3.0), 23: answer})
    with caplog.at_level(logging.WARNING, logger="fedlib.flower.publisher"):
        bids, node_of = collect_bids(grid, [21, 22, 23], task=5, workers=3, timeout=1.0)
    assert bids[0] == 2.5 and bids[2] == 3.0 and np.isnan(bids[1])
    assert node_of[0] == 21 and node_of[2] == 22
    messages = [r.getMessage() for r in caplog.records]
    assert any(warned in m for m in messages) if warned else not messages


def test_the_server_records_the_requests_each_worker_answered(tmp_path):
    out = tmp_path / "out"
    assert count_answers(out, 0) == {}  # before the run starts
    answers = {21: bid_reply(21, 0, 2.5), 22: bid_reply(22, 2, 3.0), 23: mock_reply(23)}
    for reply in answers.values():
        reply.metadata.message_type = BID
    nodes = MockGrid(answers)
    grid = AnsweringGrid(nodes, out)
    bids, _ = collect_bids(grid, [21, 22, 23], task=0, workers=3, timeout=1.0)
    assert bids[0] == 2.5 and grid.sent is nodes.sent  # the rest is the wrapped grid's
    trained = mock_reply(22, RecordDict({"metrics": MetricRecord({"worker": 2})}))
    trained.metadata.message_type = TRAIN
    nodes.answers = {22: trained}
    grid.send_and_receive([Mock(metadata=Mock(dst_node_id=22))], timeout=1.0)
    assert count_answers(out, 0) == {BID: 1}
    assert count_answers(out, 2) == {BID: 1, TRAIN: 1}
    assert count_answers(out, 1) == {}  # its node's reply was an error
    with (out / ANSWERS).open("a") as record:
        record.write('{"worker": 2, "ty')  # a line still being written is not counted
    assert count_answers(out, 2) == {BID: 1, TRAIN: 1}
    AnsweringGrid(MockGrid({}), out)  # the next run's record starts empty
    assert count_answers(out, 2) == {}
