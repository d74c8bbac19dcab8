"""The cold start of our mechanism on Fashion-MNIST: when contributions separate clean from
noisy workers, and which setting the paper leaves open removes it.

What the map finds, and why a fresh LeNet-5 per task (our reading of the paper's Section 6)
starts cold, is computed in chapter 14 (``chapters/14_cold_start.md``). The experiment is a
one-at-a-time sweep (:class:`~fedlib.experiments.sensitivity.SensitivityConfig` of another
kind) around ours on Fashion-MNIST, 20 tasks (the first 5 not evaluated), that changes one
setting at a time (:data:`COLD_START_VALUES`). Its records keep every round's contributions,
so that :func:`separation` can say in which round of a task, and at which test loss, the
contributions of clean and noisy winners part.

``python -m fedlib reproduce coldstart`` stores it as ``coldstart_fashion_ours.json``, or, with
``--settings``, a piece of it (:data:`COLD_START_PIECES`, merged by :func:`merge`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import numpy as np

from fedlib.analysis.claims import Claim
from fedlib.experiments.grid import SWEEP_ROUND_FIELDS, SWEEP_TASKS
from fedlib.experiments.multitask import MultiTaskConfig, MultiTaskResult
from fedlib.experiments.registry import register
from fedlib.experiments.sensitivity import SensitivityConfig, SensitivityResult
from fedlib.experiments.table_claims import number_claims, ours_claims
from fedlib.experiments.table_summaries import DATASET_LABELS, table1, table2, table3

#: The settings changed one at a time around the default (B = 60, 1 local epoch, lr 0.05,
#: plain SGD, a fresh model per task): a smaller and a larger budget; 2 and 5 local epochs; a
#: larger learning rate; momentum 0.9; the previous task's model carried over (fresh_model 0).
COLD_START_VALUES: tuple[tuple[str, tuple[float, ...]], ...] = (
    ("budget", (30.0, 90.0)), ("epochs", (2.0, 5.0)), ("lr", (0.1,)), ("momentum", (0.9,)),
    ("fresh_model", (0.0,)))
#: The pieces a seed's map can be run and stored in instead of one file (``reproduce coldstart
#: --settings``), each with the default run: the local epochs, whose runs of 2 and 5 epochs
#: train as much as seven default runs, and the other settings. Each is about half the map's
#: compute, a few hours of two CPU cores where the whole map takes about six.
COLD_START_PIECES: tuple[tuple[str, ...], ...] = (
    ("epochs",), ("budget", "lr", "momentum", "fresh_model"))
#: Data accuracy of a clean worker, and the largest of a noisy one.
CLEAN, NOISY = 1.0, 0.4
#: A round separates clean from noisy winners when their mean contributions (max-normalised,
#: so on a scale of 0 to 1) differ by at least this much (:func:`separation`): a tenth of the
#: scale.
SEPARATED = 0.1


class ColdStartResult(SensitivityResult):
    """The runs of a :class:`ColdStartConfig`, the default first; the records keep the rounds'
    contributions (``contrib``, Eq. (3) max-normalised, one per winner)."""


def _default_base() -> MultiTaskConfig:
    return MultiTaskConfig(dataset="fashion", n_tasks=SWEEP_TASKS)


@register
@dataclass(frozen=True)
class ColdStartConfig(SensitivityConfig):
    """Ours on Fashion-MNIST once as it is and once per changed setting (``python -m fedlib
    reproduce coldstart``).

    Attributes
    ----------
    values : tuple of (name, values)
        The settings and their alternative values (names: ``budget``, ``epochs``, ``lr``,
        ``momentum``, ``fresh_model``); default :data:`COLD_START_VALUES`.
    base : MultiTaskConfig
        The default run: ours on Fashion-MNIST, 20 tasks, B = 60, a fresh model per task.
    """

    values: tuple[tuple[str, tuple[float, ...]], ...] = COLD_START_VALUES
    base: MultiTaskConfig = field(default_factory=_default_base)

    kind: ClassVar[str] = "coldstart"
    result_type: ClassVar[type] = ColdStartResult
    round_fields: ClassVar[tuple[str, ...]] = (*SWEEP_ROUND_FIELDS, "contrib")
    parameters: ClassVar[tuple[str, ...]] = ("budget", "epochs", "lr", "momentum",
                                             "fresh_model")

    def result_name(self) -> str:
        """:meth:`Grid.result_name <fedlib.experiments.grid.Grid.result_name>`, with the
        settings after the mechanism where they are not :data:`COLD_START_VALUES`, so that the
        pieces of a map (:data:`COLD_START_PIECES`) have files of their own:
        ``coldstart_fashion_ours_epochs_s3``."""
        name = super().result_name()
        if self.values == COLD_START_VALUES:
            return name
        head = f"{self.kind}_{self.base.dataset}_{self.base.mechanism}"
        settings = "_".join(setting for setting, _ in self.values)
        return f"{head}_{settings}{name.removeprefix(head)}"


def merge(pieces: Sequence[ColdStartResult]) -> ColdStartResult:
    """The pieces of one seed's map (stored apart, :data:`COLD_START_PIECES`) as one map: its
    settings those of the pieces, in the order of :data:`COLD_START_VALUES` (the pieces of the
    default map give the default map), its runs in the order of its points, the default run
    the first piece's (every piece runs it). The pieces must differ in their settings only,
    each setting in one piece."""
    if not pieces:
        raise ValueError("merge needs at least one piece")
    pairs = [pair for piece in pieces for pair in piece.config.values]
    names = [name for name, _ in pairs]
    if len(set(names)) < len(names):
        raise ValueError(f"a setting is in two pieces: {names}")
    order = [name for name, _ in COLD_START_VALUES]
    values = tuple(sorted(pairs, key=lambda pair: order.index(pair[0])))
    config = replace(pieces[0].config, values=values)
    if any(replace(piece.config, values=values) != config for piece in pieces):
        raise ValueError("the pieces of a map must differ in their settings only (the same "
                         "seed and base run)")
    runs = {point: run for piece in reversed(pieces)
            for point, run in zip(piece.config.points, piece.runs, strict=True)}
    return ColdStartResult(config, tuple(runs[point] for point in config.points),
                           sum(piece.wall_time_s for piece in pieces))


def setting_label(name: str | None, value: float | None) -> str:
    """``"default"``, or the changed setting (``"budget 30"``, ``"carried model"``)."""
    if name is None:
        return "default"
    return "carried model" if name == "fresh_model" else f"{name} {value:g}"


def separation(run: MultiTaskResult) -> dict[str, np.ndarray]:
    """Per task and round, how well the round contributions tell clean winners (dacc
    :data:`CLEAN`) from noisy ones (dacc at most :data:`NOISY`).

    Returns
    -------
    dict
        ``gap`` (tasks, rounds): the mean contribution of the clean winners minus that of the
        noisy ones in the round (NaN in a task without both kinds of winner); ``auc``: the
        probability that a clean winner's contribution exceeds a noisy winner's (ties count
        half); ``test_loss`` (tasks, rounds): the global model after the round (NaN without
        winners); ``clean_share`` (tasks,): the share of clean winners.
    """
    rounds = run.config.task.rounds
    auc = np.full((len(run.records), rounds), np.nan)
    gap, loss = np.full_like(auc, np.nan), np.full_like(auc, np.nan)
    clean_share = np.full(len(run.records), np.nan)
    for t, record in enumerate(run.records):
        if not record["winners"]:
            continue
        daccs = run.config.daccs[record["winners"]]
        clean, noisy = daccs >= CLEAN, daccs <= NOISY
        loss[t] = record["rounds"]["test_loss"]
        clean_share[t] = clean.mean()
        if clean.any() and noisy.any():
            contrib = np.asarray(record["rounds"]["contrib"], dtype=float)
            high, low = contrib[:, clean][:, :, None], contrib[:, noisy][:, None, :]
            auc[t] = ((high > low) + 0.5 * (high == low)).mean(axis=(1, 2))
            gap[t] = high.mean(axis=(1, 2)) - low.mean(axis=(1, 2))
    return {"gap": gap, "auc": auc, "test_loss": loss, "clean_share": clean_share}


def first_separated(gap: np.ndarray, level: float = SEPARATED) -> np.ndarray:
    """Per task (row of ``gap``), the first round (1-based) whose gap reaches ``level``; NaN
    when no round does or the task lacks clean or noisy winners."""
    reached = np.nan_to_num(gap, nan=-np.inf) >= level
    return np.where(reached.any(axis=1), reached.argmax(axis=1) + 1.0, np.nan)


def early_reputations(run: MultiTaskResult) -> dict[str, float]:
    """The mean internal reputation ``re`` (Eq. 5) of the ``"clean"`` and of the ``"noisy"``
    winners over the tasks before ``eval_from`` (NaN for a kind that never won there).

    Against ``Re^0`` it decides the cold start: a winner's accumulated reputation moves from
    ``Re^0`` towards its ``re`` (Eq. 13) while the losers keep ``Re^0``, so noisy winners with
    ``re`` above ``Re^0`` end up better reputed than the clean workers who lost.
    """
    values: dict[str, list[float]] = {"clean": [], "noisy": []}
    for record in run.records[:run.config.eval_from]:
        daccs = run.config.daccs[record["winners"]]
        for value, dacc in zip(record["re"], daccs, strict=True):
            if dacc >= CLEAN:
                values["clean"].append(value)
            elif dacc <= NOISY:
                values["noisy"].append(value)
    return {kind: float(np.mean(v)) if v else float("nan") for kind, v in values.items()}


def cold_start_rows(result: ColdStartResult) -> list[dict[str, Any]]:
    """One row per run: the setting, Tables 2 and 3 (evaluated tasks), Table 1's contributions
    of dacc 0.1 and 1.0 (all tasks), the clean and the noisy winners' internal reputation in
    the first tasks (:func:`early_reputations`), the tasks with clean and noisy winners, how
    many of them separate (:func:`first_separated`), the median round of separation and the
    median test loss of the global model in that round."""
    rows = []
    for (name, value), run in zip(result.config.points, result.runs, strict=True):
        sep = separation(run)
        first = first_separated(sep["gap"])
        mixed = ~np.isnan(sep["gap"][:, 0])
        hit = ~np.isnan(first)
        at = [sep["test_loss"][t, int(r) - 1] for t, r in enumerate(first) if np.isfinite(r)]
        t1 = table1(run)
        early = early_reputations(run)
        rows.append({
            "setting": setting_label(name, value),
            "share dacc 1.0": round(table2(run), 4),
            "loss": round(table3(run), 4),
            "contribution dacc 0.1": round(t1[0.1]["contribution"], 3),
            "contribution dacc 1.0": round(t1[1.0]["contribution"], 3),
            "re of clean winners, first tasks": round(early["clean"], 3),
            "re of noisy winners, first tasks": round(early["noisy"], 3),
            "tasks with clean and noisy winners": int(mixed.sum()),
            "of which separate": int(hit.sum()),
            "median round of separation": float(np.median(first[hit])) if hit.any() else np.nan,
            "median test loss then": round(float(np.median(at)), 4) if at else np.nan,
        })
    return rows


def runs_by_setting(result: ColdStartResult) -> dict[str, MultiTaskResult]:
    """The runs of one map by their :func:`setting_label`."""
    return {setting_label(*point): run
            for point, run in zip(result.config.points, result.runs, strict=True)}


def seed_sides(results: Sequence[ColdStartResult], share: float = 0.5) -> dict[str, list[bool]]:
    """Per setting, for the map of every seed (in the order of ``results``), whether at least
    ``share`` of ours' winners in the evaluated tasks are clean (Table 2): on which side of
    a started mechanism each seed fell."""
    maps = [runs_by_setting(result) for result in results]
    return {setting: [table2(runs[setting]) >= share for runs in maps] for setting in maps[0]}


def separating_settings(results: Sequence[ColdStartResult], share: float = 0.5) -> list[str]:
    """The settings under which at least ``share`` of ours' winners in the evaluated tasks are
    clean (Table 2) in every seed's map: those that remove the cold start in every seed run."""
    return [setting for setting, sides in seed_sides(results, share).items() if all(sides)]


def setting_claims(results: Sequence[ColdStartResult], settings: list[str]) -> list[Claim]:
    """The paper's Fashion-MNIST claims on ours (Table 1's orderings, Table 2's share of clean
    winners, and Tables 2-3's cells against the paper's numbers) under each of ``settings``
    (labels of :func:`setting_label`), judged on the maps of every seed in ``results`` (one
    map per seed), each claim's ``where`` naming the setting.
    """
    maps = [runs_by_setting(result) for result in results]
    unknown = [s for s in settings if s not in maps[0]]
    if unknown:
        raise ValueError(f"settings {unknown} were not run; run: {sorted(maps[0])}")
    claims = []
    for setting in settings:
        seed_runs = [runs[setting] for runs in maps]
        dataset = seed_runs[0].config.dataset
        claims += ours_claims(seed_runs, f"{DATASET_LABELS[dataset]}, {setting}")
        claims += [replace(c, where=f"{c.where}, {setting}")
                   for c in number_claims({(dataset, "ours"): seed_runs})]
    return claims
