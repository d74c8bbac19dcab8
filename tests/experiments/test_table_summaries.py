"""Summaries of the multi-task runs for the chapter: tables beside the paper's, trajectories,
selections and checks; and the paper's numbers."""

from __future__ import annotations

import copy
from dataclasses import replace

import numpy as np
import pytest

from fedlib.experiments import multitask, table_summaries
from fedlib.experiments.multitask import TABLE_MECHANISMS, MultiTaskConfig, MultiTaskResult
from fedlib.fl.task import TaskOptions
from fedlib.paper import numbers as paper_numbers
from fedlib.storage import comparison

GROUPS = ((1.0, 3), (0.7, 1), (0.4, 1), (0.1, 2))
DATASETS = ("mnist", "fashion")


@pytest.fixture(scope="module")
def runs(data_root):
    base = MultiTaskConfig(n_tasks=3, eval_from=1, groups=GROUPS, budget=14.0, n_samples=100,
                           n_val=200, n_test=200, task=TaskOptions(rounds=2), device="cpu")
    return {(d, m): multitask.run_multitask(replace(base, dataset=d, mechanism=m))
            for d in DATASETS for m in TABLE_MECHANISMS}


def test_paper_numbers_cover_every_cell():
    for dataset in DATASETS:
        for quantity in paper_numbers.TABLE1_QUANTITIES:
            assert set(paper_numbers.TABLE1[dataset][quantity]) == set(
                paper_numbers.TABLE1_DACCS)
    for table in (paper_numbers.TABLE2, paper_numbers.TABLE3):
        assert tuple(table) == TABLE_MECHANISMS
        assert all(set(row) == set(DATASETS) for row in table.values())
    assert paper_numbers.TABLE1["mnist"]["payment"][1.0] == 5.533
    assert paper_numbers.TABLE3["bid_greedy"]["fashion"] == 1.1585
    with pytest.raises(TypeError):
        paper_numbers.TABLE2["ours"]["mnist"] = 0.5  # read-only


def test_selection_and_trajectories(runs):
    run = runs["mnist", "ours"]
    chosen = table_summaries.selection_matrix(run)
    assert chosen.shape == (7, 3)
    for t, record in enumerate(run.records):
        assert sorted(np.flatnonzero(chosen[:, t])) == sorted(record["winners"])
    traj = table_summaries.group_trajectories(run)
    assert list(traj) == [1.0, 0.7, 0.4, 0.1]
    t1 = table_summaries.table1(run)  # every task, as the trajectories
    for dacc, g in traj.items():
        assert g.Re_mean.shape == (3,)
        assert np.all(g.Re_min <= g.Re_mean + 1e-12) and np.all(g.Re_mean <= g.Re_max + 1e-12)
        assert g.Re_mean[-1] == pytest.approx(t1[dacc]["reputation"])
        assert g.wins.sum() == t1[dacc]["wins"]
        assert np.all(np.isnan(g.payment) == (g.wins == 0))


def test_final_model_and_round_curves(runs):
    run = runs["fashion", "vanilla"]
    series = table_summaries.final_model(run)
    assert series["loss"].shape == series["acc"].shape == (3,)
    assert series["loss"][0] == run.records[0]["rounds"]["test_loss"][-1]
    curves = table_summaries.round_curves(run, "test_acc")
    assert curves.shape == (2, 2)  # two evaluated tasks, two rounds
    assert np.nanmean(series["loss"][1:]) == pytest.approx(table_summaries.table3(run))
    empty = MultiTaskResult(run.config, (
        {**run.records[0], "task": 1, "winners": [], "rounds": {"test_loss": [],
                                                               "test_acc": []}},), 0.0)
    assert np.isnan(table_summaries.final_model(empty)["loss"][0])
    assert table_summaries.round_curves(empty).shape == (0, 2)


def test_budget_overruns(runs):
    run = runs["mnist", "vanilla"]
    assert table_summaries.budget_overruns(run) == []
    records = copy.deepcopy(list(run.records))
    records[1]["payments"][0] += run.config.budget
    over = table_summaries.budget_overruns(MultiTaskResult(run.config, tuple(records), 0.0))
    assert [t for t, _ in over] == [1]


def test_ours_and_rrafl_are_the_same_run(runs):
    for d in DATASETS:
        assert table_summaries.same_runs(runs[d, "ours"], runs[d, "rrafl"])
        assert not table_summaries.same_runs(runs[d, "ours"], runs[d, "bid_greedy"])


def test_per_task_values_behind_table_3(runs):
    for run in runs.values():
        evaluated = [r for r in run.evaluated if r["winners"]]
        losses = table_summaries.task_losses(run)
        assert losses.shape == (len(evaluated),)
        assert table_summaries.table3(run) == pytest.approx(losses.mean())
        for record, loss in zip(evaluated, losses, strict=True):
            assert loss == record["rounds"]["test_loss"][-1]


def test_table_2_pools_the_winners_of_the_evaluated_tasks(runs):
    # the reading "Tasks and payments of Tables 1-3": a pooled share, not a mean of the
    # per-task shares
    for run in runs.values():
        chosen = [d for r in run.evaluated for d in run.config.daccs[r["winners"]]]
        assert table_summaries.table2(run) == pytest.approx(np.mean(np.array(chosen) == 1.0))


def test_open_choices(runs):
    choices = table_summaries.open_choices(runs["mnist", "ours"].config)
    assert choices["budget B per task"] == 14.0
    assert choices["initial reputation Re^0"] == 0.5
    assert choices["bids redrawn every task"] is True
    assert choices["fresh global model every task"] is True
    assert choices["tasks (first evaluated)"] == "3 (1)"


def test_run_problems(runs):
    assert table_summaries.run_problems(runs) == []
    run = runs["mnist", "ours"]
    records = copy.deepcopy(list(run.records))
    records[0]["payments"][0] += run.config.budget  # over budget
    records[1]["re"] = records[1]["re"][:-1]  # a winner without re
    broken = MultiTaskResult(run.config, tuple(records[:2]), 0.0)  # a task missing
    problems = table_summaries.run_problems({"x": broken})
    assert any("2 tasks, expected 3" in p for p in problems)
    assert any("task 1: ['re']" in p for p in problems)
    assert any("task 0: paid" in p for p in problems)


def test_machine_spread_reports_moves_and_where_the_runs_part(runs):
    key = ("mnist", "ours")
    same = comparison.machine_spread(runs, {key: runs[key]})
    assert len(same) == 1 and same[0]["the runs part at"] == "never"
    assert same[0]["share moved"] == 0 and same[0]["loss moved"] == 0
    assert same[0]["share, first"] == table_summaries.table2(runs[key])
    # A second machine whose run hires other winners in task 1 (the auction tipped there).
    records = copy.deepcopy(list(runs[key].records))
    records[1]["winners"] = records[1]["winners"][:-1]
    records[1]["payments"] = records[1]["payments"][:-1]
    other = MultiTaskResult(runs[key].config, tuple(records), 0.0)
    moved = comparison.machine_spread(runs, {key: other})[0]
    assert moved["the runs part at"] == "task 1, auction"
    assert moved["share, second"] == table_summaries.table2(other)


def test_winners_re_averages_what_each_group_earned(runs):
    run = runs["mnist", "ours"]
    earned = table_summaries.winners_re(run)
    for dacc, value in earned.items():
        values = [re for r in run.records for w, re in zip(r["winners"], r["re"], strict=True)
                  if run.config.daccs[w] == dacc]
        assert (np.isnan(value) and not values) or value == pytest.approx(np.mean(values))
