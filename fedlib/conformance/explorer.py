"""Move a parameter of one's own mechanism and watch its certificate change."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as widgets
from matplotlib.figure import Figure

from fedlib.conformance.certificate import verdict_html
from fedlib.conformance.figures import violations_figure
from fedlib.conformance.protocol import claimed, conform
from fedlib.conformance.search import Search, search
from fedlib.viz.explorers import Explorer
from fedlib.viz.explorers.controls import LONG_LABEL, WIDE, control_style


class CertificateExplorer(Explorer[Search]):
    """A slider over a mechanism's parameter; every move searches the mechanism it makes and
    shows the verdicts against its claims (:func:`~fedlib.conformance.certificate.verdict_html`)
    and the share of the cases that violate each property
    (:func:`~fedlib.conformance.figures.violations_figure`).

    Parameters
    ----------
    make : callable
        The mechanism for a value of the parameter, e.g. ``lambda cap: PricePerUnit(cap)``.
    values : sequence of float
        The slider's values.
    value : float
        The initial value (one of ``values``).
    parameter : str
        The slider's label.
    instances : int
        Random instances per search (after the adversarial ones); no timing.
    seed : int
        Seed of every search (the same instances for every value).
    """

    def __init__(self, make: Callable[[float], Any], values: Sequence[float], value: float,
                 parameter: str, instances: int, seed: int = 0) -> None:
        super().__init__()
        self.make, self.instances, self.seed = make, instances, seed
        self.claims = claimed(conform(make(value)).claims)
        self.value = widgets.SelectionSlider(options=[(f"{v:g}", v) for v in values],
                                             value=value, description=parameter,
                                             continuous_update=False,
                                             **control_style(WIDE, LONG_LABEL))
        self.watch(self.value)
        self.start(self.value)

    def compute(self) -> Search:
        """The search of the mechanism at the slider's value."""
        return search(conform(self.make(self.value.value)), self.instances, seed=self.seed,
                      timing=False)

    def draw(self, result: Search) -> Sequence[Figure]:
        return [violations_figure(result, self.claims)]

    def describe(self, result: Search) -> str:
        return verdict_html(result, self.claims)
