"""The system model figure and the step table of the overview chapter."""

from __future__ import annotations

import pytest
from matplotlib.figure import Figure

from fedlib.viz.canvas import outside_canvas
from fedlib.viz.system_model import MESSAGES, TASK_STEPS, system_model_figure, task_steps_markdown


def test_system_model_figure_draws_every_worker_and_message() -> None:
    fig = system_model_figure(n_workers=3)
    assert isinstance(fig, Figure)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert sum(t.startswith("Worker ") for t in texts) == 3
    for number, _, label in MESSAGES:
        assert f"{number}. {label}" in texts
    assert outside_canvas(fig) == [] and outside_canvas(system_model_figure(n_workers=8)) == []
    for bad in (1, 9):
        with pytest.raises(ValueError):
            system_model_figure(n_workers=bad)


def test_messages_refer_to_steps() -> None:
    assert all(1 <= number <= len(TASK_STEPS) for number, _, _ in MESSAGES)


def test_task_steps_markdown_is_one_row_per_step() -> None:
    lines = task_steps_markdown().splitlines()
    assert len(lines) == 2 + len(TASK_STEPS)
    assert all(line.startswith("|") and line.count("|") == 5 for line in lines)
    assert lines[-1].startswith(f"| {len(TASK_STEPS)} | publisher |")
