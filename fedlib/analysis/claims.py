"""A claim and whether it holds: the one shape in which every analysis reports what it checks.

A :class:`Claim` says where it is made (a table, figure, theorem or section of the paper, or a
chapter for what the book asserts beyond the paper), the statement, what fedlib finds (with the
numbers it computed) and a verdict, one of :data:`VERDICTS`:

* ``"reproduced"``: our computation supports the claim everywhere it was checked (on seeds:
  significantly, :func:`~fedlib.analysis.seed_statistics.statement_verdict`);
* ``"indicative"``: it held in every seed, but on too few seeds to be significant (3 of 3);
* ``"partly"``: it holds in some settings, seeds or datasets and not in others;
* ``"not reproduced"``: our computation does not support it;
* ``"the paper is wrong"``: a counterexample or an algebraic identity refutes it.

A claim holds exactly when it is reproduced. :meth:`Claim.from_checks` turns several checks
of one statement (per dataset or point of a sweep) into a claim by :func:`share_verdict`; a
statement checked once per seed of a federated run, or a printed number compared with the
runs of several seeds, is judged by the rules of :mod:`fedlib.analysis.seed_statistics`
(:meth:`Claim.over_seeds`, :meth:`Claim.of_number`), and the claim carries the per-seed
evidence (:class:`SeedEvidence`).

Three kinds of claim are counted apart (:data:`KINDS`): a ``"statement"`` the paper makes (an
ordering, a comparison, a theorem); a printed table ``"cell"`` set beside ours, so that the rows
of a table do not outnumber the paper's conclusions in a count of verdicts; and a ``"reading"``,
a check of whether the paper's tables are consistent with each other under one reading of it,
which the book asks and the paper does not claim.

Where the paper is wrong, the claim also says how badly, one of :data:`SEVERITIES`:

* ``"false theorem"``: a stated theorem or property is false (a counterexample satisfies its
  assumptions and violates its conclusion);
* ``"proof error"``: a step of a proof is false, whether or not the theorem survives;
* ``"typo"``: a misprinted formula whose intended form the context makes clear; taken
  literally it says something else (a term cancels, a superscript is off by one task).

A claim of the same statement under two readings of the paper (say, a fresh model per task and
one carried across tasks) is a :class:`ReadingPair`; :func:`pair_readings` matches them up.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from fedlib.analysis.seed_statistics import (
    SeedStatistic,
    number_verdict,
    sign_test_p,
    statement_verdict,
)

#: The verdicts, from best to worst for the paper.
VERDICTS = ("reproduced", "indicative", "partly", "not reproduced", "the paper is wrong")

#: How badly the paper is wrong where it is (see the module's docstring).
Severity = Literal["false theorem", "proof error", "typo"]
#: The severities, from worst to mildest.
SEVERITIES: tuple[Severity, ...] = get_args(Severity)
#: What a claim is about: a statement of the paper, one printed number of a table, or the
#: consistency of the paper's tables under one reading.
Kind = Literal["statement", "cell", "reading"]
KINDS: tuple[Kind, ...] = get_args(Kind)


def share_verdict(checks: Sequence[bool]) -> str:
    """``"reproduced"`` if every check holds, ``"not reproduced"`` if none, else ``"partly"``.

    Examples
    --------
    >>> share_verdict([True, True]), share_verdict([True, False]), share_verdict([False])
    ('reproduced', 'partly', 'not reproduced')
    """
    if len(checks) == 0:
        raise ValueError("a verdict needs at least one check")
    if all(checks):
        return "reproduced"
    return "partly" if any(checks) else "not reproduced"


@dataclass(frozen=True)
class SeedEvidence:
    """What a claim judged on several seeds rests on.

    Attributes
    ----------
    statistic : SeedStatistic
        The number the claim is about, per seed, with its mean and 95% interval.
    checks : tuple of bool
        Per seed (the statistic's order), whether the statement held in that seed's run.
    """

    statistic: SeedStatistic
    checks: tuple[bool, ...]

    def __post_init__(self) -> None:
        if len(self.checks) != self.statistic.n:
            raise ValueError(f"one check per seed: {len(self.checks)} checks for "
                             f"{self.statistic.n} seeds")

    @property
    def held(self) -> int:
        """In how many seeds the statement held."""
        return sum(self.checks)

    def holds_in(self) -> str:
        """``"k of n seeds"``."""
        return f"{self.held} of {len(self.checks)} seeds"


@dataclass(frozen=True)
class Claim:
    """One statement, what we found and our verdict.

    Attributes
    ----------
    where : str
        What the claim is about: a table, figure, theorem or section of the paper, or for a
        claim beyond the paper the setting the book checks it in.
    statement : str
        The paper's statement (in its words or close to them), or what the book asserts.
    finding : str
        What we find, with the numbers behind the verdict.
    verdict : str
        One of :data:`VERDICTS`.
    severity : str or None
        One of :data:`SEVERITIES` when the verdict is ``"the paper is wrong"``, else None.
    kind : str
        One of :data:`KINDS`.
    seeds : SeedEvidence or None
        The per-seed evidence of a claim judged on several seeds.
    """

    where: str
    statement: str
    finding: str
    verdict: str
    severity: Severity | None = None
    kind: Kind = "statement"
    seeds: SeedEvidence | None = None

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        wrong = self.verdict == "the paper is wrong"
        if wrong and self.severity not in SEVERITIES:
            raise ValueError(f"where the paper is wrong the severity must be one of "
                             f"{SEVERITIES}, got {self.severity!r}")
        if not wrong and self.severity is not None:
            raise ValueError(f"only a claim that finds the paper wrong has a severity, got "
                             f"{self.severity!r} with verdict {self.verdict!r}")

    @property
    def holds(self) -> bool:
        """Whether the statement holds: exactly when it is reproduced."""
        return self.verdict == "reproduced"

    @classmethod
    def from_checks(cls, where: str, statement: str, finding: str,
                    checks: Sequence[bool]) -> Claim:
        """The claim that holds when every one of ``checks`` holds, its verdict by
        :func:`share_verdict` (one check: ``"reproduced"`` or ``"not reproduced"``)."""
        return cls(where, statement, finding, share_verdict([bool(c) for c in checks]))

    @classmethod
    def over_seeds(cls, where: str, statement: str, finding: str, statistic: SeedStatistic,
                   checks: Sequence[bool]) -> Claim:
        """A statement checked in the run of every seed of ``statistic``, judged by
        :func:`~fedlib.analysis.seed_statistics.statement_verdict`; the finding ends with how
        many seeds it held in."""
        evidence = SeedEvidence(statistic, tuple(bool(c) for c in checks))
        verdict = statement_verdict(evidence.checks)
        p = sign_test_p(evidence.held, len(evidence.checks))
        test = (f" (sign test p = {p:.3g}: too few seeds to be significant)"
                if verdict == "indicative" else "")
        return cls(where, statement, f"{finding}; holds in {evidence.holds_in()}{test}",
                   verdict, seeds=evidence)

    @classmethod
    def of_number(cls, where: str, statement: str, statistic: SeedStatistic, paper: float,
                  digits: int) -> Claim:
        """A printed table cell: the paper's number ``paper`` (printed to ``digits`` decimals)
        against ours over the seeds of ``statistic``, judged by
        :func:`~fedlib.analysis.seed_statistics.number_verdict` (the 95% prediction interval
        for one run); per seed, whether the paper's number lies within half a unit of its last
        digit of that seed's value."""
        half_unit = 0.5 * 10.0**-digits
        evidence = SeedEvidence(statistic, tuple(abs(v - paper) <= half_unit
                                                 for v in statistic.values))
        verdict = number_verdict(statistic, paper, digits)
        if statistic.constant:
            place = "that value" if verdict == "reproduced" else "a value no seed gave"
            finding = f"ours {statistic.describe(digits)}; paper {paper:.{digits}f}, {place}"
        else:
            low, high = statistic.prediction()
            place = "within" if verdict == "reproduced" else "outside"
            finding = (f"ours {statistic.describe(digits)}; 95% prediction interval for one run "
                       f"[{low:.{digits}f}, {high:.{digits}f}]; paper {paper:.{digits}f}, "
                       f"{place} it")
        return cls(where, statement, finding, verdict, kind="cell", seeds=evidence)


def verdict_counts(claims: Sequence[Claim], kind: Kind | None = None) -> dict[str, int]:
    """How many claims (of ``kind``, or of every kind) got each verdict (every verdict present,
    possibly 0), in the order of :data:`VERDICTS`."""
    chosen = [c for c in claims if kind is None or c.kind == kind]
    return {v: sum(c.verdict == v for c in chosen) for v in VERDICTS}


@dataclass(frozen=True)
class ReadingPair:
    """One claim as fedlib checks it by default and as it checks it with an open setting
    changed (a pair of stored runs that differ in one named parameter).

    Attributes
    ----------
    default : Claim
        The claim as checked with fedlib's defaults.
    other : Claim or None
        The same statement (same ``where`` and ``statement``) with the setting changed; None
        where the runs it needs are not stored.
    """

    default: Claim
    other: Claim | None

    @property
    def changes(self) -> bool | None:
        """Whether the verdict differs under the other reading (None: not checked)."""
        return None if self.other is None else self.other.verdict != self.default.verdict


def pair_readings(default: Sequence[Claim], other: Sequence[Claim]) -> list[ReadingPair]:
    """Each claim of ``default`` with the claim of ``other`` that has its ``where`` and
    ``statement`` (None if there is none), in the order of ``default``.

    Examples
    --------
    >>> fresh = [Claim("Table 2", "s", "0.0", "not reproduced"),
    ...          Claim("Table 3", "t", "2.3", "not reproduced")]
    >>> carried = [Claim("Table 2", "s", "1.0", "reproduced")]
    >>> [p.changes for p in pair_readings(fresh, carried)]
    [True, None]
    """
    def keyed(claims: Sequence[Claim], which: str) -> dict[tuple[str, str], Claim]:
        keys = [(c.where, c.statement) for c in claims]
        if len(set(keys)) < len(keys):
            raise ValueError(f"two {which} claims share a where and statement")
        return dict(zip(keys, claims, strict=True))

    base, alternative = keyed(default, "default"), keyed(other, "other")
    unmatched = set(alternative) - set(base)
    if unmatched:
        raise ValueError(f"claims of the other reading match no default claim: "
                         f"{sorted(unmatched)}")
    return [ReadingPair(claim, alternative.get(key)) for key, claim in base.items()]
