"""Run a federation through ``flwr run`` on this machine: Flower's Simulation Runtime (one Ray
actor per node, on this machine's cores or a Ray cluster's, see the README) or its Deployment
Runtime (one SuperNode process per worker on the loopback)."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal, get_args

from fedlib.conformance.protocol import USER_MODULE
from fedlib.experiments.multitask import MultiTaskConfig, MultiTaskResult, run_multitask
from fedlib.flower.launch import LocalFederation, stage_app
from fedlib.flower.publisher import FederationRun
from fedlib.flower.settings import Outage, run_config

Runtime = Literal["simulation", "deployment"]
#: The runtimes :func:`federate` runs on.
RUNTIMES: tuple[Runtime, ...] = get_args(Runtime)


def check_runtime(runtime: str) -> None:
    """Raise ValueError unless ``runtime`` is one of :data:`RUNTIMES`."""
    if runtime not in RUNTIMES:
        raise ValueError(f"runtime must be one of {', '.join(RUNTIMES)}, got {runtime!r}")


def federate(config: MultiTaskConfig, *, runtime: Runtime = "simulation",
             outages: Collection[Outage] = (), timeout: float = 600.0, cpus: int | None = None,
             mechanisms: Sequence[Any] = (),
             on_poll: Callable[[LocalFederation], None] | None = None) -> FederationRun:
    """Run ``config`` with one Flower node per worker through ``flwr run``.

    A SuperLink (and, for the Deployment Runtime, one SuperNode per worker) is started on
    127.0.0.1 for the run and stopped after it (:class:`~fedlib.flower.launch.LocalFederation`);
    the app bundle carries this fedlib's sources (:func:`~fedlib.flower.launch.stage_app`).

    Parameters
    ----------
    config : MultiTaskConfig
    runtime : {"simulation", "deployment"}
    outages : collection of (worker, task, round)
        Requests some workers fail to answer (round None: the bid request), to see how the
        run treats them (:mod:`fedlib.flower.publisher`).
    timeout : float, default 600
        Seconds the publisher waits for one round of replies.
    cpus : int, optional
        Simulation: CPUs Ray may use, one node (ClientApp actor) per CPU at a time (default:
        all; with ``RAY_ADDRESS`` set, Ray joins that cluster and uses its CPUs instead).
    mechanisms : sequence
        Mechanisms of one's own that ``config.mechanism`` may name, registered in the apps'
        processes (:func:`pickle_mechanisms`: one imported from a file travels by value).
    on_poll : callable, optional
        Called with the :class:`~fedlib.flower.launch.LocalFederation` about every half second
        while the run lasts (e.g. to stop a SuperNode mid-task with ``stop_node``).

    Returns
    -------
    FederationRun
        The result in the batched engine's format, each task's wall seconds, the requests
        each worker answered and the logs of the run's processes.

    Raises
    ------
    ValueError
        When ``runtime`` is not one of :data:`RUNTIMES`.
    """
    check_runtime(runtime)
    with tempfile.TemporaryDirectory(prefix="fedlib-flower-") as temporary:
        folder = Path(temporary)
        out = folder / "out"
        settings: dict[str, Any] = run_config(config, str(out), timeout=timeout,
                                              outages=outages)
        if mechanisms:
            settings["mechanisms"] = pickle_mechanisms(mechanisms, folder / "mechanisms.pkl")
        with LocalFederation(folder, simulation=runtime == "simulation",
                             cpus=cpus) as federation:
            federation_config = start_nodes(federation, config.daccs.size)
            ran = federation.run(stage_app(folder / "app"), settings, federation_config,
                                 on_poll=on_poll)
            answered = {w: federation.answered(w) for w in range(config.daccs.size)}
        return replace(read_run(out, config, ran.stdout), answered=answered,
                       logs=federation.logs())


def pickle_mechanisms(mechanisms: Sequence[Any], path: Path) -> str:
    """Write ``mechanisms`` to ``path`` for the run configuration's ``mechanisms`` and return
    the path: pickled with Ray's cloudpickle, those imported from a file (a module named
    :data:`~fedlib.conformance.protocol.USER_MODULE`..., which no other process can import)
    by value."""
    import ray.cloudpickle

    for mechanism in mechanisms:
        module = sys.modules.get(type(mechanism).__module__)
        if module is not None and module.__name__.startswith(USER_MODULE):
            ray.cloudpickle.register_pickle_by_value(module)
    path.write_bytes(ray.cloudpickle.dumps(list(mechanisms)))
    return str(path)


def start_nodes(federation: LocalFederation, workers: int) -> dict[str, Any] | None:
    """The nodes of a run of ``workers`` workers: on the Deployment Runtime one SuperNode per
    worker, started here (returns None); on the Simulation Runtime the federation
    configuration of ``flwr run`` (one node per worker, one CPU each, on the federation's Ray
    head or ``RAY_ADDRESS``'s)."""
    if federation.simulation:
        return {"num-supernodes": workers, "client-resources-num-cpus": 1,
                "client-resources-num-gpus": 0}
    federation.add_supernodes(range(workers))
    return None


def read_saved(path: Path, log: str = "") -> Any:
    """The JSON the ServerApp saved at ``path``; ``log`` (what ``flwr run`` printed) goes into
    the error when there is none."""
    if not path.exists():
        raise RuntimeError(f"the Flower run ended without a result ({path}); its log ends:\n"
                           + "\n".join(log.splitlines()[-40:]))
    return json.loads(path.read_text())


def read_run(out: str | os.PathLike[str], config: MultiTaskConfig, log: str = "") -> FederationRun:
    """The run the ServerApp saved in ``out`` for ``config``; ``log`` (what ``flwr run``
    printed) goes into the error when there is none."""
    name = f"{config.result_name()}_flower"
    stored = read_saved(Path(out) / f"{name}.json", log)
    seconds = json.loads((Path(out) / ".seconds" / f"{name}.json").read_text())["task_seconds"]
    return FederationRun(MultiTaskResult(config, tuple(stored["records"]),
                                         float(stored["wall_time_s"])), tuple(seconds))


def run_federation(config: MultiTaskConfig, **options: Any) -> MultiTaskResult:
    """:func:`federate`'s result in the batched engine's format (``options`` as for
    :func:`federate`)."""
    return federate(config, **options).result


def round_cost(k: int, dataset: str = "mnist", rounds: int = 5, n_samples: int = 1000,
               n_val: int = 5000, cpus: int | None = None,
               runtimes: Sequence[Runtime] = ("simulation",)) -> tuple[float, ...]:
    """Seconds per global round with k winners: one per runtime of ``runtimes``, then the
    batched engine's, on this machine.

    Two tasks of ``rounds`` rounds with k clean workers and a budget that hires them all, in a
    Flower federation on each runtime (simulation: one Ray actor per CPU at a time, one torch
    thread each; deployment: one SuperNode process per worker, which starts a ClientApp
    process per message) and on the batched engine (one torch thread per CPU); the second
    task's wall time (for Flower its bid and payment exchanges included; the first task also
    loads the data into every process) divided by ``rounds``.

    ``cpus`` (default: all of the machine's) bounds the simulation and the engine alike:
    Flower's worker processes at a time and the engine's torch threads. With ``cpus=1`` each
    path has one runnable thread of work, so other load on the machine slows both about alike
    and the ratio measures work; with every CPU, a busy machine gives the federation's many
    processes a larger share of its time than the engine's threads, and the ratio follows the
    load. The Deployment Runtime's processes are not bounded.
    """
    config = MultiTaskConfig(dataset=dataset, groups=((1.0, k),), budget=10.0 * k, n_tasks=2,
                             eval_from=0, n_samples=n_samples, n_val=n_val, n_test=n_val,
                             device="cpu")
    config = replace(config, task=replace(config.task, rounds=rounds))
    for runtime in runtimes:
        check_runtime(runtime)
    cpus = cpus or os.cpu_count() or 1
    seconds = []
    records: list[dict[str, Any]] = []
    for runtime in runtimes:
        flower = federate(config, runtime=runtime, cpus=cpus)
        seconds.append(flower.task_seconds[1] / rounds)
        records += flower.result.records
    finished: list[float] = []
    cores = replace(config, threads=cpus)  # as many threads as Ray has processes
    batched = run_multitask(cores, on_task=lambda record: finished.append(time.perf_counter()))
    if any(len(record["winners"]) != k for record in (*records, *batched.records)):
        raise RuntimeError(f"the budget did not hire all {k} workers")
    return (*seconds, (finished[1] - finished[0]) / rounds)


__all__ = ["RUNTIMES", "check_runtime", "federate", "pickle_mechanisms", "read_run", "read_saved",
           "round_cost", "run_federation", "start_nodes"]
