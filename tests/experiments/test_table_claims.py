"""The claims about Tables 1-3, one per dataset and row, on hand-made runs with known
verdicts."""

from __future__ import annotations

import numpy as np
import pytest

from fedlib.experiments import table_claims
from fedlib.experiments.multitask import TABLE_MECHANISMS, MultiTaskConfig, MultiTaskResult
from fedlib.paper.numbers import TABLE2, TABLE3

GROUPS = ((1.0, 2), (0.7, 1), (0.4, 1), (0.1, 1))  # workers 0-1 clean, 2-4 noisier
DACCS = np.array([1.0, 1.0, 0.7, 0.4, 0.1])
CLEAN, MIXED = [0, 1], [0, 4]


def _run(dataset, mechanism, tasks, *, ordered=True):
    """One run whose evaluated tasks are ``tasks``, each (winners, final test loss), after a
    first task that everybody wins; each winner's contribution, payment and reputation rise
    with its dacc when ``ordered``, fall otherwise."""
    tasks = [(range(DACCS.size), 2.0), *tasks]
    config = MultiTaskConfig(dataset=dataset, mechanism=mechanism, n_tasks=len(tasks),
                             eval_from=1, groups=GROUPS)
    score = DACCS if ordered else 1.1 - DACCS
    records = tuple({"task": t, "winners": list(winners),
                     "payments": [2 * score[w] for w in winners],
                     "contribution": [score[w] for w in winners],
                     "re": [score[w] for w in winners], "Re": list(score),
                     "rounds": {"test_loss": [2.0, loss]}}
                    for t, (winners, loss) in enumerate(tasks))
    return MultiTaskResult(config, records, 0.0)


def _runs(mnist_holds):
    """Both datasets, every mechanism, two tasks each. On MNIST ours hires only clean workers
    and has the smallest loss when ``mnist_holds``; on Fashion-MNIST it never does."""
    runs = {}
    for dataset, holds in (("mnist", mnist_holds), ("fashion", False)):
        for mechanism in TABLE_MECHANISMS:
            ours = mechanism in ("ours", "rrafl")
            winners = CLEAN if ours and holds else MIXED
            loss = 0.3 if ours and holds else 0.5
            if mechanism == "rrafl":
                loss = 0.1  # below ours: it must not count against ours
            runs[dataset, mechanism] = _run(dataset, mechanism, [(winners, loss)] * 2,
                                            ordered=holds)
    return runs


def test_tolerance_is_two_standard_errors():
    assert table_claims.tolerance([0.40, 0.48]) == pytest.approx(2 * 0.04)
    assert table_claims.tolerance([1.0, 1.0, 1.0]) == 0.0
    assert np.isnan(table_claims.tolerance([0.5]))


def test_statements_one_claim_per_dataset():
    found = table_claims.statement_claims(_runs(mnist_holds=True))
    assert [c.where for c in found] == (["Table 1, MNIST"] * 3 + ["Table 2, MNIST"] * 2
                                        + ["Table 3, MNIST"] * 2 + ["Table 1, Fashion-MNIST"] * 3
                                        + ["Table 2, Fashion-MNIST"] * 2
                                        + ["Table 3, Fashion-MNIST"] * 2)
    mnist, fashion = found[:7], found[7:]
    assert all(c.verdict == "reproduced" for c in mnist)
    assert all(c.verdict == "not reproduced" for c in fashion)  # never "partly"
    assert mnist[3].finding == "share 1.0000" and fashion[3].finding == "share 0.5000"


def test_smallest_loss_leaves_out_rrafl():
    runs = _runs(mnist_holds=True)  # RRAFL's loss 0.1 is below ours' 0.3
    smallest = table_claims.statement_claims(runs)[5]
    assert smallest.statement == "ours gives the smallest average loss of the global model"
    assert smallest.verdict == "reproduced"
    assert "RRAFL left out" in smallest.finding and "RRAFL 0.1" not in smallest.finding
    runs["mnist", "reputation_greedy"] = _run("mnist", "reputation_greedy",
                                              [(CLEAN, 0.2)] * 2)
    smallest = table_claims.statement_claims(runs)[5]
    assert smallest.verdict == "not reproduced"
    assert "Reputation Greedy 0.2000" in smallest.finding


def test_every_row_against_the_paper_within_its_spread():
    runs = _runs(mnist_holds=True)
    # Vanilla on MNIST: losses 0.40 and 0.48, mean 0.44, tolerance 0.08 around 0.4409.
    runs["mnist", "vanilla"] = _run("mnist", "vanilla", [(MIXED, 0.40), (MIXED, 0.48)])
    # Bid Greedy on MNIST: losses 0.55 and 0.57, tolerance 0.02: 0.56 is too far from 0.4977.
    runs["mnist", "bid_greedy"] = _run("mnist", "bid_greedy", [(MIXED, 0.55), (MIXED, 0.57)])
    found = table_claims.number_claims(runs)
    assert len(found) == 2 * 2 * len(TABLE_MECHANISMS)  # tables x datasets x mechanisms
    by = {(c.where, c.statement.split(":")[0]): c for c in found}
    vanilla = by["Table 3, MNIST", "Vanilla FL"]
    assert vanilla.verdict == "reproduced"
    assert vanilla.statement == f"Vanilla FL: average loss of the global model = " \
                                f"{TABLE3['vanilla']['mnist']:.4f}"
    assert vanilla.finding.startswith("we find 0.4400, paper 0.4409, difference -0.0009; "
                                      "tolerance 0.0800 (2 standard errors")
    assert by["Table 3, MNIST", "Bid Greedy"].verdict == "not reproduced"
    # Shares: ours hires only clean workers on MNIST, as the paper (tolerance 0); half of its
    # winners are clean on Fashion-MNIST, against the paper's 1.0.
    ours_mnist = by["Table 2, MNIST", "Our mechanism"]
    assert ours_mnist.verdict == "reproduced" and TABLE2["ours"]["mnist"] == 1.0
    ours_fashion = by["Table 2, Fashion-MNIST", "Our mechanism"]
    assert ours_fashion.verdict == "not reproduced"
    assert "we find 0.5000, paper 1.0000" in ours_fashion.finding
