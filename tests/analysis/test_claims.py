"""The claim type: validation, the verdict rule on hand-counted checks, severities, verdict
counts, and claims paired across two readings."""

from __future__ import annotations

import numpy as np
import pytest

from fedlib.analysis.claims import (
    SEVERITIES,
    VERDICTS,
    Claim,
    ReadingPair,
    pair_readings,
    share_verdict,
    verdict_counts,
)


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
    claim = Claim("Theorem 4", "truthfulness", "u = -0.667 < 0", False, "the paper is wrong",
                  "false theorem")
    assert not claim.holds and claim.severity == "false theorem"
    with pytest.raises(AttributeError):
        claim.holds = True  # frozen


def test_where_the_paper_is_wrong_the_severity_is_required():
    with pytest.raises(ValueError, match="severity must be one of"):
        Claim("Theorem 4", "truthfulness", "u = -0.667 < 0", False, "the paper is wrong")
    with pytest.raises(ValueError, match="severity must be one of"):
        Claim("Eq. (9)", "s", "f", False, "the paper is wrong", "misprint")


@pytest.mark.parametrize("verdict", ["reproduced", "partly", "not reproduced"])
def test_only_a_wrong_paper_has_a_severity(verdict):
    with pytest.raises(ValueError, match="only a claim that finds the paper wrong"):
        Claim("Table 2", "s", "f", verdict == "reproduced", verdict, "typo")
    assert Claim("Table 2", "s", "f", verdict == "reproduced", verdict).severity is None


def test_severities_worst_first():
    assert SEVERITIES == ("false theorem", "proof error", "typo")


def test_verdict_counts():
    claims = [Claim.from_checks("a", "s", "f", [True]),
              Claim.from_checks("b", "s", "f", [True, False]),
              Claim.from_checks("c", "s", "f", [True])]
    counts = verdict_counts(claims)
    assert list(counts) == list(VERDICTS)
    assert counts == {"reproduced": 2, "partly": 1, "not reproduced": 0,
                      "the paper is wrong": 0}
    assert verdict_counts([]) == dict.fromkeys(VERDICTS, 0)


def test_pair_readings_matches_where_and_statement():
    fresh = [Claim.from_checks("Table 2, MNIST", "s", "0.0", [False]),
             Claim.from_checks("Table 2, MNIST", "t", "0.5", [True]),
             Claim.from_checks("Table 3, MNIST", "s", "2.3", [False])]
    carried = [Claim.from_checks("Table 3, MNIST", "s", "0.4", [True]),
               Claim.from_checks("Table 2, MNIST", "t", "0.6", [True])]
    pairs = pair_readings(fresh, carried)
    assert [p.default for p in pairs] == fresh  # the default's order
    assert [p.other for p in pairs] == [None, carried[1], carried[0]]
    assert [p.changes for p in pairs] == [None, False, True]
    assert ReadingPair(fresh[0], None).changes is None


def test_pair_readings_refuses_unmatched_or_ambiguous_claims():
    fresh = [Claim.from_checks("Table 2", "s", "0.0", [False])]
    with pytest.raises(ValueError, match="match no default claim"):
        pair_readings(fresh, [Claim.from_checks("Table 2", "other", "1.0", [True])])
    with pytest.raises(ValueError, match="share a where and statement"):
        pair_readings(fresh * 2, [])
