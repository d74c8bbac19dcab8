"""Honest workers with label-skewed data (beyond the paper): does the mechanism shut them out?

The paper's workers differ only in label noise (15 x dacc 1.0, 5 x 0.7, 5 x 0.4, 5 x 0.1, each
with 1000 iid samples). Here the first half of every noise group (8 of 15, 3 of 5:
:attr:`~fedlib.experiments.multitask.MultiTaskConfig.skewed`) holds label-skewed data instead,
drawn per worker from a Dirichlet distribution of concentration alpha
(:func:`~fedlib.fl.workers.skewed_workers`: 1000 samples each, so skew is not confounded with
quantity), so skew and noise vary independently: clean-and-skewed, clean-and-balanced,
noisy-and-skewed and noisy-and-balanced workers (:func:`~fedlib.analysis.skew.worker_kinds`).
The balanced workers hold exactly their data of the iid run of the same seed, and every alpha
meets the same bids, so the runs of one seed differ only in the skewed workers' data.
A clean skewed worker is honest, but its local model knows few classes: its contribution
(Eqs. (2)-(3)) and reputation (Eqs. (5), (13)) may fall, and with them its payment (Eq. (16))
and its chance to be hired again.

:class:`NoniidConfig` runs the multi-task experiment of Tables 1-3 for every alpha of
:data:`NONIID_ALPHAS` (None: the paper's iid workers) and every mechanism of
:data:`NONIID_MECHANISMS`. A seed's grid takes hours of two CPU cores, so ``python -m fedlib
reproduce noniid`` runs and stores it in pieces (:data:`NONIID_PIECES`:
``results/noniid_<dataset>_<mechanisms>.json``, each a grid of its mechanisms), which
:func:`merge` joins; what each kind of worker got is computed by :mod:`fedlib.analysis.skew`
(:func:`summary_rows`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Self

import numpy as np

from fedlib.analysis.skew import exclusion, kind_shares, worker_kinds
from fedlib.experiments.grid import (
    SWEEP_ROUND_FIELDS,
    Grid,
    GridResult,
    distinct_mechanisms,
    task_major,
)
from fedlib.experiments.multitask import MultiTaskConfig, MultiTaskResult, worker_pool
from fedlib.experiments.registry import register
from fedlib.experiments.table_summaries import final_model
from fedlib.fl.partitions import check_alpha
from fedlib.paper.settings import PAPER_GROUPS

#: Dirichlet concentrations of the stored grid, most skewed first; None: iid (the paper's).
NONIID_ALPHAS: tuple[float | None, ...] = (0.1, 0.3, 1.0, None)
#: The concentrations of the Fashion-MNIST grid: the MNIST grid's most and least skewed alone,
#: since a task of LeNet-5 costs far more CPU time than one of the MNIST MLP (the README's cost
#: paragraph).
FASHION_ALPHAS: tuple[float, ...] = (0.1, 1.0)
#: The mechanisms compared: ours, the two benchmarks that select by reputation and the one
#: that does not (RRAFL hires ours' winners; its runs start last and read ours' tasks).
NONIID_MECHANISMS = ("ours", "reputation_greedy", "vanilla", "rrafl")
#: The grid of one seed in pieces, one stored file each, so that a piece finishes within a few
#: hours of two CPU cores: ours with RRAFL (which reads ours' tasks), Reputation Greedy, Vanilla.
NONIID_PIECES = (("ours", "rrafl"), ("reputation_greedy",), ("vanilla",))
#: A worker that won none of a run's last this many tasks counts as shut out
#: (:func:`~fedlib.analysis.skew.exclusion`).
EXCLUDED_TAIL = 10
#: Key of the stored first record that holds every run's label counts.
LABEL_COUNTS = "label_counts"


def alpha_label(alpha: float | None) -> str:
    """``"iid"`` or ``"alpha 0.1"``."""
    return "iid" if alpha is None else f"alpha {alpha:g}"


@dataclass(frozen=True, eq=False)
class NoniidResult(GridResult):
    """The runs of a :class:`NoniidConfig`, in the order of :attr:`NoniidConfig.points`, and
    ``label_counts``: per run, how many samples of each true label every worker holds (an
    int array (workers, 10)), so that a chapter can plot each worker's label histogram. The
    stored form keeps them in the first task-major record."""

    label_counts: tuple[np.ndarray, ...] = ()

    @property
    def records(self) -> list[dict[str, Any]]:
        records = task_major(self.runs)
        first = {**records[0], LABEL_COUNTS: [counts.tolist() for counts in self.label_counts]}
        return [first, *records[1:]]

    @classmethod
    def from_stored(cls, config: Mapping[str, Any], records: Sequence[Mapping[str, Any]],
                    wall_time_s: float) -> Self:
        result = super().from_stored(config, records, wall_time_s)
        counts = tuple(np.array(c, dtype=np.int64) for c in records[0][LABEL_COUNTS])
        return replace(result, label_counts=counts)

    def run_of(self, alpha: float | None, mechanism: str) -> MultiTaskResult:
        """The run of one alpha (None: iid) and mechanism."""
        for point, run in zip(self.config.points, self.runs, strict=True):
            if point == (mechanism, alpha):
                return run
        raise ValueError(f"no run of {mechanism!r} at {alpha_label(alpha)}; runs: "
                         f"{self.config.points}")


@register
@dataclass(frozen=True)
class NoniidConfig(Grid):
    """The multi-task experiment ``base`` once per alpha and mechanism (a
    :class:`~fedlib.experiments.grid.Grid` whose axis is ``alphas``; ``python -m fedlib
    reproduce noniid``, stored as ``noniid_<dataset>.json``).

    Attributes
    ----------
    alphas : tuple of (float or None)
        Dirichlet concentrations of the skewed workers' labels, distinct, each finite and
        above 0, or None (every worker iid); ``base.label_skew`` is ignored.
    mechanisms : tuple of str
        Keys of :data:`~fedlib.mechanism.MECHANISMS`, distinct; ``base.mechanism`` is ignored.
    base : MultiTaskConfig
        Everything else (dataset, tasks, groups, ``skewed_share``, seed, device); default
        the paper's Tables 1-3 setting on MNIST, 50 tasks.
    """

    alphas: tuple[float | None, ...] = NONIID_ALPHAS
    mechanisms: tuple[str, ...] = NONIID_MECHANISMS
    base: MultiTaskConfig = field(default_factory=MultiTaskConfig)

    kind: ClassVar[str] = "noniid"
    result_type: ClassVar[type] = NoniidResult
    axis: ClassVar[str] = "alphas"
    pinned: ClassVar[tuple[str, ...]] = ("mechanism", "label_skew")
    round_fields: ClassVar[tuple[str, ...]] = SWEEP_ROUND_FIELDS

    def __post_init__(self) -> None:
        alphas = tuple(None if a is None else check_alpha(a) for a in self.alphas)
        if not alphas or len(set(alphas)) < len(alphas):
            raise ValueError(f"alphas must be distinct (at least one), got {self.alphas!r}")
        object.__setattr__(self, "alphas", alphas)
        object.__setattr__(self, "mechanisms", distinct_mechanisms(self.mechanisms))
        object.__setattr__(self, "base", replace(self.base, mechanism="ours", label_skew=None))

    @property
    def points(self) -> list[tuple[str, float | None]]:
        """``(mechanism, alpha)`` of every run: mechanism by mechanism (RRAFL last, so that it
        reads ours' finished tasks), every alpha of each."""
        order = sorted(self.mechanisms, key=lambda mechanism: mechanism == "rrafl")
        return [(mechanism, alpha) for mechanism in order for alpha in self.alphas]

    def run_configs(self) -> list[MultiTaskConfig]:
        return [replace(self.base, mechanism=m, label_skew=a) for m, a in self.points]

    def run_labels(self) -> list[str]:
        return [f"{m}_{'iid' if a is None else f'a{a:g}'}" for m, a in self.points]

    def result_name(self) -> str:
        """:meth:`Grid.result_name <fedlib.experiments.grid.Grid.result_name>`, with the
        mechanisms after the dataset where they are not :data:`NONIID_MECHANISMS`, so that
        the pieces of a grid (:data:`NONIID_PIECES`) have files of their own:
        ``noniid_mnist_ours_rrafl``, ``noniid_mnist_ours_ownlabels_s3``."""
        name = super().result_name()
        if self.mechanisms == NONIID_MECHANISMS:
            return name
        head = f"{self.kind}_{self.base.dataset}"
        return f"{head}_{'_'.join(self.mechanisms)}{name.removeprefix(head)}"

    def to_dict(self) -> dict[str, Any]:
        """:meth:`Grid.to_dict <fedlib.experiments.grid.Grid.to_dict>` with the mechanisms."""
        return {**super().to_dict(), "mechanisms": list(self.mechanisms)}

    @classmethod
    def from_dict(cls, state: Mapping[str, Any]) -> Self:
        return replace(super().from_dict(state), mechanisms=tuple(state["mechanisms"]))

    def run(self, *, jobs: int = 1, checkpoint_dir: str | os.PathLike[str] | None = None,
            task_store: str | os.PathLike[str] | None = None) -> NoniidResult:
        """:meth:`Grid.run <fedlib.experiments.grid.Grid.run>`, with every run's label counts.
        The worker pools are drawn first, so that an impossible draw (a class running out of
        samples) fails before any training."""
        counts = {a: worker_pool(replace(self.base, label_skew=a)).label_counts()
                  for a in self.alphas}
        result = super().run(jobs=jobs, checkpoint_dir=checkpoint_dir, task_store=task_store)
        return replace(result, label_counts=tuple(counts[a] for _, a in self.points))


def merge(pieces: Sequence[NoniidResult]) -> NoniidResult:
    """The pieces of one seed's grid (:data:`NONIID_PIECES`, stored apart) as one result: its
    mechanisms those of the pieces, in the order of :data:`NONIID_MECHANISMS` (the pieces of
    the default grid give the default grid), its runs in the order of its points. The pieces
    must differ in their mechanisms only."""
    if not pieces:
        raise ValueError("merge needs at least one piece")
    order = {mechanism: i for i, mechanism in enumerate(NONIID_MECHANISMS)}
    mechanisms = tuple(sorted((m for piece in pieces for m in piece.config.mechanisms),
                              key=lambda m: order.get(m, len(order))))
    config = replace(pieces[0].config, mechanisms=mechanisms)
    if any(replace(piece.config, mechanisms=mechanisms) != config for piece in pieces):
        raise ValueError("the pieces of a grid must differ in their mechanisms only (the same "
                         "alphas, seed and setting)")
    runs = {point: (run, counts) for piece in pieces
            for point, run, counts in zip(piece.config.points, piece.runs, piece.label_counts,
                                          strict=True)}
    ordered = [runs[point] for point in config.points]
    return NoniidResult(config, tuple(run for run, _ in ordered),
                        sum(piece.wall_time_s for piece in pieces),
                        tuple(counts for _, counts in ordered))


#: The noise of the live example (:func:`example_config`): every worker clean, so that skew is
#: the only difference between the workers (the default: at this reduced scale the paper's
#: groups start cold, the noisy workers winning every task, whatever the skew), or the
#: paper's groups.
EXAMPLE_NOISE = {"every worker clean": ((1.0, 30),), "the paper's groups": PAPER_GROUPS}


def example_config(alpha: float | None, noise: str = "every worker clean",
                   own_labels: bool = False, seed: int = 0) -> MultiTaskConfig:
    """The reduced run of the chapter's live example: ours on MNIST with the skewed workers'
    labels drawn with concentration ``alpha`` (None: iid), the groups of
    :data:`EXAMPLE_NOISE` ``[noise]``, ``own_labels`` (the variant), 12 tasks of 3 rounds
    (the first 2 not evaluated) on 300 samples per worker and 1000-sample validation and test
    sets: about ten seconds of one CPU core."""
    if noise not in EXAMPLE_NOISE:
        raise ValueError(f"noise must be one of {sorted(EXAMPLE_NOISE)}, got {noise!r}")
    base = MultiTaskConfig()
    return replace(base, groups=EXAMPLE_NOISE[noise], label_skew=alpha, seed=seed,
                   n_tasks=12, eval_from=2, n_samples=300, n_val=1000, n_test=1000,
                   task=replace(base.task, rounds=3, own_labels=own_labels))


def kinds_of(config: MultiTaskConfig) -> np.ndarray:
    """Every worker's kind (:func:`~fedlib.analysis.skew.worker_kinds`) in a run of
    ``config``: all balanced without ``label_skew``."""
    return worker_kinds(config.daccs, config.skewed)


def summary_rows(result: NoniidResult, tail: int = EXCLUDED_TAIL) -> list[dict[str, Any]]:
    """One row per run, over its evaluated tasks: alpha, mechanism, the mean test accuracy
    and loss of the tasks' final global models, each kind's share of the payments and of the
    winner places (:func:`~fedlib.analysis.skew.kind_shares`), and the share of the clean
    skewed workers excluded for good (:func:`~fedlib.analysis.skew.exclusion`, over all tasks
    with ``tail``; NaN in an iid run, which has none)."""
    rows = []
    for (mechanism, alpha), run in zip(result.config.points, result.runs, strict=True):
        kinds = kinds_of(run.config)
        final = {key: values[run.config.eval_from:] for key, values in final_model(run).items()}
        row: dict[str, Any] = {"alpha": alpha_label(alpha), "mechanism": mechanism,
                               "test accuracy": float(np.nanmean(final["acc"])),
                               "test loss": float(np.nanmean(final["loss"]))}
        for kind, shares in kind_shares(run.evaluated, kinds).items():
            row[f"payments to {kind}"] = shares["payments"]
            row[f"places of {kind}"] = shares["winners"]
        excluded = exclusion(run.records, kinds, tail)[1]
        row["clean skewed excluded"] = excluded.get("clean skewed", {}).get("excluded", np.nan)
        rows.append(row)
    return rows
