"""Summaries of multi-task runs for the book: Tables 1-3 beside the paper's, trajectories,
selections and checks.

The runs are :class:`~fedlib.experiments.multitask.MultiTaskResult` objects (stored or
computed, see :mod:`fedlib.storage.stored`); the paper's numbers come from
:mod:`fedlib.paper.numbers`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fedlib.analysis.seed_statistics import SeedStatistic
from fedlib.experiments.multitask import MultiTaskConfig, MultiTaskResult
from fedlib.mechanism.mechanisms import MECHANISMS
from fedlib.paper import numbers as paper_numbers

#: Display names of the datasets.
DATASET_LABELS = {"mnist": "MNIST", "fashion": "Fashion-MNIST"}

# ------------------------------------------------------- Tables 1-3 of one run


def _chosen(result: MultiTaskResult, all_tasks: bool) -> tuple[dict[str, Any], ...]:
    return result.records if all_tasks else result.evaluated


def _wins(records: Sequence[dict[str, Any]], config: MultiTaskConfig,
          field_name: str) -> dict[float, list[float]]:
    """A winner field over ``records``, pooled by the winners' data accuracy."""
    pooled: dict[float, list[float]] = {float(d): [] for d, _ in config.groups}
    for record in records:
        for worker, value in zip(record["winners"], record[field_name], strict=True):
            pooled[float(config.daccs[worker])].append(value)
    return pooled


def _mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if len(values) else float("nan")


def table1(result: MultiTaskResult, *, all_tasks: bool = True) -> dict[float, dict[str, float]]:
    """Table 1: per data-accuracy group, over every task (the paper's caption: "in 50 tasks";
    the reading "Tasks and payments of Tables 1-3" of :data:`fedlib.paper.readings.READINGS`)
    or, with ``all_tasks=False``, over the evaluated ones, as Tables 2-3.

    Returns, for each dacc, a dict with

    * ``contribution``: mean task contribution over the (worker, task) pairs the group won;
    * ``reputation``: mean accumulated reputation ``Re`` of the group's workers after the
      last task;
    * ``mean_reputation``: mean ``Re`` of the group's workers after each task;
    * ``payment``: mean payment over the (worker, task) pairs the group won (the paper's
      "Payment"; a winner with ``re = 0`` is paid 0 by ours; NaN for a group that never won);
    * ``payment_per_task``: mean payment over all tasks and the group's workers, 0 when losing;
    * ``wins``: number of (worker, task) pairs won.
    """
    config, records = result.config, _chosen(result, all_tasks)
    daccs = config.daccs
    contributions = _wins(records, config, "contribution")
    payments = _wins(records, config, "payments")
    Re = np.array([record["Re"] for record in records]).reshape(-1, daccs.size)
    out = {}
    for dacc, _ in config.groups:
        members = daccs == dacc
        out[float(dacc)] = {
            "contribution": _mean(contributions[dacc]),
            "reputation": float(Re[-1, members].mean()) if len(Re) else float("nan"),
            "mean_reputation": float(Re[:, members].mean()) if len(Re) else float("nan"),
            "payment": _mean(payments[dacc]),
            "payment_per_task": (float(np.sum(payments[dacc]) / (len(Re) * members.sum()))
                                 if len(Re) else float("nan")),
            "wins": len(payments[dacc]),
        }
    return out


def table2(result: MultiTaskResult, dacc: float = 1.0) -> float:
    """Table 2: share of the selected (worker, task) pairs whose data accuracy is ``dacc``,
    over the evaluated tasks (NaN if nobody was selected)."""
    chosen = np.concatenate([result.config.daccs[r["winners"]] for r in result.evaluated]
                            or [np.empty(0)])
    return float(np.mean(chosen == dacc)) if chosen.size else float("nan")


def table3(result: MultiTaskResult) -> float:
    """Table 3: mean test loss of the final global model over the evaluated tasks that had
    winners (a task without winners trains no model and is left out)."""
    return _mean(task_losses(result))


def winners_re(result: MultiTaskResult, *, all_tasks: bool = True) -> dict[float, float]:
    """Per data-accuracy group, the mean internal reputation ``re`` (Eq. (5)) its winners earned
    over the (worker, task) pairs it won (every task, or with ``all_tasks=False`` the evaluated
    ones; NaN for a group that never won): the other reading of Table 1's "Reputation"."""
    earned = _wins(_chosen(result, all_tasks), result.config, "re")
    return {dacc: _mean(values) for dacc, values in earned.items()}


def task_losses(result: MultiTaskResult) -> np.ndarray:
    """Per evaluated task with winners, the test loss of its final global model: the values
    Table 3 averages."""
    return np.array([r["rounds"]["test_loss"][-1] for r in result.evaluated if r["winners"]],
                    dtype=float)


# ---------------------------------------------------------------- over seeds


def seeds_of(runs: Sequence[MultiTaskResult]) -> tuple[int, ...]:
    """The seeds of a sequence of runs of one configuration (one run per seed), in order."""
    seeds = tuple(run.config.seed for run in runs)
    if not seeds or len(set(seeds)) < len(seeds):
        raise ValueError(f"runs must be one per seed, at least one; got seeds {list(seeds)}")
    return seeds


def over_seeds(runs: Sequence[MultiTaskResult],
               statistic: Callable[[MultiTaskResult], float]) -> SeedStatistic | None:
    """``statistic`` of the run of every seed, with its mean and 95% confidence interval, over
    the seeds where it is finite (a group that never won has no Table 1 contribution); None
    when it is finite in none."""
    values = [(run.config.seed, statistic(run)) for run in runs]
    finite = [(seed, value) for seed, value in values if np.isfinite(value)]
    if not finite:
        return None
    seeds_of(runs)
    return SeedStatistic.of([seed for seed, _ in finite], [value for _, value in finite])


def table1_over_seeds(runs: Mapping[str, Sequence[MultiTaskResult]]) -> list[dict[str, Any]]:
    """Table 1 of ours over the seeds beside the paper's: one row per dataset and quantity of
    :data:`~fedlib.paper.numbers.TABLE1_QUANTITIES`, with ``dataset``, ``quantity``, and per
    data accuracy of :data:`~fedlib.paper.numbers.TABLE1_DACCS` (keys are the floats) a
    ``(statistic, paper)`` pair: the :class:`~fedlib.analysis.seed_statistics.SeedStatistic`
    of :func:`table1` over the seeds where the group won (None where it never did) and the
    paper's number."""
    rows = []
    for dataset, seed_runs in runs.items():
        tables = {run.config.seed: table1(run) for run in seed_runs}
        paper = paper_numbers.TABLE1[dataset]
        for quantity in paper_numbers.TABLE1_QUANTITIES:
            row: dict[Any, Any] = {"dataset": dataset, "quantity": quantity}
            for dacc in paper_numbers.TABLE1_DACCS:
                statistic = over_seeds(seed_runs, lambda run, d=dacc, q=quantity, t=tables:
                                       t[run.config.seed][d][q])
                row[dacc] = (statistic, paper[quantity][dacc])
            rows.append(row)
    return rows


def tables23_over_seeds(runs: Mapping[tuple[str, str], Sequence[MultiTaskResult]],
                        table: int) -> list[dict[str, Any]]:
    """Table 2 (``table=2``: share of dacc 1.0 among the selected) or Table 3 (mean final loss)
    over the seeds, one row per mechanism: ``mechanism``, ``label`` and per dataset a
    ``(statistic, paper)`` pair (:func:`over_seeds`)."""
    statistic, paper = {2: (table2, paper_numbers.TABLE2), 3: (table3, paper_numbers.TABLE3)}[
        table]
    rows: dict[str, dict[str, Any]] = {}
    for (dataset, mechanism), seed_runs in runs.items():
        row = rows.setdefault(mechanism, {"mechanism": mechanism,
                                          "label": MECHANISMS[mechanism].label})
        row[dataset] = (over_seeds(seed_runs, statistic), paper[mechanism][dataset])
    return list(rows.values())


# ---------------------------------------------------------------------- the book


def open_choices(config: MultiTaskConfig) -> dict[str, Any]:
    """The settings the paper leaves open, and the scale, as stored in ``config``."""
    return {
        "budget B per task": config.budget,
        "initial reputation Re^0": config.initial_reputation,
        "bids redrawn every task": config.redraw_bids,
        "fresh global model every task": config.fresh_model,
        "seed": config.seed,
        "workers (dacc x count)": ", ".join(f"{d:g} x {c}" for d, c in config.groups),
        "tasks (first evaluated)": f"{config.n_tasks} ({config.eval_from})",
        "global rounds per task": config.task.rounds,
        "samples per worker / validation / test": (f"{config.n_samples} / {config.n_val} / "
                                                   f"{config.n_test}"),
    }


def selection_matrix(result: MultiTaskResult) -> np.ndarray:
    """Boolean array (workers, tasks): who won each task."""
    chosen = np.zeros((result.config.daccs.size, len(result.records)), dtype=bool)
    for t, record in enumerate(result.records):
        chosen[record["winners"], t] = True
    return chosen


@dataclass(frozen=True)
class GroupTrajectory:
    """One data-accuracy group over the tasks of a run; arrays have one entry per task.

    Attributes
    ----------
    dacc : float
    Re_mean, Re_min, Re_max : numpy.ndarray
        Accumulated reputation of the group's workers after each task.
    payment : numpy.ndarray
        Mean payment of the group's winners in each task (NaN when none won).
    wins : numpy.ndarray of int
        Number of the group's workers that won each task.
    """

    dacc: float
    Re_mean: np.ndarray
    Re_min: np.ndarray
    Re_max: np.ndarray
    payment: np.ndarray
    wins: np.ndarray


def group_trajectories(result: MultiTaskResult) -> dict[float, GroupTrajectory]:
    """Reputation and payment of every data-accuracy group, task by task."""
    daccs = result.config.daccs
    Re = np.array([r["Re"] for r in result.records]).reshape(-1, daccs.size)
    out = {}
    for dacc, _ in result.config.groups:
        members = daccs == dacc
        payment, wins = [], []
        for record in result.records:
            paid = [p for w, p in zip(record["winners"], record["payments"], strict=True)
                    if members[w]]
            payment.append(float(np.mean(paid)) if paid else float("nan"))
            wins.append(len(paid))
        out[float(dacc)] = GroupTrajectory(float(dacc), Re[:, members].mean(axis=1),
                                           Re[:, members].min(axis=1),
                                           Re[:, members].max(axis=1), np.array(payment),
                                           np.array(wins))
    return out


def final_model(result: MultiTaskResult) -> dict[str, np.ndarray]:
    """Test ``loss`` and ``acc`` of each task's final global model (NaN for a task without
    winners, which trains no model)."""
    out = {}
    for key, name in (("loss", "test_loss"), ("acc", "test_acc")):
        out[key] = np.array([r["rounds"][name][-1] if r["winners"] else np.nan
                             for r in result.records], dtype=float)
    return out


def round_curves(result: MultiTaskResult, field: str = "test_loss") -> np.ndarray:
    """``field`` (``"test_loss"`` or ``"test_acc"``) of the global model after every round,
    one row per evaluated task that had winners: shape (tasks, rounds)."""
    rows = [r["rounds"][field] for r in result.evaluated if r["winners"]]
    if not rows:
        return np.empty((0, result.config.task.rounds))
    return np.array(rows, dtype=float)


def budget_overruns(result: MultiTaskResult, tol: float = 1e-9) -> list[tuple[int, float]]:
    """``(task, total paid)`` for every task whose payments exceed the budget (none expected).
    """
    budget = result.config.budget
    return [(r["task"], float(sum(r["payments"]))) for r in result.records
            if sum(r["payments"]) > budget * (1 + tol) + tol]


def same_runs(a: MultiTaskResult, b: MultiTaskResult) -> bool:
    """True when two runs selected the same winners in every task and produced the same
    reputations and global models (e.g. ours and RRAFL, which differ only in payments)."""
    return len(a.records) == len(b.records) and all(
        ra["winners"] == rb["winners"] and ra["Re"] == rb["Re"]
        and ra["rounds"]["test_loss"] == rb["rounds"]["test_loss"]
        for ra, rb in zip(a.records, b.records, strict=True))


def run_problems(runs: Mapping[Any, MultiTaskResult]) -> list[str]:
    """What must hold in every run, whatever the numbers: all tasks recorded, one entry per
    winner in every per-winner field, and no task paying more than the budget (empty when all
    is well)."""
    problems = []
    for key, run in runs.items():
        if len(run.records) != run.config.n_tasks:
            problems.append(f"{key}: {len(run.records)} tasks, expected {run.config.n_tasks}")
        for record in run.records:
            k = len(record["winners"])
            bad = [f for f in ("payments", "contribution", "re") if len(record[f]) != k]
            if bad:
                problems.append(f"{key} task {record['task']}: {bad} do not match the winners")
        problems += [f"{key} task {t}: paid {paid:.6g} > B = {run.config.budget:g}"
                     for t, paid in budget_overruns(run)]
    return problems
