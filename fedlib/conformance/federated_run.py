"""A mechanism of one's own in the multi-task federated runs, beside the paper's.

The runs (:mod:`fedlib.experiments.multitask`, and :mod:`fedlib.flower` with
``engine="flower"``) look their mechanism up by name in :data:`fedlib.mechanism.MECHANISMS`;
:func:`run_federated` registers the user's mechanism for the duration of the runs
(:func:`fedlib.mechanism.mechanisms.registered`). The batched engine runs in this process
(one job): the registration does not reach spawned processes, so ``reproduce --jobs`` cannot
run such a mechanism. On Flower (``flwr run``, :func:`fedlib.flower.run_federation`) the
publisher's ServerApp and the workers' ClientApps run in processes of their own, which read the
run's configuration (and so the mechanism's name): the mechanisms are handed to
:func:`~fedlib.flower.run_federation`, which pickles them into every process of the run. A
mechanism imported from a file (``PATH.py:CLASS``) travels by value; one defined in a notebook
too; one in an importable module by reference.

The torch pipeline is imported only when a run is asked for: checking properties alone never
loads it.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np

from fedlib.mechanism.mechanisms import MECHANISMS, registered
from fedlib.table import Table

#: The federated settings: none, the smoke-sized six-worker federation, the Tables 1-3 one.
SETTINGS = ("none", "fast", "mnist")
Engine = Literal["batched", "flower"]


def federated_config(setting: str, seed: int = 0) -> Any:
    """The :class:`~fedlib.experiments.multitask.MultiTaskConfig` of a setting (with ours):
    ``"fast"`` is :func:`~fedlib.experiments.flower_presets.fast_federation` (6 workers, 3 tasks of
    2 rounds), ``"mnist"`` the Tables 1-3 setting on MNIST (30 workers, 50 tasks of 10
    rounds, on the CPU)."""
    from fedlib.experiments.flower_presets import federation_config

    if setting not in SETTINGS[1:]:
        raise ValueError(f"setting must be one of {SETTINGS[1:]}, got {setting!r}")
    return federation_config("mnist", seed=seed, fast=setting == "fast")


@dataclass(frozen=True, eq=False)
class FederatedComparison:
    """Multi-task runs of the same setting, one per mechanism.

    Attributes
    ----------
    engine : {"batched", "flower"}
    runs : dict
        Mechanism name -> :class:`~fedlib.experiments.multitask.MultiTaskResult`.
    labels : dict
        Mechanism name -> label.
    """

    engine: str
    runs: dict[str, Any]
    labels: dict[str, str]

    def summary(self, name: str) -> dict[str, float]:
        """Means over the run's evaluated tasks: ``winners``, ``paid`` (total payment),
        ``budget_used`` (its share of B), ``re_per_paid`` (the winners' delivered ``re`` per
        unit paid, the metric of Figures 4-5) and ``test_acc`` (the final global model's)."""
        run = self.runs[name]
        tasks = run.evaluated or run.records
        paid = np.array([sum(r["payments"]) for r in tasks])
        delivered = np.array([sum(r["re"]) for r in tasks])
        accuracy = [r["rounds"]["test_acc"][-1] for r in tasks if r["winners"]]
        return {"tasks": len(run.records), "winners": float(np.mean([len(r["winners"])
                                                                     for r in tasks])),
                "paid": float(paid.mean()), "budget_used": float(paid.mean()
                                                                 / run.config.budget),
                "re_per_paid": float(delivered.sum() / paid.sum()) if paid.sum() > 0
                else float("nan"),
                "test_acc": float(np.mean(accuracy)) if accuracy else float("nan")}

    def table(self) -> Table:
        """One row per mechanism of :meth:`summary`."""
        config = next(iter(self.runs.values())).config
        rows = tuple((self.labels[name], *self.summary(name).values()) for name in self.runs)
        return Table(("mechanism", "tasks", "winners", "paid", "share of B", "re per unit paid",
                      "test accuracy"), rows,
                     title=f"{len(config.daccs)} workers, budget {config.budget:g}, "
                           f"{config.task.rounds} rounds per task ({self.engine} engine); "
                           f"means over tasks {config.eval_from + 1}-{config.n_tasks}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the engine, the setting and each run's summary."""
        config = next(iter(self.runs.values())).config
        return {"engine": self.engine,
                "config": {k: v for k, v in config.to_dict().items() if k != "mechanism"},
                "runs": {name: self.summary(name) for name in self.runs}}


def _run_flower(config: Any, mechanisms: Sequence[Any]) -> Any:
    """``config`` through ``flwr run``, with ``mechanisms`` registered in every process of the
    run (those from a file travel by value: a file is no importable module)."""
    from fedlib.flower import run_federation

    return run_federation(config, mechanisms=mechanisms)


def run_federated(config: Any, *mechanisms: Any, engine: Engine = "batched",
                  reference: Sequence[str] = ("ours",)) -> FederatedComparison:
    """Run ``config`` with each ``reference`` mechanism, then with each of ``mechanisms``.

    Parameters
    ----------
    config : MultiTaskConfig
        The setting (its ``mechanism`` is replaced by each mechanism's name in turn).
    *mechanisms
        Objects of the protocol (:func:`~fedlib.conformance.protocol.conform`).
    engine : {"batched", "flower"}
        The batched engine (this process), or a Flower federation (needs the Flower extra).
    reference : sequence of str
        Built-in mechanisms to run first (keys of :data:`~fedlib.mechanism.MECHANISMS`).
    """
    from fedlib.experiments.multitask import run_multitask

    if engine not in ("batched", "flower"):
        raise ValueError(f"engine must be 'batched' or 'flower', got {engine!r}")
    runs, labels = {}, {}
    with ExitStack() as stack:
        for mechanism in mechanisms:
            stack.enter_context(registered(mechanism))
        for name in (*reference, *(m.name for m in mechanisms)):
            run = replace(config, mechanism=name)
            runs[name] = (run_multitask(run) if engine == "batched"
                          else _run_flower(run, mechanisms))
            labels[name] = MECHANISMS[name].label
    return FederatedComparison(engine, runs, labels)
