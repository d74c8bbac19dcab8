"""The publisher: a Flower strategy that runs the mechanism around federated training.

:class:`MechanismStrategy` subclasses Flower's message-based
:class:`flwr.serverapp.strategy.Strategy`. Its :meth:`~MechanismStrategy.start` runs the tasks
of a :class:`~fedlib.experiments.multitask.MultiTaskConfig` one after another, with the same
steps and formulas as :func:`fedlib.experiments.multitask.run_multitask`:

1. **bids**: a ``query.bid`` to every node; the auction of the configured mechanism (any of
   :data:`fedlib.mechanism.MECHANISMS`) selects winners from the bids and the reputations
   ``Re`` (:func:`~fedlib.experiments.multitask.auction`);
2. **global rounds**, through the strategy's own ``configure_train`` and ``aggregate_train``:
   the global model goes to the winners, their local models come back, and the publisher
   scores the round on its validation set (:func:`fedlib.fl.task.score_round`: true-label
   probabilities, the leave-one-out check, contributions, Eqs. (2)-(3), the weights omega) and
   aggregates ``sum_i omega_i theta_i``;
3. **after the task**: ``re`` from contributions and trust (Eqs. (4)-(5),
   :func:`fedlib.fl.task.finish_task`), ex-post payments and the reputation update, Eq. (13)
   (:meth:`~fedlib.experiments.run_state.RunState.settle`), and a ``query.payment`` to every
   winner.

**Workers that do not answer.** Flower returns an error reply for a node that fails (or no
reply when it times out). A worker that does not answer the bid request is left out of that
task's auction. A winner that does not return its model in a round has submitted nothing:
that round it is recorded as failing the leave-one-out check, with contribution 0 and weight
0 (``passed`` false; its ``margin`` is None), and the round is scored on the models that did
arrive. Its task contribution, trust and ``re`` therefore fall as for a failed check, and it is
paid ex post accordingly; nothing else of the task is lost. If no model arrives at all, the
global model stays as it was. The record of such a task lists the missing answers under
``"no_reply"`` as ``[round, worker]`` pairs (round -1: the bid request).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import numpy as np
import torch
from flwr.app import ArrayRecord, ConfigRecord, Message, MetricRecord
from flwr.serverapp import Grid
from flwr.serverapp.strategy import Strategy

from fedlib.experiments.multitask import (
    ROUND_FIELDS,
    MultiTaskConfig,
    MultiTaskResult,
    auction,
    publisher_of,
    task_seed,
)
from fedlib.experiments.run_state import RunState
from fedlib.fl.batched import Params
from fedlib.fl.engine import BatchedEngine, batch_orders
from fedlib.fl.models import MODEL_FOR_DATASET
from fedlib.fl.records import RoundRecord
from fedlib.fl.seeding import torch_generator, torch_threads
from fedlib.fl.task import Sample, finish_task, publisher_tensors, score_round
from fedlib.flower.messages import (
    BID,
    PAYMENT,
    TRAIN,
    metric,
    model_of,
    model_record,
    order_record,
    request,
)
from fedlib.runtime import progress

logger = logging.getLogger(__name__)


class MechanismStrategy(Strategy):
    """Run the tasks of ``config`` over the nodes of a Flower grid.

    Parameters
    ----------
    config : MultiTaskConfig
        The run (dataset, mechanism, workers, budget, rounds, seed, ...); ``attacks`` are not
        supported here. The server evaluates on ``config.device``.
    timeout : float, default 600
        Seconds to wait for the replies to one round of requests.
    round_fields : tuple of str
        The :class:`~fedlib.fl.records.RoundRecord` fields each task record keeps per round.
    """

    def __init__(self, config: MultiTaskConfig, timeout: float = 600.0,
                 round_fields: tuple[str, ...] = ROUND_FIELDS) -> None:
        if config.attacks:
            raise ValueError("the Flower engine runs honest workers only: attacks are "
                             "simulated by the batched engine (fedlib.fl.attacks)")
        if not timeout > 0:
            raise ValueError(f"timeout must be positive, got {timeout!r}")
        self.config, self.timeout, self.round_fields = config, timeout, round_fields
        self.engine = BatchedEngine(MODEL_FOR_DATASET[config.dataset], device=config.device)
        self.run = RunState(config)
        #: Wall seconds of each task run so far (bids, rounds and payments).
        self.task_seconds: list[float] = []
        self._sets: tuple[Sample, Sample] | None = None
        self._task = 0
        self._winners: dict[int, int] = {}  # worker -> node of the current task's winners
        self._orders = torch.empty(0)
        self._params: Params = {}
        self._records: list[RoundRecord] = []
        self._missing: list[list[int]] = []

    # -- Flower's per-round interface ------------------------------------------------------
    def configure_train(self, server_round: int, arrays: ArrayRecord, config: ConfigRecord,
                        grid: Grid) -> Iterable[Message]:
        """One ``train`` message per winner: the global model and its batch order."""
        return [request(TRAIN, node, self.config, self._task, server_round - 1, model=arrays,
                        order=order_record(self._orders[i]))
                for i, node in enumerate(self._winners.values())]

    def aggregate_train(self, server_round: int, replies: Iterable[Message]
                        ) -> tuple[ArrayRecord | None, MetricRecord | None]:
        """Score the round on the models that arrived and aggregate them with omega."""
        params = self._params
        winners = list(self._winners)
        models: dict[int, Params] = {}
        for message in replies:
            if not message.has_error():
                models[int(metric(message, "worker"))] = model_of(message.content["model"])
        arrived = [i for i, worker in enumerate(winners) if worker in models]
        self._missing += [[server_round - 1, w] for w in winners if w not in models]
        validation, test = self._sets
        if arrived:
            stacked = {key: torch.stack([models[winners[i]][key] for i in arrived]).to(
                self.engine.device) for key in params}
            record, self._params = score_round(self.engine, stacked, params, validation, test,
                                               self.config.task)
        else:  # nothing to score: the global model stays
            nothing = np.zeros(0)
            record = RoundRecord(float("nan"), nothing, nothing.astype(bool), nothing, nothing,
                                 nothing, nothing, *self.engine.evaluate(params, *test), None)
        self._records.append(_widen(record, arrived, len(winners)))
        return (model_record(self._params),
                MetricRecord({"test_loss": record.test_loss, "test_acc": record.test_acc,
                              "passed": int(record.passed.sum()), "arrived": len(arrived)}))

    def configure_evaluate(self, server_round: int, arrays: ArrayRecord, config: ConfigRecord,
                           grid: Grid) -> Iterable[Message]:
        """None: the publisher evaluates on its own test set (in :meth:`aggregate_train`)."""
        return []

    def aggregate_evaluate(self, server_round: int, replies: Iterable[Message]
                           ) -> MetricRecord | None:
        return None

    def summary(self) -> None:
        logger.info("MechanismStrategy: %s, %d tasks of %d rounds", self.config.result_name(),
                    self.config.n_tasks, self.config.task.rounds)

    # -- the run -----------------------------------------------------------------------------
    def start(self, grid: Grid) -> MultiTaskResult:  # type: ignore[override]
        """Run every task of the configuration (bids, rounds, payments) and return the result
        in the batched engine's format."""
        self.summary()
        config = self.config
        nodes = _wait_for_nodes(grid, config.daccs.size, self.timeout)
        with torch_threads(config.threads):
            self._sets = publisher_tensors(self.engine, publisher_of(config))
            for task in progress(range(config.n_tasks), desc=f"{config.result_name()} (Flower)"):
                began = time.perf_counter()
                self._run_task(grid, nodes, task)
                self.task_seconds.append(time.perf_counter() - began)
                self.run.seconds += self.task_seconds[-1]
        return MultiTaskResult(config, tuple(self.run.records), self.run.seconds)

    def _run_task(self, grid: Grid, nodes: list[int], task: int) -> None:
        config, run = self.config, self.run
        self._task, self._records, self._missing = task, [], []
        bids, node_of = self._collect_bids(grid, nodes, task)
        bidders = np.flatnonzero(~np.isnan(bids))
        allocation = auction(config, task, run.ledger.Re[bidders], bids[bidders])
        winners = bidders[allocation.winners]
        result = None
        if winners.size:
            self._winners = {int(w): node_of[int(w)] for w in winners}
            generator = torch_generator(task_seed(config, task))
            self._params = (self.engine.init_params(generator) if config.fresh_model or
                            run.params is None else run.params)
            for server_round in range(1, config.task.rounds + 1):
                self._orders = batch_orders(winners.size, config.n_samples, config.task.epochs,
                                            generator)
                replies = grid.send_and_receive(
                    self.configure_train(server_round, model_record(self._params),
                                         ConfigRecord(), grid), timeout=self.timeout)
                self.aggregate_train(server_round, replies)
            result = finish_task(self._records, config.task, self._params)
        run.settle(task, bids, allocation, result, self.round_fields, bidders)
        record = run.records[-1]
        if self._missing:
            logger.info("task %d: no reply from [round, worker] %s (round -1: the bid request)",
                        task, self._missing)
            record["no_reply"] = self._missing
            record["rounds"] = {name: [[None if value != value else value for value in row]
                                       if isinstance(row, list) else row for row in values]
                                for name, values in record["rounds"].items()}  # NaN: None
        payments = dict(zip(record["winners"], record["payments"], strict=True))
        if payments:
            grid.send_and_receive([request(PAYMENT, node_of[w], config, task,
                                           metrics=MetricRecord({"payment": paid}))
                                   for w, paid in payments.items()], timeout=self.timeout)

    def _collect_bids(self, grid: Grid, nodes: list[int], task: int
                      ) -> tuple[np.ndarray, dict[int, int]]:
        """Every worker's bid (NaN for no answer) and the node each worker runs on."""
        bids = np.full(self.config.daccs.size, np.nan)
        node_of: dict[int, int] = {}
        replies = grid.send_and_receive([request(BID, node, self.config, task) for node in nodes],
                                        timeout=self.timeout)
        for message in replies:
            if not message.has_error():
                worker = int(metric(message, "worker"))
                bids[worker] = float(metric(message, "bid"))
                node_of[worker] = message.metadata.src_node_id
        self._missing += [[-1, int(w)] for w in np.flatnonzero(np.isnan(bids))]
        return bids, node_of


def _widen(record: RoundRecord, arrived: list[int], k: int) -> RoundRecord:
    """A round record over all k winners from one over those whose models ``arrived``: the
    others failed the check, with contribution and weight 0 and no loss difference."""
    def full(values: np.ndarray | None, missing: Any) -> np.ndarray | None:
        if values is None:
            return None
        out = np.full(k, missing, dtype=np.result_type(values.dtype, type(missing)))
        out[arrived] = values
        return out

    return replace(record, delta_l=full(record.delta_l, np.nan),
                   passed=full(record.passed, False), margin=full(record.margin, np.nan),
                   contrib=full(record.contrib, 0.0), mean_prob=full(record.mean_prob, np.nan),
                   omega=full(record.omega, 0.0), local_acc=full(record.local_acc, np.nan))


def _wait_for_nodes(grid: Grid, workers: int, timeout: float) -> list[int]:
    """The grid's nodes once there is one per worker (they register as they start)."""
    deadline = time.monotonic() + timeout
    while len(nodes := sorted(grid.get_node_ids())) < workers:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{len(nodes)} of {workers} nodes connected within {timeout:g} s:"
                               f" the run needs one node per worker")
        time.sleep(0.1)
    return nodes
