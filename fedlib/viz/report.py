"""Tables and figures of the reproducibility report (:mod:`fedlib.experiments.report`); its
claims are drawn by :mod:`fedlib.viz.claims`."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

from fedlib.experiments.table_summaries import DATASET_LABELS
from fedlib.paper.readings import Reading
from fedlib.storage.comparison import Comparison
from fedlib.storage.provenance import by_configuration
from fedlib.storage.stored import Provenance
from fedlib.storage.tolerance import FOREIGN_TOLERANCE
from fedlib.table import fitted_table, folded
from fedlib.viz.claims import chapter_link
from fedlib.viz.plain_math import to_html
from fedlib.viz.style import styled


def readings_html(readings: Sequence[Reading], titles: Mapping[str, str]) -> str:
    """The readings by the chapter that measures them, each chapter's folded behind a line
    that links to it and counts them (:func:`~fedlib.table.folded`); one row per reading, in
    three columns that fit the text column: the open point with the paper's text beneath it;
    our default with the alternative beneath it; the fedlib parameter. Text in the paper's
    notation (:func:`~fedlib.viz.plain_math.to_html`)."""
    def row(r: Reading) -> list[str]:
        return [f"<b>{to_html(r.topic)}</b><br><small>{to_html(r.paper)}</small>",
                f"{to_html(r.default)}<br><small><i>alternative:</i> "
                f"{to_html(r.alternative)}</small>",
                f"<small><code>{html.escape(r.parameter)}</code></small>"]

    head = [("Open point and the paper's text", 34), ("Our default and the alternative", 44),
            ("Parameter", 22)]
    by_chapter: dict[str, list[Reading]] = {}
    for reading in readings:
        by_chapter.setdefault(reading.chapter, []).append(reading)
    return "".join(
        folded(f"Measured in {chapter_link(chapter, titles)} ({len(group)} reading"
               f"{'s' if len(group) > 1 else ''})", fitted_table(head, [row(r) for r in group]))
        for chapter, group in by_chapter.items())


@styled
def compute_figure(provenances: Sequence[Provenance]) -> Figure:
    """Compute time of the stored results (minutes), one bar per configuration (its seeds
    together, :func:`~fedlib.storage.provenance.by_configuration`), labelled by its name and
    its number of seeds."""
    groups = by_configuration(provenances)
    names = [f"{name} ({len(group)} seed{'s' if len(group) > 1 else ''})"
             for name, group in groups.items()]
    minutes = np.array([sum(p.wall_time_s for _, p in group) / 60 for group in groups.values()])
    fig = Figure(figsize=(8.5, 0.32 * len(names) + 1.4), layout="constrained")
    ax = fig.add_subplot()
    y = np.arange(len(names))[::-1]
    ax.barh(y, minutes, color="#4c72b0")
    ax.set_yticks(y, names)
    ax.set_xlabel("compute time of the stored run (minutes)")
    ax.set_title(f"Stored results: {minutes.sum():.0f} minutes of compute in all")
    return fig


@styled
def drift_figure(comparisons: Mapping[str, Comparison], field: str = "test_loss") -> Figure:
    """The drift of one field between two machines against the rounds of training behind it,
    one panel per dataset, with the cross-machine tolerance of
    :data:`~fedlib.storage.tolerance.FOREIGN_TOLERANCE` at the same rounds.

    Parameters
    ----------
    comparisons : mapping
        Dataset to the :class:`~fedlib.storage.comparison.Comparison` of its runs on the
        two machines (the largest difference per rounds is plotted).
    field : str
        A field with a relative tolerance (``test_loss``) or an absolute one (``omega``).
    """
    fig = Figure(figsize=(8.5, 3.2), layout="constrained")
    axes = fig.subplots(1, len(comparisons), sharey=True, squeeze=False)[0]
    for ax, (dataset, comparison) in zip(axes, comparisons.items(), strict=True):
        drift = FOREIGN_TOLERANCE[dataset].get(field, FOREIGN_TOLERANCE[dataset]["default"])
        relative = drift.rtol > 0
        seen = sorted((rounds, pair[1] if relative else pair[0])
                      for (name, rounds), pair in comparison.drift.items() if name == field)
        rounds = np.arange(1, max([r for r, _ in seen], default=10) + 1)
        allowed = [drift.after(r).rtol if relative else drift.after(r).atol for r in rounds]
        ax.semilogy(rounds, allowed, color="#c44e52", label="tolerance")
        ax.semilogy([r for r, v in seen if v > 0], [v for _, v in seen if v > 0], "o",
                    color="#4c72b0", label="measured between the two CPUs")
        ax.set_title(DATASET_LABELS[dataset])
        ax.set_xlabel("rounds of training behind the value")
    axes[0].set_ylabel(f"{field}: {'relative' if relative else 'absolute'} difference")
    axes[0].legend(frameon=False)
    return fig
