"""Comparing two computations of the same stored records, on one machine or across two.

Two tiers (which one applies is :mod:`fedlib.storage.verification`'s choice):

* ``"same"``: the same environment computed both. Every number must agree to 1e-6 relative and
  every discrete outcome (winners, leave-one-out decisions, counts) exactly: a difference means
  the code changed.
* ``"foreign"``: another CPU model, instruction set, torch or numpy build, thread count or a GPU.
  float32 kernels round differently there and the differences grow through training, so the
  numbers must agree to the cross-machine tolerance
  (:data:`~fedlib.storage.tolerance.FOREIGN_TOLERANCE`), measured
  between machines (``benchmarks/cross_machine_drift.py``; its runs are in
  ``benchmarks/recorded/``) and set well above that drift. Every discrete outcome must agree
  too, **up to the first near tie**: a leave-one-out decision whose margin ``delta_l - delta``
  in the recomputation lies within the margins' own tolerance of 0 (the float noise a margin
  has gathered by that round:
  :func:`~fedlib.storage.tolerance.near_tie_width`), or an auction whose stored inputs give
  the stored winners and whose recomputed inputs (within tolerance of the stored ones) give
  others. There float noise decides, the two runs legitimately part, and the comparison stops,
  reporting the verified prefix (task, round). A decision that differs with a large margin, or
  a number beyond the tolerance before the first near tie, is a failure. A file must also be
  verified through :data:`MIN_PREFIX` (the first task's first 2 rounds) as a whole: a run that
  parts at a near tie before it is verified as far as the tie, and the file passes when at
  least one of its runs reaches the prefix. A file of several runs (the cold-start map's
  eight) therefore verifies on a CPU whose rounding meets a near tie in one run at round 1,
  as another CPU kind's can; a file of one run that parts before the prefix fails, since none
  of it was verified far enough.

Tolerances grow with the training behind a value, counted in the paper's rounds
(:func:`training_per_round`: more local epochs, a larger learning rate or momentum count for
more). :func:`machine_spread` uses the same walk to say where two machines' runs of Tables 1-3
part.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from fedlib.experiments import registry
from fedlib.experiments.multitask import MultiTaskConfig, MultiTaskResult, auction
from fedlib.experiments.table_summaries import DATASET_LABELS, table2, table3
from fedlib.fl.task import TaskOptions
from fedlib.mechanism.mechanisms import MECHANISMS
from fedlib.storage.tolerance import (
    SAME_TOLERANCE,
    Drift,
    foreign_drifts,
    near_tie_width,
)

Tier = Literal["same", "foreign"]

#: The least a verification must cover: the first task's first 2 rounds, one trained from the
#: initial model and one from the first round's aggregate, weighted by omega (every step a
#: round takes; later rounds repeat them).
MIN_PREFIX = (0, 2)
#: Round fields that new results store and recomputations always give; an older stored record
#: that lacks them is compared without them.
EVIDENCE = ("passed", "margin")
#: Record fields that hold discrete decisions (compared exactly, in the order of the run).
_DECISIONS = ("task", "winners", "rounds", "n_pass", "n_fail")
#: Record fields that hold wall times (the Shapley ground truth's cost per measure): no two runs
#: share them, so they are never compared.
TIMINGS = ("seconds",)


@dataclass
class Comparison:
    """Differences found so far, and the largest difference of each field.

    Attributes
    ----------
    drifts : dict
        Field name to :class:`Drift` (``"default"`` for the others).
    mismatches : list of str
    drift : dict
        (field name, epochs of local training behind) to the (largest absolute, largest relative)
        difference seen.
    headroom : float
        The largest difference as a fraction of what its tolerance allowed (above 1: a mismatch).
    """

    drifts: Mapping[str, Drift]
    mismatches: list[str] = field(default_factory=list)
    drift: dict[tuple[str, int], tuple[float, float]] = field(default_factory=dict)
    headroom: float = 0.0

    def values(self, stored: Any, fresh: Any, where: str, name: str, rounds: int = 1) -> None:
        """Compare two JSON-like values: structure, ints, bools and strings exactly, floats by
        the tolerance of ``name`` after ``rounds`` epochs of local training (NaN equals NaN); a dict
        may lack :data:`EVIDENCE` keys that the recomputation has, and its :data:`TIMINGS` are
        not compared."""
        if isinstance(stored, dict) and isinstance(fresh, dict):
            extra = set(fresh) - set(stored) - set(EVIDENCE)
            if set(stored) - set(fresh) or extra:
                self.mismatches.append(f"{where}: keys {sorted(stored)} != {sorted(fresh)}")
                return
            for key in stored:
                if key not in TIMINGS:
                    self.values(stored[key], fresh[key], f"{where}.{key}", key, rounds)
        elif isinstance(stored, list) and isinstance(fresh, list):
            if len(stored) != len(fresh):
                self.mismatches.append(f"{where}: length {len(stored)} != {len(fresh)}")
                return
            for i, (a, b) in enumerate(zip(stored, fresh, strict=True)):
                self.values(a, b, f"{where}[{i}]", name, rounds)
        elif isinstance(stored, float) and isinstance(fresh, float):
            self._float(stored, fresh, where, name, rounds)
        elif type(stored) is not type(fresh) or stored != fresh:
            self.mismatches.append(f"{where}: stored {stored!r}, recomputed {fresh!r}")

    def _float(self, stored: float, fresh: float, where: str, name: str, rounds: int) -> None:
        if math.isnan(stored) or math.isnan(fresh):
            if not (math.isnan(stored) and math.isnan(fresh)):
                self.mismatches.append(f"{where}: stored {stored!r}, recomputed {fresh!r}")
            return
        gap = abs(stored - fresh)
        relative = gap / abs(stored) if stored else (0.0 if gap == 0 else math.inf)
        largest = self.drift.get((name, rounds), (0.0, 0.0))
        self.drift[name, rounds] = (max(largest[0], gap), max(largest[1], relative))
        tolerance = self.drifts.get(name, self.drifts["default"]).after(rounds)
        allowed = tolerance.allowed(stored)
        if gap:
            self.headroom = max(self.headroom, gap / allowed if allowed else math.inf)
        if gap > allowed:
            self.mismatches.append(f"{where}: stored {stored!r}, recomputed {fresh!r} (after "
                                   f"{rounds} epoch(s) of local training the tolerance is "
                                   f"{allowed:.2g})")

    def by_field(self) -> dict[str, tuple[float, float]]:
        """Field name to the (largest absolute, largest relative) difference, over all rounds."""
        out: dict[str, tuple[float, float]] = {}
        for (name, _), (gap, relative) in self.drift.items():
            seen = out.get(name, (0.0, 0.0))
            out[name] = (max(seen[0], gap), max(seen[1], relative))
        return out

    def largest(self) -> str:
        """The largest relative difference seen, with its field, for a report."""
        fields = self.by_field()
        if not any(relative for _, relative in fields.values()):
            return "none (every compared number is identical)"
        name, (gap, relative) = max(fields.items(), key=lambda item: item[1][1])
        return (f"{relative:.2g} relative ({gap:.2g} absolute) in {name}; at most "
                f"{self.headroom:.2g} of the tolerance")


@dataclass(frozen=True)
class Stop:
    """Where a run's verification stopped at a near tie: ``round`` None means the auction."""

    run: int
    task: int
    round: int | None
    why: str

    def covers(self, prefix: tuple[int, int]) -> bool:
        """True when the verified part reaches ``prefix`` = (task, rounds)."""
        rounds = -1 if self.round is None else self.round
        return (self.task, rounds) >= prefix

    def __str__(self) -> str:
        at = "its auction" if self.round is None else f"round {self.round}"
        return f"run {self.run}: verified up to task {self.task}, {at}: {self.why}"


def _loo_flip(stored: Mapping[str, Any], fresh: Mapping[str, Any], near: Sequence[float],
              where: str) -> tuple[int | None, list[float], str]:
    """The first leave-one-out decision of a task that differs: its round, the recomputed
    margins of the decisions that differ there, and a problem when one of them lies beyond the
    near-tie width of its round (``near[r]``; empty for a near tie); ``(None, [], "")`` when
    none differs. The margins are the fresh record's, or the stored one's where the fresh
    record is a file stored before margins were recorded (a near tie is near on both sides)."""
    margins = (fresh if "margin" in fresh["rounds"] else stored)["rounds"]["margin"]
    if "passed" in stored["rounds"]:
        for r, (a, b) in enumerate(zip(stored["rounds"]["passed"], fresh["rounds"]["passed"],
                                       strict=True)):
            flipped = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
            if flipped:
                seen = [margins[r][i] for i in flipped]
                if all(abs(m) <= near[r] for m in seen):
                    return r, seen, ""
                return r, seen, (f"{where}, round {r}: the leave-one-out decision of winner(s) "
                                 f"{flipped} differs with margin(s) {seen}, beyond the near-tie "
                                 f"width {near[r]:.2g} of that round")
        return None, [], ""
    # Results stored before per-round decisions were kept: the pass counts show a flip.
    changed = [i for i, (x, y) in enumerate(zip(stored["n_pass"], fresh["n_pass"], strict=True))
               if x != y]
    if not changed:
        return None, [], ""
    for r, row in enumerate(margins):
        close = [row[i] for i in changed if abs(row[i]) <= near[r]]
        if close:
            return r, close, ""
    return None, [], (f"{where}: the pass counts of winner(s) {changed} differ and none of "
                      f"their decisions lies within the near-tie width of its round")


def training_per_round(task: TaskOptions) -> int:
    """How many of the paper's rounds of training (one epoch of plain SGD at its learning rate)
    one round of ``task`` counts for, in the growth of float noise: its local epochs, times its
    learning rate over the paper's, over one minus its momentum (heavy-ball momentum ``m``
    multiplies the step by about ``1 / (1 - m)``), rounded up. Noise grows with every pass over
    the data and with the size of each step, as the drift measured between machines on the
    Fashion-MNIST cold-start map shows (the ``cross_machine_drift_*`` record of
    ``benchmarks/recorded/``).

    >>> training_per_round(TaskOptions()), training_per_round(TaskOptions(epochs=5))
    (1, 5)
    >>> training_per_round(TaskOptions(lr=0.1)), training_per_round(TaskOptions(momentum=0.9))
    (2, 10)
    """
    paper = TaskOptions()
    return math.ceil(task.epochs * (task.lr / paper.lr) / (1 - task.momentum) - 1e-9)


def walk_run(config: MultiTaskConfig, stored: Sequence[Mapping[str, Any]],
             fresh: Sequence[Mapping[str, Any]], comparison: Comparison,
             run: int = 0) -> Stop | None:
    """Compare one multi-task run task by task, round by round, up to its first near tie.

    Returns
    -------
    Stop or None
        Where a near tie stopped the comparison (None: every task compared). Differences
        beyond the tolerance and decisions that differ with a large margin are appended to
        ``comparison.mismatches``.
    """
    Re_stored = np.full(config.daccs.size, config.initial_reputation)
    per_task, epochs = config.task.rounds, training_per_round(config.task)
    for s, f in zip(stored, fresh, strict=True):
        t, where = s["task"], f"run {run}, task {s['task']}"
        # Training behind the task's first model: none with a fresh model per task.
        behind = 0 if config.fresh_model else t * per_task * epochs
        trained = [behind + rounds * epochs for rounds in range(per_task + 1)]

        comparison.values(s["task"], f["task"], f"{where}.task", "task")
        comparison.values(s["bids"], f["bids"], f"{where}.bids", "bids")
        if s["winners"] != f["winners"]:
            if auction(config, t, Re_stored).winners.tolist() != s["winners"]:
                comparison.mismatches.append(
                    f"{where}: the auction, given the stored reputations, no longer selects the "
                    f"stored winners {s['winners']}")
                return None
            return Stop(run, t, None, f"reputations within tolerance select winners "
                                      f"{f['winners']} instead of {s['winners']}")
        near = [near_tie_width(config.dataset, trained[r + 1]) for r in range(per_task)]
        flip, margins, problem = _loo_flip(s, f, near, where)
        if problem:
            comparison.mismatches.append(problem)
            return None
        compared = per_task if flip is None else flip
        for key, values in s["rounds"].items():
            if key in EVIDENCE and key not in f["rounds"]:
                continue  # an older file compared as the fresh side: without it
            for r in range(compared if key != "passed" else 0):
                comparison.values(values[r], f["rounds"][key][r], f"{where}.rounds.{key}[{r}]",
                                  key, trained[r + 1])
        if flip is not None:
            return Stop(run, t, flip, "a leave-one-out decision differs, with margin(s) "
                                      f"{', '.join(f'{m:.2g}' for m in margins)} within the "
                                      f"near-tie width {near[flip]:.2g} of that round")
        for key in s:
            if key not in (*_DECISIONS, "bids"):
                comparison.values(s[key], f[key], f"{where}.{key}", key, trained[per_task])
        for key in ("n_pass", "n_fail"):
            if key in s:  # a record cut to its first rounds has no task totals
                comparison.values(s[key], f[key], f"{where}.{key}", key)
        Re_stored = np.array(s.get("Re", Re_stored))
    return None


def _runs(config: Mapping[str, Any], stored: Sequence[Mapping[str, Any]],
          fresh: Sequence[Mapping[str, Any]]) -> list[tuple[MultiTaskConfig, list, list]] | None:
    """The multi-task runs of a stored configuration with their stored and recomputed records
    (None for the contribution experiment, whose records are single tasks)."""
    built = registry.rebuild(config)
    if isinstance(built, MultiTaskConfig):
        return [(built, list(stored), list(fresh))]
    if not hasattr(built, "run_configs"):
        return None
    # Task-major records (grid.task_major) of every run of the grid, or of its first runs (a
    # verification of some runs, verification.verify_result's ``runs``, cuts both records).
    first = built.run_configs()[:len(stored[0]["runs"])] if stored else []
    return [(run, [r["runs"][i] for r in stored], [r["runs"][i] for r in fresh])
            for i, run in enumerate(first)]


def compare_records(config: Mapping[str, Any], stored: Sequence[Mapping[str, Any]],
                    fresh: Sequence[Mapping[str, Any]],
                    tier: Tier) -> tuple[Comparison, tuple[Stop, ...]]:
    """Compare recomputed records with the stored ones under ``tier``.

    Under ``"same"`` everything is compared to :data:`SAME_TOLERANCE`; under ``"foreign"``
    every multi-task run is walked (:func:`walk_run`) with the tolerance and near-tie width of
    its :func:`~fedlib.storage.tolerance.family`; records of other experiments are compared
    field by field, each with its own tolerance (:func:`~fedlib.storage.tolerance.foreign_drifts`).
    """
    if tier == "same":
        comparison = Comparison(SAME_TOLERANCE)
        comparison.values(list(stored), list(fresh), "records", "records")
        return comparison, ()
    comparison = Comparison(foreign_drifts(config))
    if len(stored) != len(fresh):
        comparison.mismatches.append(f"records: length {len(stored)} != {len(fresh)}")
        return comparison, ()
    runs = _runs(config, stored, fresh)
    if runs is None:  # one fresh task per record (the contribution experiment)
        rounds = config.get("task", {}).get("rounds", 1)
        comparison.values(list(stored), list(fresh), "records", "records", rounds)
        return comparison, ()
    stops = [walk_run(run, s, f, comparison, i) for i, (run, s, f) in enumerate(runs)]
    found = tuple(stop for stop in stops if stop is not None)
    short = [stop for stop in found if not stop.covers(MIN_PREFIX)]
    if len(short) == len(runs):  # no run of the file reaches the prefix
        comparison.mismatches.extend(
            f"{stop} -- no run of the file is verified through the least prefix (task "
            f"{MIN_PREFIX[0]}, {MIN_PREFIX[1]} rounds)" for stop in short)
    return comparison, found


def machine_spread(first: Mapping[tuple[str, str], MultiTaskResult],
                   second: Mapping[tuple[str, str], MultiTaskResult]) -> list[dict[str, Any]]:
    """How far Tables 2-3 move when the same runs are computed on two machines.

    Parameters
    ----------
    first, second : mapping
        (dataset, mechanism) to the run of the same configuration on each machine; the pairs
        of ``second`` are compared.

    Returns
    -------
    list of dict
        Per pair: ``dataset``, ``mechanism``, the share of dacc 1.0 (Table 2) and the final
        loss (Table 3) on each machine and their differences, and ``parts`` (where the
        cross-machine verification of the second run against the first stops at a near tie,
        :func:`~fedlib.storage.compare_records`, or ``"never"``).
    """
    rows = []
    for key, other in second.items():
        run = first[key]
        _, stops = compare_records(run.config.to_dict(), run.records,
                                                other.records, "foreign")
        where = ("never" if not stops else f"task {stops[0].task}, "
                 + ("auction" if stops[0].round is None else f"round {stops[0].round}"))
        rows.append({
            "dataset": DATASET_LABELS[key[0]], "mechanism": MECHANISMS[key[1]].label,
            "share, first": table2(run), "share, second": table2(other),
            "share moved": table2(other) - table2(run),
            "loss, first": table3(run), "loss, second": table3(other),
            "loss moved": table3(other) - table3(run),
            "the runs part at": where})
    return rows
