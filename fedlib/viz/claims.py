"""Claims (:class:`~fedlib.analysis.claims.Claim`) as an HTML table with a verdict badge,
and the count of verdicts by chapter of the reproducibility report."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

from fedlib.analysis.claims import VERDICTS, Claim
from fedlib.viz.federated import FONT

#: One colour per verdict, from good news for the paper to bad.
VERDICT_COLORS = dict(zip(VERDICTS, ("#1b9e77", "#e6ab02", "#d95f02", "#7570b3"), strict=True))

_CELL = "style='text-align:left;vertical-align:top;padding:3px 10px'"


def _badge(verdict: str) -> str:
    return (f"<span style='background:{VERDICT_COLORS[verdict]};color:white;padding:1px 6px;"
            f"border-radius:3px;white-space:nowrap'>{html.escape(verdict)}</span>")


def chapter_link(chapter: str, titles: Mapping[str, str]) -> str:
    """An HTML link to the book's chapter ``chapter`` (file name without extension), shown
    by its title in ``titles`` (else by its file name)."""
    title = html.escape(titles.get(chapter, chapter))
    return f"<a href='{html.escape(chapter)}.html'>{title}</a>"


def claims_html(claims: Sequence[Claim] | Mapping[str, Sequence[Claim]],
                titles: Mapping[str, str] | None = None) -> str:
    """One row per claim: where, the statement, what we find, and the verdict as a badge.

    Parameters
    ----------
    claims : sequence of Claim, or mapping
        The claims; or chapter file name (without extension) to the claims whose evidence
        that chapter holds, which adds a last column linking each row to its chapter.
    titles : mapping, optional
        Chapter file name to title, for the links (default: the file names).
    """
    by_chapter = claims if isinstance(claims, Mapping) else {"": claims}
    head = ["Where", "Claim", "We find", "Verdict"] + (["Evidence"] if "" not in by_chapter
                                                       else [])
    rows = []
    for chapter, chapter_claims in by_chapter.items():
        link = [chapter_link(chapter, titles or {})] if chapter else []
        rows += [[html.escape(c.where), html.escape(c.statement),
                  f"<small>{html.escape(c.finding)}</small>", _badge(c.verdict), *link]
                 for c in chapter_claims]
    cells = "".join("<tr>" + "".join(f"<td {_CELL}>{cell}</td>" for cell in row) + "</tr>"
                    for row in rows)
    head_cells = "".join(f"<th {_CELL}>{h}</th>" for h in head)
    return f"<table><thead><tr>{head_cells}</tr></thead><tbody>{cells}</tbody></table>"


def verdict_figure(claims: Mapping[str, Sequence[Claim]], titles: Mapping[str, str]) -> Figure:
    """Stacked bars: how many of each chapter's claims got each verdict (``claims``: chapter
    file name to the claims whose evidence it holds; ``titles``: file name to title)."""
    chapters = list(claims)
    counts = np.array([[sum(c.verdict == v for c in claims[chapter]) for v in VERDICTS]
                       for chapter in chapters])
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
