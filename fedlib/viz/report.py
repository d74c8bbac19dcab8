"""Tables and figures of the reproducibility report (:mod:`fedlib.experiments.report`)."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

from fedlib.experiments.federated import DATASET_LABELS
from fedlib.experiments.report import VERDICTS, Finding
from fedlib.experiments.stored import Provenance
from fedlib.experiments.verification import FOREIGN_TOLERANCE, Comparison
from fedlib.paper.readings import Reading
from fedlib.viz.federated import FONT, _table

#: One colour per verdict, from good news for the paper to bad.
VERDICT_COLORS = dict(zip(VERDICTS, ("#1b9e77", "#e6ab02", "#d95f02", "#7570b3"), strict=True))


def _chapter_link(chapter: str, titles: Mapping[str, str]) -> str:
    title = html.escape(titles.get(chapter, chapter))
    return f"<a href='{html.escape(chapter)}.html'>{title}</a>"


def _badge(verdict: str) -> str:
    return (f"<span style='background:{VERDICT_COLORS[verdict]};color:white;padding:1px 6px;"
            f"border-radius:3px;white-space:nowrap'>{html.escape(verdict)}</span>")


def findings_html(findings: Sequence[Finding], titles: Mapping[str, str]) -> str:
    """One row per finding: where, the paper's claim, our result, the verdict and a link to
    the chapter with the evidence (``titles`` maps chapter file names to titles)."""
    body = [[html.escape(f.where), html.escape(f.claim), f"<small>{html.escape(f.ours)}</small>",
             _badge(f.verdict), _chapter_link(f.chapter, titles)] for f in findings]
    return _table(["Where", "The paper says", "We find", "Verdict", "Evidence"], body, "left")


def readings_html(readings: Sequence[Reading], titles: Mapping[str, str]) -> str:
    """One row per reading: the open point, the paper's text, our default, the alternative,
    the fedlib parameter and the chapter that measures the difference."""
    body = [[html.escape(r.topic), html.escape(r.paper), html.escape(r.default),
             html.escape(r.alternative), f"<code>{html.escape(r.parameter)}</code>",
             _chapter_link(r.chapter, titles)] for r in readings]
    return _table(["Open point", "The paper", "Our default", "Alternative", "Parameter",
                   "Measured in"], body, "left")


def verdict_figure(findings: Sequence[Finding], titles: Mapping[str, str]) -> Figure:
    """Stacked bars: how many of each chapter's findings got each verdict."""
    chapters = list(dict.fromkeys(f.chapter for f in findings))
    counts = np.array([[sum(f.chapter == c and f.verdict == v for f in findings)
                        for v in VERDICTS] for c in chapters])
    fig = Figure(figsize=(8.5, 0.6 * len(chapters) + 1.6), layout="constrained")
    ax = fig.add_subplot()
    left = np.zeros(len(chapters))
    y = np.arange(len(chapters))[::-1]
    for j, verdict in enumerate(VERDICTS):
        ax.barh(y, counts[:, j], left=left, color=VERDICT_COLORS[verdict], label=verdict)
        left += counts[:, j]
    ax.set_yticks(y, [titles.get(c, c) for c in chapters], fontsize=FONT)
    ax.set_xlabel("claims checked", fontsize=FONT)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.legend(ncols=len(VERDICTS), loc="lower center", bbox_to_anchor=(0.5, 1.0),
              fontsize=FONT - 1, frameon=False)
    ax.set_title("The paper's claims, by the chapter that checks them", fontsize=FONT + 1,
                 pad=28)
    return fig


def compute_figure(provenances: Sequence[Provenance]) -> Figure:
    """Compute time of every stored result (minutes), one bar each, labelled by machine."""
    names = [p.name for p in provenances]
    minutes = np.array([p.wall_time_s / 60 for p in provenances])
    fig = Figure(figsize=(8.5, 0.32 * len(names) + 1.4), layout="constrained")
    ax = fig.add_subplot()
    y = np.arange(len(names))[::-1]
    ax.barh(y, minutes, color="#4c72b0")
    ax.set_yticks(y, names, fontsize=FONT - 2)
    ax.set_xlabel("compute time of the stored run (minutes)", fontsize=FONT)
    ax.set_title(f"Stored results: {minutes.sum():.0f} minutes of compute in all",
                 fontsize=FONT + 1)
    return fig


def drift_figure(comparisons: Mapping[str, Comparison], field: str = "test_loss") -> Figure:
    """The drift of one field between two machines against the rounds of training behind it,
    one panel per dataset, with the cross-machine tolerance of
    :data:`~fedlib.experiments.verification.FOREIGN_TOLERANCE` at the same rounds.

    Parameters
    ----------
    comparisons : mapping
        Dataset to the :class:`~fedlib.experiments.verification.Comparison` of its runs on the
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
        ax.set_title(DATASET_LABELS[dataset], fontsize=FONT)
        ax.set_xlabel("rounds of training behind the value", fontsize=FONT)
    axes[0].set_ylabel(f"{field}: {'relative' if relative else 'absolute'} difference",
                       fontsize=FONT)
    axes[0].legend(fontsize=FONT - 1, frameon=False)
    return fig
