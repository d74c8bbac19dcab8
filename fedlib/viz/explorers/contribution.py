"""Explorers of the contribution chapter: Eqs. (2)-(3) on an editable P, and on real models.

Both are :class:`~fedlib.viz.explorers.Explorer` objects and draw their default on creation.
"""

from __future__ import annotations

from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from fedlib.experiments.single_rounds import RoundView, warm_round
from fedlib.mechanism.contribution import contributions, sample_weights
from fedlib.viz.contribution import case_worker_names, snapshot_figure, toy_figure
from fedlib.viz.explorers.base import Explorer
from fedlib.viz.explorers.controls import CELL, WIDE, control_style, parse_numbers

#: The hand-made P of the chapter: rows are workers A, B, C; columns are validation samples.
TOY_P = ((0.7, 0.7, 0.7, 0.9, 0.2),
         (0.9, 0.9, 0.9, 0.2, 0.2),
         (1.0, 1.0, 1.0, 0.1, 0.2))
TOY_WORKERS = ("A", "B", "C")


@dataclass(frozen=True, eq=False)
class ToyResult:
    """What :class:`ToyContributionExplorer` shows: P, the weights and both contributions."""

    P: np.ndarray
    weights: np.ndarray
    weighted: np.ndarray
    equal: np.ndarray


class ToyContributionExplorer(Explorer[ToyResult]):
    """Edit P cell by cell and watch the weights (Eq. (2)) and contributions (Eq. (3)).

    ``cells[i][j]`` is the control of ``P[i, j]`` (worker i, validation sample j).
    """

    def __init__(self, P: ArrayLike = TOY_P, workers: tuple[str, ...] = TOY_WORKERS) -> None:
        super().__init__()
        p = np.asarray(P, dtype=float)
        if p.ndim != 2 or len(workers) != p.shape[0]:
            raise ValueError("P must be 2-D with one row per worker name")
        self.workers = workers
        self.cells = [[widgets.BoundedFloatText(value=float(v), min=0.0, max=1.0, step=0.05,
                                                layout=widgets.Layout(width=CELL))
                       for v in row] for row in p]
        self.watch(*(c for row in self.cells for c in row))
        cell = widgets.Layout(width=CELL)
        header = widgets.HBox([widgets.Label("", layout=cell)] + [
            widgets.HTML(f"<div style='text-align:center'>s{j}</div>", layout=cell)
            for j in range(p.shape[1])])
        rows = [widgets.HBox([widgets.Label(f"worker {w}", layout=cell), *row])
                for w, row in zip(workers, self.cells, strict=True)]
        self.start(widgets.HTML("<b>P[i, j]</b>: probability that worker i's model gives "
                                "sample j its true label (edit any cell)"), header, *rows)

    @property
    def P(self) -> np.ndarray:
        """The matrix the controls currently hold."""
        return np.array([[c.value for c in row] for row in self.cells], dtype=float)

    def compute(self) -> ToyResult:
        """Eqs. (2)-(3) for the edited P."""
        p = self.P
        return ToyResult(p, sample_weights(p), contributions(p), contributions(p, weighted=False))

    def draw(self, result: ToyResult) -> list[Figure]:
        return [toy_figure(result.P, list(self.workers))]


def parse_accuracies(text: str, n_workers: int) -> tuple[float, ...]:
    """The first ``n_workers`` data accuracies (in (0, 1]) from text such as ``"1.0, 0.9, 0.5"``."""
    values = tuple(float(v) for v in parse_numbers(text, "data accuracies"))
    if len(values) < n_workers:
        raise ValueError(f"give at least {n_workers} data accuracies, got {len(values)}")
    if any(not 0 < v <= 1 for v in values[:n_workers]):
        raise ValueError("every data accuracy must lie in (0, 1]")
    return values[:n_workers]


class ContributionExplorer(Explorer[RoundView]):
    """Choose the dataset, the case, the number of workers and their data accuracies; see the
    sample weights and the contributions of one round of real local models.

    To keep each update to a few seconds on a CPU the explorer uses smaller sets than the
    paper (``n_samples`` per worker, ``n_val`` validation and ``n_test`` test samples) and
    ``warmup`` federated rounds before the measured one; results are cached per configuration.
    """

    def __init__(self, dataset: str = "mnist", case: int = 1, n_workers: int = 10,
                 accuracies: str = "1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1",
                 warmup: int = 5, n_samples: int = 1000, n_val: int = 1000,
                 n_test: int = 1000) -> None:
        super().__init__()
        self.sizes = {"n_samples": n_samples, "n_val": n_val, "n_test": n_test}
        self.dataset = widgets.Dropdown(options=[("MNIST (MLP)", "mnist"),
                                                 ("Fashion-MNIST (LeNet-5)", "fashion")],
                                        value=dataset, description="dataset", **control_style())
        self.case = widgets.Dropdown(options=[("Case 1: iid, noisy labels", 1),
                                              ("Case 2: non-iid, clean labels", 2)],
                                     value=case, description="case", **control_style())
        self.n_workers = widgets.IntSlider(value=n_workers, min=3, max=10,
                                           description="workers", **control_style())
        self.accuracies = widgets.Text(value=accuracies, continuous_update=False,
                                       description="data accuracies", **control_style(WIDE))
        self.warmup = widgets.IntSlider(value=warmup, min=0, max=9,
                                        description="warm-up rounds", **control_style())
        self.watch(self.dataset, self.case, self.n_workers, self.accuracies, self.warmup)
        self.start(
            widgets.HBox([self.dataset, self.case]),
            widgets.HBox([self.n_workers, self.warmup]),
            self.accuracies,
            widgets.HTML(f"<small>{n_samples} samples per worker, {n_val} validation samples; "
                         "Case 2 ignores the accuracies (all labels are clean).</small>"))

    def compute(self) -> RoundView:
        """Train the round of the controls' setting (or fetch it from the cache)."""
        n, case = int(self.n_workers.value), int(self.case.value)
        daccs = parse_accuracies(self.accuracies.value, n) if case == 1 else (1.0,) * n
        return warm_round(self.dataset.value, case, daccs, int(self.warmup.value), **self.sizes)

    def draw(self, result: RoundView) -> list[Figure]:
        r = result
        title = (f"{r.dataset}, Case {r.case}, {r.dacc.size} workers, after {r.warmup} "
                 "warm-up rounds")
        names = case_worker_names(r.case, r.dacc)
        if r.case == 1:
            names = [f"{i}\n{s}" for i, s in enumerate(names)]
        return [snapshot_figure(r.dacc, r.P, r.val_labels, r.weights, r.weighted, r.equal,
                                r.local_acc, title, names)]
