"""The publisher's strategy: the global rounds of one task, as a Flower ``Strategy``.

:class:`MechanismStrategy` subclasses Flower's message-based
:class:`flwr.serverapp.strategy.Strategy` and keeps its contract: Flower's own
``Strategy.start(grid, initial_arrays, num_rounds, timeout, train_config, ...) -> Result`` runs
the rounds of a task, each through the strategy's hooks:

* :meth:`~MechanismStrategy.configure_train` sends the global model to each of the task's
  winners with the batch order the publisher drew for it (as the batched engine draws it);
* :meth:`~MechanismStrategy.aggregate_train` scores the round on the models that came back, on
  the publisher's validation set (:func:`fedlib.fl.task.score_round`: true-label probabilities,
  the leave-one-out check, contributions, Eqs. (2)-(3), the weights omega), aggregates
  ``sum_i omega_i theta_i`` and returns the new global model with the round's record as its
  MetricRecord, so that ``Result.train_metrics_clientapp`` holds every round
  (:func:`round_records` reads them back).

A strategy runs one task: it is made with the task's :class:`TaskPlan` (winners, their nodes,
batch orders) and the publisher's sets, and its hooks read nothing else but their arguments
and, as Flower's FedOpt strategies do, the global model :meth:`configure_train` sent
(``current_arrays``: when no model passes the check, the global model stays). The tasks
around the rounds (bids, auction, ex-post payments, reputations) are the ServerApp's loop,
:mod:`fedlib.flower.publisher`.

**A winner that does not return its model** in a round (Flower hands the strategy an error
reply for a node that fails, none for one that times out) has submitted nothing: that round it
is recorded as failing the leave-one-out check, with contribution 0 and weight 0 (``passed``
false, ``margin`` NaN), and the round is scored on the models that did arrive; if none arrives,
the global model stays as it was. A reply that holds no model the round can score counts the
same (logged as a warning): one without an ``"arrays"`` record, with other layers or shapes
than the global model's, or with a value that is not finite (a single NaN model would make the
loss of the average, and so every winner's leave-one-out check, NaN). A reply from a node that
runs none of the task's winners is ignored with a warning.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import torch
from flwr.app import ArrayRecord, ConfigRecord, Message, MetricRecord
from flwr.serverapp import Grid
from flwr.serverapp.strategy import Result, Strategy

from fedlib.fl.engine import BatchedEngine
from fedlib.fl.records import RoundRecord
from fedlib.fl.task import Sample, TaskOptions, score_round
from fedlib.flower.messages import (
    TRAIN,
    arrays_of,
    model_of,
    model_record,
    order_record,
    request,
)

logger = logging.getLogger(__name__)

#: The RoundRecord fields a round's MetricRecord carries, one value per winner.
PER_WINNER = ("delta_l", "passed", "margin", "contrib", "mean_prob", "omega")


@dataclass(frozen=True, eq=False)
class TaskPlan:
    """What the publisher decided before a task's rounds.

    Attributes
    ----------
    task : int
    winners : tuple of int
        The auction's winners (workers), in the order the round records list them.
    nodes : tuple of int
        The node each winner runs on.
    orders : torch.Tensor
        int64, (rounds, winners, epochs, samples): each round's batch order of each winner.
    """

    task: int
    winners: tuple[int, ...]
    nodes: tuple[int, ...]
    orders: torch.Tensor

    def __post_init__(self) -> None:
        if len(self.winners) != len(self.nodes) or not self.winners:
            raise ValueError(f"a plan needs one node per winner and at least one winner, got "
                             f"{len(self.winners)} winners on {len(self.nodes)} nodes")
        if self.orders.ndim != 4 or self.orders.shape[1] != len(self.winners):
            raise ValueError(f"orders must be (rounds, {len(self.winners)}, epochs, samples), "
                             f"got {tuple(self.orders.shape)}")


class MechanismStrategy(Strategy):
    """The global rounds of one task of the mechanism over the winners' nodes.

    Parameters
    ----------
    plan : TaskPlan
        The task, its winners, their nodes and batch orders.
    engine : BatchedEngine
        Scores and aggregates the submitted models on the publisher's device.
    validation, test : (images, labels)
        The publisher's sets, preprocessed (:func:`fedlib.fl.task.publisher_tensors`).
    options : TaskOptions
        The task's constants (the check's delta, s0, the contribution weighting).

    Examples
    --------
    In a ServerApp (``grid`` from Flower), with the plan and the sets the publisher made::

        strategy = MechanismStrategy(plan, engine, validation, test, config.task)
        result = strategy.start(grid, model_record(params), num_rounds=config.task.rounds)
        rounds = round_records(result)
    """

    def __init__(self, plan: TaskPlan, engine: BatchedEngine, validation: Sample, test: Sample,
                 options: TaskOptions) -> None:
        if options.own_labels:
            raise ValueError("own_labels (a worker measured on its own labels) runs on the "
                             "batched engine only (fedlib.fl.task.run_task); the strategy "
                             "measures every worker on every validation sample, as the paper")
        if plan.orders.shape[0] < options.rounds:
            raise ValueError(f"the plan holds batch orders for {plan.orders.shape[0]} rounds, "
                             f"the task has {options.rounds}")
        self.plan, self.engine, self.options = plan, engine, options
        self.validation, self.test = validation, test
        #: The global model :meth:`configure_train` last sent (Flower's FedOpt keeps it too).
        self.current_arrays: ArrayRecord | None = None

    def configure_train(self, server_round: int, arrays: ArrayRecord, config: ConfigRecord,
                        grid: Grid) -> Iterable[Message]:
        """One ``train`` message per winner: the global model and its batch order, with
        ``config``, the task and the round."""
        self.current_arrays = arrays
        header = ConfigRecord({**config, "task": self.plan.task, "server-round": server_round})
        return [request(TRAIN, node, header, arrays=arrays,
                        order=order_record(self.plan.orders[server_round - 1, i]))
                for i, node in enumerate(self.plan.nodes)]

    def aggregate_train(self, server_round: int, replies: Iterable[Message]
                        ) -> tuple[ArrayRecord | None, MetricRecord | None]:
        """Score the round on the models that arrived and aggregate them with omega; the
        round's record is the MetricRecord."""
        if self.current_arrays is None:
            raise RuntimeError("aggregate_train before configure_train: nothing was sent")
        params = model_of(self.current_arrays, self.engine.device)
        position = {node: i for i, node in enumerate(self.plan.nodes)}
        models = {}
        for message in replies:
            node = message.metadata.src_node_id
            if node not in position:
                logger.warning("task %d, round %d: ignored a reply from node %s, which runs "
                               "no winner", self.plan.task, server_round, node)
            elif (model := self._returned_model(message, params, server_round)) is not None:
                models[position[node]] = model
        arrived = sorted(models)
        if arrived:
            stacked = {key: torch.stack([models[i][key] for i in arrived]) for key in params}
            record, params = score_round(self.engine, stacked, params, self.validation,
                                         self.test, self.options)
        else:  # nothing to score: the global model stays
            nothing = np.zeros(0)
            record = RoundRecord(float("nan"), nothing, nothing.astype(bool), nothing, nothing,
                                 nothing, nothing, *self.engine.evaluate(params, *self.test),
                                 None)
        k = len(self.plan.winners)
        return model_record(params), round_metrics(_widen(record, arrived, k), arrived, k)

    def _returned_model(self, message: Message, params: dict[str, torch.Tensor],
                        server_round: int) -> dict[str, torch.Tensor] | None:
        """The model a reply returns, or None when it returns none the round can score (an
        error reply; no ``"arrays"``; other layers or shapes than ``params``; a value that is
        not finite)."""
        if message.has_error():
            return None
        problem = None
        if "arrays" not in message.content.array_records:
            problem = "no model"
        else:
            model = model_of(arrays_of(message), self.engine.device)
            if model.keys() != params.keys() or any(
                    model[key].shape != value.shape for key, value in params.items()):
                problem = "a model of other layers or shapes than the global model's"
            elif not all(bool(torch.isfinite(value).all()) for value in model.values()):
                problem = "a model with values that are not finite"
        if problem is not None:
            logger.warning("task %d, round %d: node %s returned %s; it counts as no model",
                           self.plan.task, server_round, message.metadata.src_node_id, problem)
            return None
        return model

    def configure_evaluate(self, server_round: int, arrays: ArrayRecord, config: ConfigRecord,
                           grid: Grid) -> Iterable[Message]:
        """None: the publisher evaluates on its own test set (in :meth:`aggregate_train`)."""
        return []

    def aggregate_evaluate(self, server_round: int, replies: Iterable[Message]
                           ) -> MetricRecord | None:
        """None: no client-side evaluation."""
        return None

    def summary(self) -> None:
        """Log the task this strategy runs."""
        logger.info("MechanismStrategy: task %d, winners %s on nodes %s", self.plan.task,
                    list(self.plan.winners), list(self.plan.nodes))


def round_metrics(record: RoundRecord, arrived: list[int], k: int) -> MetricRecord:
    """A round's record (over all k winners) as a MetricRecord; ``arrived``: the winners whose
    model came back."""
    values: dict[str, Any] = {name: [float(v) for v in getattr(record, name)]
                              for name in PER_WINNER}
    values["passed"] = [int(v) for v in record.passed]
    values["arrived"] = [int(i in arrived) for i in range(k)]
    values.update(loss_all=float(record.loss_all), test_loss=float(record.test_loss),
                  test_acc=float(record.test_acc))
    return MetricRecord(values)


def round_records(result: Result) -> list[RoundRecord]:
    """The rounds of a task from the :class:`~flwr.serverapp.strategy.Result` of
    :meth:`MechanismStrategy.start`, in order."""
    rounds = []
    for server_round in sorted(result.train_metrics_clientapp):
        metrics: dict[str, Any] = dict(result.train_metrics_clientapp[server_round])
        arrays = {name: np.array(metrics[name], dtype=float) for name in PER_WINNER}
        arrays["passed"] = arrays["passed"].astype(bool)
        rounds.append(RoundRecord(float(metrics["loss_all"]), arrays["delta_l"],
                                  arrays["passed"], arrays["margin"], arrays["contrib"],
                                  arrays["mean_prob"], arrays["omega"],
                                  float(metrics["test_loss"]), float(metrics["test_acc"]), None))
    return rounds


def missing_models(result: Result) -> list[tuple[int, int]]:
    """``(round from 0, winner position)`` of every model that did not arrive."""
    arrivals: dict[int, Any] = {server_round: metrics["arrived"] for server_round, metrics
                                in result.train_metrics_clientapp.items()}
    return [(server_round - 1, i) for server_round in sorted(arrivals)
            for i, arrived in enumerate(arrivals[server_round]) if not arrived]


def _widen(record: RoundRecord, arrived: list[int], k: int) -> RoundRecord:
    """A round record over all k winners from one over those whose models ``arrived``: the
    others failed the check, with contribution and weight 0 and no loss difference."""
    def full(values: np.ndarray, missing: Any) -> np.ndarray:
        out = np.full(k, missing, dtype=np.result_type(values.dtype, type(missing)))
        out[arrived] = values
        return out

    local = None if record.local_acc is None else full(record.local_acc, np.nan)
    return replace(record, delta_l=full(record.delta_l, np.nan),
                   passed=full(record.passed, False), margin=full(record.margin, np.nan),
                   contrib=full(record.contrib, 0.0), mean_prob=full(record.mean_prob, np.nan),
                   omega=full(record.omega, 0.0), local_acc=local)
