"""The certificate of a mechanism: every property's verdict against what the mechanism claims,
the smallest counterexample of each property that fails, the field's measures (ex-post regret,
IR violation, budget overrun), what was tried, and where.

A search is finite: a claimed property without a counterexample reads *no counterexample in*
the instances, workers and misreports searched (:attr:`~fedlib.conformance.search.
Verdict.finding`), never more; one with a counterexample is *refuted*. ``well_defined`` is
claimed by every mechanism. :func:`fedlib.conformance.report.save` writes the certificate as
JSON (:meth:`Certificate.to_dict`) and as an HTML report for a person.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

from fedlib import __version__
from fedlib.conformance.comparison import Comparison
from fedlib.conformance.federated_run import FederatedComparison
from fedlib.conformance.protocol import DESCRIPTIONS, IMPLIES
from fedlib.conformance.search import PAPER_CASES, CaseMeasure, Search, Verdict
from fedlib.paper import examples
from fedlib.table import Markup, Table, html_table

#: Version of the certificate's JSON layout.
SCHEMA = 2


#: The verdict of a claimed property without a counterexample: what a finite search can say.
NO_COUNTEREXAMPLE = "no counterexample"
#: The colour of each verdict.
COLOURS = {NO_COUNTEREXAMPLE: "#1b7837", "REFUTED": "#b2182b",
           f"{NO_COUNTEREXAMPLE} (not claimed)": "#4d4d4d", "fails (not claimed)": "#8c510a"}
#: The origin of Theorem 4's counterexample among the paper's cases.
THEOREM4_ORIGIN = PAPER_CASES[0][0]


def status(verdict: Verdict, claims: frozenset[str]) -> str:
    """``"no counterexample"``, ``"REFUTED"``, ``"no counterexample (not claimed)"`` or
    ``"fails (not claimed)"``."""
    if verdict.property in claims:
        return NO_COUNTEREXAMPLE if verdict.holds else "REFUTED"
    return f"{NO_COUNTEREXAMPLE} (not claimed)" if verdict.holds else "fails (not claimed)"


def verdict_table(search: Search, claims: frozenset[str], title: str = "") -> Table:
    """One row per property: its verdict against the claims (:func:`status`), the checks,
    the violations, what was searched (:attr:`~fedlib.conformance.search.Verdict.
    finding`), its measure, and the smallest counterexample in a sentence; the title says what
    was tried, after ``title``."""
    rows = tuple((v.property, status(v, claims), v.checks, v.violations, v.finding,
                  "" if v.measure is None else v.measure.text,
                  "" if v.counterexample is None else v.counterexample.text)
                 for v in search.verdicts)
    return Table(("property", "verdict", "checks", "violated", "finding", "measure",
                  "smallest counterexample"), rows,
                 title=f"{title}{search.cases} instances ({search.random_cases} random) of up "
                       f"to {search.largest} workers, {search.plays} plays")


def measures_table(search: Search) -> Table:
    """The overall measures (:attr:`~fedlib.conformance.search.Search.measures`),
    one row each: mean and maximum, absolute and relative, and the checks behind them."""
    rows = tuple((name, m.mean, m.max, m.relative_to, m.relative_mean, m.relative_max, m.count)
                 for name, m in search.measures.items())
    return Table(("measure", "mean", "max", "relative to", "relative mean", "relative max",
                  "checks"), rows,
                 title="Regret per examined worker, IR violation per winner bidding its cost, "
                       "budget overrun per play")


def theorem4_text(case: CaseMeasure | None) -> str:
    """The regret on Theorem 4's counterexample (:data:`fedlib.paper.examples.THEOREM4`), in a
    sentence ('' when it was not searched)."""
    if case is None:
        return ""
    example = examples.THEOREM4
    who = ("" if case.worker is None else
           f" (worker {case.worker + 1}, {case.relative_regret:.1%} of its cost)")
    return (f"Theorem 4's counterexample (B = {example.budget:g}, bids "
            f"{', '.join(f'{b:g}' for b in example.bids)}): regret {case.regret:.4g}{who}")


def verdict_html(search: Search, claims: frozenset[str], meaning: bool = False) -> str:
    """:func:`verdict_table` as HTML, each verdict in its colour (:data:`COLOURS`), text
    columns aligned left; with ``meaning``, what each property means beside its name."""
    table = verdict_table(search, claims)
    rows = []
    for prop, verdict, *numbers, finding, measure, found in table.rows:
        described = (DESCRIPTIONS[prop],) if meaning else ()
        rows.append((Markup(f"<b>{prop}</b>"), *described,
                     Markup(f'<b style="color:{COLOURS[verdict]}">{verdict}</b>'), *numbers,
                     finding, measure, found))
    columns = (table.columns[0], *(("meaning",) if meaning else ()), *table.columns[1:])
    align = ["left", *(["left"] if meaning else []), "left", "right", "right", "left", "left",
             "left"]
    return html_table(columns, rows, caption=table.title, align=align)  # type: ignore[arg-type]


@dataclass(frozen=True, eq=False, repr=False)
class Certificate:
    """What :func:`~fedlib.conformance.check_mechanism` found.

    Attributes
    ----------
    mechanism
        The mechanism checked.
    source : str
        Where it came from (``PATH.py:CLASS``, ``MODULE:CLASS`` or the Python object's class).
    claims : frozenset of str
        The properties claimed, with what they imply and ``well_defined``.
    search : Search
        The verdicts and what the search tried.
    comparison : Comparison or None
        The Figures 4-5 sweeps beside the seven (None when not run).
    federated : FederatedComparison or None
        The multi-task runs beside ours (None when not run).
    skipped : dict
        Part (``"comparison"``, ``"federated"``) -> why it did not run or stopped.
    environment : dict
        :func:`fedlib.storage.environment.fingerprint` of the machine, on the device (and
        with the threads) of the federated runs, the CPU without them.
    created : str
        When (UTC, ISO 8601).
    fedlib_version : str
    """

    mechanism: Any
    source: str
    claims: frozenset[str]
    search: Search
    comparison: Comparison | None
    federated: FederatedComparison | None
    skipped: dict[str, str]
    environment: dict[str, Any]
    created: str
    fedlib_version: str = field(default=__version__)

    def status(self, verdict: Verdict) -> str:
        """The verdict against the claims (:func:`status`)."""
        return status(verdict, self.claims)

    @property
    def refuted(self) -> tuple[str, ...]:
        """The claimed properties that failed, or that could not be judged."""
        judged = {v.property: v.holds for v in self.search.verdicts}
        return tuple(p for p in DESCRIPTIONS if p in self.claims and not judged.get(p, False))

    @property
    def passed(self) -> bool:
        """No counterexample to any claimed property was found."""
        return not self.refuted

    def table(self) -> Table:
        """:func:`verdict_table` of the search against the claims."""
        return verdict_table(self.search, self.claims, f"{self.mechanism.label}: ")

    @property
    def theorem4(self) -> CaseMeasure | None:
        """The measures of Theorem 4's counterexample (None when the paper's cases were not
        searched)."""
        return self.search.case(THEOREM4_ORIGIN)

    def summary(self) -> str:
        """The certificate in a few lines of text: the verdict, the table, the measures and
        the regret on Theorem 4's counterexample."""
        head = (f"{self.mechanism.label} ({self.source}): "
                + (f"{NO_COUNTEREXAMPLE} to any claimed property in this search" if self.passed
                   else f"REFUTED: {', '.join(self.refuted)}"))
        notes = [f"{part} not run: {why}" for part, why in self.skipped.items()]
        theorem4 = theorem4_text(self.theorem4)
        return "\n".join([head, str(self.table()), str(measures_table(self.search)),
                          *([theorem4] if theorem4 else []), *notes])

    def __repr__(self) -> str:
        return self.summary()

    def _repr_html_(self) -> str:
        theorem4 = theorem4_text(self.theorem4)
        return (verdict_html(self.search, self.claims) + measures_table(self.search)._repr_html_()
                + (f"<p>{html.escape(theorem4)}.</p>" if theorem4 else ""))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: everything above, each verdict with its counterexample, what was
        searched for it and its measure; the overall measures and each case's are in
        ``search``, Theorem 4's case in ``theorem4``."""
        mechanism = self.mechanism
        return {
            "schema": SCHEMA, "fedlib_version": self.fedlib_version, "created": self.created,
            "mechanism": {"name": mechanism.name, "label": mechanism.label,
                          "knows": mechanism.knows, "source": self.source,
                          "declared_claims": sorted(mechanism.claims)},
            "claims": sorted(self.claims), "implies": IMPLIES, "passed": self.passed,
            "refuted": list(self.refuted),
            "properties": [{**v.to_dict(), "claimed": v.property in self.claims,
                            "status": self.status(v), "meaning": DESCRIPTIONS[v.property]}
                           for v in self.search.verdicts],
            "search": self.search.to_dict(),
            "theorem4": None if self.theorem4 is None else self.theorem4.to_dict(),
            "comparison": None if self.comparison is None else self.comparison.to_dict(),
            "federated": None if self.federated is None else self.federated.to_dict(),
            "skipped": self.skipped, "environment": self.environment}
