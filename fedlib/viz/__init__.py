"""Figures (pure functions returning matplotlib Figures) and ipywidgets explorers."""

from fedlib.viz.system_model import TASK_STEPS, system_model_figure

__all__ = ["TASK_STEPS", "system_model_figure"]
