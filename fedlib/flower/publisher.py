"""The publisher's loop over the tasks of a run, in the ServerApp (:mod:`fedlib.flower.app`).

:func:`run_tasks` runs the tasks of a :class:`~fedlib.experiments.multitask.MultiTaskConfig`
one after another over the nodes of a Flower grid, with the same steps and formulas as
:func:`fedlib.experiments.multitask.run_multitask`:

1. **bids**: a ``query.bid`` to every node; the auction of the configured mechanism (any of
   :data:`fedlib.mechanism.MECHANISMS`) selects winners from the bids and the reputations
   ``Re`` (:func:`~fedlib.experiments.multitask.auction`);
2. **global rounds**: the publisher draws the task's model and every round's batch orders from
   the task's seed (as the batched engine draws them) into a
   :class:`~fedlib.flower.strategy.TaskPlan`, and Flower's own ``Strategy.start`` runs the
   rounds of a :class:`~fedlib.flower.strategy.MechanismStrategy`;
3. **after the task**: ``re`` from contributions and trust (Eqs. (4)-(5),
   :func:`fedlib.fl.task.finish_task`), ex-post payments and the reputation update, Eq. (13)
   (:meth:`~fedlib.experiments.run_state.RunState.settle`), and a ``query.payment`` to every
   winner.

**Workers that do not answer.** A worker that does not answer the bid request, or answers it
with a bid that is not a finite non-negative number, is left out of that task's auction (a
warning names it, and the record counts it as no answer); an answer that names no worker of the
run, or a worker another node already answered for, is ignored with a warning. A winner whose
model does not arrive in a round fails that round's check (:mod:`fedlib.flower.strategy`), so
its task contribution, trust and ``re`` fall as for a failed check and it is paid ex post
accordingly; nothing else of the task is lost. The record of such a task lists the missing
answers under ``"no_reply"`` as ``[round, worker]`` pairs (round -1: the bid request), and the
missing winners' margins as None.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

import numpy as np
import torch
from flwr.app import ConfigRecord
from flwr.serverapp import Grid

from fedlib.experiments.multitask import (
    ROUND_FIELDS,
    MultiTaskConfig,
    MultiTaskResult,
    auction,
    publisher_of,
    task_seed,
)
from fedlib.experiments.run_state import RunState
from fedlib.fl.engine import BatchedEngine, batch_orders
from fedlib.fl.models import MODEL_FOR_DATASET
from fedlib.fl.seeding import torch_generator, torch_threads
from fedlib.fl.task import Sample, finish_task, publisher_tensors
from fedlib.flower.messages import BID, PAYMENT, model_of, model_record, request
from fedlib.flower.strategy import MechanismStrategy, TaskPlan, missing_models, round_records
from fedlib.runtime import progress

logger = logging.getLogger(__name__)


@dataclass(frozen=True, eq=False)
class FederationRun:
    """A run of the tasks over a grid: its result (the batched engine's format), the wall
    seconds of each task (bids, rounds and payments) and, where known, how many requests of
    each type (``query.bid``, ``train``, ``query.payment``) each worker answered (from the
    server's record, :mod:`fedlib.flower.answers`) and the logs of the run's processes by
    name (:meth:`fedlib.flower.launch.LocalFederation.logs`)."""

    result: MultiTaskResult
    task_seconds: tuple[float, ...]
    answered: dict[int, dict[str, int]] = field(default_factory=dict)
    logs: dict[str, str] = field(default_factory=dict)

    def deprecations(self) -> list[str]:
        """The processes of the run (Flower's included) whose log mentions a deprecation: none
        when the run uses Flower's current API."""
        return sorted(name for name, text in self.logs.items() if "deprecat" in text.lower())


def run_tasks(grid: Grid, config: MultiTaskConfig, *, timeout: float = 600.0) -> FederationRun:
    """Run every task of ``config`` over the nodes of ``grid`` (one node per worker).

    Parameters
    ----------
    grid : flwr.serverapp.Grid
    config : MultiTaskConfig
        ``attacks`` are not supported (they are simulated by the batched engine); the publisher
        scores on ``config.device``.
    timeout : float, default 600
        Seconds to wait for the nodes to connect, and for the replies to one round of requests.
    """
    if config.attacks:
        raise ValueError("the Flower engine runs honest workers only: attacks are simulated "
                         "by the batched engine (fedlib.fl.attacks)")
    if not timeout > 0:
        raise ValueError(f"timeout must be positive, got {timeout!r}")
    engine = BatchedEngine(MODEL_FOR_DATASET[config.dataset], device=config.device)
    run, seconds = RunState(config), []
    nodes = wait_for_nodes(grid, config.daccs.size, timeout)
    with torch_threads(config.threads):
        sets = publisher_tensors(engine, publisher_of(config))
        for task in progress(range(config.n_tasks), desc=f"{config.result_name()} (Flower)"):
            began = time.perf_counter()
            _run_task(grid, nodes, config, engine, sets, run, task, timeout)
            seconds.append(time.perf_counter() - began)
            run.seconds += seconds[-1]
    return FederationRun(MultiTaskResult(config, tuple(run.records), run.seconds),
                         tuple(seconds))


def _run_task(grid: Grid, nodes: list[int], config: MultiTaskConfig, engine: BatchedEngine,
              sets: tuple[Sample, Sample], run: RunState, task: int, timeout: float) -> None:
    bids, node_of = collect_bids(grid, nodes, task, config.daccs.size, timeout)
    missing = [[-1, int(w)] for w in np.flatnonzero(np.isnan(bids))]
    bidders = np.flatnonzero(~np.isnan(bids))
    allocation = auction(config, task, run.ledger.Re[bidders], bids[bidders])
    winners = bidders[allocation.winners]
    result = None
    if winners.size:
        generator = torch_generator(task_seed(config, task))
        params = (engine.init_params(generator) if config.fresh_model or run.params is None
                  else run.params)
        orders = torch.stack([batch_orders(winners.size, config.n_samples, config.task.epochs,
                                           generator) for _ in range(config.task.rounds)])
        plan = TaskPlan(task, tuple(int(w) for w in winners),
                        tuple(node_of[int(w)] for w in winners), orders)
        strategy = MechanismStrategy(plan, engine, *sets, config.task)
        outcome = strategy.start(grid, model_record(params), num_rounds=config.task.rounds,
                                 timeout=timeout, train_config=ConfigRecord())
        missing += [[r, plan.winners[i]] for r, i in missing_models(outcome)]
        result = finish_task(round_records(outcome), config.task,
                             model_of(outcome.arrays, engine.device))
    run.settle(task, bids, allocation, result, ROUND_FIELDS, bidders)
    record = run.records[-1]
    if missing:
        logger.info("task %d: no reply from [round, worker] %s (round -1: the bid request)",
                    task, missing)
        record["no_reply"] = missing
        record["rounds"] = {name: [[None if value != value else value for value in row]
                                   if isinstance(row, list) else row for row in values]
                            for name, values in record["rounds"].items()}  # NaN: None
    payments = dict(zip(record["winners"], record["payments"], strict=True))
    if payments:
        grid.send_and_receive([request(PAYMENT, node_of[w], ConfigRecord({"task": task,
                                                                          "payment": paid}))
                               for w, paid in payments.items()], timeout=timeout)


def collect_bids(grid: Grid, nodes: list[int], task: int, workers: int, timeout: float
                  ) -> tuple[np.ndarray, dict[int, int]]:
    """Every worker's bid (NaN for no answer) and the node each worker runs on."""
    bids = np.full(workers, np.nan)
    node_of: dict[int, int] = {}
    replies = grid.send_and_receive([request(BID, node, ConfigRecord({"task": task}))
                                     for node in nodes], timeout=timeout)
    for message in replies:
        if message.has_error():
            continue
        node = message.metadata.src_node_id
        metrics = message.content.metric_records.get("metrics", {})
        if not {"worker", "bid"} <= set(metrics):
            logger.warning("task %d: node %s answered the bid request without a worker and a "
                           "bid; ignored", task, node)
            continue
        worker, bid = int(metrics["worker"]), float(metrics["bid"])
        if not 0 <= worker < workers or worker in node_of:
            logger.warning("task %d: ignored node %s's bid for worker %d (the run has workers "
                           "0..%d, each bidding from one node)", task, node, worker, workers - 1)
        elif not (np.isfinite(bid) and bid >= 0):
            logger.warning("task %d: worker %d bid %r, not a finite non-negative number; it is "
                           "left out of the auction", task, worker, bid)
            node_of[worker] = node
        else:
            bids[worker] = bid
            node_of[worker] = node
    return bids, node_of


def wait_for_nodes(grid: Grid, workers: int, timeout: float) -> list[int]:
    """The grid's nodes once there is one per worker (they register as they start)."""
    deadline = time.monotonic() + timeout
    while len(nodes := sorted(grid.get_node_ids())) < workers:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{len(nodes)} of {workers} nodes connected within {timeout:g} s:"
                               f" the run needs one node per worker")
        time.sleep(0.1)
    return nodes


__all__ = ["FederationRun", "collect_bids", "run_tasks", "wait_for_nodes"]
