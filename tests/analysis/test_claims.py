"""The claim type: validation, the verdict rule on hand-counted checks, and verdict counts."""

from __future__ import annotations

import numpy as np
import pytest

from fedlib.analysis.claims import VERDICTS, Claim, share_verdict, verdict_counts


@pytest.mark.parametrize("checks,verdict", [
    ([True], "reproduced"), ([True, True, True], "reproduced"),
    ([True, False, True], "partly"), ([False, True], "partly"),
    ([False], "not reproduced"), ([False, False], "not reproduced"),
    (list(np.array([1.0, 2.0]) > 0), "reproduced"),  # numpy booleans count as booleans
])
def test_share_verdict(checks, verdict):
    assert share_verdict(checks) == verdict


def test_a_verdict_needs_a_check():
    with pytest.raises(ValueError, match="at least one"):
        share_verdict([])
    with pytest.raises(ValueError, match="at least one"):
        Claim.from_checks("Table 2", "x", "y", [])


def test_from_checks_holds_only_when_every_check_holds():
    every = Claim.from_checks("Table 2", "s", "f", [True, True])
    some = Claim.from_checks("Table 2", "s", "f", np.array([True, False]))
    assert (every.holds, every.verdict) == (True, "reproduced")
    assert (some.holds, some.verdict) == (False, "partly")
    assert type(some.holds) is bool
    assert (some.where, some.statement, some.finding) == ("Table 2", "s", "f")


def test_unknown_verdicts_are_refused():
    with pytest.raises(ValueError, match="verdict must be one of"):
        Claim("Theorem 9", "x", "y", True, "probably")


@pytest.mark.parametrize("holds,verdict", [
    (False, "reproduced"), (True, "partly"), (True, "not reproduced"),
    (True, "the paper is wrong"),
])
def test_holds_must_agree_with_the_verdict(holds, verdict):
    with pytest.raises(ValueError, match="holds exactly when it is reproduced"):
        Claim("Theorem 4", "truthfulness", "u = -0.667 < 0", holds, verdict)


def test_a_refuted_claim_does_not_hold():
    claim = Claim("Theorem 4", "truthfulness", "u = -0.667 < 0", False, "the paper is wrong")
    assert not claim.holds
    with pytest.raises(AttributeError):
        claim.holds = True  # frozen


def test_verdict_counts():
    claims = [Claim.from_checks("a", "s", "f", [True]),
              Claim.from_checks("b", "s", "f", [True, False]),
              Claim.from_checks("c", "s", "f", [True])]
    counts = verdict_counts(claims)
    assert list(counts) == list(VERDICTS)
    assert counts == {"reproduced": 2, "partly": 1, "not reproduced": 0,
                      "the paper is wrong": 0}
    assert verdict_counts([]) == dict.fromkeys(VERDICTS, 0)
