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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: The verdicts, from best to worst for the paper.
VERDICTS = ("reproduced", "partly", "not reproduced", "the paper is wrong")


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

    Raises
    ------
    ValueError
        If the verdict is not one of :data:`VERDICTS`, or ``holds`` disagrees with it.
    """

    where: str
    statement: str
    finding: str
    holds: bool
    verdict: str

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")
        if self.holds != (self.verdict == "reproduced"):
            raise ValueError(f"a claim holds exactly when it is reproduced, got holds="
                             f"{self.holds} with verdict {self.verdict!r}")

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
