"""Figures and explorers of the reputation chapter (headless)."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure

from fedlib.analysis.reputation_paths import one_bad_task, reputation_path, scripted_paths
from fedlib.experiments.single_rounds import QualityExample
from fedlib.mechanism import gompertz_trust
from fedlib.viz import reputation as viz
from fedlib.viz.canvas import outside_canvas
from fedlib.viz.explorers import REFUSED
from fedlib.viz.explorers.reputation import ReputationSimulator, TrustExplorer, parse_sequence


def _example() -> QualityExample:
    return QualityExample(
        dacc=np.array([1.0, 0.7, 0.1]), round=0, loss_all=1.0,
        delta_l=np.array([0.02, 0.001, -0.03]), passed=np.array([True, True, False]),
        contrib=np.array([1.0, 0.9, 0.7]), quality=np.array([0.6, 0.4, 0.0]),
        omega=np.array([0.625, 0.375, 0.0]), omega_printed=np.array([0.526, 0.474, 0.0]))


@pytest.mark.parametrize("make", [
    viz.trust_figure, viz.internal_reputation_figure, viz.h_figure, viz.g_figure,
    viz.alpha_figure, viz.update_figure,
    lambda: viz.trajectories_figure(scripted_paths(n_tasks=10)),
    lambda: viz.asymmetry_figure(one_bad_task(warmup=5, horizon=10)),
    lambda: viz.quality_figure(_example()),
    lambda: viz.trust_point_figure(3, 1),
    lambda: viz.path_figure(reputation_path([0.9, 0.2, 0.9])),
])
def test_figures_are_figures(make) -> None:
    fig = make()
    assert isinstance(fig, Figure) and fig.axes
    assert outside_canvas(fig) == []


def test_trajectories_figure_tells_coinciding_workers_apart() -> None:
    fig = viz.trajectories_figure(scripted_paths(n_tasks=10))
    top = fig.axes[0]
    lines = [line for line in top.get_lines() if line.get_linestyle() != "None"]
    styles = {(line.get_linestyle(), line.get_linewidth()) for line in lines}
    assert len(styles) == len(lines) == 4  # one Re line per worker, no two alike
    # the legend is the figure's, outside the panels, not over the data
    assert top.get_legend() is None and len(fig.legends) == 1


def test_gompertz_curve_is_the_papers() -> None:
    assert viz.gompertz_curve(0.0) == pytest.approx(np.exp(-1))
    assert viz.gompertz_curve(1.0) == pytest.approx(float(gompertz_trust(10, 0)))


def test_trust_explorer_follows_its_controls() -> None:
    explorer = TrustExplorer()
    assert explorer.figure is not None and explorer.output.outputs  # drawn on creation
    assert outside_canvas(explorer.figure) == []
    explorer.n_pass.value, explorer.n_fail.value = 6, 4
    assert explorer.result.x == pytest.approx(0.0) and explorer.result.trust == pytest.approx(
        np.exp(-1))
    before = explorer.result.trust
    explorer.theta.value = 0.2  # passes count for less: lower trust with the same counts
    assert explorer.result.trust < before
    explorer.n_fail.value = 0
    assert explorer.result.trust == pytest.approx(float(gompertz_trust(6, 0, 0.2)))
    explorer.n_pass.value = 0
    assert explorer.result.x == 0.0  # no checks at all


def test_simulator_drop_costs_more_than_equal_rise() -> None:
    sim = ReputationSimulator()
    assert sim.figure is not None and sim.result is not None and sim.error is None
    assert outside_canvas(sim.figure) == []
    sim.initial.value = 0.5
    sim.sequence.value = "0.7"
    assert sim.preset.value == "custom"
    rise = sim.result.Re[-1] - 0.5
    sim.sequence.value = "0.3"
    drop = 0.5 - sim.result.Re[-1]
    assert rise > 0 and drop > rise
    assert sim.result.n_minus.tolist() == [1] and sim.result.n_plus.tolist() == [0]


def test_simulator_presets_and_parameters() -> None:
    sim = ReputationSimulator(preset="always good", n_tasks=8)
    assert sim.result.re.tolist() == [0.9] * 8
    sim.preset.value = "free-rider"
    assert sim.sequence.value.startswith("0.05") and sim.preset.value == "free-rider"
    assert sim.result.Re[-1] == pytest.approx(0.05, abs=1e-3)
    sim.preset.value = "alternating"
    alpha_paper = sim.result.alpha.copy()
    sim.beta2.value = 0.9  # g close to 1: streaks matter little
    assert not np.allclose(sim.result.alpha, alpha_paper)


def test_simulator_reports_bad_input() -> None:
    sim = ReputationSimulator()
    sim.sequence.value = "0.5, 1.5"
    assert sim.result is None and "[0, 1]" in sim.error
    assert sim.figure is None and sim.output.outputs[0]["text"].startswith(REFUSED)
    sim.sequence.value = "0.5, 0.6"
    assert sim.result is not None and len(sim.result) == 2


def test_parse_sequence() -> None:
    assert parse_sequence("0.1, 0.2;0.3 0.4").tolist() == [0.1, 0.2, 0.3, 0.4]
    for bad in ("", "a, b", "0.5, -0.1", "nan"):
        with pytest.raises(ValueError):
            parse_sequence(bad)
