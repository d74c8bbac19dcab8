"""The certificate of a mechanism: every property's verdict against what the mechanism claims,
the smallest counterexample of each property that fails, what was tried, and where.

A claimed property that holds on every case tried is *certified*; one with a counterexample
is *refuted*. ``well_defined`` is claimed by every mechanism. :func:`fedlib.conformance.report.save`
writes the certificate as JSON (:meth:`Certificate.to_dict`) and as an HTML report for a person.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fedlib import __version__
from fedlib.analysis.conformance import DESCRIPTIONS, IMPLIES
from fedlib.analysis.conformance_search import Search, Verdict
from fedlib.conformance.comparison import Comparison
from fedlib.conformance.federated import FederatedComparison
from fedlib.table import Markup, Table, html_table

#: Version of the certificate's JSON layout.
SCHEMA = 1


#: The colour of each verdict.
COLOURS = {"certified": "#1b7837", "REFUTED": "#b2182b", "holds (not claimed)": "#4d4d4d",
           "fails (not claimed)": "#8c510a"}


def status(verdict: Verdict, claims: frozenset[str]) -> str:
    """``"certified"``, ``"REFUTED"``, ``"holds (not claimed)"`` or ``"fails (not claimed)"``."""
    if verdict.property in claims:
        return "certified" if verdict.holds else "REFUTED"
    return "holds (not claimed)" if verdict.holds else "fails (not claimed)"


def verdict_table(search: Search, claims: frozenset[str], title: str = "") -> Table:
    """One row per property: its verdict against the claims (:func:`status`), the cases
    checked, the violations and the smallest counterexample in a sentence (for running time,
    what was measured); the title says what was tried, after ``title``."""
    rows = tuple((v.property, status(v, claims), v.checks, v.violations,
                  v.measured if v.counterexample is None else v.counterexample.text)
                 for v in search.verdicts)
    return Table(("property", "verdict", "cases", "violated", "smallest counterexample"), rows,
                 title=f"{title}{search.cases} instances ({search.random_cases} random), "
                       f"{search.plays} plays")


def verdict_html(search: Search, claims: frozenset[str], meaning: bool = False) -> str:
    """:func:`verdict_table` as HTML, each verdict in its colour (:data:`COLOURS`), text
    columns aligned left; with ``meaning``, what each property means beside its name."""
    table = verdict_table(search, claims)
    rows = []
    for prop, verdict, *numbers, found in table.rows:
        described = (DESCRIPTIONS[prop],) if meaning else ()
        rows.append((Markup(f"<b>{prop}</b>"), *described,
                     Markup(f'<b style="color:{COLOURS[verdict]}">{verdict}</b>'), *numbers,
                     found))
    columns = (table.columns[0], *(("meaning",) if meaning else ()), *table.columns[1:])
    align = ["left", *(["left"] if meaning else []), "left", "right", "right", "left"]
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
        """Every claimed property held."""
        return not self.refuted

    def table(self) -> Table:
        """:func:`verdict_table` of the search against the claims."""
        return verdict_table(self.search, self.claims, f"{self.mechanism.label}: ")

    def summary(self) -> str:
        """The certificate in a few lines of text: the verdict, then the table."""
        head = (f"{self.mechanism.label} ({self.source}): "
                + ("every claimed property held" if self.passed
                   else f"REFUTED: {', '.join(self.refuted)}"))
        notes = [f"{part} not run: {why}" for part, why in self.skipped.items()]
        return "\n".join([head, str(self.table()), *notes])

    def __repr__(self) -> str:
        return self.summary()

    def _repr_html_(self) -> str:
        return verdict_html(self.search, self.claims)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: everything above, each verdict with its counterexample."""
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
            "comparison": None if self.comparison is None else self.comparison.to_dict(),
            "federated": None if self.federated is None else self.federated.to_dict(),
            "skipped": self.skipped, "environment": self.environment}
