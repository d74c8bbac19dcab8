"""Tables 1-3 over seeds beside the paper's numbers, and every seed's value as a figure: Table
1's means with their 95% confidence intervals, Tables 2-3's means with the 95% prediction
interval for one run that a printed cell is judged by
(:func:`~fedlib.analysis.seed_statistics.number_verdict`).

The rows come from :func:`~fedlib.experiments.table_summaries.table1_over_seeds` and
:func:`~fedlib.experiments.table_summaries.tables23_over_seeds`: each cell a ``(statistic, paper)``
pair, the statistic a :class:`~fedlib.analysis.seed_statistics.SeedStatistic` (None where
the group never won in any seed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from fedlib.analysis.seed_statistics import SeedStatistic
from fedlib.experiments.table_summaries import DATASET_LABELS
from fedlib.paper import numbers as paper_numbers
from fedlib.table import fixed_point, html_table
from fedlib.viz.style import NEUTRAL, mechanism_style, styled


def _mean(statistic: SeedStatistic | None, digits: int, seeds: int) -> str:
    """The mean, with the number of seeds behind it where it is fewer than ``seeds``."""
    if statistic is None:
        return "\u2013"
    fewer = f" ({statistic.n})" if statistic.n < seeds else ""
    return fixed_point(statistic.mean, digits) + fewer


def _interval(statistic: SeedStatistic | None, digits: int, one_run: bool = False) -> str:
    """The 95% interval of the mean, or (``one_run``) the prediction interval for one run."""
    if statistic is None:
        return "\u2013"
    low, high = statistic.prediction() if one_run else (statistic.low, statistic.high)
    return f"{low:.{digits}f}\u2013{high:.{digits}f}"


def _seeds(cells: Sequence[tuple[SeedStatistic | None, float]]) -> int:
    return max((s.n for s, _ in cells if s is not None), default=0)


def table1_html(rows: Sequence[Mapping[Any, Any]], digits: int = 3) -> str:
    """Table 1 over the seeds: per dataset and quantity, ours' mean, its 95% confidence
    interval and the
    paper's number, a column per data accuracy (a group that never won shows a dash; a mean
    over fewer seeds than the others names their number in brackets)."""
    daccs = paper_numbers.TABLE1_DACCS
    body = []
    for row in rows:
        cells = [row[d] for d in daccs]
        seeds = _seeds(cells)
        lead = [DATASET_LABELS.get(row["dataset"], row["dataset"]), row["quantity"]]
        body += [[*lead, f"ours, mean of {seeds} seeds",
                  *(_mean(s, digits, seeds) for s, _ in cells)],
                 [*lead, "ours, 95% CI of the mean",
                  *(_interval(s, digits) for s, _ in cells)],
                 [*lead, "paper", *(fixed_point(p, digits) for _, p in cells)]]
    return html_table(["Dataset", "Quantity", "", *(f"dacc {d:.1f}" for d in daccs)], body,
                      align=["left"] * 3 + ["right"] * len(daccs), merge_leading=2)


def tables23_html(rows: Sequence[Mapping[str, Any]], digits: int = 4) -> str:
    """Table 2 or 3 over the seeds, one row per mechanism: per dataset ours' mean over the
    seeds, the 95% prediction interval for one run (the range a cell is judged by) and the
    paper's number."""
    datasets = [k for k in rows[0] if k not in ("mechanism", "label")] if rows else []
    body = [[row["label"], *(value for d in datasets for value in (
        _mean(row[d][0], digits, _seeds([row[d]])), _interval(row[d][0], digits, True),
        fixed_point(row[d][1], digits)))] for row in rows]
    seeds = {d: _seeds([row[d] for row in rows]) for d in datasets}
    return html_table(["Mechanism", *(label for _ in datasets
                                      for label in ("ours", "one run, 95%", "paper"))], body,
                      column_groups=[("", 1), *((f"{DATASET_LABELS.get(d, d)}, {seeds[d]} seeds", 3)
                                                for d in datasets)])


@styled
def seed_values_figure(tables: Mapping[str, Sequence[Mapping[str, Any]]]) -> Figure:
    """Every seed's value of Tables 2 and 3: a row per table (``tables``: its title to the
    rows of :func:`~fedlib.experiments.table_summaries.tables23_over_seeds`), a column per dataset,
    a column of dots per mechanism (one dot a seed), the mean with the 95% prediction interval
    for one run as a bar beside them and the paper's number as a black bar."""
    titles = list(tables)
    datasets = [k for k in next(iter(tables.values()))[0] if k not in ("mechanism", "label")]
    fig = Figure(figsize=(max(8.0, 4.5 * len(datasets) + 1), 3.6 * len(titles)),
                 layout="constrained")
    axes = fig.subplots(len(titles), len(datasets), squeeze=False, sharex=True)
    jitter = np.random.default_rng(0)
    for r, title in enumerate(titles):
        rows = tables[title]
        for c, dataset in enumerate(datasets):
            ax = axes[r, c]
            for x, row in enumerate(rows):
                statistic, paper = row[dataset]
                color = mechanism_style(row["mechanism"])[0]
                ax.plot([x - 0.3, x + 0.3], [paper, paper], color="black", lw=2.5)
                if statistic is None:
                    continue
                spread = jitter.uniform(-0.15, 0.15, statistic.n)
                ax.scatter(x - 0.1 + spread, statistic.values, s=18, color=color, alpha=0.7)
                low, high = statistic.prediction()
                ax.errorbar(x + 0.2, statistic.mean, yerr=[[statistic.mean - low],
                                                           [high - statistic.mean]],
                            fmt="D", color=color, ms=6, capsize=4)
            ax.set_xticks(range(len(rows)), [row["label"] for row in rows], rotation=30,
                          ha="right")
            if r == 0:
                ax.set_title(DATASET_LABELS.get(dataset, dataset))
            if c == 0:
                ax.set_ylabel(title)
    handles = [Line2D([], [], marker="o", ls="", color=NEUTRAL, label="one seed"),
               Line2D([], [], marker="D", color=NEUTRAL, label="mean, 95% range of one run"),
               Line2D([], [], color="black", lw=2.5, label="the paper's number")]
    fig.legend(handles=handles, loc="outside upper center", ncols=3)
    return fig


def _mean_interval(statistic: SeedStatistic | None, digits: int) -> str:
    if statistic is None:
        return "\u2013"
    return (f"{statistic.mean:.{digits}f} ({_interval(statistic, digits)}, "
            f"{statistic.n} seed{'s' if statistic.n != 1 else ''})")


def carried_html(fresh: Mapping[int, Sequence[Mapping[str, Any]]],
                 carried: Mapping[int, Sequence[Mapping[str, Any]]]) -> str:
    """Tables 2 and 3 under two readings: for each run of ``carried`` (table number to the rows
    of :func:`~fedlib.experiments.table_summaries.tables23_over_seeds` with the model carried across
    tasks) the same mechanism and dataset of ``fresh`` (a fresh model per task) and the paper's
    number, each a mean with its 95% confidence interval and number of seeds."""
    def row_of(rows: Sequence[Mapping[str, Any]], mechanism: str) -> Mapping[str, Any]:
        return next(row for row in rows if row["mechanism"] == mechanism)

    body = []
    for row in carried[2]:
        for dataset in (k for k in row if k not in ("mechanism", "label")):
            cells = []
            for table, digits in ((2, 3), (3, 4)):
                carried_cell = row_of(carried[table], row["mechanism"])[dataset]
                fresh_cell = row_of(fresh[table], row["mechanism"])[dataset]
                cells += [_mean_interval(fresh_cell[0], digits),
                          _mean_interval(carried_cell[0], digits),
                          fixed_point(carried_cell[1], digits)]
            body.append([f"{row['label']}, {DATASET_LABELS.get(dataset, dataset)}", *cells])
    return html_table(["Run", *(label for _ in range(2)
                               for label in ("fresh model", "carried", "paper"))], body,
                      align=["left"] + ["right"] * 6,
                      column_groups=[("", 1), ("share of dacc 1.0 (Table 2)", 3),
                                     ("loss (Table 3)", 3)])

