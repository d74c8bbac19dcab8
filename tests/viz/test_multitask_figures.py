"""Figures of the chapter "Federated experiments", on fast (smoke-sized) runs."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from fedlib.analysis import steady_state
from fedlib.experiments import table_summaries
from fedlib.experiments.multitask import TABLE_MECHANISMS
from fedlib.mechanism import MECHANISMS
from fedlib.paper import numbers as paper_numbers
from fedlib.viz import multitask_figures as fviz
from fedlib.viz.canvas import outside_canvas


def _texts(fig):
    out = [fig._suptitle.get_text()] if fig._suptitle else []
    for ax in fig.axes:
        out += [ax.get_title(), ax.get_title("left"), ax.get_xlabel(), ax.get_ylabel()]
    return " | ".join(out)


def test_trajectories_figure(fast_runs):
    ours = {"mnist": fast_runs["mnist", "ours"], "fashion": fast_runs["fashion", "ours"]}
    fig = fviz.trajectories_figure(ours, title="T")
    assert isinstance(fig, Figure) and len(fig.axes) == 4
    top = fig.axes[0]
    lines = {line.get_label(): line for line in top.get_lines()}
    assert set(lines) == {"dacc 1.0", "dacc 0.7", "dacc 0.4", "dacc 0.1"}
    traj = table_summaries.group_trajectories(ours["mnist"])
    np.testing.assert_allclose(lines["dacc 0.1"].get_ydata(), traj[0.1].Re_mean)
    assert "MNIST" in top.get_title() and "B = 60" in top.get_title()
    assert "reputation" in _texts(fig) and "payment" in _texts(fig)
    assert fig.legends  # one shared legend
    assert outside_canvas(fig) == []


def test_global_model_and_round_curves(fast_runs):
    fig = fviz.global_model_figure(fast_runs, title="G")
    assert len(fig.axes) == 4  # loss and accuracy for two datasets
    mnist_loss = {line.get_label(): line for line in fig.axes[0].get_lines()}
    assert set(mnist_loss) == {MECHANISMS[m].label for m in TABLE_MECHANISMS}
    np.testing.assert_allclose(mnist_loss["Vanilla FL"].get_ydata(),
                               table_summaries.final_model(fast_runs["mnist", "vanilla"])["loss"])
    fashion_acc = [line.get_label() for line in fig.axes[3].get_lines()]
    assert fashion_acc == ["Our mechanism", "Vanilla FL"]
    curves = fviz.round_curves_figure(fast_runs)
    assert len(curves.axes) == 4 and "quartiles" in _texts(curves)
    run = fast_runs["mnist", "ours"]
    median = np.median(table_summaries.round_curves(run, "test_loss"), axis=0)
    line = next(ln for ln in curves.axes[0].get_lines() if ln.get_label() == "Our mechanism")
    np.testing.assert_allclose(line.get_ydata(), median)
    assert outside_canvas(fig) == [] and outside_canvas(curves) == []


def test_ours_stays_visible_under_rrafl(fast_runs):
    """Ours and RRAFL are the same run: ours is drawn thick and pale under RRAFL's thin
    dashed line, so both lines show where they coincide."""
    for fig in (fviz.global_model_figure(fast_runs), fviz.round_curves_figure(fast_runs)):
        lines = {line.get_label(): line for line in fig.axes[0].get_lines()}
        ours, rrafl = lines["Our mechanism"], lines["RRAFL"]
        np.testing.assert_allclose(ours.get_ydata(), rrafl.get_ydata())
        assert ours.get_linewidth() > 2 * rrafl.get_linewidth()
        assert rrafl.get_zorder() > ours.get_zorder() and ours.get_alpha() < 1
        assert rrafl.get_linestyle() == "--" and ours.get_linestyle() == "-"
    alone = {key: run for key, run in fast_runs.items() if key[1] != "rrafl"}
    ours = next(line for line in fviz.global_model_figure(alone).axes[0].get_lines()
                if line.get_label() == "Our mechanism")
    assert ours.get_alpha() is None and ours.get_linewidth() == 2  # no RRAFL to show


def test_selection_figure(fast_runs):
    maps = {("mnist", m): fast_runs["mnist", m] for m in TABLE_MECHANISMS}
    maps["fashion", "ours"] = fast_runs["fashion", "ours"]
    fig = fviz.selection_figure(maps, title="who")
    grid = np.array(fig.axes).reshape(len(TABLE_MECHANISMS), 2)
    image = grid[0, 0].get_images()[0].get_array()
    chosen = table_summaries.selection_matrix(fast_runs["mnist", "ours"])
    assert image.shape == chosen.shape == (30, 3)
    assert np.array_equal(np.asarray(image) > 0, chosen)
    # the colour index is the worker's group (1: dacc 1.0, ..., 4: dacc 0.1)
    codes = np.asarray(image)
    assert set(np.unique(codes[chosen])) <= {1, 2, 3, 4}
    assert np.all(codes[:15][chosen[:15]] == 1) and np.all(codes[25:][chosen[25:]] == 4)
    assert "Fashion-MNIST, Our mechanism" in grid[0, 1].get_title("left")
    assert "Reputation Greedy" in grid[-1, 0].get_title("left")
    assert not grid[-1, 1].get_images()  # no fashion run of that mechanism: an empty panel
    assert [t.get_text() for t in grid[0, 0].get_yticklabels()] == [
        "dacc 1.0", "dacc 0.7", "dacc 0.4", "dacc 0.1"]
    assert outside_canvas(fig) == []


def test_budget_sweep_figure(fast_sweep):
    fig = fviz.budget_sweep_figure(fast_sweep, 1.0, 5.533, 0.3747)
    assert len(fig.axes) == 4
    rows = fast_sweep.summary()
    for ax, key in zip(fig.axes, ("winners", "share", "payment", "loss"), strict=True):
        line = ax.get_lines()[0]
        assert list(line.get_xdata()) == [30.0, 75.0]
        np.testing.assert_allclose(line.get_ydata(), [r[key] for r in rows])
    assert len(fig.axes[0].get_lines()) == 1  # the paper gives no winners per task
    assert fig.axes[2].get_lines()[1].get_ydata()[0] == 5.533  # the paper's line
    assert "budget" in fig.axes[3].get_xlabel()
    assert outside_canvas(fig) == []


def test_steady_state_figure():
    reps = {d: dict(paper_numbers.TABLE1[d]["reputation"]) for d in ("mnist", "fashion")}
    pay = {d: paper_numbers.TABLE1[d]["payment"][1.0] for d in reps}
    budgets = [20.0, 60.0, 100.0]
    states = {d: steady_state.steady_state(reps[d], budgets, trials=60) for d in reps}
    windows = {d: steady_state.budget_window(states[d], pay[d]) for d in reps}
    fig = fviz.steady_state_figure(states, windows, pay, floor=1e-12)
    left, right = fig.axes
    assert right.get_yscale() == "log"
    solid = [ln for ln in right.get_lines() if "redrawn" in ln.get_label()]
    assert len(solid) == 2 and np.all(solid[0].get_ydata() >= 1e-12)
    assert "Table 1" in left.get_title() and "Table 2" in right.get_title()
    assert outside_canvas(fig) == []
