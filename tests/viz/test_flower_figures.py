"""The figures and table of a Flower federation beside the batched engine
(fedlib.viz.flower_figures), on hand-made task records."""

from __future__ import annotations

import numpy as np

from fedlib.viz.canvas import outside_canvas
from fedlib.viz.flower_figures import agreement_rows, loss_figure, message_flow_figure


def _record(task: int, loss_shift: float = 0.0) -> dict:
    """A task of 30 workers (one did not bid), 8 winners, 10 rounds."""
    passed = [[True] * 8] * 9 + [[True] * 7 + [False]]
    return {"task": task, "winners": list(range(8)), "bids": [1.0] * 29 + [None],
            "payments": [1.5] * 8, "Re": [0.5] * 30,
            "rounds": {"passed": passed,
                       "test_loss": (np.linspace(2.0, 0.5, 10) + loss_shift).tolist()}}


def test_message_flow_figure_tells_the_task_with_its_numbers():
    fig = message_flow_figure(_record(0), 30, 60.0)
    texts = " | ".join(t.get_text() for t in fig.axes[0].texts)
    assert "29 bids" in texts and "8 winners within the budget 60" in texts
    assert "(8 of 8 pass)" in texts and "rounds 2 to 10" in texts and "paid 12.00" in texts
    assert outside_canvas(fig) == []


def test_loss_figure_and_agreement():
    batched = [_record(0), _record(1)]
    flower = [_record(0), _record(1, 1e-7)]
    rows = agreement_rows(batched, flower)
    assert [r["same decisions"] for r in rows] == [True, True]
    assert rows[0]["test loss"] == 0.0 and np.isclose(rows[1]["test loss"], 1e-7)
    fig = loss_figure(batched, flower)
    loss_ax, diff_ax = fig.axes
    assert len(loss_ax.get_lines()) == 4 and diff_ax.get_yscale() == "log"
    assert outside_canvas(fig) == []
