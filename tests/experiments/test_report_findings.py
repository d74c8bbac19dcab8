"""The reproducibility report's claims and verdicts, on hand-made evidence with known
answers."""

from __future__ import annotations

import numpy as np

from fedlib.experiments import report
from fedlib.experiments.auction_sweeps import budget_sweep, worker_sweep
from fedlib.experiments.claims import share_verdict
from fedlib.experiments.contribution import ContributionConfig, ContributionResult
from fedlib.experiments.multitask import TABLE_MECHANISMS, MultiTaskConfig, MultiTaskResult
from fedlib.experiments.sweep_results import PAPER_CLAIMS, medians_above
from fedlib.paper.numbers import TABLE2


def test_theorems():
    found = {c.where: c for c in report.theorem_claims(40, seed=1)}
    assert found["Theorem 1"].verdict == found["Theorem 2"].verdict == "reproduced"
    assert found["Theorem 3"].verdict == "reproduced"
    # Theorem 4's counterexample: paid 10/3 for a cost of 4 when truthful, 0 when lying.
    assert found["Theorem 4"].verdict == "the paper is wrong" and not found["Theorem 4"].holds
    assert "-0.667 bidding its cost and 0.000 bidding 6" in found["Theorem 4"].finding
    assert found["Proof of Theorem 4, Case 3"].verdict == "the paper is wrong"
    assert "k = 1 at cost 8, k' = 2 at bid 2" in found["Proof of Theorem 4, Case 3"].finding


def test_the_printed_aggregation_weight_ignores_the_quality_score():
    # contributions (2, 1, 1): as printed omega is their share (0.5, 0.25, 0.25) whatever
    # the leave-one-out changes; the corrected reading weights them in.
    claim = report.aggregation_claim([2.0, 1.0, 1.0], [0.03, 0.0, 0.01])
    assert claim.verdict == "the paper is wrong"
    assert "as printed omega = [0.5, 0.25, 0.25]" in claim.finding


def _contribution_records(case2_ours):
    """Two seeds; Case 1 falls with dacc for ours and the benchmark, local accuracy is flat
    but for one worker; Case 2 gives worker 0 the stand-out values ``case2_ours``."""
    dacc = [1.0, 0.7, 0.4, 0.1]
    records = []
    for seed, z_ours in enumerate(case2_ours):
        records.append({"case": 1, "seed": seed, "dacc": dacc,
                        "contribution": [0.9, 0.6, 0.4, 0.1], "benchmark": [0.8, 0.7, 0.5, 0.2],
                        "local_acc": [0.90, 0.90, 0.90, 0.89]})
        others = [1.0, 2.0, 3.0]  # mean 2, std 1: worker 0 at 2 + z stands out by z
        records.append({"case": 2, "seed": seed, "dacc": [1.0] * 4,
                         "contribution": [2.0 + z_ours, *others],
                         "benchmark": [3.0, *others], "local_acc": [5.0, *others]})
    return records


def test_contribution_verdicts():
    records = _contribution_records(case2_ours=[2.0, 0.5])  # above the benchmark's 1 once
    result = ContributionResult(ContributionConfig(seeds=(0, 1)), tuple(records), 0.0)
    found = report.contribution_claims(result)
    assert [c.verdict for c in found] == ["reproduced", "partly", "partly", "not reproduced"]
    assert [c.holds for c in found] == [True, False, False, False]
    assert "in 1 of 2 seeds" in found[2].finding


def test_auction_claims_from_small_sweeps():
    sweeps = [budget_sweep([20.0, 60.0], n_workers=20, trials=5, seed=0),
              worker_sweep([20, 40], trials=5, seed=0)]
    found = report.auction_claims(sweeps)
    assert [c.statement for c in found] == [text for text, _, _ in PAPER_CLAIMS]
    for claim, (_, better, worse) in zip(found, PAPER_CLAIMS, strict=True):
        above = np.concatenate([medians_above(s, better, worse) for s in sweeps])
        assert claim.verdict == share_verdict(list(above))  # every point of both sweeps
        assert claim.finding.startswith(
            f"median higher at Figure 4: {above[:2].mean():.0%} of points, "
            f"Figure 5: {above[2:].mean():.0%} of points")
        assert claim.finding.endswith("(see the chapter)") != bool(above.all())


def _runs(shares_ours):
    """Hand-made runs: one evaluated task per run; ours picks dacc-1.0 workers only on the
    datasets where ``shares_ours`` is 1."""
    runs = {}
    for dataset, share in shares_ours.items():
        for mechanism in TABLE_MECHANISMS:
            config = MultiTaskConfig(dataset=dataset, mechanism=mechanism, n_tasks=1,
                                     eval_from=0,
                                     groups=((1.0, 2), (0.7, 1), (0.4, 1), (0.1, 1)))
            clean = mechanism in ("ours", "rrafl") and share == 1.0
            winners = [0, 1] if clean else [0, 4]
            loss = 0.3 if mechanism in ("ours", "rrafl") else 0.5
            record = {"task": 0, "winners": winners, "payments": [2.0, 1.0],
                      "contribution": [0.9, 0.2], "re": [0.8, 0.1], "Re": [0.8, 0.7, 0.5, 0.5, 0.1],
                      "rounds": {"test_loss": [1.0, loss]}}
            runs[dataset, mechanism] = MultiTaskResult(config, (record,), 0.0)
    return runs


def test_table_verdicts():
    found = report.table_claims(_runs({"mnist": 1.0, "fashion": 0.5}))
    by_claim = {c.statement: c for c in found}
    only_clean = by_claim["ours selects only workers with data accuracy 1.0 in the last 45 tasks"]
    assert only_clean.verdict == "partly"
    share = by_claim["ours: share of dacc 1.0 winners (the paper's number)"]
    assert share.verdict == "partly"  # mnist 1.000 as the paper's, fashion 0.500
    assert f"mnist: ours 1.0000, paper {TABLE2['ours']['mnist']:.4f}" in share.finding
    assert "Fashion-MNIST: share 0.5000 (does not hold)" in only_clean.finding
