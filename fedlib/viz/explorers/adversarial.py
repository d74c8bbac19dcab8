"""Explorer of the adversarial-workers chapter: one task with one attacker of a chosen kind.

It is an :class:`~fedlib.viz.explorers.Explorer` and draws its default on creation.
"""

from __future__ import annotations

import ipywidgets as widgets
from matplotlib.figure import Figure

from fedlib.experiments.adversarial import SingleTaskOutcome, group_label, single_task
from fedlib.fl.attacks import ATTACK_KINDS
from fedlib.viz.adversarial import single_task_figure
from fedlib.viz.explorers.base import Explorer
from fedlib.viz.explorers.controls import control_style

#: What the strength slider means for each kind.
STRENGTH_MEANING = {"free_rider": "std of the noise on the copied global model",
                    "noise": "std of the noise on the global model",
                    "label_flip": "share of the labels shifted by one",
                    "quality_drop": "data accuracy after the drop"}


class AttackExplorer(Explorer[SingleTaskOutcome]):
    """One reduced task (:func:`~fedlib.experiments.adversarial.single_task`) with one attacker.

    Controls: ``kind`` (the attack) and ``strength`` (its meaning, which depends on the kind,
    is written under it in ``meaning``).
    """

    def __init__(self, kind: str = "free_rider", strength: float = 0.0, **task: int) -> None:
        super().__init__()
        self.task = task
        self.kind = widgets.Dropdown(options=[(group_label(k), k) for k in ATTACK_KINDS],
                                     value=kind, description="attack", **control_style())
        self.strength = widgets.FloatSlider(value=strength, min=0.0, max=1.0, step=0.01,
                                            description="strength", **control_style())
        self.meaning = widgets.HTML()
        self._explain(kind)
        self.watch(self.kind, effect=self._explain)
        self.watch(self.strength)
        self.start(self.kind, self.strength, self.meaning)

    def _explain(self, kind: str) -> None:
        self.meaning.value = f"<i>strength = {STRENGTH_MEANING[kind]}</i>"

    def compute(self) -> SingleTaskOutcome:
        """Run the task for the controls' values."""
        return single_task(self.kind.value, float(self.strength.value), **self.task)

    def draw(self, result: SingleTaskOutcome) -> list[Figure]:
        return [single_task_figure(result)]
