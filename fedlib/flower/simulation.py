"""Run a federation on Flower's Simulation Runtime: one Ray actor per node, on this machine's
cores (or a Ray cluster's, see the README)."""

from __future__ import annotations

import logging
import os
from collections.abc import Collection

from flwr.app import Context
from flwr.serverapp import Grid, ServerApp
from flwr.simulation import run_simulation

from fedlib.experiments.multitask import MultiTaskConfig, MultiTaskResult
from fedlib.flower.client import Outage, make_client_app
from fedlib.flower.strategy import MechanismStrategy


def run_federation(config: MultiTaskConfig, *, outages: Collection[Outage] = (),
                   timeout: float = 600.0, cpus: int | None = None) -> MultiTaskResult:
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
        CPUs Ray may use, one node (ClientApp actor) per CPU at a time (default: all).
    """
    strategy = MechanismStrategy(config, timeout=timeout)
    outcome: dict[str, MultiTaskResult] = {}
    server = ServerApp()

    @server.main()
    def main(grid: Grid, context: Context) -> None:
        outcome["result"] = strategy.start(grid)

    cpus = cpus or os.cpu_count() or 1
    # Flower's and Ray's logs follow fedlib's (python -m fedlib -v shows them); quiet, they
    # would also repeat that run_simulation is deprecated in favour of ``flwr run``, which
    # fedlib.flower.app serves as well.
    quiet = logging.getLogger("fedlib").getEffectiveLevel() > logging.INFO
    logging.getLogger("flwr").setLevel(logging.ERROR if quiet else logging.INFO)
    os.environ.setdefault("RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO", "0")
    run_simulation(server, make_client_app(outages), num_supernodes=config.daccs.size,
                   backend_config={"client_resources": {"num_cpus": 1, "num_gpus": 0.0},
                                   "init_args": {"num_cpus": cpus, "log_to_driver": not quiet,
                                                 "logging_level": logging.ERROR if quiet
                                                 else logging.INFO}})
    if "result" not in outcome:
        raise RuntimeError("the Flower simulation ended before the server finished its tasks; "
                           "run with -v to see Flower's log")
    return outcome["result"]
