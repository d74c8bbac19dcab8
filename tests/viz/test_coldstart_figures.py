"""The cold-start map (fedlib.viz.coldstart) with every setting of the chapter, on hand-made
runs (the experiment and its tables are tested in tests/experiments/test_coldstart.py)."""

from __future__ import annotations

from dataclasses import replace

from fedlib.experiments.coldstart import ColdStartConfig, ColdStartResult
from fedlib.experiments.multitask import MultiTaskConfig, MultiTaskResult
from fedlib.viz.canvas import outside_canvas
from fedlib.viz.coldstart import map_figure

#: Two clean workers (0, 1), one at dacc 0.7 (2), two noisy ones (3 at 0.4, 4 at 0.1).
GROUPS = ((1.0, 2), (0.7, 1), (0.4, 1), (0.1, 1))


def _record(task: int, winners: list[int], gap: float) -> dict:
    """A task won by ``winners`` (one clean, one noisy), whose contributions part by ``gap``."""
    return {"task": task, "winners": winners, "payments": [1.0, 1.0],
            "contribution": [0.5, 0.5], "Re": [0.5] * 5, "re": [0.9, 0.3],
            "rounds": {"contrib": [[1.0, 1.0 - gap]] * 3, "test_loss": [2.0, 1.5, 1.0]}}


def test_the_map_of_every_setting_fits_its_canvas():
    base = MultiTaskConfig(dataset="fashion", groups=GROUPS, n_tasks=2, eval_from=1,
                           task=replace(MultiTaskConfig().task, rounds=3), device="cpu")
    config = ColdStartConfig(base=base)
    runs = tuple(MultiTaskResult(run, (_record(0, [0, 3], 0.1), _record(1, [1, 4], 0.5)), 0.0)
                 for run in config.run_configs())
    fig = map_figure(ColdStartResult(config, runs, 0.0))
    share, gap = fig.axes
    assert len(share.get_lines()) == len(config.run_configs()) > 6
    assert len(fig.legends[0].get_texts()) == len(runs)
    assert outside_canvas(fig) == []
