"""What a run of the Flower app is: its run configuration and each node's worker.

Flower hands every ServerApp and ClientApp of a run the same *run configuration*
(``context.run_config``: the ``[tool.flwr.app.config]`` table of the app's pyproject.toml,
overridden by ``flwr run --run-config``), and every node its *node configuration*
(``context.node_config``). The messages therefore carry only the task, the round and the
arrays; both sides read the run from here:

* ``dataset``, ``mechanism``, ``tasks`` (0: the setting's), ``budget`` (0: the setting's),
  ``seed``, ``fast``: the run of ``python -m fedlib federate``
  (:func:`fedlib.experiments.flower_presets.federation_config`);
* ``config``: a :class:`~fedlib.experiments.multitask.MultiTaskConfig` as JSON, which replaces
  the keys above (runs they cannot express; empty: not used);
* ``out``: the folder the ServerApp writes the result to (an absolute path on the SuperLink's
  machine); ``timeout``: seconds the publisher waits for one round of replies;
* ``outages``: JSON ``[[worker, task, round], ...]`` of requests some workers fail to answer
  (round -1: the bid request), to see how the run treats them; empty: none;
* ``mechanisms``: a file of pickled mechanisms of one's own that ``config`` may name, registered
  in every process of the run (:func:`fedlib.mechanism.mechanisms.registered`); empty: none;
* ``code``: the SHA-256 of the fedlib sources the app bundle was staged with
  (:func:`fedlib.flower.launch.stage_app`); both apps refuse to run other code; empty: no
  check;
* ``replay``: one play of a counterexample of the conformance kit to replay instead of the
  tasks (:class:`fedlib.flower.replay.ReplayPlan` as JSON: the instance, the bids and the
  delivered ``re``); empty: a normal run.

A node's worker is its ``partition-id`` (Flower's Simulation Runtime numbers the nodes
0..W-1; a SuperNode of the Deployment Runtime is started with
``--node-config "partition-id=3"``).
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from fedlib.experiments.flower_presets import federation_config
from fedlib.experiments.multitask import MultiTaskConfig
from fedlib.experiments.task_store import code_fingerprint
from fedlib.flower.replay import ReplayPlan
from fedlib.mechanism.mechanisms import registered

#: An outage: (worker, task, round) at which the worker fails; round None is the bid request.
Outage = tuple[int, int, int | None]

#: The run configuration's keys and their defaults (``[tool.flwr.app.config]``).
RUN_CONFIG: dict[str, str | int | float | bool] = {
    "dataset": "mnist", "mechanism": "ours", "tasks": 0, "budget": 0.0, "seed": 0, "fast": True,
    "config": "", "out": "/tmp/fedlib-federation", "timeout": 600.0, "outages": "",
    "mechanisms": "", "code": "", "replay": "",
}


@dataclass(frozen=True)
class RunSettings:
    """A run of the Flower app, read from its run configuration.

    Attributes
    ----------
    config : MultiTaskConfig
    out : str
    timeout : float
    outages : frozenset of Outage
    replay : ReplayPlan or None
        The play to replay (None: run the tasks).
    """

    config: MultiTaskConfig
    out: str
    timeout: float
    outages: frozenset[Outage]
    replay: ReplayPlan | None = None

    @classmethod
    def from_run_config(cls, run_config: Mapping[str, Any]) -> RunSettings:
        """The settings of ``context.run_config``; raises RuntimeError when its ``code`` names
        other fedlib sources than the ones imported here, ValueError on a key that is not one
        of :data:`RUN_CONFIG`'s (a mistyped ``--run-config`` key would otherwise be ignored)."""
        return _settings(tuple(sorted((k, v) for k, v in run_config.items())))


@lru_cache(maxsize=4)
def _settings(items: tuple[tuple[str, Any], ...]) -> RunSettings:
    unknown = sorted(set(dict(items)) - set(RUN_CONFIG))
    if unknown:
        raise ValueError(f"unknown run configuration key(s) {', '.join(unknown)}: correct "
                         "--run-config (or [tool.flwr.app.config]); the app reads "
                         f"{', '.join(RUN_CONFIG)} (fedlib.flower.settings)")
    run = {**RUN_CONFIG, **dict(items)}
    if run["code"] and run["code"] != code_fingerprint():
        raise RuntimeError("this process imports fedlib sources other than the app bundle's "
                           f"(code {code_fingerprint()[:12]}, the bundle's {str(run['code'])[:12]})"
                           ": install the same fedlib revision on every node, or none")
    if run["mechanisms"]:
        _register(str(run["mechanisms"]))
    if run["config"]:
        config = MultiTaskConfig.from_dict(json.loads(str(run["config"])))
    else:
        config = federation_config(str(run["dataset"]), str(run["mechanism"]),
                                   int(run["tasks"]) or None, float(run["budget"]) or None,
                                   int(run["seed"]), bool(run["fast"]))
    outages = frozenset((int(w), int(t), None if int(r) < 0 else int(r))
                        for w, t, r in json.loads(str(run["outages"]) or "[]"))
    timeout = float(run["timeout"])
    if not timeout > 0:
        raise ValueError(f"timeout must be positive, got {timeout!r}")
    replay = ReplayPlan.from_json(str(run["replay"])) if run["replay"] else None
    return RunSettings(config, str(run["out"]), timeout, outages, replay)


@lru_cache(maxsize=4)
def _register(path: str) -> None:
    """Register the mechanisms pickled in ``path`` for the rest of this process (the run's)."""
    for mechanism in pickle.loads(Path(path).read_bytes()):
        registered(mechanism).__enter__()


def run_config(config: MultiTaskConfig, out: str, *, timeout: float = 600.0,
               outages: Collection[Outage] = ()) -> dict[str, str | int | float | bool]:
    """The run configuration that makes the app run exactly ``config`` and write its result to
    ``out`` (for ``flwr run --run-config FILE.toml``)."""
    return {"config": json.dumps(config.to_dict()), "out": out, "timeout": float(timeout),
            "outages": json.dumps(sorted([w, t, -1 if r is None else r] for w, t, r in outages))}


def worker_of(node_config: Mapping[str, Any]) -> int:
    """The worker a node runs: its ``partition-id``."""
    if "partition-id" not in node_config:
        raise ValueError("the node has no partition-id: start each SuperNode with "
                         "--node-config \"partition-id=I\" (I: its worker, 0..W-1)")
    return int(node_config["partition-id"])
