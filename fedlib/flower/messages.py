"""What the publisher's ServerApp and the workers' ClientApps send each other.

The run's configuration is not in the messages: both sides read it from the run configuration
(:mod:`fedlib.flower.settings`). Each message holds a ``"config"`` ConfigRecord with its task
(and, for training, Flower's ``"server-round"``, from 1), and the records of its kind, under the
keys of Flower's own strategies (``"arrays"``, ``"metrics"``):

* ``query.bid`` to every node; the reply's metrics name the worker and its bid (its private
  cost);
* ``train`` to each winner, once per global round, with the global model (``"arrays"``) and the
  worker's batch order (``"order"``, drawn by the publisher from the task's seed, as the batched
  engine draws it); the reply is the local model and the worker;
* ``query.payment`` to each winner after the task, with its ex-post payment in the config; the
  reply's metrics hold the worker's utility (payment minus cost);
* in a replay of a counterexample (:mod:`fedlib.flower.replay`), ``query.deliver`` to each
  winner, answered with the ``re`` it delivers, and ``query.payment`` to every node, with
  ``"selected"`` in the config (a loser's utility is 0).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import torch
from flwr.app import ArrayRecord, ConfigRecord, Message, MetricRecord, RecordDict

from fedlib.fl.batched import Params

BID, TRAIN, PAYMENT, DELIVER = "query.bid", "train", "query.payment", "query.deliver"


def request(kind: str, node: int, config: ConfigRecord, **records: ArrayRecord) -> Message:
    """A message of type ``kind`` to ``node`` holding ``config`` and ``records``."""
    return Message(RecordDict({"config": config, **records}), message_type=kind,
                   dst_node_id=node)


def setting(message: Message, key: str) -> Any:
    """One value of a request's ``"config"`` record."""
    return message.content.config_records["config"][key]


def task_of(message: Message) -> int:
    """The task a request is about."""
    return int(setting(message, "task"))


def round_of(message: Message) -> int:
    """The global round (from 0) a ``train`` request is about."""
    return int(setting(message, "server-round")) - 1


def arrays_of(message: Message, key: str = "arrays") -> ArrayRecord:
    """One ArrayRecord of a message."""
    return message.content.array_records[key]


def reply(message: Message, **content: ArrayRecord | MetricRecord | ConfigRecord) -> Message:
    """The reply to ``message`` carrying ``content``."""
    return Message(RecordDict(content), reply_to=message)


def model_record(params: Params) -> ArrayRecord:
    """A model's parameters as an ArrayRecord."""
    return ArrayRecord(OrderedDict((key, value.detach().cpu()) for key, value in params.items()))


def model_of(record: ArrayRecord, device: str | torch.device = "cpu") -> Params:
    """The parameters of an ArrayRecord made by :func:`model_record`, on ``device``."""
    return {key: value.to(device) for key, value in record.to_torch_state_dict().items()}


def order_record(order: torch.Tensor) -> ArrayRecord:
    """A worker's batch order (int64, (epochs, samples)) as an ArrayRecord."""
    return model_record({"order": order})


def order_of(record: ArrayRecord) -> torch.Tensor:
    """The batch order of an ArrayRecord made by :func:`order_record`."""
    return model_of(record)["order"]
