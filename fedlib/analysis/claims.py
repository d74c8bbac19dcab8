"""A claim and whether it holds: the one shape in which every analysis reports what it checks.

A :class:`Claim` says where it is made (a table, figure, theorem or section of the paper, or a
chapter for what the book asserts beyond the paper), the statement, what fedlib finds (with the
numbers it computed), whether the statement holds, and a verdict, one of :data:`VERDICTS`:

* ``"reproduced"``: our computation supports the claim everywhere it was checked;
* ``"partly"``: it holds in some settings, seeds or datasets and not in others;
* ``"not reproduced"``: our computation does not support it;
* ``"the paper is wrong"``: a counterexample or an algebraic identity refutes it.

A claim holds exactly when it is reproduced. :meth:`Claim.from_checks` turns several checks
of one statement (per dataset, seed or point of a sweep) into a claim by :func:`share_verdict`.

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

#: The verdicts, from best to worst for the paper.
VERDICTS = ("reproduced", "partly", "not reproduced", "the paper is wrong")

#: How badly the paper is wrong where it is (see the module's docstring).
Severity = Literal["false theorem", "proof error", "typo"]
#: The severities, from worst to mildest.
SEVERITIES: tuple[Severity, ...] = get_args(Severity)


def share_verdict(checks: Sequence[bool]) -> str:
    """``"reproduced"`` if every check holds, ``"not reproduced"`` if none, else ``"partly"``.

    Raises
    ------
    ValueError
        If there is no check.

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
class Claim:
    """One statement, what we found and whether it holds.

    Attributes
    ----------
    where : str
        What the claim is about: a table, figure, theorem or section of the paper, or for a
        claim beyond the paper the setting the book checks it in.
    statement : str
        The paper's statement (in its words or close to them), or what the book asserts.
    finding : str
        What we find, with the numbers behind the verdict.
    holds : bool
        Whether the statement holds; true exactly when the verdict is ``"reproduced"``.
    verdict : str
        One of :data:`VERDICTS`.
    severity : str or None
        One of :data:`SEVERITIES` when the verdict is ``"the paper is wrong"``, else None.

    Raises
    ------
    ValueError
        If the verdict is not one of :data:`VERDICTS`, ``holds`` disagrees with it, or the
        severity is missing from a claim that finds the paper wrong (or given to another).
    """

    where: str
    statement: str
    finding: str
    holds: bool
    verdict: str
    severity: Severity | None = None

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")
        if self.holds != (self.verdict == "reproduced"):
            raise ValueError(f"a claim holds exactly when it is reproduced, got holds="
                             f"{self.holds} with verdict {self.verdict!r}")
        wrong = self.verdict == "the paper is wrong"
        if wrong and self.severity not in SEVERITIES:
            raise ValueError(f"where the paper is wrong the severity must be one of "
                             f"{SEVERITIES}, got {self.severity!r}")
        if not wrong and self.severity is not None:
            raise ValueError(f"only a claim that finds the paper wrong has a severity, got "
                             f"{self.severity!r} with verdict {self.verdict!r}")

    @classmethod
    def from_checks(cls, where: str, statement: str, finding: str,
                    checks: Sequence[bool]) -> Claim:
        """The claim that holds when every one of ``checks`` holds, its verdict by
        :func:`share_verdict` (one check: ``"reproduced"`` or ``"not reproduced"``)."""
        verdict = share_verdict([bool(c) for c in checks])
        return cls(where, statement, finding, verdict == "reproduced", verdict)


def verdict_counts(claims: Sequence[Claim]) -> dict[str, int]:
    """How many claims got each verdict (every verdict present, possibly 0), in the order of
    :data:`VERDICTS`."""
    return {v: sum(c.verdict == v for c in claims) for v in VERDICTS}


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

    Raises
    ------
    ValueError
        If a claim of ``other`` matches no claim of ``default``, or two claims of either
        share a ``where`` and ``statement``.

    Examples
    --------
    >>> fresh = [Claim.from_checks("Table 2", "s", "0.0", [False]),
    ...          Claim.from_checks("Table 3", "t", "2.3", [False])]
    >>> carried = [Claim.from_checks("Table 2", "s", "1.0", [True])]
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
