"""Figures and explorers of the contribution chapter (headless)."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure

from fedlib.mechanism import contributions, sample_weights
from fedlib.viz.canvas import outside_canvas
from fedlib.viz.contribution import (
    case_figure,
    case_worker_names,
    contribution_table,
    snapshot_figure,
    toy_figure,
)
from fedlib.viz.explorers import REFUSED
from fedlib.viz.explorers.contribution import (
    TOY_P,
    TOY_WORKERS,
    ContributionExplorer,
    ToyContributionExplorer,
    parse_accuracies,
)

RNG = np.random.default_rng(0)


def _records(seeds: int = 3) -> list[dict]:
    out = []
    for seed in range(seeds):
        for case in (1, 2):
            dacc = [1 - k / 10 for k in range(10)] if case == 1 else [1.0] * 10
            out.append({"case": case, "seed": seed, "dacc": dacc,
                        **{m: RNG.uniform(0.5, 1.0, 10).tolist()
                           for m in ("contribution", "benchmark", "local_acc")}})
    return out


def test_contribution_table_is_checkable_by_hand() -> None:
    text = contribution_table(TOY_P, TOY_WORKERS)
    lines = text.splitlines()
    assert lines[2].startswith("A") and lines[4].startswith("C")
    ours, equal = contributions(TOY_P), contributions(TOY_P, weighted=False)
    assert f"{ours[0]:.3f}" in lines[2] and f"{equal[2]:.3f}" in lines[4]
    weights = next(line for line in lines if line.startswith("w_j"))
    assert all(f"{w:.3f}" in weights for w in sample_weights(TOY_P))
    with pytest.raises(ValueError):
        contribution_table(TOY_P, ["only one name"])


@pytest.mark.parametrize("make", [
    lambda: toy_figure(TOY_P, TOY_WORKERS),
    lambda: case_figure(_records(), 1),
    lambda: case_figure(_records(), 2),
    lambda: snapshot_figure([1.0, 0.5, 0.1], RNG.uniform(0.01, 1, (3, 40)), np.arange(40) % 10,
                            np.full(40, 1 / 40), [0.3, 0.2, 0.1], [0.4, 0.3, 0.2],
                            [0.9, 0.8, 0.5], "title", ["a", "b", "c"]),
])
def test_figures_are_figures(make) -> None:
    fig = make()
    assert isinstance(fig, Figure) and len(fig.axes) >= 2
    assert outside_canvas(fig) == []


def test_case_figure_has_a_statistic_panel() -> None:
    fig = case_figure(_records(), 2, metrics=("contribution", "benchmark"))
    assert len(fig.axes) == 3
    assert "stands out" in fig.axes[-1].get_title()


def test_case_figure_shares_the_contribution_axis() -> None:
    fig = case_figure(_records(), 2)
    ours, benchmark, accuracy = fig.axes[:3]
    shared = ours.get_shared_y_axes()
    assert shared.joined(ours, benchmark) and not shared.joined(ours, accuracy)


def test_case_worker_names() -> None:
    assert case_worker_names(1, [1.0, 0.5])[1] == "0.5"
    assert case_worker_names(2, [1.0, 1.0, 1.0]) == ["0\nall", "1\n-1", "2\n-2"]


def test_toy_explorer_follows_edits_of_P() -> None:
    toy = ToyContributionExplorer()
    assert toy.figure is not None and toy.output.outputs  # drawn on creation
    assert outside_canvas(toy.figure) == []
    np.testing.assert_allclose(toy.result.weights, sample_weights(TOY_P))
    assert TOY_WORKERS[int(np.argmax(toy.result.weighted))] == "A"
    # worker A loses the hard sample s3: its advantage disappears
    toy.cells[0][3].value = 0.1
    assert toy.result.P[0, 3] == 0.1
    np.testing.assert_allclose(toy.result.weights, sample_weights(toy.P))
    assert int(np.argmax(toy.result.weighted)) != 0
    # a sample everybody predicts perfectly gets weight 0
    for row in toy.cells:
        row[0].value = 1.0
    assert toy.result.weights[0] == 0.0
    np.testing.assert_allclose(toy.result.equal, toy.P.mean(axis=1))


def test_parse_accuracies() -> None:
    assert parse_accuracies("1.0, 0.5; 0.2 0.9", 3) == (1.0, 0.5, 0.2)
    for text, n in (("1.0, 0.5", 3), ("1.0, x", 2), ("1.0, 0.0", 2), ("1.5, 0.5", 2)):
        with pytest.raises(ValueError):
            parse_accuracies(text, n)


def test_contribution_explorer_headless(data_root) -> None:
    explorer = ContributionExplorer(n_workers=3, accuracies="1.0, 0.5, 0.1", warmup=1,
                                    n_samples=60, n_val=100, n_test=60)
    first = explorer.result
    assert explorer.figure is not None and first.P.shape == (3, 100)
    assert outside_canvas(explorer.figure) == []
    np.testing.assert_array_equal(first.dacc, [1.0, 0.5, 0.1])
    np.testing.assert_allclose(first.weights, sample_weights(first.P))
    explorer.n_workers.value = 4  # only three accuracies given: refused with a message
    assert explorer.result is None and "at least 4" in explorer.error
    assert explorer.figure is None and REFUSED in explorer.output.outputs[0]["text"]
    explorer.accuracies.value = "1.0, 0.8, 0.6, 0.4"
    assert explorer.result.P.shape == (4, 100) and explorer.error is None
    explorer.case.value = 2
    second = explorer.result
    assert second.case == 2 and np.all(second.dacc == 1.0)
    explorer.case.value = 1
    explorer.n_workers.value = 3
    explorer.accuracies.value = "1.0, 0.5, 0.1"
    assert explorer.result is first  # cached configuration
