"""The skewed-data chapter's figures (fedlib.viz.skew) on hand-made runs, and its explorer on a
smoke-sized run."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from fedlib.analysis.seed_statistics import SeedStatistic
from fedlib.analysis.skew import KINDS
from fedlib.experiments.multitask import MultiTaskConfig, MultiTaskResult
from fedlib.experiments.noniid import example_config, kinds_of
from fedlib.viz.canvas import outside_canvas
from fedlib.viz.explorers import skew as skew_explorer
from fedlib.viz.skew import (
    KIND_COLORS,
    PATH_LABELS,
    kind_paths_figure,
    kind_shares_figure,
    label_histograms,
)

CONFIG = MultiTaskConfig(groups=((1.0, 2), (0.1, 2)), n_tasks=4, eval_from=1, label_skew=0.1,
                         device="cpu")


def _run(config: MultiTaskConfig = CONFIG) -> MultiTaskResult:
    records = tuple({"task": t, "winners": [t % 4], "payments": [1.0], "contribution": [0.5],
                     "re": [0.5], "Re": [0.1 * t] * 4} for t in range(config.n_tasks))
    return MultiTaskResult(config, records, 0.0)


def test_label_histograms_mark_every_kind():
    counts = np.zeros((4, 10), int)
    counts[np.arange(4), [0, 3, 5, 9]] = 100
    fig = label_histograms([counts, counts + 1], kinds_of(CONFIG), ["alpha 0.1", "iid"])
    assert [ax.get_title() for ax in fig.axes[:2]] == ["alpha 0.1", "iid"]
    shares = fig.axes[0].images[0].get_array()
    assert shares[1, 3] == 1.0 and shares[1].sum() == 1.0
    assert [t.get_text() for t in fig.legends[0].get_texts()] == list(KINDS)
    assert outside_canvas(fig) == []
    with pytest.raises(ValueError, match="one title per panel"):
        label_histograms([counts], kinds_of(CONFIG), [])
    with pytest.raises(ValueError, match="kinds must name"):
        label_histograms([counts], ["clean"] * 4, ["x"])
    with pytest.raises(ValueError, match="one shape"):
        label_histograms([counts, counts[:3]], kinds_of(CONFIG), ["a", "b"])


def test_kind_paths_draw_one_line_per_kind_and_panel():
    runs = {"alpha 0.1": _run(), "iid": _run(replace(CONFIG, label_skew=None))}
    fig = kind_paths_figure(runs, "Re", title="Our mechanism")
    skewed, iid = fig.axes
    assert len(skewed.get_lines()) == 4 and len(iid.get_lines()) == 2
    line = skewed.get_lines()[0]
    assert line.get_color() == KIND_COLORS["clean skewed"]
    assert np.allclose(line.get_ydata(), [0.0, 0.1, 0.2, 0.3])
    assert outside_canvas(fig) == []
    with pytest.raises(ValueError, match="path must be one of"):
        kind_paths_figure(runs, "reputation")


def test_kind_paths_of_one_run_two_ways():
    run = _run()
    fig = kind_paths_figure({"reputation": run, "wins": run}, ("Re", "won"))
    reputation, wins = fig.axes
    assert [ax.get_ylabel() for ax in fig.axes] == [PATH_LABELS["Re"], PATH_LABELS["won"]]
    assert np.allclose(reputation.get_lines()[0].get_ydata(), [0.0, 0.1, 0.2, 0.3])
    assert np.allclose(wins.get_lines()[0].get_ydata(), [1.0, 0.0, 0.0, 0.0])
    assert outside_canvas(fig) == []
    with pytest.raises(ValueError, match="one path per run"):
        kind_paths_figure({"reputation": run}, ("Re", "won"))


def test_kind_shares_show_every_seed():
    summary = [{"alpha": a, "mechanism": m,
                "payments to clean skewed": SeedStatistic.of([0, 1], [0.1, 0.3])}
               for a in ("alpha 0.1", "alpha 1") for m in ("ours", "vanilla")]
    summary.append({"alpha": "iid", "mechanism": "ours", "payments to clean skewed": None})
    fig = kind_shares_figure(summary, "payments to clean skewed", "share")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["alpha 0.1", "alpha 1"]
    assert [p.get_height() for p in ax.patches if p.get_width() > 0] == pytest.approx([0.2] * 4)
    assert sorted(np.concatenate([line.get_ydata() for line in ax.get_lines()])) == [0.1] * 4 + [
        0.3] * 4
    with pytest.raises(ValueError, match="no row has a value"):
        kind_shares_figure(summary, "test loss", "loss")


def test_the_explorer_runs_and_refuses(data_root, monkeypatch):
    monkeypatch.setattr(skew_explorer, "example_config",
                        lambda *args: replace(example_config(*args).fast(), device="cpu"))
    explorer = skew_explorer.SkewExplorer()
    assert explorer.error is None and explorer.result.config.label_skew == 0.1
    assert len(explorer.output.outputs) == 2 and "clean skewed" in explorer.summary.value
    explorer.own_labels.value = True
    assert explorer.result.config.task.own_labels
    explorer.alpha.value = "iid"
    assert explorer.result.config.label_skew is None
    assert "clean skewed" not in explorer.summary.value
    with pytest.raises(ValueError, match="noise must be one of"):
        example_config(0.1, "half noisy")
