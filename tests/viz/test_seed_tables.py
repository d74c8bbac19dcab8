"""Tables 1-3 over seeds: the summaries of fedlib.experiments.table_summaries and their tables and
figure, on fast runs of two seeds."""

from __future__ import annotations

import numpy as np
import pytest

from fedlib.experiments import table_summaries
from fedlib.experiments.multitask import MultiTaskConfig
from fedlib.paper import numbers as paper_numbers
from fedlib.viz import seed_tables as sviz
from fedlib.viz.canvas import outside_canvas

MECHANISMS = ("ours", "bid_greedy")


@pytest.fixture(scope="module")
def seed_runs(data_root):
    """Fast MNIST runs of two mechanisms, seeds 0 and 1."""
    return {("mnist", m): [MultiTaskConfig(mechanism=m, seed=s, device="cpu").fast().run()
                           for s in (0, 1)] for m in MECHANISMS}


def test_two_seeds_hire_other_winners(seed_runs):
    # a seed that changes nothing would make every verdict rest on one run
    first, second = seed_runs["mnist", "ours"]
    assert [r["winners"] for r in first.records] != [r["winners"] for r in second.records]
    assert [r["bids"] for r in first.records] != [r["bids"] for r in second.records]


def test_tables23_over_seeds_hold_every_seed_and_the_paper(seed_runs):
    rows = table_summaries.tables23_over_seeds(seed_runs, 2)
    assert [row["mechanism"] for row in rows] == list(MECHANISMS)
    statistic, paper = rows[0]["mnist"]
    assert paper == paper_numbers.TABLE2["ours"]["mnist"]
    assert statistic.seeds == (0, 1)
    assert statistic.values == tuple(table_summaries.table2(r) for r in seed_runs["mnist", "ours"])
    assert statistic.low <= statistic.mean <= statistic.high
    losses = table_summaries.tables23_over_seeds(seed_runs, 3)[1]["mnist"][0]
    assert losses.mean == pytest.approx(np.mean([table_summaries.table3(r)
                                                 for r in seed_runs["mnist", "bid_greedy"]]))


def test_table1_over_seeds_skips_the_seeds_where_a_group_never_won(seed_runs):
    runs = seed_runs["mnist", "ours"]
    rows = table_summaries.table1_over_seeds({"mnist": runs})
    assert [(r["dataset"], r["quantity"]) for r in rows] == [
        ("mnist", q) for q in paper_numbers.TABLE1_QUANTITIES]
    for row in rows:
        for dacc in paper_numbers.TABLE1_DACCS:
            statistic, paper = row[dacc]
            assert paper == paper_numbers.TABLE1["mnist"][row["quantity"]][dacc]
            values = [table_summaries.table1(r)[dacc][row["quantity"]] for r in runs]
            finite = [v for v in values if np.isfinite(v)]
            assert (statistic is None) == (not finite)
            if statistic is not None:
                assert statistic.values == tuple(finite)


def test_over_seeds_refuses_a_seed_twice(seed_runs):
    run = seed_runs["mnist", "ours"][0]
    with pytest.raises(ValueError, match="one per seed"):
        table_summaries.over_seeds([run, run], table_summaries.table2)


def test_the_tables_show_mean_interval_and_paper(seed_runs):
    t2 = table_summaries.tables23_over_seeds(seed_runs, 2)
    page = sviz.tables23_html(t2)
    statistic, paper = t2[0]["mnist"]
    assert f"{statistic.mean:.4f}" in page and f"{paper:.4f}" in page
    low, high = statistic.prediction()  # the range a cell is judged by
    assert f"{low:.4f}\u2013{high:.4f}" in page and "one run, 95%" in page
    assert "MNIST, 2 seeds" in page
    t1 = sviz.table1_html(table_summaries.table1_over_seeds({"mnist": seed_runs["mnist", "ours"]}))
    assert t1.count("ours, 95% CI of the mean") == len(paper_numbers.TABLE1_QUANTITIES)


def test_the_seed_figure_draws_every_seed_and_fits(seed_runs):
    tables = {"Table 2: share": table_summaries.tables23_over_seeds(seed_runs, 2),
              "Table 3: loss": table_summaries.tables23_over_seeds(seed_runs, 3)}
    fig = sviz.seed_values_figure(tables)
    assert len(fig.axes) == 2
    dots = [c for c in fig.axes[0].collections if c.get_offsets().shape[0] == 2]
    assert len(dots) == len(MECHANISMS)  # one dot per seed, per mechanism
    shares = sorted(float(v) for v in dots[0].get_offsets()[:, 1])
    assert shares == sorted(table_summaries.table2(r) for r in seed_runs["mnist", "ours"])
    assert outside_canvas(fig) == []


def test_the_carried_table_sets_each_reading_beside_the_other(seed_runs):
    fresh = {t: table_summaries.tables23_over_seeds(seed_runs, t) for t in (2, 3)}
    ours = {("mnist", "ours"): seed_runs["mnist", "ours"]}
    carried = {t: table_summaries.tables23_over_seeds(ours, t) for t in (2, 3)}
    page = sviz.carried_html(fresh, carried)
    assert page.count("<tr>") == 2 + 1  # two header rows, one run
    assert "Our mechanism, MNIST" in page and "2 seeds" in page
    assert f"{paper_numbers.TABLE3['ours']['mnist']:.4f}" in page

