"""Run a federation on Flower's Simulation Runtime: one Ray actor per node, on this machine's
cores (or a Ray cluster's, see the README)."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Collection
from dataclasses import replace

from flwr.app import Context
from flwr.serverapp import Grid, ServerApp
from flwr.simulation import run_simulation

from fedlib.experiments.multitask import MultiTaskConfig, MultiTaskResult, run_multitask
from fedlib.flower.client import Outage, make_client_app
from fedlib.flower.strategy import MechanismStrategy


def run_federation(config: MultiTaskConfig, *, outages: Collection[Outage] = (),
                   timeout: float = 600.0, cpus: int | None = None,
                   strategy: MechanismStrategy | None = None) -> MultiTaskResult:
    """Run ``config`` with one Flower node per worker and return the batched engine's result
    format.

    Parameters
    ----------
    config : MultiTaskConfig
    outages : collection of (worker, task, round)
        Requests some workers fail to answer (round None: the bid request), to see how the
        run treats them (:mod:`fedlib.flower.strategy`).
    timeout : float, default 600
        Seconds the server waits for one round of replies.
    cpus : int, optional
        CPUs Ray may use, one node (ClientApp actor) per CPU at a time (default: all; with
        ``RAY_ADDRESS`` set, Ray joins that cluster and uses its CPUs instead).
    strategy : MechanismStrategy, optional
        The publisher's strategy for ``config`` (default: a new one with ``timeout``), e.g. to
        read its :attr:`~MechanismStrategy.task_seconds` afterwards.
    """
    strategy = strategy or MechanismStrategy(config, timeout=timeout)
    if strategy.config != config:
        raise ValueError("strategy was made for another configuration than config")
    outcome: dict[str, MultiTaskResult] = {}
    server = ServerApp()

    @server.main()
    def main(grid: Grid, context: Context) -> None:
        outcome["result"] = strategy.start(grid)

    cpus = cpus or os.cpu_count() or 1
    # Flower's and Ray's logs follow fedlib's (python -m fedlib -v shows them). Quiet, they
    # would repeat that run_simulation is deprecated in favour of ``flwr run`` (which
    # fedlib.flower.app serves as well) and print every failed request's traceback; the
    # strategy records those in ``no_reply`` and logs them at INFO.
    quiet = logging.getLogger("fedlib").getEffectiveLevel() > logging.INFO
    logging.getLogger("flwr").setLevel(logging.CRITICAL if quiet else logging.INFO)
    os.environ.setdefault("RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO", "0")
    init_args = {"log_to_driver": not quiet,
                 "logging_level": logging.ERROR if quiet else logging.INFO}
    if not os.environ.get("RAY_ADDRESS"):  # a cluster to join says its own CPUs
        init_args["num_cpus"] = cpus
    pythonpath = os.environ.get("PYTHONPATH")
    try:
        run_simulation(server, make_client_app(outages), num_supernodes=config.daccs.size,
                       backend_config={"client_resources": {"num_cpus": 1, "num_gpus": 0.0},
                                       "init_args": init_args})
    finally:  # Flower's Ray backend sets PYTHONPATH to its sys.path for the actors: undo it
        if pythonpath is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = pythonpath
    if "result" not in outcome:
        raise RuntimeError("the Flower simulation ended before the server finished its tasks; "
                           "run with -v to see Flower's log")
    return outcome["result"]


def round_cost(k: int, dataset: str = "mnist", rounds: int = 5, n_samples: int = 1000,
               n_val: int = 5000, cpus: int | None = None) -> tuple[float, float]:
    """Seconds per global round with k winners: (Flower, batched engine), same machine.

    Two tasks of ``rounds`` rounds with k clean workers and a budget that hires them all, in a
    Flower federation (one process per CPU, one torch thread each) and on the batched engine
    (one torch thread per CPU); the second task's wall time (for Flower its bid and payment
    exchanges included; the first task also loads the data into every process) divided by
    ``rounds``.

    ``cpus`` (default: all of the machine's) bounds both paths alike: Flower's worker
    processes at a time and the engine's torch threads. With ``cpus=1`` each path has one
    runnable thread of work, so other load on the machine slows both about alike and the ratio
    measures work; with every CPU, a busy machine gives the federation's many processes a
    larger share of its time than the engine's threads, and the ratio follows the load.
    """
    config = MultiTaskConfig(dataset=dataset, groups=((1.0, k),), budget=10.0 * k, n_tasks=2,
                             eval_from=0, n_samples=n_samples, n_val=n_val, n_test=n_val,
                             device="cpu")
    config = replace(config, task=replace(config.task, rounds=rounds))
    cpus = cpus or os.cpu_count() or 1
    strategy = MechanismStrategy(config)
    flower = run_federation(config, strategy=strategy, cpus=cpus)
    finished: list[float] = []
    cores = replace(config, threads=cpus)  # as many threads as Ray has processes
    batched = run_multitask(cores, on_task=lambda record: finished.append(time.perf_counter()))
    if any(len(record["winners"]) != k for record in (*flower.records, *batched.records)):
        raise RuntimeError(f"the budget did not hire all {k} workers")
    return strategy.task_seconds[1] / rounds, (finished[1] - finished[0]) / rounds
