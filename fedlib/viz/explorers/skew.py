"""Explorer of the skewed-data chapter: a reduced run of ours with skewed workers.

It is an :class:`~fedlib.viz.explorers.Explorer` and draws its default on creation.
"""

from __future__ import annotations

import ipywidgets as widgets
from matplotlib.figure import Figure

from fedlib.analysis.skew import kind_shares
from fedlib.experiments.multitask import MultiTaskResult, worker_pool
from fedlib.experiments.noniid import EXAMPLE_NOISE, example_config, kinds_of
from fedlib.table import html_table
from fedlib.viz.explorers.base import Explorer
from fedlib.viz.explorers.controls import control_style
from fedlib.viz.skew import kind_paths_figure, label_histograms

#: The alphas of the slider by their label, most skewed first; None: iid.
EXAMPLE_ALPHAS = {"0.1": 0.1, "0.3": 0.3, "1": 1.0, "3": 3.0, "iid": None}


class SkewExplorer(Explorer[MultiTaskResult]):
    """One reduced run (:func:`~fedlib.experiments.noniid.example_config`) of ours.

    Controls: ``alpha`` (the skewed workers' Dirichlet concentration, or iid), ``noise``
    (:data:`~fedlib.experiments.noniid.EXAMPLE_NOISE`) and ``own_labels`` (the variant that
    measures a worker on the validation samples of its own labels).
    """

    def __init__(self, alpha: float | None = 0.1, noise: str = "every worker clean",
                 own_labels: bool = False, seed: int = 0) -> None:
        super().__init__()
        self.seed = seed
        labels = {a: label for label, a in EXAMPLE_ALPHAS.items()}
        if alpha not in labels:
            raise ValueError(f"alpha must be one of {list(EXAMPLE_ALPHAS.values())}, got "
                             f"{alpha!r}")
        self.alpha = widgets.SelectionSlider(options=list(EXAMPLE_ALPHAS), value=labels[alpha],
                                             description="alpha", **control_style())
        self.noise = widgets.Dropdown(options=list(EXAMPLE_NOISE), value=noise,
                                      description="workers", **control_style())
        self.own_labels = widgets.Checkbox(value=own_labels, description="measure on own labels",
                                           indent=False)
        self.watch(self.alpha, self.noise, self.own_labels)
        self.start(widgets.HBox([self.alpha, self.noise]), self.own_labels)

    def compute(self) -> MultiTaskResult:
        """Run the reduced run for the controls' values."""
        return example_config(EXAMPLE_ALPHAS[self.alpha.value], self.noise.value,
                              self.own_labels.value, self.seed).run()

    def draw(self, result: MultiTaskResult) -> list[Figure]:
        kinds = kinds_of(result.config)
        counts = worker_pool(result.config).label_counts()
        return [kind_paths_figure({"reputation": result, "wins": result}, ("Re", "won")),
                label_histograms([counts], kinds, ["each worker's labels"])]

    def describe(self, result: MultiTaskResult) -> str:
        shares = kind_shares(result.evaluated, kinds_of(result.config))
        return html_table(("kind", "share of the payments", "share of the winner places"),
                          [(kind, f"{s['payments']:.2f}", f"{s['winners']:.2f}")
                           for kind, s in shares.items()])
