"""Contribution measurement on real local models: Figures 2 (Case 1) and 3 (Case 2).

Ten workers take part in one federated task of ``rounds`` global rounds:

* Case 1: iid data, data accuracies 1.0, 0.9, ..., 0.1 (worker i has ``1 - i/10``);
* Case 2: non-iid, all labels correct, worker 0 holds every label and worker k (1..9) lacks k.

Per worker we report the task contribution of our weighted measure (Eqs. (2)-(3),
max-normalised each round, averaged over the rounds), the same with equal sample weights (the
paper's benchmark), the mean true-class probability (the benchmark before normalisation) and the
local models' test accuracy, each averaged over the rounds; and this for several seeds.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any, ClassVar

import numpy as np

from fedlib.experiments.registry import Records, register
from fedlib.fl.data import DATASETS
from fedlib.fl.engine import BatchedEngine
from fedlib.fl.models import MODEL_FOR_DATASET
from fedlib.fl.seeding import seed_sequence, torch_threads
from fedlib.fl.task import TaskOptions, run_task
from fedlib.fl.workers import (
    PublisherSets,
    WorkerPool,
    case2_workers,
    iid_workers,
    publisher_sets,
)
from fedlib.runtime import progress

#: Data accuracies of the ten Case 1 workers.
CASE1_DACCS = (1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1)
CASES = (1, 2)
#: Per-worker metrics of every record.
METRICS = ("contribution", "benchmark", "mean_prob", "local_acc")
# Purposes of the random streams of one (seed, case) unit.
_PUBLISHER, _WORKERS, _TRAIN = range(3)


class ContributionResult(Records):
    """Records of a contribution run, one per (seed, case) in that order.

    Each record holds ``case``, ``seed``, and per worker ``dacc`` and the :data:`METRICS`:
    ``contribution`` (ours), ``benchmark`` (equal weights), ``mean_prob`` and ``local_acc``;
    also ``n_pass``, ``re`` and the global model's ``test_loss``/``test_acc`` per round.
    """

    def rows(self) -> list[dict[str, Any]]:
        """A tidy table: one row per (case, seed, worker) with dacc and the :data:`METRICS`."""
        return [{"case": r["case"], "seed": r["seed"], "worker": w, "dacc": r["dacc"][w],
                 **{m: r[m][w] for m in METRICS}}
                for r in self.records for w in range(len(r["dacc"]))]

    def summary(self, case: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Per metric, the mean and standard deviation over seeds of each worker's value."""
        chosen = [r for r in self.records if r["case"] == case]
        if not chosen:
            raise ValueError(f"case must be one of {CASES}, got {case!r}")
        return {m: (np.mean([r[m] for r in chosen], axis=0), np.std([r[m] for r in chosen],
                                                                    axis=0))
                for m in METRICS}


@register
@dataclass(frozen=True)
class ContributionConfig:
    """Everything that determines a contribution run.

    Attributes
    ----------
    dataset : {"mnist", "fashion"}, default "mnist"
        The paper uses MNIST (fully connected model).
    seeds : tuple of int, default 0, 1, ..., 19
        One task per case and seed.
    n_samples, n_val, n_test : int, default 1000, 5000, 5000
        Samples per worker, validation and test set sizes.
    task : TaskOptions
        Rounds (default 10), local training and the mechanism's constants.
    device : str, default "auto"
    threads : int, default 1
        torch CPU threads during the run (fixed for reproducibility).
    """

    dataset: str = "mnist"
    seeds: tuple[int, ...] = tuple(range(20))
    n_samples: int = 1000
    n_val: int = 5000
    n_test: int = 5000
    task: TaskOptions = field(default_factory=TaskOptions)
    device: str = "auto"
    threads: int = 1

    kind: ClassVar[str] = "contribution"
    result_type: ClassVar[type] = ContributionResult

    def __post_init__(self) -> None:
        if self.dataset not in DATASETS:
            raise ValueError(f"dataset must be one of {DATASETS}, got {self.dataset!r}")
        if not self.seeds:
            raise ValueError("seeds must hold at least one seed")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready configuration, tagged ``"experiment": "contribution"``."""
        return {"experiment": "contribution", **asdict(self), "task": self.task.to_dict(),
                "seeds": list(self.seeds)}

    @classmethod
    def from_dict(cls, state: Mapping[str, Any]) -> ContributionConfig:
        """Rebuild a configuration from :meth:`to_dict` output."""
        values = {key: value for key, value in state.items() if key != "experiment"}
        return cls(**{**values, "seeds": tuple(values["seeds"]),
                      "task": TaskOptions(**values["task"])})

    def fast(self) -> ContributionConfig:
        """A smoke-sized version: one seed, 2 rounds, 200 samples, 500-sample sets."""
        return replace(self, seeds=self.seeds[:1], n_samples=200, n_val=500, n_test=500,
                       task=replace(self.task, rounds=2))

    def result_name(self) -> str:
        """``contribution_<dataset>``, with ``_fast`` for the smoke-sized configuration."""
        return f"contribution_{self.dataset}" + ("_fast" if self == self.fast() else "")

    def run(self, *, jobs: int = 1, checkpoint_dir: str | os.PathLike[str] | None = None,
            task_store: str | os.PathLike[str] | None = None) -> ContributionResult:
        """:func:`run_contribution` (one process; no checkpoints or task store)."""
        return run_contribution(self)

    def recompute(self, n_tasks: int,
                  task_store: str | os.PathLike[str] | None = None) -> list[dict[str, Any]]:
        """The first ``n_tasks`` records (tasks), on the CPU."""
        cpu = replace(self, device="cpu")
        with torch_threads(cpu.threads):
            return [_unit(cpu, case, seed) for seed, case in _units(cpu)[:n_tasks]]



def case_workers(case: int, dataset: str, rng: np.random.Generator, n: int = 1000) -> WorkerPool:
    """The ten workers of Case 1 (iid, :data:`CASE1_DACCS`) or Case 2 (non-iid, clean)."""
    if case == 1:
        return iid_workers(dataset, CASE1_DACCS, rng, n=n)
    if case == 2:
        return case2_workers(dataset, rng, n=n)
    raise ValueError(f"case must be 1 or 2, got {case!r}")


def _setup(config: ContributionConfig, case: int,
           seed: int) -> tuple[BatchedEngine, WorkerPool, PublisherSets]:
    """Engine, workers and publisher sets of one (case, seed) unit."""
    pool = case_workers(case, config.dataset,
                        np.random.default_rng(seed_sequence(seed, case, _WORKERS)),
                        n=config.n_samples)
    publisher = publisher_sets(config.dataset,
                               np.random.default_rng(seed_sequence(seed, case, _PUBLISHER)),
                               n_val=config.n_val, n_test=config.n_test)
    return BatchedEngine(MODEL_FOR_DATASET[config.dataset], device=config.device), pool, publisher


def _unit(config: ContributionConfig, case: int, seed: int) -> dict[str, Any]:
    """One task with all ten workers; the record of Figures 2-3 for this case and seed."""
    engine, pool, publisher = _setup(config, case, seed)
    result = run_task(engine, pool, publisher, seed=seed_sequence(seed, case, _TRAIN),
                      options=config.task, local_accuracy=True)
    mean_prob = result.round_values("mean_prob")
    return {
        "case": case, "seed": seed, "dacc": pool.dacc.tolist(),
        "contribution": result.contribution.tolist(),
        "benchmark": (mean_prob / mean_prob.max(axis=1, keepdims=True)).mean(axis=0).tolist(),
        "mean_prob": mean_prob.mean(axis=0).tolist(),
        "local_acc": result.local_acc.tolist(),
        "n_pass": result.n_pass.tolist(), "re": result.re.tolist(),
        "test_loss": result.round_values("test_loss").tolist(),
        "test_acc": result.round_values("test_acc").tolist(),
    }


def _units(config: ContributionConfig) -> list[tuple[int, int]]:
    return [(seed, case) for seed in config.seeds for case in CASES]


def run_contribution(config: ContributionConfig | None = None) -> ContributionResult:
    """Run Case 1 and Case 2 for every seed of ``config`` (default: the paper's setting).

    The run executes under ``config.threads`` torch threads; every random stream derives from
    the seed and the case, so a run is reproducible bit for bit on a CPU.
    """
    config = config or ContributionConfig()
    units = _units(config)
    began = time.perf_counter()
    with torch_threads(config.threads):
        records = tuple(_unit(config, case, seed) for seed, case in
                        progress(units, desc=config.result_name(), total=len(units)))
    return ContributionResult(config, records, time.perf_counter() - began)
