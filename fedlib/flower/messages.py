"""What the publisher's ServerApp and the workers' ClientApps send each other.

Four messages per task, each a Flower :class:`~flwr.app.Message` whose content carries the run's
configuration (a :class:`~fedlib.experiments.multitask.MultiTaskConfig` as JSON) and the task:

* ``query.bid`` to every node; the reply names the worker and its bid (its private cost);
* ``train`` to each winner, once per global round, with the global model and the worker's batch
  order (drawn by the publisher from the task's seed, as the batched engine draws it); the
  reply is the worker's local model;
* ``query.payment`` to each winner after the task, with its ex-post payment; the reply is the
  worker's utility (payment minus cost).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Any

import torch
from flwr.app import ArrayRecord, ConfigRecord, Message, MetricRecord, RecordDict

from fedlib.experiments.multitask import MultiTaskConfig
from fedlib.fl.batched import Params

BID, TRAIN, PAYMENT = "query.bid", "train", "query.payment"


def request(kind: str, node: int, config: MultiTaskConfig, task: int, round_: int | None = None,
            **content: ArrayRecord | MetricRecord) -> Message:
    """A message of type ``kind`` to ``node`` about task ``task`` (and round ``round_``) of a
    run of ``config``."""
    header = ConfigRecord({"config": json.dumps(config.to_dict()), "task": task})
    if round_ is not None:
        header["round"] = round_
    return Message(RecordDict({"header": header, **content}), message_type=kind,
                   dst_node_id=node)


def header(message: Message) -> tuple[MultiTaskConfig, int, int | None]:
    """The run's configuration, and the task and round (None outside training) a request is
    about."""
    record = message.content["header"]
    round_ = int(record["round"]) if "round" in record else None
    return (MultiTaskConfig.from_dict(json.loads(str(record["config"]))), int(record["task"]),
            round_)


def reply(message: Message, **content: ArrayRecord | MetricRecord) -> Message:
    """The reply to ``message`` carrying ``content``."""
    return Message(RecordDict(content), reply_to=message)


def model_record(params: Params) -> ArrayRecord:
    """A model's parameters as an ArrayRecord."""
    return ArrayRecord(OrderedDict((key, value.detach().cpu()) for key, value in params.items()))


def model_of(record: ArrayRecord) -> Params:
    """The parameters of an ArrayRecord made by :func:`model_record`."""
    return dict(record.to_torch_state_dict())


def order_record(order: torch.Tensor) -> ArrayRecord:
    """A worker's batch order (int64, (epochs, samples)) as an ArrayRecord."""
    return model_record({"order": order})


def order_of(record: ArrayRecord) -> torch.Tensor:
    """The batch order of an ArrayRecord made by :func:`order_record`."""
    return model_of(record)["order"]


def metric(message: Message, key: str) -> Any:
    """One value of a reply's ``"metrics"`` record."""
    return message.content["metrics"][key]
