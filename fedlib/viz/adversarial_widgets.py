"""Explorer of the adversarial-workers chapter: one task with one attacker of a chosen kind.

The explorer has ``.widget`` (display it), its controls as attributes and ``update()``, which
recomputes, redraws and returns a plain result (see :mod:`fedlib.viz._explorer`).
"""

from __future__ import annotations

from dataclasses import dataclass

import ipywidgets as widgets

from fedlib.experiments.adversarial import SingleTaskOutcome, group_label, single_task
from fedlib.fl.attacks import ATTACK_KINDS
from fedlib.viz._explorer import Explorer
from fedlib.viz.adversarial import single_task_figure
from fedlib.viz.style import control_style

#: What the strength slider means for each kind.
STRENGTH_MEANING = {"free_rider": "std of the noise on the copied global model",
                    "noise": "std of the noise on the global model",
                    "label_flip": "share of the labels shifted by one",
                    "quality_drop": "data accuracy after the drop"}


@dataclass(frozen=True)
class AttackResult:
    """What :class:`AttackExplorer` shows: the task's outcome, or why the input was refused."""

    outcome: SingleTaskOutcome | None
    error: str = ""


class AttackExplorer(Explorer):
    """One reduced task (:func:`~fedlib.experiments.adversarial.single_task`) with one attacker.

    Controls: ``kind`` (the attack) and ``strength`` (its meaning depends on the kind).
    """

    def __init__(self, kind: str = "free_rider", strength: float = 0.0, **task: int) -> None:
        super().__init__()
        self.task = task
        self.kind = widgets.Dropdown(options=[(group_label(k), k) for k in ATTACK_KINDS],
                                     value=kind, description="attack", **control_style())
        self.strength = widgets.FloatSlider(value=strength, min=0.0, max=1.0, step=0.01,
                                            description="strength", **control_style())
        self.meaning = widgets.HTML()
        self._watch(self.kind, self.strength)
        self.widget = widgets.VBox([self.kind, self.strength, self.meaning, self.output])
        self.update()

    def update(self) -> AttackResult:
        """Run the task for the controls' values and redraw."""
        kind, strength = self.kind.value, float(self.strength.value)
        self.meaning.value = f"<i>strength = {STRENGTH_MEANING[kind]}</i>"
        try:
            outcome = single_task(kind, strength, **self.task)
        except ValueError as error:
            self.result = AttackResult(None, str(error))
            self._show(message=str(error))
            return self.result
        self.result = AttackResult(outcome)
        self._show(single_task_figure(outcome))
        return self.result
