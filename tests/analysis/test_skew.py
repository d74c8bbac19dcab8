"""The label-skew analyses on hand-made records of four workers, one of each kind."""

from __future__ import annotations

import numpy as np
import pytest

from fedlib.analysis.skew import (
    KINDS,
    exclusion,
    kind_means,
    kind_paths,
    kind_shares,
    record_matrices,
    worker_kinds,
)

#: Workers 0-3: clean skewed, clean balanced, noisy skewed, noisy balanced.
KIND = worker_kinds([1.0, 1.0, 0.4, 0.1], [True, False, True, False])
RECORDS = [
    {"task": 0, "winners": [0, 1, 3], "payments": [2.0, 4.0, 2.0],
     "contribution": [0.5, 1.0, 0.25], "re": [0.4, 0.9, 0.2], "Re": [0.45, 0.7, 0.5, 0.35]},
    {"task": 1, "winners": [1, 2], "payments": [5.0, 1.0],
     "contribution": [1.0, 0.5], "re": [1.0, 0.3], "Re": [0.45, 0.85, 0.4, 0.35]},
    {"task": 2, "winners": [1, 2], "payments": [6.0, 0.0],
     "contribution": [0.75, 0.25], "re": [0.8, 0.0], "Re": [0.45, 0.8, 0.2, 0.35]},
    {"task": 3, "winners": [], "payments": [], "contribution": [], "re": [],
     "Re": [0.45, 0.8, 0.2, 0.35]},
]


def test_worker_kinds_cross_noise_and_skew():
    assert KIND.tolist() == list(KINDS)
    with pytest.raises(ValueError, match="one length"):
        worker_kinds([1.0, 0.5], [True])


def test_record_matrices():
    m = record_matrices(RECORDS, 4)
    assert m["won"].sum(axis=0).tolist() == [1, 3, 2, 1]
    assert m["payment"][0].tolist() == [2.0, 4.0, 0.0, 2.0]
    assert np.isnan(m["contribution"][1, 0]) and m["re"][2, 2] == 0.0
    assert m["Re"].shape == (4, 4) and m["Re"][-1, 2] == 0.2


def test_kind_shares_of_payments_and_places():
    shares = kind_shares(RECORDS, KIND)
    assert list(shares) == list(KINDS)
    assert [shares[kind]["payments"] for kind in KINDS] == pytest.approx([0.1, 0.75, 0.05, 0.1])
    assert [shares[kind]["winners"] for kind in KINDS] == pytest.approx([1 / 7, 3 / 7, 2 / 7,
                                                                         1 / 7])
    empty = kind_shares(RECORDS[3:], KIND)["clean skewed"]
    assert np.isnan(empty["payments"]) and np.isnan(empty["winners"])


def test_exclusion_counts_workers_who_won_and_then_lost_the_tail():
    start, shares = exclusion(RECORDS, KIND, tail=2)
    assert start.tolist() == [1, 3, 3, 1]  # the task after each worker's last win
    assert {kind: s["excluded"] for kind, s in shares.items()} == {
        "clean skewed": 1.0, "clean balanced": 0.0, "noisy skewed": 0.0, "noisy balanced": 1.0}
    _, shares = exclusion(RECORDS, KIND, tail=3)
    assert shares["clean skewed"]["excluded"] == 1.0 and shares["noisy balanced"]["excluded"] == 1
    _, shares = exclusion(RECORDS, KIND, tail=4)  # nobody lost all four tasks after a win
    assert all(s["excluded"] == 0.0 for s in shares.values())
    never = exclusion(RECORDS[1:], KIND, tail=1)
    assert never[0][0] == 0 and never[1]["clean skewed"] == {"excluded": 0.0, "never_won": 1.0}


@pytest.mark.parametrize("tail", [0, 5, 1.5])
def test_exclusion_tail_must_fit_the_run(tail):
    with pytest.raises(ValueError, match="tail"):
        exclusion(RECORDS, KIND, tail=tail)


def test_kind_paths_task_by_task():
    paths = kind_paths(RECORDS, KIND)
    np.testing.assert_allclose(paths["clean balanced"]["contribution"], [1.0, 1.0, 0.75, np.nan])
    np.testing.assert_allclose(paths["noisy skewed"]["re"], [np.nan, 0.3, 0.0, np.nan])
    np.testing.assert_allclose(paths["noisy skewed"]["Re"], [0.5, 0.4, 0.2, 0.2])
    np.testing.assert_allclose(paths["clean skewed"]["won"], [1.0, 0.0, 0.0, 0.0])


def test_kind_means_over_the_run():
    means = kind_means(RECORDS, KIND)
    assert means["noisy skewed"] == pytest.approx({"contribution": 0.375, "re": 0.15,
                                                   "Re": 0.325, "final_Re": 0.2})
    assert means["clean skewed"]["contribution"] == 0.5
    only_two = kind_means(RECORDS, worker_kinds([1.0, 1.0, 1.0, 1.0], [False] * 4))
    assert list(only_two) == ["clean balanced"]
    assert only_two["clean balanced"]["contribution"] == pytest.approx(4.25 / 7)
