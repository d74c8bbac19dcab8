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
    SeedEvidence,
    pair_readings,
    share_verdict,
    verdict_counts,
)
from fedlib.analysis.seed_statistics import SeedStatistic


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


def test_unknown_verdicts_and_kinds_are_refused():
    with pytest.raises(ValueError, match="verdict must be one of"):
        Claim("Theorem 9", "x", "y", "probably")
    with pytest.raises(ValueError, match="kind must be one of"):
        Claim("Table 2", "x", "y", "reproduced", kind="row")


@pytest.mark.parametrize("verdict", VERDICTS)
def test_a_claim_holds_exactly_when_it_is_reproduced(verdict):
    severity = "typo" if verdict == "the paper is wrong" else None
    assert Claim("Table 2", "s", "f", verdict, severity).holds == (verdict == "reproduced")


def test_a_refuted_claim_does_not_hold():
    claim = Claim("Theorem 4", "truthfulness", "u = -0.667 < 0", "the paper is wrong",
                  "false theorem")
    assert not claim.holds and claim.severity == "false theorem"
    with pytest.raises(AttributeError):
        claim.verdict = "reproduced"  # frozen


def test_where_the_paper_is_wrong_the_severity_is_required():
    with pytest.raises(ValueError, match="severity must be one of"):
        Claim("Theorem 4", "truthfulness", "u = -0.667 < 0", "the paper is wrong")
    with pytest.raises(ValueError, match="severity must be one of"):
        Claim("Eq. (9)", "s", "f", "the paper is wrong", "misprint")


@pytest.mark.parametrize("verdict", ["reproduced", "partly", "not reproduced"])
def test_only_a_wrong_paper_has_a_severity(verdict):
    with pytest.raises(ValueError, match="only a claim that finds the paper wrong"):
        Claim("Table 2", "s", "f", verdict, "typo")
    assert Claim("Table 2", "s", "f", verdict).severity is None


def test_a_statement_over_seeds_says_in_how_many_it_held():
    statistic = SeedStatistic.of(range(5), [1.0, 1.0, 0.9, 1.0, 1.0])
    claim = Claim.over_seeds("Table 2, MNIST", "only clean", "share", statistic,
                             [v == 1.0 for v in statistic.values])
    # 4 of 5: the sign test gives p = 6/32 > 0.05 and it does not hold in every seed
    assert claim.verdict == "partly" and claim.finding.endswith("holds in 4 of 5 seeds")
    assert claim.seeds.held == 4 and claim.kind == "statement"
    three = Claim.over_seeds("Table 2, MNIST", "only clean", "share",
                             SeedStatistic.of(range(3), [1.0] * 3), [True] * 3)
    assert three.verdict == "indicative"
    assert three.finding.endswith("holds in 3 of 3 seeds (sign test p = 0.125: too few seeds to "
                                  "be significant)")
    with pytest.raises(ValueError, match="one check per seed"):
        SeedEvidence(statistic, (True,))


def test_a_printed_number_against_the_seeds_interval():
    statistic = SeedStatistic.of(range(3), [0.36, 0.37, 0.38])
    inside = Claim.of_number("Table 3, MNIST", "Ours: loss = 0.3747", statistic, 0.3747, 4)
    outside = Claim.of_number("Table 3, MNIST", "Ours: loss = 0.4409", statistic, 0.4409, 4)
    assert (inside.verdict, outside.verdict) == ("reproduced", "not reproduced")
    assert inside.kind == outside.kind == "cell"
    # mean 0.37, s = 0.01, t(2, 0.975) = 4.303: one run within 0.37 +/- 0.0497
    assert "prediction interval for one run [0.3203, 0.4197]" in inside.finding
    assert "within it" in inside.finding and "outside" in outside.finding
    assert inside.seeds.checks == (False, False, False)  # no single seed prints 0.3747


def test_severities_worst_first():
    assert SEVERITIES == ("false theorem", "proof error", "typo")


def test_verdict_counts():
    claims = [Claim.from_checks("a", "s", "f", [True]),
              Claim.from_checks("b", "s", "f", [True, False]),
              Claim.from_checks("c", "s", "f", [True])]
    counts = verdict_counts(claims)
    assert list(counts) == list(VERDICTS)
    assert counts == {"reproduced": 2, "indicative": 0, "partly": 1, "not reproduced": 0,
                      "the paper is wrong": 0}
    assert verdict_counts([]) == dict.fromkeys(VERDICTS, 0)
    cell = Claim("d", "s", "f", "not reproduced", kind="cell")
    assert verdict_counts([*claims, cell], kind="cell")["not reproduced"] == 1
    assert verdict_counts([*claims, cell], kind="statement") == counts


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
