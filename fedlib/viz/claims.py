"""Claims (:class:`~fedlib.analysis.claims.Claim`) as an HTML table with a verdict badge,
claims under two readings side by side, and the count of verdicts by chapter of the
reproducibility report.

Every table here is a :func:`~fedlib.table.fitted_table`: it fills the text column it stands
in and never grows past it, in whichever chapter it is shown. Claims and findings are written
in the paper's notation (:func:`~fedlib.viz.plain_math.to_html`)."""

from __future__ import annotations

import html
import textwrap
from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

from fedlib.analysis.claims import VERDICTS, Claim, ReadingPair, verdict_counts
from fedlib.table import fitted_row, fitted_table, folded
from fedlib.viz.plain_math import to_html
from fedlib.viz.style import styled

#: One colour per verdict, from good news for the paper to bad.
VERDICT_COLORS = dict(zip(VERDICTS, ("#1b9e77", "#66a61e", "#e6ab02", "#d95f02", "#7570b3"),
                          strict=True))

#: The style of the band above each chapter's claims in the report's table.
_BAND = "style='text-align:left;padding:6px 6px 3px;background:#f2f2f2'"


def _badge(verdict: str) -> str:
    """The verdict on its colour, on one line where the column is wide enough (it is in the
    tables here at the book's width), else wrapped inside the badge."""
    return (f"<span style='background:{VERDICT_COLORS[verdict]};color:white;padding:1px 6px;"
            f"border-radius:3px;display:inline-block;font-size:0.85em'>"
            f"{html.escape(verdict)}</span>")


def _verdict(claim: Claim) -> str:
    """The verdict's badge, with the severity beneath it where the paper is wrong."""
    severity = f"<br><small>{html.escape(claim.severity)}</small>" if claim.severity else ""
    return _badge(claim.verdict) + severity


def _claim(claim: Claim) -> str:
    return f"<b>{to_html(claim.where)}</b><br>{to_html(claim.statement)}"


def _finding(claim: Claim) -> str:
    return f"<small>{to_html(claim.finding)}</small>"


def counts_text(claims: Sequence[Claim]) -> str:
    """How many ``claims`` got each verdict that one got, in words: ``"3 claims: 2
    reproduced, 1 indicative"``."""
    counts = [f"{n} {verdict}" for verdict, n in verdict_counts(claims).items() if n]
    return f"{len(claims)} claim{'s' if len(claims) != 1 else ''}: " + ", ".join(counts)


def chapter_link(chapter: str, titles: Mapping[str, str]) -> str:
    """An HTML link to the book's chapter ``chapter`` (file name without extension), shown
    by its title in ``titles`` (else by its file name)."""
    title = html.escape(titles.get(chapter, chapter))
    return f"<a href='{html.escape(chapter)}.html'>{title}</a>"


def claims_html(claims: Sequence[Claim] | Mapping[str, Sequence[Claim]],
                titles: Mapping[str, str] | None = None, fold: bool = False) -> str:
    """One row per claim: where and the statement, what we find, and the verdict as a badge
    (with the severity where the paper is wrong). The table fills the width of the column it
    stands in and no more.

    Parameters
    ----------
    claims : sequence of Claim, or mapping
        The claims; or chapter file name (without extension) to the claims whose evidence
        that chapter holds: the rows then come in one group per chapter, under a band that
        links to it.
    titles : mapping, optional
        Chapter file name to title, for the links (default: the file names).
    fold : bool
        With claims by chapter: each chapter's claims in a table of their own, folded behind
        its band and the count of its verdicts (:func:`~fedlib.table.folded`), for a list of
        claims many screens long.
    """
    by_chapter = claims if isinstance(claims, Mapping) else {"": claims}
    head = [("Claim", 33), ("We find", 44), ("Verdict", 23)]

    def rows(chapter_claims: Sequence[Claim]) -> list[str]:
        return [fitted_row([_claim(c), _finding(c), _verdict(c)]) for c in chapter_claims]

    def band(chapter: str) -> str:
        return f"Evidence: {chapter_link(chapter, titles or {})}"

    if fold and isinstance(claims, Mapping):
        return "".join(folded(f"{band(chapter)} ({counts_text(chapter_claims)})",
                              fitted_table(head, "".join(rows(chapter_claims))))
                       for chapter, chapter_claims in claims.items())
    body = []
    for chapter, chapter_claims in by_chapter.items():
        if chapter:
            body.append(f"<tr><td colspan='3' {_BAND}>{band(chapter)}</td></tr>")
        body += rows(chapter_claims)
    return fitted_table(head, "".join(body))


def reading_pairs_html(pairs: Sequence[ReadingPair], default: str, other: str,
                       missing: str = "not stored") -> str:
    """Each claim under two readings of the paper side by side (:class:`~fedlib.analysis.
    claims.ReadingPair`): the claim, then per reading the verdict and the finding, then
    whether the verdict changes (``yes``, ``no``, or a dash where the other reading was not
    checked, its cell saying ``missing``).

    Parameters
    ----------
    pairs : sequence of ReadingPair
    default, other : str
        Headers of the two readings (short: the columns are narrow).
    missing : str
        What the other reading's cell says where its claim is None.
    """
    def cell(claim: Claim | None) -> str:
        if claim is None:
            return f"<small><i>{html.escape(missing)}</i></small>"
        return f"{_verdict(claim)}<br>{_finding(claim)}"

    changes = {True: "<b>yes</b>", False: "no", None: "&ndash;"}
    return fitted_table([("Claim", 26), (default, 29), (other, 29), ("Verdict changes?", 16)],
                        [[_claim(p.default), cell(p.default), cell(p.other), changes[p.changes]]
                         for p in pairs])


@styled
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
    ax.set_yticks(y, [textwrap.fill(titles.get(c, c), 26) for c in chapters])
    ax.set_xlabel("claims checked")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.legend(ncols=3, loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
    ax.set_title("The paper's claims, by the chapter that checks them", pad=46)
    return fig
