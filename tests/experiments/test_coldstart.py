"""The Fashion-MNIST cold-start map: its settings, and the separation of contributions, by
hand."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from fedlib.experiments import coldstart
from fedlib.experiments.coldstart import ColdStartConfig, ColdStartResult
from fedlib.experiments.multitask import MultiTaskConfig, MultiTaskResult

#: Two clean workers (0, 1), one at dacc 0.7 (2), two noisy ones (3 at 0.4, 4 at 0.1).
GROUPS = ((1.0, 2), (0.7, 1), (0.4, 1), (0.1, 1))


def _record(task, winners, contrib, loss, re=None):
    """A task record with the fields the cold-start statistics read."""
    return {"task": task, "winners": winners, "payments": [1.0] * len(winners),
            "contribution": [0.5] * len(winners), "Re": [0.5] * 5,
            "re": [0.9] * len(winners) if re is None else re,
            "rounds": {"contrib": contrib, "test_loss": loss}}


def _run(records, eval_from=0):
    config = MultiTaskConfig(dataset="fashion", groups=GROUPS, n_tasks=max(len(records), 1),
                             eval_from=eval_from, task=replace(MultiTaskConfig().task, rounds=3),
                             device="cpu")
    return MultiTaskResult(config, tuple(records), 0.0)


def test_each_setting_changes_one_thing():
    config = ColdStartConfig()
    runs = config.run_configs()
    assert config.run_labels()[0] == "center" and runs[0] == config.base
    assert config.base.dataset == "fashion" and config.base.n_tasks == 20
    changed = {label: {name for name in ("budget", "fresh_model")
                       if getattr(run, name) != getattr(config.base, name)}
               | {name for name in ("epochs", "lr", "momentum")
                  if getattr(run.task, name) != getattr(config.base.task, name)}
               for label, run in zip(config.run_labels(), runs, strict=True)}
    assert changed == {"center": set(), "budget30": {"budget"}, "budget90": {"budget"},
                       "epochs2": {"epochs"}, "epochs5": {"epochs"}, "lr0.1": {"lr"},
                       "momentum0.9": {"momentum"}, "fresh_model0": {"fresh_model"}}
    assert runs[4].task.epochs == 5 and isinstance(runs[4].task.epochs, int)
    assert runs[-1].fresh_model is False
    assert "contrib" in config.round_fields


def test_the_mechanism_parameters_are_not_settings_here():
    with pytest.raises(ValueError, match="unknown parameter 'theta'"):
        ColdStartConfig(values=(("theta", (0.2,)),))
    with pytest.raises(ValueError, match="momentum must lie"):
        ColdStartConfig(values=(("momentum", (1.5,)),))


def test_separation_by_hand():
    records = [
        # clean 0 and noisy 3: contributions 0.5/0.45 (gap 0.05), then 0.9/0.6 (gap 0.3)
        _record(0, [0, 3], [[0.5, 0.45], [0.9, 0.6], [1.0, 0.5]], [2.3, 2.2, 2.0]),
        # clean 0, 1 and noisy 4: round 1 the noisy one ties one clean and beats the other
        _record(1, [0, 1, 4], [[0.8, 0.6, 0.8], [1.0, 0.95, 0.7], [1.0, 1.0, 0.9]],
                [2.1, 1.9, 1.7]),
        # only noisy winners: no separation to measure
        _record(2, [3, 4], [[1.0, 0.9]] * 3, [2.3, 2.3, 2.3]),
        _record(3, [], [], []),
    ]
    sep = coldstart.separation(_run(records))
    np.testing.assert_allclose(sep["gap"][0], [0.05, 0.3, 0.5])
    np.testing.assert_allclose(sep["gap"][1], [-0.1, 0.275, 0.1])
    # round 1 of task 1: pairs (0.8 vs 0.8) tie, (0.6 vs 0.8) lose: (0.5 + 0) / 2
    np.testing.assert_allclose(sep["auc"][1], [0.25, 1.0, 1.0])
    assert np.isnan(sep["gap"][2]).all() and np.isnan(sep["test_loss"][3]).all()
    np.testing.assert_allclose(sep["clean_share"][:3], [0.5, 2 / 3, 0.0])
    first = coldstart.first_separated(sep["gap"])
    np.testing.assert_array_equal(first[:2], [2.0, 2.0])
    assert np.isnan(first[2:]).all()
    np.testing.assert_array_equal(coldstart.first_separated(sep["gap"], 0.4)[:2], [3.0, np.nan])


def _tiny_result():
    config = ColdStartConfig(values=(("budget", (30.0,)),),
                             base=_run([]).config)
    clean = _record(0, [0, 1], [[1.0, 1.0]] * 3, [2.0, 1.5, 1.0])
    noisy = _record(0, [3, 4], [[1.0, 1.0]] * 3, [2.3, 2.3, 2.3])
    runs = tuple(MultiTaskResult(c, (r,), 0.0)
                 for c, r in zip(config.run_configs(), (clean, noisy), strict=True))
    return ColdStartResult(config, runs, 0.0)


def test_rows_and_the_settings_that_remove_the_cold_start():
    result = _tiny_result()
    rows = coldstart.cold_start_rows(result)
    assert [r["setting"] for r in rows] == ["default", "budget 30"]
    assert [r["share dacc 1.0"] for r in rows] == [1.0, 0.0]
    assert [r["loss"] for r in rows] == [1.0, 2.3]
    assert rows[0]["tasks with clean and noisy winners"] == 0
    assert coldstart.separating_settings([result]) == ["default"]
    claims = coldstart.setting_claims([result], ["budget 30"])
    assert all(c.where.endswith("Fashion-MNIST, budget 30") for c in claims)
    share = [c for c in claims if "only workers with data accuracy 1.0" in c.statement]
    assert [c.verdict for c in share] == ["not reproduced"]
    with pytest.raises(ValueError, match="were not run"):
        coldstart.setting_claims([result], ["momentum 0.9"])


def test_a_setting_removes_the_cold_start_only_in_every_seed():
    """Seed 1's map is seed 0's with the settings' runs swapped: the default starts in one seed
    of two, budget 30 in the other; neither removes the cold start in every seed."""
    first = _tiny_result()
    config = replace(first.config, base=replace(first.config.base, seed=1))
    second = ColdStartResult(config, tuple(reversed(first.runs)), 0.0)
    assert coldstart.seed_sides([first, second]) == {"default": [True, False],
                                                     "budget 30": [False, True]}
    assert coldstart.separating_settings([first, second]) == []
    assert coldstart.separating_settings([first]) == ["default"]
    assert coldstart.setting_label("fresh_model", 0.0) == "carried model"


def test_early_reputations_by_hand():
    records = [_record(0, [0, 3, 2], [[1.0] * 3] * 3, [2.0] * 3, re=[0.9, 0.7, 0.1]),
               _record(1, [1, 4], [[1.0] * 2] * 3, [2.0] * 3, re=[0.5, 0.3]),
               _record(2, [0, 3], [[1.0] * 2] * 3, [2.0] * 3, re=[0.0, 0.0])]
    early = coldstart.early_reputations(_run(records, eval_from=2))
    # clean winners 0 and 1 in tasks 0-1: 0.9, 0.5; noisy 3 and 4: 0.7, 0.3; task 2 is later
    assert early == pytest.approx({"clean": 0.7, "noisy": 0.5})
    assert np.isnan(coldstart.early_reputations(_run(records, eval_from=0))["clean"])


# ---------------------------------------------------------------------- the chapter's figure


def test_map_figure_draws_every_setting_in_both_panels():
    from fedlib.viz import coldstart as cviz

    fig = cviz.map_figure(_tiny_result())
    share, gap = fig.axes
    labels = [line.get_label() for line in share.get_lines()]
    assert labels == ["default", "budget 30"]
    np.testing.assert_array_equal(share.get_lines()[0].get_ydata(), [1.0])
    np.testing.assert_array_equal(share.get_lines()[1].get_ydata(), [0.0])
    assert share.get_lines()[0].get_color() == "black"
    # no task had clean and noisy winners: the gap curves are empty (NaN), the level drawn
    assert all(np.isnan(line.get_ydata()).all() for line in gap.get_lines()[:2])
    assert [line.get_ydata()[0] for line in gap.get_lines()[2:]] == [coldstart.SEPARATED, 0]


def test_rows_html_puts_the_paper_last():
    from fedlib.viz import coldstart as cviz

    html = cviz.rows_html(coldstart.cold_start_rows(_tiny_result()),
                          {"share": 1.0, "loss": 0.8924})
    assert html.index("<b>default</b>") < html.index("budget 30") < html.index("the paper")
    assert "0.8924" in html


def test_separation_html_gives_every_setting_its_row():
    from fedlib.viz import coldstart as cviz

    rows = coldstart.cold_start_rows(_tiny_result())
    html = cviz.separation_html(rows)
    assert html.index("<b>default</b>") < html.index("budget 30")
    assert html.count("<tr>") == len(rows) + 2  # the column groups, the header, the rows
    assert "re, first tasks" in html and "median at separation" in html


def test_each_piece_of_the_map_has_a_name_and_every_setting_one_piece():
    assert ColdStartConfig().result_name() == "coldstart_fashion_ours"
    epochs = ColdStartConfig(values=(("epochs", (2.0, 5.0)),))
    assert epochs.result_name() == "coldstart_fashion_ours_epochs"
    seeded = replace(epochs, base=replace(epochs.base, seed=3))
    assert seeded.result_name() == "coldstart_fashion_ours_epochs_s3"
    named = [name for piece in coldstart.COLD_START_PIECES for name in piece]
    assert sorted(named) == sorted(name for name, _ in coldstart.COLD_START_VALUES)


def _piece(values, winners):
    """A map of one-task runs with the ``values`` given, run i hiring ``winners[i]``."""
    config = ColdStartConfig(values=values, base=_run([]).config)
    runs = tuple(MultiTaskResult(c, (_record(0, w, [[1.0] * len(w)] * 3, [2.0] * 3),), 1.0)
                 for c, w in zip(config.run_configs(), winners, strict=True))
    return ColdStartResult(config, runs, float(len(runs)))


def test_the_pieces_of_a_map_merge_into_the_map():
    budget = _piece((("budget", (30.0, 90.0)),), [[0], [1], [2]])
    epochs = _piece((("epochs", (2.0,)),), [[4], [3]])
    merged = coldstart.merge([epochs, budget])
    assert merged.config.values == (("budget", (30.0, 90.0)), ("epochs", (2.0,)))
    # the points in the map's order; the default run is the first piece's
    assert [run.records[0]["winners"] for run in merged.runs] == [[4], [1], [2], [3]]
    assert [run.config for run in merged.runs] == merged.config.run_configs()
    assert merged.wall_time_s == 5.0
    assert coldstart.merge([budget]).runs == budget.runs


def test_pieces_that_do_not_make_one_map_are_refused():
    budget = _piece((("budget", (30.0,)),), [[0], [1]])
    with pytest.raises(ValueError, match="at least one piece"):
        coldstart.merge([])
    with pytest.raises(ValueError, match="a setting is in two pieces"):
        coldstart.merge([budget, _piece((("budget", (90.0,)),), [[0], [1]])])
    other_seed = _piece((("lr", (0.1,)),), [[0], [1]])
    other_seed = replace(other_seed, config=replace(
        other_seed.config, base=replace(other_seed.config.base, seed=1)))
    with pytest.raises(ValueError, match="differ in their settings only"):
        coldstart.merge([budget, other_seed])
