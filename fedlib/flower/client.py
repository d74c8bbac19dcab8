"""The worker: a Flower ClientApp that bids, trains locally and takes its ex-post payment.

A worker is the node's ``partition-id`` (Flower's simulation numbers the nodes 0..W-1; on the
Deployment Runtime it is set with ``--node-config "partition-id=3"``). Its training data are
its row of the run's worker pool (:func:`fedlib.experiments.multitask.worker_pool`: its samples,
labels flipped to its data accuracy), built once per process from the configuration the
publisher sends; its private cost, which it bids truthfully, is its entry of
:func:`fedlib.experiments.multitask.draw_bids`. Local training is the plain per-worker loop of
:func:`fedlib.fl.reference.train_local`: one ``nn.Module``, ``torch.optim.SGD`` with the task's
learning rate and momentum, mini-batches cut from the batch order the publisher sent.

:func:`make_client_app` can also simulate outages (a worker that raises instead of answering
some requests), which Flower hands to the server as error replies.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from functools import lru_cache

import torch
from flwr.app import Context, Message, MetricRecord
from flwr.clientapp import ClientApp

from fedlib.experiments.multitask import MultiTaskConfig, draw_bids, worker_pool
from fedlib.fl import reference
from fedlib.fl.models import MODEL_FOR_DATASET, preprocess
from fedlib.flower.messages import header, metric, model_of, model_record, order_of, reply

#: An outage: (worker, task, round) at which the worker fails; round None is the bid request.
Outage = tuple[int, int, int | None]


class SimulatedOutage(RuntimeError):
    """Raised by a worker told to fail (:func:`make_client_app`)."""


@lru_cache(maxsize=2)
def _data(state: str, worker: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Preprocessed images (n, 1, 28, 28) and the labels worker ``worker`` trains on, in the
    run whose configuration is the JSON ``state``."""
    pool = worker_pool(MultiTaskConfig.from_dict(json.loads(state)))
    if not 0 <= worker < len(pool):
        raise ValueError(f"partition-id {worker} names no worker: the run has {len(pool)} "
                         f"(give each node a partition-id in 0..{len(pool) - 1})")
    return preprocess(pool.images[worker], "cpu", torch.float32), pool.labels[worker]


def make_client_app(outages: Collection[Outage] = ()) -> ClientApp:
    """The workers' ClientApp; ``outages`` lists the requests some workers fail to answer."""
    failing = frozenset(outages)
    app = ClientApp()

    def worker_of(context: Context, task: int, round_: int | None) -> int:
        """The node's worker, unless it is told to fail this request."""
        worker = int(context.node_config["partition-id"])
        if (worker, task, round_) in failing:
            raise SimulatedOutage(f"worker {worker} fails in task {task}"
                                  + ("'s bid request" if round_ is None else f", round {round_}"))
        return worker

    @app.query("bid")
    def bid(message: Message, context: Context) -> Message:
        config, task, _ = header(message)
        worker = worker_of(context, task, None)
        cost = float(draw_bids(config, task)[worker])
        return reply(message, metrics=MetricRecord({"worker": worker, "bid": cost}))

    @app.train()
    def train(message: Message, context: Context) -> Message:
        config, task, round_ = header(message)
        worker = worker_of(context, task, round_)
        images, labels = _data(str(message.content["header"]["config"]), worker)
        order = order_of(message.content["order"])
        options = config.task
        torch.set_num_threads(config.threads)
        local = reference.train_local(MODEL_FOR_DATASET[config.dataset],
                                      model_of(message.content["model"]), images[None],
                                      labels[None], order[None], lr=options.lr,
                                      batch_size=options.batch_size, momentum=options.momentum)
        return reply(message, model=model_record({key: value[0] for key, value in local.items()}),
                     metrics=MetricRecord({"worker": worker}))

    @app.query("payment")
    def payment(message: Message, context: Context) -> Message:
        config, task, _ = header(message)
        worker = int(context.node_config["partition-id"])
        paid = float(metric(message, "payment"))
        cost = float(draw_bids(config, task)[worker])
        return reply(message, metrics=MetricRecord({"worker": worker, "utility": paid - cost}))

    return app


#: The ClientApp without outages (``flwr run`` loads it from here).
client_app = make_client_app()
