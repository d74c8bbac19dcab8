"""A grid of multi-task runs: one configuration (``base``) run once per point of one axis.

The budget sweep (:mod:`fedlib.experiments.budget_sweep`, axis ``budgets``), the sensitivity
sweep (:mod:`fedlib.experiments.sensitivity`, axis ``values``) and the adversarial scenario
(:mod:`fedlib.experiments.adversarial`, axis ``mechanisms``) are grids: a frozen dataclass with
two fields, the axis and ``base`` (a :class:`~fedlib.experiments.multitask.MultiTaskConfig`),
that mixes in :class:`Grid` and says how each point changes ``base``. :class:`Grid` gives them
the rest of the :class:`~fedlib.experiments.registry.Experiment` protocol: storage, names,
runs in parallel processes with checkpoints and recomputation. The non-iid grid
(:mod:`fedlib.experiments.noniid`, axis ``alphas``) crosses its axis with a second field,
``mechanisms``, which it adds to the stored configuration itself.

:func:`run_many` runs multi-task configurations in parallel processes.

A grid's stored records are task-major (:func:`task_major`):
record ``t`` holds task ``t`` of every run, so verifying a file's first records recomputes the
first tasks of every run.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar, Self

from fedlib.experiments.multitask import (
    DEFAULT_BUDGET,
    ROUND_FIELDS,
    MultiTaskConfig,
    MultiTaskResult,
    run_multitask,
)
from fedlib.experiments.registry import rebuild
from fedlib.mechanism.mechanisms import MECHANISMS
from fedlib.runtime import parallel_map

#: Tasks per run of the budget and sensitivity sweeps (the first ``eval_from = 5`` are not
#: evaluated).
SWEEP_TASKS = 20
#: Round fields those sweeps keep per task: the global model's loss and accuracy, and each
#: winner's leave-one-out decision and its margin (for verification on another machine).
SWEEP_ROUND_FIELDS = ("passed", "margin", "test_loss", "test_acc")


def distinct_mechanisms(mechanisms: Sequence[str]) -> tuple[str, ...]:
    """``mechanisms`` as a tuple, if they are distinct keys of
    :data:`~fedlib.mechanism.MECHANISMS`, at least one (a grid's mechanism axis)."""
    checked = tuple(mechanisms)
    unknown = [m for m in checked if m not in MECHANISMS]
    if not checked or unknown or len(set(checked)) < len(checked):
        raise ValueError(f"mechanisms must be distinct keys of MECHANISMS (at least one), "
                         f"got {mechanisms!r}")
    return checked


def _run(config: dict[str, Any], checkpoint: str | None, task_store: str | None,
         round_fields: Sequence[str]) -> tuple[list[dict[str, Any]], float]:
    result = run_multitask(MultiTaskConfig.from_dict(config), checkpoint, task_store=task_store,
                           round_fields=round_fields)
    return list(result.records), result.wall_time_s


def run_many(configs: Sequence[MultiTaskConfig], *, jobs: int = 1,
             checkpoints: Sequence[str | os.PathLike[str]] | None = None,
             round_fields: Sequence[str] = ROUND_FIELDS,
             task_store: str | os.PathLike[str] | None = None) -> list[MultiTaskResult]:
    """Run several multi-task configurations, ``jobs`` at a time in spawned processes.

    Parameters
    ----------
    configs : sequence of MultiTaskConfig
    jobs : int, default 1
        Parallel processes (every run is seeded, so the records do not depend on ``jobs``).
    checkpoints : sequence of path, optional
        One checkpoint file per configuration (see :func:`run_multitask`), deleted once every
        run has finished: a finished run's checkpoint holds all its tasks, so that a call
        interrupted before the others finish resumes it at once.
    round_fields : sequence of str, default :data:`ROUND_FIELDS`
        Round fields kept in the returned records.
    task_store : path, optional
        A task store shared with other calls (e.g. the verification of several stored
        results); default: a temporary one for this call.

    Returns
    -------
    list of MultiTaskResult
        In the order of ``configs``, each with its own compute time.

    Notes
    -----
    The runs share a temporary task store (:mod:`fedlib.experiments.task_store`): a task that
    an earlier run trained with exactly the same inputs (e.g. the first tasks of a sweep, before
    the runs' winners diverge) is read instead of trained again, with identical records. Runs
    start in the order of ``configs``; a run reads only tasks already finished. An interrupted
    call stops its worker processes (:func:`~fedlib.runtime.parallel_map`); the runs resume
    from their checkpoints.
    """
    paths = [None] * len(configs) if checkpoints is None else [str(c) for c in checkpoints]
    if len(paths) != len(configs):
        raise ValueError(f"checkpoints must name one file per configuration: {len(paths)} "
                         f"files for {len(configs)} configurations")
    with tempfile.TemporaryDirectory(prefix="fedlib-tasks-") as temporary:
        store = str(task_store) if task_store is not None else temporary
        outputs = parallel_map(_run, [(config.to_dict(), path, store, tuple(round_fields))
                                      for config, path in zip(configs, paths, strict=True)], jobs)
    for path in paths:
        if path is not None:
            Path(path).unlink(missing_ok=True)
    return [MultiTaskResult(config, tuple(records), wall)
            for config, (records, wall) in zip(configs, outputs, strict=True)]


def task_major(runs: Sequence[MultiTaskResult]) -> list[dict[str, Any]]:
    """The records of runs of equal length, task-major: ``{"task": t, "runs": [record of
    each run]}``, so that the first records of a stored file hold the first tasks of every
    run (and verifying them recomputes a few tasks of each run)."""
    return [{"task": t, "runs": [run.records[t] for run in runs]}
            for t in range(len(runs[0].records))]


def split_task_major(configs: Sequence[MultiTaskConfig], records: Sequence[Mapping[str, Any]],
                     wall_time_s: float) -> tuple[MultiTaskResult, ...]:
    """The runs of :func:`task_major` records, the compute time shared out equally."""
    return tuple(MultiTaskResult(config, tuple(r["runs"][i] for r in records),
                                 wall_time_s / len(configs))
                 for i, config in enumerate(configs))


@dataclass(frozen=True, eq=False)
class GridResult:
    """The runs of a grid, one :class:`~fedlib.experiments.multitask.MultiTaskResult` per
    point, in the order of the grid's :meth:`~Grid.run_configs`."""

    config: Any
    runs: tuple[MultiTaskResult, ...]
    wall_time_s: float  # compute time of all runs together

    @property
    def records(self) -> list[dict[str, Any]]:
        """Stored form, task-major (:func:`task_major`)."""
        return task_major(self.runs)

    @classmethod
    def from_stored(cls, config: Mapping[str, Any], records: Sequence[Mapping[str, Any]],
                    wall_time_s: float) -> Self:
        """Rebuild a result from stored JSON (the compute time shared out equally)."""
        grid = rebuild(config)
        return cls(grid, split_task_major(grid.run_configs(), records, wall_time_s),
                   wall_time_s)


class Grid:
    """The part of the :class:`~fedlib.experiments.registry.Experiment` protocol that every
    grid shares. A grid class defines the dataclass fields ``base`` and :attr:`axis`, and:

    * ``kind`` and ``result_type`` (a :class:`GridResult` subclass);
    * :attr:`axis`, the name of its axis field, and :attr:`pinned`, the ``base`` fields the
      axis sets (left out of the stored ``base``);
    * :meth:`run_configs` and :meth:`run_labels` (one per point);
    """

    kind: ClassVar[str]
    axis: ClassVar[str]
    pinned: ClassVar[tuple[str, ...]] = ()
    #: Round fields kept in the records.
    round_fields: ClassVar[tuple[str, ...]] = ROUND_FIELDS
    base: MultiTaskConfig

    @property
    def device(self) -> str:
        return self.base.device

    def run_configs(self) -> list[MultiTaskConfig]:
        """One multi-task configuration per point."""
        raise NotImplementedError

    def run_labels(self) -> list[str]:
        """One short label per point (the runs' checkpoint files)."""
        raise NotImplementedError

    def axis_json(self) -> Any:
        """The axis as stored (a list)."""
        return list(getattr(self, self.axis))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready configuration tagged with the kind: the axis, the seed and the device at
        the top level (where :mod:`fedlib.storage.results` looks for them), and ``base``
        without them and without the fields the axis sets."""
        left_out = ("experiment", "device", "seed", *self.pinned)
        base = {k: v for k, v in self.base.to_dict().items() if k not in left_out}
        return {"experiment": self.kind, self.axis: self.axis_json(), "seed": self.base.seed,
                "device": self.base.device, "base": base}

    @classmethod
    def from_dict(cls, state: Mapping[str, Any]) -> Self:
        """Rebuild a configuration from :meth:`to_dict` output."""
        base = MultiTaskConfig.from_dict({**state["base"], "seed": state["seed"],
                                          "device": state["device"]})
        return cls(**{cls.axis: state[cls.axis], "base": base})

    def fast(self) -> Self:
        """Every run at :meth:`~fedlib.experiments.multitask.MultiTaskConfig.fast` size."""
        return replace(self, base=self.base.fast())

    def result_name(self) -> str:
        """``<kind>_<dataset>``, then ``_<mechanism>`` unless the axis sets it, ``_b<budget>``
        for a budget other than the default (unless the axis sets it), ``_carried`` when every
        run carries the model across tasks, the task options' suffix (``_ownlabels``),
        ``_s<seed>`` and ``_fast`` where they apply."""
        base = self.base
        name = f"{self.kind}_{base.dataset}"
        if "mechanism" not in self.pinned:
            name += f"_{base.mechanism}"
        if "budget" not in self.pinned and base.budget != DEFAULT_BUDGET:
            name += f"_b{base.budget:g}"
        if not base.fresh_model:
            name += "_carried"
        name += base.task.name_suffix
        if base.seed != 0:
            name += f"_s{base.seed}"
        return name + ("_fast" if self == self.fast() else "")

    def run(self, *, jobs: int = 1, checkpoint_dir: str | os.PathLike[str] | None = None,
            task_store: str | os.PathLike[str] | None = None) -> GridResult:
        """Run every point, ``jobs`` at a time in spawned processes
        (:func:`run_many`: seeded runs, so the records do not
        depend on ``jobs``), each checkpointed in ``checkpoint_dir`` and resumed from it (the
        checkpoints are deleted once every run has finished), sharing finished tasks through
        ``task_store``."""
        name = self.result_name()
        checkpoints = (None if checkpoint_dir is None else
                       [Path(checkpoint_dir) / f"{name}_{label}.pt" for label in self.run_labels()])
        runs = run_many(self.run_configs(), jobs=jobs, checkpoints=checkpoints,
                        task_store=task_store, round_fields=self.round_fields)
        return self.result_type(self, tuple(runs), sum(run.wall_time_s for run in runs))

    def recompute(self, n_tasks: int,
                  task_store: str | os.PathLike[str] | None = None, *,
                  runs: int | None = None) -> list[dict[str, Any]]:
        """The first ``n_tasks`` stored records, recomputed on the CPU: of every run (as
        :meth:`run` stores them), or of the first ``runs`` runs in the order of
        :meth:`run_configs` (the task and those runs' records of each, :func:`task_major`:
        what a grid stores beside its runs is left out)."""
        short = replace(self, base=replace(self.base, n_tasks=n_tasks, device="cpu"))
        if runs is None:
            return short.run(task_store=task_store).records
        if not 1 <= runs <= len(self.run_configs()):
            raise ValueError(f"runs must be between 1 and the grid's "
                             f"{len(self.run_configs())} runs, got {runs!r}")
        return task_major(run_many(short.run_configs()[:runs], task_store=task_store,
                                   round_fields=self.round_fields))
