"""The worker: a Flower ClientApp that bids, trains locally and takes its ex-post payment.

A node's worker is its ``partition-id`` (``context.node_config``) and the run is its run
configuration (``context.run_config``, :mod:`fedlib.flower.settings`). Its training data are
its row of the run's worker pool (:func:`fedlib.experiments.multitask.worker_pool`: its samples,
labels flipped to its data accuracy), served as its partition by Flower Datasets
(:class:`fedlib.flower.worker_data.WorkerPoolPartitioner`); its private cost, which it bids
truthfully, is its entry of :func:`fedlib.experiments.multitask.draw_bids`. Local training is
the plain per-worker loop of :func:`fedlib.fl.reference.train_local`: one ``nn.Module``,
``torch.optim.SGD`` with the task's learning rate and momentum, mini-batches cut from the
batch order the publisher sent.

The run configuration's ``outages`` make some workers fail some requests (they raise), which
Flower hands to the server as error replies. In a replay of a counterexample (its ``replay``,
:mod:`fedlib.flower.replay`) the worker's cost is the instance's, its bid the play's (its
misreport, or its cost), and it answers ``query.deliver`` with the ``re`` the play delivers.
In a federation of one's own, a worker would load its own data and bid its own cost here
instead of deriving both from the run's seed.
"""

from __future__ import annotations

import torch
from flwr.app import ArrayRecord, Context, Message, MetricRecord
from flwr.clientapp import ClientApp

from fedlib.experiments.multitask import MultiTaskConfig, draw_bids
from fedlib.fl import reference
from fedlib.fl.models import MODEL_FOR_DATASET, preprocess
from fedlib.flower.messages import (
    arrays_of,
    model_of,
    model_record,
    order_of,
    reply,
    round_of,
    setting,
    task_of,
)
from fedlib.flower.settings import RunSettings, worker_of


class SimulatedOutage(RuntimeError):
    """Raised by a worker the run configuration's ``outages`` tell to fail."""


def _data(context: Context, config: MultiTaskConfig, worker: int
          ) -> tuple[torch.Tensor, torch.Tensor]:
    """Preprocessed images (n, 1, 28, 28) and the labels worker ``worker`` trains on, built
    on the node's first training request of the run and kept in the node's state
    (``context.state``, which Flower keeps across the run's messages)."""
    if "data" not in context.state:
        # Flower Datasets (datasets, pyarrow) only where a worker trains: on the Deployment
        # Runtime every message is a process of its own, and most ask for a bid or a payment
        from fedlib.flower.worker_data import worker_partition

        workers = config.daccs.size
        if not 0 <= worker < workers:
            raise ValueError(f"partition-id {worker} names no worker: the run has {workers} "
                             f"(give each node a partition-id in 0..{workers - 1})")
        images, labels = worker_partition(config, worker)
        context.state["data"] = model_record({
            "images": preprocess(torch.from_numpy(images), "cpu", torch.float32),
            "labels": torch.from_numpy(labels)})
    data = model_of(context.state.array_records["data"])
    return data["images"], data["labels"]


def _answering(context: Context, task: int, round_: int | None) -> tuple[RunSettings, int]:
    """The run and the node's worker, unless the run tells the worker to fail this request."""
    settings = RunSettings.from_run_config(context.run_config)
    worker = worker_of(context.node_config)
    if (worker, task, round_) in settings.outages:
        raise SimulatedOutage(f"worker {worker} fails in task {task}"
                              + ("'s bid request" if round_ is None else f", round {round_}"))
    return settings, worker


client_app = ClientApp()


def _private(settings: RunSettings, task: int, worker: int) -> tuple[float, float]:
    """The worker's bid and true cost: in a replay the play's bid and the instance's cost,
    otherwise its cost drawn from the run's seed (:func:`draw_bids`), bid truthfully."""
    if settings.replay is not None:
        worker = settings.replay.worker(worker)
        return (float(settings.replay.bids[worker]),
                float(settings.replay.instance.costs[worker]))
    cost = float(draw_bids(settings.config, task)[worker])
    return cost, cost


@client_app.query("bid")
def bid(message: Message, context: Context) -> Message:
    """The worker's bid for the task: its private cost (in a replay, the play's bid)."""
    task = task_of(message)
    settings, worker = _answering(context, task, None)
    offer, _ = _private(settings, task, worker)
    return reply(message, metrics=MetricRecord({"worker": worker, "bid": offer}))


@client_app.train()
def train(message: Message, context: Context) -> Message:
    """One round of local training from the global model, in the batch order sent."""
    task, round_ = task_of(message), round_of(message)
    settings, worker = _answering(context, task, round_)
    config, options = settings.config, settings.config.task
    images, labels = _data(context, config, worker)
    order = order_of(arrays_of(message, "order"))
    torch.set_num_threads(config.threads)
    local = reference.train_local(MODEL_FOR_DATASET[config.dataset],
                                  model_of(arrays_of(message)), images[None],
                                  labels[None], order[None], lr=options.lr,
                                  batch_size=options.batch_size, momentum=options.momentum)
    arrays: ArrayRecord = model_record({key: value[0] for key, value in local.items()})
    return reply(message, arrays=arrays, metrics=MetricRecord({"worker": worker}))


@client_app.query("payment")
def payment(message: Message, context: Context) -> Message:
    """The worker takes its ex-post payment; its utility, Eq. (1), is the payment minus its
    cost if it won (a request without ``"selected"`` goes to a winner), else 0."""
    task = task_of(message)
    settings = RunSettings.from_run_config(context.run_config)
    worker = worker_of(context.node_config)
    paid = float(setting(message, "payment"))
    _, cost = _private(settings, task, worker)
    won = bool(message.content.config_records["config"].get("selected", True))
    return reply(message, metrics=MetricRecord({"worker": worker,
                                                "utility": paid - cost if won else 0.0}))


@client_app.query("deliver")
def deliver(message: Message, context: Context) -> Message:
    """In a replay, the ``re`` (Eq. (5)) the winner delivers in the play."""
    settings = RunSettings.from_run_config(context.run_config)
    if settings.replay is None:
        raise ValueError("query.deliver is a replay's request: the run has no replay")
    worker = settings.replay.worker(worker_of(context.node_config))
    return reply(message, metrics=MetricRecord({"worker": worker,
                                                "re": float(settings.replay.re[worker])}))


__all__ = ["SimulatedOutage", "client_app"]
