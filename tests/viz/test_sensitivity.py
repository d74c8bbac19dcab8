"""Figures and tables of the sensitivity chapter, on hand-made rows."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure

from fedlib.experiments.sensitivity import LABELS
from fedlib.viz import sensitivity as sviz
from fedlib.viz.canvas import outside_canvas


def _row(name, value, default, share, loss, paid_clean, budget=60.0):
    group_paid = {1.0: paid_clean, 0.1: 10.0}
    paid = paid_clean + 10.0
    return {"parameter": name, "value": value, "default": default, "share": share,
            "loss": loss, "winners": 8.0, "group_paid": group_paid, "paid": paid,
            "budget": budget, "used": paid / budget, "max_paid": paid}


ROWS = [_row("beta2", 0.1, False, 0.9, 0.6, 40.0), _row("beta2", 0.25, True, 0.95, 0.5, 45.0),
        _row("beta2", 0.5, False, 0.95, 0.5, 45.0),
        _row("initial_reputation", 0.25, False, 0.1, 2.0, 5.0),
        _row("initial_reputation", 0.5, True, 0.95, 0.5, 45.0),
        _row("initial_reputation", 0.75, False, 1.0, 0.4, 48.0),
        _row("budget", 30.0, False, 0.0, 2.1, 0.0, budget=30.0),
        _row("budget", 60.0, True, 0.95, 0.5, 45.0),
        _row("budget", 90.0, False, 1.0, 0.5, 70.0, budget=90.0)]


def test_values_label_brackets_the_default():
    assert sviz.short_label("beta2") == LABELS["beta2"].split(" (")[0] == "β₂"
    assert sviz.values_label(ROWS, "beta2") == "β₂\n0.1 / [0.25] / 0.5"


def test_tornado_figure_orders_by_effect_and_places_every_value():
    fig = sviz.tornado_figure(ROWS, title="T")
    assert isinstance(fig, Figure) and len(fig.axes) == 3 and fig._suptitle.get_text() == "T"
    share = fig.axes[0]
    labels = [t.get_text() for t in share.get_yticklabels()]
    # largest effect on the share on top (the last y position): budget 1.0, Re^0 0.9, beta2
    assert [lab.split("\n")[0] for lab in labels] == ["β₂", "Re⁰", "B"]
    markers = [line for line in share.get_lines() if line.get_marker() in ("o", "|")
               and len(line.get_xdata()) == 1]
    top = sorted(float(m.get_xdata()[0]) for m in markers if m.get_ydata()[0] == 2)
    assert top == [0.0, 0.95, 1.0]  # the budget's three shares
    paid = fig.axes[2]
    assert "budget" in paid.get_xlabel()
    xs = [float(m.get_xdata()[0]) for m in paid.get_lines() if len(m.get_xdata()) == 1]
    assert any(x == pytest.approx(10.0 / 30.0) for x in xs)  # paid / the run's own budget
    assert min(xs) == pytest.approx(15.0 / 60.0)
    assert fig.legends and outside_canvas(fig) == []


def test_parameter_figure_stacks_group_payments_under_the_budget():
    fig = sviz.parameter_figure(ROWS, "budget")
    share, loss, paid = fig.axes
    np.testing.assert_allclose(share.get_lines()[0].get_ydata(), [0.0, 0.95, 1.0])
    np.testing.assert_allclose(loss.get_lines()[0].get_ydata(), [2.1, 0.5, 0.5])
    heights = [p.get_height() for p in paid.patches]
    assert heights == [0.0, 45.0, 70.0, 10.0, 10.0, 10.0]  # dacc 1.0, then 0.1 on top
    budget_line = [line for line in paid.get_lines() if line.get_label() == "budget B"][0]
    np.testing.assert_allclose(budget_line.get_ydata(), [30.0, 60.0, 90.0])
    assert [t.get_text() for t in share.get_xticklabels()] == ["30", "60\n(default)", "90"]
    assert outside_canvas(fig) == []
    with pytest.raises(ValueError, match="no rows"):
        sviz.parameter_figure(ROWS, "theta")


def test_rows_html():
    text = sviz.rows_html(ROWS)
    assert text.count("<tr") == len(ROWS) + 2  # a header row, the column groups, the rows
    assert text.count('rowspan="3"') == 3  # one cell per parameter
    assert "<b>0.25</b>" in text and "paid per task to dacc" in text and "0.950" in text


def test_first_task_html():
    diff = {"theta=0.2": {"winners": False, "Re": True},
            "beta1=1": {"winners": False, "Re": False}}
    text = sviz.first_task_html(diff)
    assert text.count("<b>changed</b>") == 1 and text.count(">same<") == 3
    assert "the first task's" in text and "θ = 0.2" in text and "β₁ = 1" in text
