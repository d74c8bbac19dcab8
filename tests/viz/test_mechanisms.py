"""Figures 4-5 plots and their explorer, headless."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure

from fedlib.analysis.sweep_results import summarize
from fedlib.experiments.auction_sweeps import SEVEN, budget_sweep, worker_sweep
from fedlib.mechanism import MECHANISMS
from fedlib.viz.canvas import outside_canvas
from fedlib.viz.explorers.mechanisms import MechanismExplorer
from fedlib.viz.mechanisms import (
    READINGS,
    readings_figure,
    spending_figure,
    sweep_figure,
)
from fedlib.viz.style import MECHANISM_STYLES


@pytest.fixture(scope="module")
def budget_result():
    return budget_sweep((25.0, 100.0, 175.0), trials=8, seed=0)


@pytest.fixture(scope="module")
def worker_result():
    return worker_sweep((20, 60, 100), trials=8, seed=0)


def _lines(ax):
    return {line.get_label(): line for line in ax.get_lines()}


def test_every_mechanism_has_a_style():
    assert set(MECHANISMS) <= set(MECHANISM_STYLES)


@pytest.mark.parametrize("per", ["payment", "budget"])
def test_sweep_figure_draws_medians_and_bands(budget_result, per):
    fig = sweep_figure(budget_result, per)
    assert isinstance(fig, Figure)
    (ax,) = fig.axes
    lines = _lines(ax)
    assert set(lines) == {MECHANISMS[m].label for m in SEVEN}
    median = summarize(budget_result, per).median
    for a, name in enumerate(SEVEN):
        x, y = lines[MECHANISMS[name].label].get_data()
        np.testing.assert_allclose(x, budget_result.xs)
        np.testing.assert_allclose(y, median[a])
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(bands) == 7
    assert ax.get_ylabel() == READINGS[per]
    assert "8 trials" in ax.get_title()
    assert len(fig.legends) == 1
    assert outside_canvas(fig) == []


def test_sweep_figure_subset_and_title(worker_result):
    fig = sweep_figure(worker_result, mechanisms=["ours", "rrafl"], title="Figure 5")
    (ax,) = fig.axes
    assert set(_lines(ax)) == {"Our mechanism", "RRAFL"}
    assert ax.get_title() == "Figure 5"
    assert "workers" in ax.get_xlabel()
    assert outside_canvas(fig) == []


def test_readings_figure_has_both_readings_of_both_sweeps(budget_result, worker_result):
    fig = readings_figure(budget_result, worker_result)
    assert len(fig.axes) == 4
    assert fig.axes[0].get_ylabel() == READINGS["payment"]
    assert fig.axes[2].get_ylabel() == READINGS["budget"]
    for ax in fig.axes:
        assert len(ax.get_lines()) == 7
    assert outside_canvas(fig) == []


def test_spending_figure(budget_result):
    fig = spending_figure(budget_result)
    winners_ax, used_ax, quality_ax, markup_ax = fig.axes
    for ax, quantity in ((winners_ax, "winners"), (used_ax, "budget_used"),
                         (quality_ax, "re_per_cost"), (markup_ax, "markup")):
        median = summarize(budget_result, quantity=quantity).median
        for a, name in enumerate(SEVEN):
            np.testing.assert_allclose(_lines(ax)[MECHANISMS[name].label].get_ydata(),
                                       median[a])
    assert all(np.all(line.get_ydata() <= 1 + 1e-9) for line in used_ax.get_lines())
    np.testing.assert_allclose(_lines(markup_ax)["Bid Greedy"].get_ydata(), 1.0)
    assert outside_canvas(fig) == []


def test_mechanism_table_html():
    from fedlib.experiments.auction_sweeps import mechanism_table
    from fedlib.viz.mechanisms import mechanism_table_html

    text = mechanism_table_html(mechanism_table())
    assert text.count("<tr>") == 1 + 7
    assert "``" not in text and "<code>" in text


def test_explorer_draws_the_paper_setting_on_creation():
    explorer = MechanismExplorer(trials=3, points=3)
    view = explorer.result
    assert view is not None and explorer.error is None
    assert view.sweep.xs == (25.0, 137.5, 250.0)
    assert view.sweep.config.n_workers == 100
    assert view.sweep.config.distribution.is_paper is False  # rebuilt, same values
    assert view.sweep.config.distribution.bid_spread == pytest.approx(2.0)
    assert set(view.over_budget.values()) == {0}
    assert isinstance(explorer.figure, Figure) and explorer.output.outputs
    assert outside_canvas(explorer.figure) == []
    assert explorer.widget.children[-1] is explorer.output


def test_explorer_controls_change_the_sweep():
    explorer = MechanismExplorer(trials=2, points=2)
    explorer.trials.value = 4
    assert explorer.result.sweep.trials == 4
    explorer.budget_range.value = (40.0, 80.0)
    assert explorer.result.sweep.xs == (40.0, 80.0)
    explorer.n_workers.value = 30
    assert explorer.result.sweep.config.n_workers == 30
    explorer.Re_range.value = (0.5, 0.7)
    d = explorer.result.sweep.config.distribution
    assert (d.Re_low, d.Re_high) == (0.5, 0.7)
    explorer.bid_spread.value = 0.5
    assert explorer.result.sweep.config.distribution.bid_spread == pytest.approx(0.5)
    explorer.re_noise.value = 0.0
    r = explorer.result.sweep
    ours = r.index("ours")
    # re = Re and bids nearly proportional to Re: still never over budget
    assert set(explorer.result.over_budget.values()) == {0}
    assert np.all(r.sum_re[ours] > 0)


def test_explorer_reading_reuses_the_sweep():
    explorer = MechanismExplorer(trials=2, points=2)
    before = explorer.result.sweep
    explorer.reading.value = "budget"
    after = explorer.result
    assert after.sweep is before
    assert after.summary.quantity == "metric_per_budget"
    np.testing.assert_allclose(after.summary.median, summarize(before, "budget").median)


def test_explorer_leaves_gaps_where_a_mechanism_selects_nobody():
    explorer = MechanismExplorer(trials=2, points=2)
    explorer.Re_range.value = (0.0, 0.0)  # every Re = 0: infinite cost densities
    view = explorer.result
    assert explorer.error is None and explorer.figure is not None
    r = view.sweep
    assert np.all(r.winners[r.index("ours")] == 0)
    assert np.all(np.isnan(view.summary.row("ours")))
    assert np.all(np.isfinite(view.summary.row("bid_greedy")))


def test_explorer_reports_an_impossible_setting():
    explorer = MechanismExplorer(trials=2, points=2)
    explorer.Re_range.value = (0.0, 0.5)
    explorer.bid_spread.max = 6.0
    explorer.bid_spread.value = 5.0  # bids from 5/3 - 2.5 < 0 at Re = 0
    assert explorer.result is None and explorer.error and explorer.figure is None
    assert explorer.summary.value == ""
    explorer.bid_spread.value = 2.0
    assert explorer.error is None and "trials" in explorer.summary.value
