"""Adversarial-workers chapter: the figures and tables of a fast run, and the single-task
explorer (headless). The experiment itself is tested in tests/experiments/test_adversarial.py."""

from __future__ import annotations

import pytest
from matplotlib.figure import Figure

from fedlib.experiments.adversarial import group_summary
from fedlib.fl.attacks import Attack
from fedlib.viz import adversarial as viz
from fedlib.viz.canvas import outside_canvas
from fedlib.viz.explorers.adversarial import AttackExplorer

SMALL = dict(n_samples=100, n_val=200, n_test=200, rounds=2)


@pytest.fixture
def fast(adversarial_fast):
    return adversarial_fast


def test_figures_and_summary(fast):
    runs = fast.by_mechanism
    html = viz.summary_html(runs)
    assert "free-rider" in html
    # long, not wide: one row per group and mechanism, the group's cell spanning its rows
    groups = group_summary(next(iter(runs.values())))
    assert html.count(f'rowspan="{len(runs)}"') == len(groups)
    for fig in (viz.selection_figure(runs), viz.payments_figure(runs),
                viz.pass_rate_figure(runs), viz.accuracy_figure(runs, runs)):
        assert isinstance(fig, Figure) and fig.axes
        assert outside_canvas(fig) == []


def test_explorer_reacts_to_its_controls(data_root):
    explorer = AttackExplorer(**SMALL)
    assert explorer.figure is not None and explorer.result.attack.kind == "free_rider"
    assert outside_canvas(explorer.figure) == []
    explorer.kind.value = "label_flip"
    explorer.strength.value = 0.5
    result = explorer.result
    assert result.attack == Attack("label_flip", (0,), 0.5)
    assert "share of the labels" in explorer.meaning.value
    explorer.kind.value = "quality_drop"
    explorer.strength.value = 0.0
    assert explorer.result is None and "data accuracy in (0, 1]" in explorer.error
    assert explorer.figure is None and "data accuracy after the drop" in explorer.meaning.value
