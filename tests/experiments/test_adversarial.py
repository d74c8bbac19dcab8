"""The adversarial-workers experiment: its scenario and config, the fast run's stored form,
the per-group summaries and claims, and the single task with one attacker."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from fedlib.experiments import adversarial, registry
from fedlib.experiments.adversarial import (
    SCENARIO,
    AdversarialConfig,
    AdversarialResult,
    behaviour_groups,
    group_summary,
    single_task,
)
from fedlib.experiments.multitask import MultiTaskConfig, MultiTaskResult
from fedlib.fl.attacks import Attack
from fedlib.fl.task import TaskOptions
from fedlib.storage import results


@pytest.fixture
def fast(adversarial_fast):
    return adversarial_fast


def test_scenario_keeps_seven_honest_clean_workers():
    groups = behaviour_groups(adversarial.scenario_base())
    assert list(groups) == ["free_rider", "noise", "label_flip", "quality_drop", "dacc 1.0",
                            "dacc 0.7", "dacc 0.4", "dacc 0.1"]
    assert groups["dacc 1.0"].tolist() == list(adversarial.HONEST_CLEAN)
    assert len(adversarial.HONEST_CLEAN) >= 7
    assert sum(len(a.workers) for a in SCENARIO) + len(adversarial.HONEST_CLEAN) == 15


def test_config_names_and_flags():
    config = AdversarialConfig(base=adversarial.scenario_base(device="cpu"))
    assert config.result_name() == "adversarial_mnist"
    fast = config.fast()
    assert fast.result_name() == "adversarial_mnist_fast"
    assert max(a.from_task for a in fast.base.attacks) < fast.base.n_tasks
    assert results.reproduce_command(fast).startswith(
        "python -m fedlib reproduce adversarial --dataset mnist --fast")
    assert registry.command_flags(replace(config, mechanisms=("ours",))) == [
        "--dataset mnist", "--mechanisms ours"]
    with pytest.raises(ValueError, match="mechanisms must be distinct keys"):
        AdversarialConfig(mechanisms=("ours", "ours"))
    with pytest.raises(ValueError, match="mechanisms must be distinct keys"):
        AdversarialConfig(mechanisms=("oracle",))


def test_fast_run_is_stored_task_major(fast):
    assert [run.config.mechanism for run in fast.runs] == list(adversarial.ADVERSARIAL_MECHANISMS)
    assert [len(r["runs"]) for r in fast.records] == [3] * fast.config.base.n_tasks
    back = AdversarialResult.from_stored(fast.config.to_dict(), fast.records, 1.0)
    assert [r.records for r in back.runs] == [r.records for r in fast.runs]


def test_group_summary_by_hand():
    config = MultiTaskConfig(groups=((1.0, 3), (0.1, 1)), eval_from=0, n_tasks=2,
                             attacks=(Attack("free_rider", (0,)),), task=TaskOptions(rounds=2))
    records = (
        {"task": 0, "winners": [0, 1], "n_pass": [0, 2], "n_fail": [2, 0],
         "contribution": [0.8, 1.0], "re": [0.0, 0.9], "payments": [0.0, 4.0],
         "Re": [0.1, 0.9, 0.5, 0.5]},
        {"task": 1, "winners": [1, 2, 3], "n_pass": [2, 1, 1], "n_fail": [0, 1, 1],
         "contribution": [1.0, 0.6, 0.2], "re": [0.9, 0.3, 0.1], "payments": [5.0, 3.0, 1.0],
         "Re": [0.1, 0.9, 0.4, 0.3]},
    )
    summary = group_summary(MultiTaskResult(config, records, 0.0))
    assert summary["free_rider"] == pytest.approx({
        "win_share": 0.5, "pass_rate": 0.0, "contribution": 0.8, "re": 0.0, "payment": 0.0,
        "payment_per_task": 0.0, "reputation": 0.1})
    assert summary["dacc 1.0"] == pytest.approx({
        "win_share": 0.75, "pass_rate": 5 / 6, "contribution": 2.6 / 3, "re": 2.1 / 3,
        "payment": 4.0, "payment_per_task": 3.0, "reputation": 0.65})
    assert summary["dacc 0.1"]["win_share"] == 0.5
    assert np.isnan(group_summary(MultiTaskResult(config, records, 0.0), [0])["dacc 0.1"][
        "pass_rate"])


def test_claims(fast):
    claims = adversarial.claims(fast.by_mechanism)
    assert claims[0].where == "Algorithm 1" and claims[0].holds  # alike by construction
    assert claims[0].finding == "same winners, reputations and models"
    summary = group_summary(fast.by_mechanism["ours"])
    honest = summary["dacc 1.0"]["payment_per_task"]
    paid = [summary[g]["payment_per_task"] for g in adversarial.ATTACKER_GROUPS
            if g in summary]
    earns_less = claims[2]
    assert earns_less.holds == all(p < honest for p in paid)
    assert earns_less.finding.endswith(f"; honest {honest:.2f}")


def test_single_task_free_rider_fails_every_round(data_root):
    outcome = single_task("free_rider", 0.0)  # the chapter's reduced task
    assert outcome.n_pass[0] == 0 and outcome.passed[1:].all()
    assert outcome.omega[0] == 0 and outcome.re[0] < outcome.re[1:].min()
    assert outcome.acc_with.shape == outcome.acc_without.shape == (3,)
    with pytest.raises(ValueError, match="n_workers must be at least 2"):
        single_task("noise", 0.1, n_workers=1)
