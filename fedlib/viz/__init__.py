"""Figures (pure functions returning matplotlib Figures, each built under the one style of
:mod:`fedlib.viz.style`), the tables that go with them, and in :mod:`fedlib.viz.explorers` the
ipywidgets explorers that redraw them; only the explorers import ipywidgets."""

from fedlib.viz.system_model import TASK_STEPS, system_model_figure

__all__ = ["TASK_STEPS", "system_model_figure"]
