"""Figures of the Shapley chapter on synthetic records (headless, no data)."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure

from fedlib.experiments.shapley_truth import MEASURES
from fedlib.viz.canvas import outside_canvas
from fedlib.viz.shapley import correlation_figure, cost_figure, mc_error_figure, worker_figure

K, ROUNDS, ORDERS = 4, 3, 6


def _records(seeds: int = 2) -> list[dict]:
    """Records where ``ours`` equals the Shapley value, ``equal`` reverses it and the others
    are noise."""
    rng = np.random.default_rng(0)
    out = []
    for seed in range(seeds):
        for case in (1, 2):
            shapley = rng.normal(size=(ROUNDS, K))
            rounds = {"shapley": shapley, "ours": shapley, "equal": -shapley,
                      **{m: rng.normal(size=(ROUNDS, K)) for m in MEASURES[2:]}}
            out.append({
                "case": case, "seed": seed, "dacc": [1.0, 0.9, 0.8, 0.7][:K],
                "utility": "accuracy", "v_empty": [0.1] * ROUNDS, "v_full": [0.5] * ROUNDS,
                "rounds": {m: v.tolist() for m, v in rounds.items()},
                "task": {m: v.mean(0).tolist() for m, v in rounds.items()},
                "evaluations": {"shapley": ROUNDS * 2**K, "ours": ROUNDS * K,
                                "equal": ROUNDS * K, "local": ROUNDS * K,
                                "loo": ROUNDS * (K + 1), "monte_carlo": ROUNDS * 9},
                "mc_error": np.sort(rng.uniform(0.01, 1, (ROUNDS, ORDERS)))[:, ::-1].tolist(),
                "mc_evaluations": np.tile(np.linspace(K + 1, 2**K, ORDERS, dtype=int),
                                          (ROUNDS, 1)).tolist()})
    return out


@pytest.mark.parametrize(("make", "panels"), [
    (lambda r: worker_figure(r, 1), 1 + len(MEASURES)),
    (lambda r: worker_figure(r, 2, round_index=2), 1 + len(MEASURES)),
    (lambda r: correlation_figure(r), 2),
    (lambda r: correlation_figure(r, "kendall"), 2),
    (lambda r: mc_error_figure(r, budget=3), 1),
    (lambda r: cost_figure(r), 1),
])
def test_figures_are_figures(make, panels: int) -> None:
    fig = make(_records())
    assert isinstance(fig, Figure)
    assert len(fig.axes) == panels
    assert all(ax.get_title() for ax in fig.axes)
    assert outside_canvas(fig) == []


def test_worker_figure_titles_give_the_rank_agreement() -> None:
    titles = [ax.get_title() for ax in worker_figure(_records(), 1).axes]
    assert titles[1].endswith("Spearman with Shapley: 1.00")
    assert titles[2].endswith("Spearman with Shapley: -1.00")


def test_bad_input_is_rejected() -> None:
    with pytest.raises(ValueError, match="round_index"):
        worker_figure(_records(), 1, round_index=ROUNDS)
    with pytest.raises(ValueError, match="case"):
        worker_figure([r for r in _records() if r["case"] == 1], 2)


def test_worker_figure_of_one_round_shows_that_round() -> None:
    records = _records()
    fig = worker_figure(records, 2, round_index=1)
    assert "round 2" in fig._suptitle.get_text()
    bars = [p.get_height() for p in fig.axes[0].patches]
    expected = np.mean([r["rounds"]["shapley"][1] for r in records if r["case"] == 2], axis=0)
    np.testing.assert_allclose(bars, expected)
