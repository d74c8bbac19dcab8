"""Every reading of the paper names code that exists, and that code does what the reading says.

Each row of :data:`~fedlib.paper.readings.READINGS` has one behavioural check below, registered
under the row's topic with :func:`reads`: it runs the function or default the row names on a
case computed by hand and asserts the row's default (and, where the alternative is cheap, that
the alternative would give something else, or, for a row that says the alternative changes
nothing, that it gives the same). A reading added without a check fails
:func:`test_every_reading_has_a_behavioural_check`.
"""

from __future__ import annotations

import importlib
import math
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from fedlib.paper.readings import READINGS

CHAPTERS = Path(__file__).resolve().parents[2] / "chapters"
TOPICS = {r.topic for r in READINGS}
#: Topic -> the test that checks the reading against the code.
CHECKED: dict[str, Callable[..., None]] = {}


def reads(topic: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Register a test as the behavioural check of the reading ``topic``."""
    if topic not in TOPICS:
        raise KeyError(f"no reading {topic!r}")

    def register(test: Callable[..., None]) -> Callable[..., None]:
        if topic in CHECKED:
            raise KeyError(f"two checks of {topic!r}")
        CHECKED[topic] = test
        return test

    return register


def _resolve(dotted: str) -> object:
    """The object a dotted name ``fedlib.module.attribute`` names."""
    parts = dotted.split(".")
    for split in range(len(parts), 0, -1):
        try:
            target = importlib.import_module(".".join(parts[:split]))
        except ModuleNotFoundError:
            continue
        for name in parts[split:]:
            target = getattr(target, name)
        return target
    raise ModuleNotFoundError(dotted)


def test_every_reading_is_distinct_and_names_a_chapter():
    assert len(TOPICS) == len(READINGS)
    assert all(r.default != r.alternative for r in READINGS)
    for reading in READINGS:
        assert reading.parameter and reading.paper, reading.topic
        assert (CHAPTERS / f"{reading.chapter}.md").is_file(), reading.chapter


@pytest.mark.parametrize("reading", READINGS, ids=lambda r: r.topic)
def test_every_fedlib_name_in_a_reading_exists(reading):
    for dotted in re.findall(r"fedlib(?:\.\w+)+", reading.parameter):
        _resolve(dotted)


def test_every_reading_has_a_behavioural_check():
    assert sorted(TOPICS - set(CHECKED)) == []


# ------------------------------------------------------------- shared small cases


@pytest.fixture(scope="module")
def engine():
    """A float64 MLP engine on the CPU, for exact comparisons."""
    from fedlib.fl.engine import BatchedEngine
    return BatchedEngine("mlp", device="cpu", dtype=torch.float64)


def _models(engine, k: int, seed: int = 0):
    """k different MLPs stacked, and random 'images' (already preprocessed) with labels."""
    gen = torch.Generator().manual_seed(seed)
    models = [engine.init_params(gen) for _ in range(k)]
    stacked = {key: torch.stack([m[key] for m in models]) for key in models[0]}
    images = torch.randn(64, 28, 28, generator=gen, dtype=torch.float64)
    labels = torch.randint(0, 10, (64,), generator=gen)
    return stacked, models, (images[:32], labels[:32]), (images[32:], labels[32:])


def _mean_model(models):
    return {key: torch.stack([m[key] for m in models]).mean(0) for key in models[0]}


def _record(contrib, passed, test_loss=0.0):
    from fedlib.fl.records import RoundRecord
    c, p = np.array(contrib, dtype=float), np.array(passed)
    zeros = np.zeros_like(c)
    return RoundRecord(0.0, zeros, p, zeros, c, c, zeros, test_loss, 0.0, None)


def _result(records, groups=((1.0, 2), (0.1, 2)), eval_from=1):
    """A multi-task result made of the given records (no training)."""
    from fedlib.experiments.multitask import MultiTaskConfig, MultiTaskResult
    config = MultiTaskConfig(groups=groups, n_tasks=len(records), eval_from=eval_from)
    return MultiTaskResult(config, tuple({"task": t, **r} for t, r in enumerate(records)), 0.0)


@pytest.fixture(scope="module")
def fast_tables(data_root):
    """The smoke-sized Tables 1-3 configuration and its worker pool."""
    from fedlib.experiments.multitask import MultiTaskConfig, worker_pool
    config = MultiTaskConfig(device="cpu").fast()
    return config, worker_pool(config)


# ------------------------------------------------------------- Section 4.1


@reads("Zero probabilities in Eq. (2)")
def test_zero_probabilities_are_floored():
    from fedlib.mechanism import sample_weights
    from fedlib.mechanism.contribution import P_FLOOR
    assert P_FLOOR == 1e-12
    surprise = np.array([-math.log(1e-12), -math.log(0.5)])
    assert np.allclose(sample_weights([[0.0, 0.5]]), surprise / surprise.sum())


@reads("Worker set U of Eqs. (2)-(3)")
def test_contributions_are_normalised_over_the_submitting_workers(engine):
    from fedlib.fl.task import TaskOptions, score_round
    from fedlib.mechanism import round_contributions
    assert np.allclose(round_contributions([[0.5, 0.5], [0.25, 0.25]]), [1.0, 0.5])
    # a third worker's better model would change the normalisation: U is whoever is given
    assert np.allclose(round_contributions([[0.5, 0.5], [0.25, 0.25], [1, 1]]),
                       [0.5, 0.25, 1.0])
    # and the task scores exactly the submitted models: one row of P per model
    stacked, models, val, test = _models(engine, 3)
    record, _ = score_round(engine, stacked, models[0], val, test, TaskOptions())
    P = engine.true_class_probs(stacked, *val).numpy()
    assert np.allclose(record.contrib, round_contributions(P))


@reads("Rounds T of the contribution mean")
def test_the_contribution_mean_counts_failed_rounds():
    from fedlib.fl.task import TaskOptions, finish_task
    from fedlib.mechanism import task_contributions
    records = [_record([1.0, 0.2], [True, False]), _record([1.0, 0.6], [True, True])]
    result = finish_task(records, TaskOptions(), {})
    assert np.allclose(result.contribution, [1.0, 0.4])       # (0.2 + 0.6) / 2
    passed_only = task_contributions([[1.0, 0.2], [1.0, 0.6]],
                                     mask=[[True, False], [True, True]])
    assert np.allclose(passed_only, [1.0, 0.6])                # the alternative differs


@reads("Equal-weighted benchmark")
def test_equal_weights_give_the_mean_true_class_probability():
    from fedlib.mechanism import contributions
    P = [[1.0, 0.5], [0.5, 0.5]]
    assert np.allclose(contributions(P, weighted=False), [0.75, 0.5])
    assert not np.allclose(contributions(P), [0.75, 0.5])    # the weighted measure differs


@reads("Label noise of data accuracy")
def test_exactly_the_share_of_labels_is_flipped_to_another_class():
    from fedlib.fl.workers import flip_labels
    labels = np.arange(1000) % 10
    for dacc, flipped in ((0.7, 300), (0.1, 900), (1.0, 0)):
        noisy = flip_labels(labels, dacc, np.random.default_rng(0))
        assert np.sum(noisy != labels) == flipped
        assert set(np.unique(noisy)) <= set(range(10))


@reads("Case 2 split (Figure 3)")
def test_case2_worker_k_lacks_label_k(data_root):
    from fedlib.fl.workers import case2_workers
    pool = case2_workers("mnist", np.random.default_rng(0), n=200, root=data_root)
    labels = pool.labels.numpy()
    assert set(np.unique(labels[0])) == set(range(10))
    for k in range(1, 10):
        assert set(np.unique(labels[k])) == set(range(10)) - {k}
    assert np.unique(pool.indices).size == pool.indices.size     # disjoint
    assert torch.equal(pool.labels, pool.clean_labels) and np.all(pool.dacc == 1.0)


# ------------------------------------------------------------- Section 4.2


@reads("Losses l and l_-i of the quality check")
def test_the_check_compares_plain_averages(engine):
    from fedlib.fl.task import TaskOptions, score_round
    stacked, models, val, test = _models(engine, 3)
    record, _ = score_round(engine, stacked, models[0], val, test, TaskOptions())
    l_all = engine.evaluate(_mean_model(models), *val)[0]
    assert record.loss_all == pytest.approx(l_all, rel=1e-9)
    for i in range(3):
        l_minus = engine.evaluate(_mean_model(models[:i] + models[i + 1:]), *val)[0]
        assert record.delta_l[i] == pytest.approx(l_minus - l_all, rel=1e-6, abs=1e-12)


@reads("One submitted model")
def test_a_single_model_passes(engine):
    from fedlib.fl.task import TaskOptions, score_round
    from fedlib.mechanism import leave_one_out_pass
    assert leave_one_out_pass([-5.0]).tolist() == [True]
    assert leave_one_out_pass([-5.0, 0.0]).tolist() == [False, True]
    stacked, models, val, test = _models(engine, 1)
    old = _mean_model(_models(engine, 1, seed=1)[1])
    record, new = score_round(engine, stacked, old, val, test, TaskOptions())
    assert record.passed.tolist() == [True] and record.delta_l.tolist() == [0.0]
    assert all(torch.equal(new[key], models[0][key]) for key in new)   # it is aggregated


@reads("Nobody passes the quality check")
def test_nobody_passing_keeps_the_previous_model(engine):
    from fedlib.fl.task import TaskOptions, score_round
    stacked, models, val, test = _models(engine, 3)
    old = _mean_model(_models(engine, 1, seed=1)[1])
    record, new = score_round(engine, stacked, old, val, test, TaskOptions(delta=1e9))
    assert not record.passed.any() and np.all(record.omega == 0)
    assert new is old
    assert record.test_loss == pytest.approx(engine.evaluate(old, *test)[0], rel=1e-9)


@reads("Pass and fail counts of Eq. (4)")
def test_trust_counts_the_checks_of_this_task_only():
    from fedlib.fl.task import TaskOptions, finish_task
    from fedlib.mechanism import ReputationLedger
    records = [_record([1.0, 0.5], [True, False]), _record([1.0, 0.5], [True, True])]
    result = finish_task(records, TaskOptions(), {})
    assert result.n_pass.tolist() == [2, 1] and result.n_fail.tolist() == [0, 1]
    x = (0.4 * 1 - 0.6 * 1) / (0.4 * 1 + 0.6 * 1)
    assert result.trust[1] == pytest.approx(math.exp(-math.exp(-5.5 * x)))
    # nothing of the checks outlives the task: the ledger keeps Re and the streaks only
    assert set(ReputationLedger(2).to_dict()) == {"Re", "n_plus", "n_minus",
                                                  "initial_reputation", "beta1", "beta2"}


@reads("Eq. (4) without any check")
def test_no_check_gives_x_zero():
    from fedlib.mechanism import gompertz_trust, trust_input
    assert trust_input(0, 0) == 0.0
    assert gompertz_trust(0, 0) == pytest.approx(math.exp(-1))


def _h(re: float) -> float:
    return 1 - 19 / (10 * math.pi) * math.atan(10 * re / math.pi)


def _g(n: int) -> float:
    return 2 * (1 - 0.25) / (1 + math.exp(0.5 * n)) + 0.25


@reads("Eq. (9)")
def test_the_update_uses_the_previous_reputation():
    from fedlib.analysis.reputation_paths import eq9_check
    from fedlib.mechanism import update_reputation
    # Eq. (13) with f = 1 (alpha = h), by hand, for two workers from Re^(tau-1) = 0.5
    Re_i, Re_j = (_h(r) * r + (1 - _h(r)) * 0.5 for r in (0.8, 0.3))
    check = eq9_check(0.5, 0.8, 0.3)
    assert check.direct == pytest.approx(Re_i - Re_j)
    assert check.with_previous == pytest.approx(Re_i - Re_j)
    assert check.as_printed != pytest.approx(Re_i - Re_j)
    Re, _, _ = update_reputation(0.5, 0.3, 0, 0)    # the update itself ends with Re^(tau-1)
    alpha = _h(0.3) / (_h(0.3) + (1 - _h(0.3)) * _g(1) * _g(0))
    assert float(Re) == pytest.approx(alpha * 0.3 + (1 - alpha) * 0.5)


@reads("Counters in Eq. (12)")
def test_counters_are_updated_before_alpha():
    from fedlib.mechanism import ReputationLedger, update_reputation
    Re, n_plus, n_minus = update_reputation(0.5, 0.8, 0, 0)
    assert (int(n_plus), int(n_minus)) == (1, 0)
    after = _h(0.8) / (_h(0.8) + (1 - _h(0.8)) * _g(1) * _g(0))
    before = _h(0.8)                                       # counters (0, 0): f = 1
    assert float(Re) == pytest.approx(after * 0.8 + (1 - after) * 0.5)
    assert float(Re) != pytest.approx(before * 0.8 + (1 - before) * 0.5)
    ledger = ReputationLedger(2)
    ledger.update([0], [0.8, 0.9])                         # worker 1 lost
    assert ledger.Re[1] == 0.5 and ledger.n_plus[1] == 0 and ledger.n_minus[1] == 0


@reads("Workers of the quality score")
def test_quality_scores_run_over_the_passing_workers():
    from fedlib.fl.task import TaskOptions
    from fedlib.mechanism import detection_scores, quality_scores
    delta_l, passed = [0.03, 0.01, -0.1], [True, True, False]
    assert np.allclose(detection_scores(delta_l, passed), [1.0, 0.0, 0.0])
    over_all = (np.array(delta_l) + 0.1) / np.sum(np.array(delta_l) + 0.1)
    assert not np.allclose(over_all[:2], [1.0, 0.0])        # the alternative differs
    assert TaskOptions().s0 == 1.0
    assert np.allclose(quality_scores(delta_l, passed), [2 / 3, 1 / 3, 0.0])
    assert np.allclose(quality_scores(delta_l, passed, s0=2.0), [3 / 5, 2 / 5, 0.0])


@reads("Zero denominator of s_i")
def test_equal_delta_l_give_s_zero_and_any_common_value_the_same_quality():
    from fedlib.mechanism import detection_scores, quality_scores
    delta_l, passed = [0.01, 0.01, -1.0], [True, True, False]
    assert np.allclose(detection_scores(delta_l, passed), 0.0)
    q = quality_scores(delta_l, passed)
    for c in (0.0, 0.5, 1.0):                              # (s0 + c) / (2 (s0 + c))
        assert np.allclose(q[:2], (1 + c) / (2 * (1 + c)))
    assert np.allclose(detection_scores([0.02], [True]), [0.0])
    assert np.allclose(quality_scores([0.02], [True]), [1.0])


@reads("Aggregation weight omega")
def test_omega_weighs_contribution_times_quality():
    from fedlib.fl.task import TaskOptions
    from fedlib.mechanism import aggregation_weights
    assert TaskOptions().denominator == "corrected"
    args = ([1.0, 0.5], [0.02, 0.0], [True, True])          # quality scores 2/3, 1/3
    assert np.allclose(aggregation_weights(*args), [0.8, 0.2])
    assert np.allclose(aggregation_weights(*args, denominator="printed"), [2 / 3, 1 / 3])


# ------------------------------------------------------------- Section 4.3, Algorithm 1


@reads("Ties and Re = 0 in Algorithm 1")
def test_ties_by_index_and_zero_reputation_never_wins():
    from fedlib.mechanism import select
    assert select([2, 1, 2], [1, 0.5, 1], 100).order.tolist() == [0, 1, 2]
    a = select([1, 1, 1], [1, 1, 0], 10)
    assert a.winners.tolist() == [0, 1] and a.order.tolist() == [0, 1, 2]


@reads("rho* when every worker wins")
def test_rho_star_when_everyone_wins():
    from fedlib.mechanism import select
    a = select([1, 1], [1, 1], 10)
    assert a.k == 2 and a.rho_star == 5.0 and a.upper.tolist() == [5.0, 5.0]


@reads("rho* when nobody wins")
def test_rho_star_when_nobody_wins_pays_nothing():
    from fedlib.mechanism import MECHANISMS, ex_post_payments, select
    a = select([5, 6], [1, 1], 1)
    assert a.k == 0 and a.rho_star == 5.0
    assert ex_post_payments(a, [1, 1]).tolist() == [0.0, 0.0]
    as_inf = replace(a, rho_star=math.inf)                  # the alternative: same payments
    assert ex_post_payments(as_inf, [1, 1]).tolist() == [0.0, 0.0]
    allocation = MECHANISMS["rrafl"].select([5, 6], [1, 1], 1)
    assert MECHANISMS["rrafl"].pay(allocation, [1, 1]).tolist() == [0.0, 0.0]


@reads("Re in p_up at payment time")
def test_p_up_keeps_the_pre_task_reputation():
    from fedlib.mechanism import MECHANISMS, ReputationLedger
    ours, ledger = MECHANISMS["ours"], ReputationLedger(2)
    allocation = ours.select([1, 1], ledger.Re, 2)           # rho* = 2, p_up = 0.5 * 2
    re = np.array([0.9, 0.9])
    ledger.update(allocation.winners, re)                   # Eq. (13) moves Re above 0.5
    payments = ours.pay(allocation, re)
    assert payments.tolist() == [1.0, 1.0] and payments.sum() <= 2
    assert np.sum(ledger.Re * allocation.auction.rho_star) > 2   # the alternative exceeds B


@reads("Denominator of p'_i")
def test_p_prime_divides_by_the_sum_of_re():
    from fedlib.mechanism import MECHANISMS, ex_post_payments, select
    a, re = select([4, 4.5, 100], [1, 1, 1], 10), [0.5, 1.0, 1.0]
    assert np.allclose(ex_post_payments(a, re), [10 / 3, 5.0, 0.0])
    assert np.allclose(ex_post_payments(a, re, temp_denominator="Re"), [2.5, 5.0, 0.0])
    ours = MECHANISMS["ours"]
    assert ours.temp_denominator == "re"
    assert np.allclose(ours.pay(ours.select([4, 4.5, 100], [1, 1, 1], 10), re),
                       [10 / 3, 5.0, 0.0])


# ------------------------------------------------------------- Section 6: Figures 4-5


@reads("Metric of Figures 4-5")
def test_the_metric_is_per_unit_paid():
    from fedlib.experiments.auction_sweeps import SweepConfig, budget_sweep
    assert SweepConfig().per == "payment"
    r = budget_sweep([50.0], trials=3, mechanisms=("ours", "bid_greedy"))
    assert np.allclose(r.metric(), r.sum_re / r.payment)
    assert np.allclose(r.metric("budget"), r.sum_re / 50.0)


@reads("Budgets of Figure 4")
def test_figure4_budgets():
    from fedlib.experiments.auction_sweeps import paper_config
    from fedlib.paper.settings import PAPER_BUDGETS
    assert PAPER_BUDGETS == tuple(25.0 * k for k in range(1, 11))
    config = paper_config("budget")
    assert config.xs == PAPER_BUDGETS and config.n_workers == 100


@reads("Numbers of workers of Figure 5")
def test_figure5_numbers_of_workers():
    from fedlib.experiments.auction_sweeps import paper_config, worker_sweep
    from fedlib.paper.settings import PAPER_WORKERS
    assert PAPER_WORKERS == tuple(range(20, 201, 20))
    config = paper_config("workers")
    assert config.xs == tuple(float(n) for n in PAPER_WORKERS) and config.budget == 125.0
    r = worker_sweep(trials=1, mechanisms=("ours",))
    assert r.xs == config.xs and r.budget.tolist() == [125.0] * 10


@reads("RRAFL")
def test_rrafl_selects_by_algorithm1_and_pays_p_up_whatever_re():
    from fedlib.mechanism import MECHANISMS, select
    bids, Re = [4, 4.5, 100], [1, 1, 1]
    rrafl = MECHANISMS["rrafl"]
    allocation = rrafl.select(bids, Re, 10)
    assert allocation.winners.tolist() == select(bids, Re, 10).winners.tolist() == [0, 1]
    for delivered in ([0.0, 0.0, 0.0], [0.5, 1.0, 1.0]):
        assert rrafl.pay(allocation, delivered).tolist() == [5.0, 5.0, 0.0]


@reads("Proportional Share")
def test_proportional_share_ignores_reputation():
    from fedlib.mechanism import MECHANISMS
    ps = MECHANISMS["proportional_share"]
    for Re in ([0.1, 1, 1, 1], [1, 1, 1, 1]):
        allocation = ps.select([1, 2, 3, 10], Re, 6)        # b_i <= 6 / i: 1, 2 (3 > 2)
        assert allocation.winners.tolist() == [0, 1]
        assert ps.pay(allocation, [0, 0, 0, 0]).tolist() == [3.0, 3.0, 0.0, 0.0]


@reads("Greedy benchmarks 'until the budget is exhausted'")
def test_greedy_benchmarks_stop_at_the_first_bid_that_does_not_fit():
    from fedlib.mechanism import MECHANISMS
    greedy = MECHANISMS["reputation_greedy"]
    allocation = greedy.select([3, 2, 1], [0.9, 0.8, 0.7], 4)   # 3 fits, 3 + 2 does not
    assert allocation.winners.tolist() == [0]                  # (skipping would add worker 2)
    assert greedy.pay(allocation, [0, 0, 0]).tolist() == [3.0, 0.0, 0.0]
    bid = MECHANISMS["bid_greedy"].select([1, 1, 5], [1, 1, 1], 1.5)
    assert bid.winners.tolist() == [0]                         # tie by index


@reads("Approximate Optimal")
def test_approximate_optimal_is_the_ratio_greedy():
    from fedlib.mechanism import MECHANISMS
    values, costs = [0.3, 1.0, 1.0], [0.5, 2.5, 2.5]
    greedy = MECHANISMS["approx_optimal"].select(costs, values, 5, costs=costs)
    exact = MECHANISMS["approx_optimal_exact"].select(costs, values, 5, costs=costs)
    assert sorted(greedy.winners.tolist()) == [0, 1]           # ratio 0.6, 0.4; then no room
    assert sorted(exact.winners.tolist()) == [1, 2]
    assert MECHANISMS["approx_optimal"].pay(greedy, [0, 0, 0]).tolist() == [0.5, 2.5, 0.0]


@reads("Values of Approximate Optimal")
def test_the_sweeps_hand_approximate_optimal_the_realised_re():
    from fedlib.experiments.auction_sweeps import SweepConfig, play
    assert SweepConfig().optimal_values == "re"
    bids, Re, re = np.array([1.0, 1.0]), np.array([1.0, 0.1]), np.array([0.1, 1.0])
    assert play("approx_optimal", bids, Re, re, 1.0, 0)[2] == 1.0            # picks by re
    assert play("approx_optimal", bids, Re, re, 1.0, 0, optimal_values="Re")[2] == 0.1


# ------------------------------------------------------------- Section 6: Tables 1-3


@reads("Initial reputation Re^0")
def test_initial_reputation():
    from fedlib.experiments.multitask import MultiTaskConfig
    from fedlib.mechanism import ReputationLedger
    assert MultiTaskConfig().initial_reputation == 0.5
    assert ReputationLedger(3).Re.tolist() == [0.5] * 3


@reads("Budget of Tables 1-3")
def test_tables_budget():
    from fedlib.experiments.multitask import MultiTaskConfig
    assert MultiTaskConfig().budget == 60.0


@reads("Bids in Tables 1-3")
def test_bids_are_redrawn_every_task():
    from fedlib.experiments.multitask import MultiTaskConfig, draw_bids
    config = MultiTaskConfig()
    assert config.redraw_bids
    first, second = draw_bids(config, 0), draw_bids(config, 1)
    assert not np.allclose(first, second)
    low = 10 / 3 * config.daccs + 2 / 3
    assert np.all((first >= low) & (first <= low + 2))
    once = replace(config, redraw_bids=False)
    assert np.array_equal(draw_bids(once, 0), draw_bids(once, 1))


@reads("Model across tasks")
def test_every_task_starts_from_a_fresh_model(fast_tables, monkeypatch):
    from fedlib.experiments.multitask import run_multitask
    from fedlib.fl.engine import BatchedEngine
    config, _ = fast_tables
    assert config.fresh_model
    drawn, init_params = [], BatchedEngine.init_params

    def counted(self, generator):
        drawn.append(1)
        return init_params(self, generator)

    monkeypatch.setattr(BatchedEngine, "init_params", counted)
    short = replace(config, n_tasks=2, task=replace(config.task, rounds=1))
    for fresh, draws in ((True, 2), (False, 1)):    # carried: only the first task draws one
        drawn.clear()
        records = run_multitask(replace(short, fresh_model=fresh)).records
        assert all(r["winners"] for r in records) and len(drawn) == draws


@reads("Optimizer of local training")
def test_local_training_is_plain_sgd(engine):
    from fedlib.fl.models import make_model
    from fedlib.fl.task import TaskOptions
    assert TaskOptions().momentum == 0.0
    gen = torch.Generator().manual_seed(0)
    start = engine.init_params(gen)
    images = torch.randn(1, 8, 28, 28, generator=gen, dtype=torch.float64)
    labels = torch.randint(0, 10, (1, 8), generator=gen)
    orders = torch.arange(8).reshape(1, 1, 8)
    net = make_model("mlp").double()
    net.load_state_dict(start)
    for batch in (slice(0, 4), slice(4, 8)):               # two steps of plain SGD by hand
        net.zero_grad()
        torch.nn.functional.cross_entropy(net(images[0, batch]), labels[0, batch]).backward()
        with torch.no_grad():
            for p in net.parameters():
                p -= 0.05 * p.grad
    plain = engine.train_local(start, images, labels, orders, lr=0.05, batch_size=4)
    heavy = engine.train_local(start, images, labels, orders, lr=0.05, batch_size=4,
                               momentum=0.9)
    by_hand = net.state_dict()
    assert all(torch.allclose(plain[key][0], by_hand[key]) for key in by_hand)
    assert not all(torch.allclose(heavy[key][0], by_hand[key]) for key in by_hand)


@reads("Publisher's validation and test sets")
def test_validation_and_test_sets_split_the_test_split(data_root):
    from fedlib.fl import data
    from fedlib.fl.workers import publisher_sets
    sets = publisher_sets("mnist", np.random.default_rng(0), root=data_root)
    split = data.load("mnist", "test", data_root)
    assert sets.val_indices.size == sets.test_indices.size == 5000
    together = np.concatenate([sets.val_indices, sets.test_indices])
    assert np.array_equal(np.sort(together), np.arange(len(split)))   # disjoint halves
    assert torch.equal(sets.val_images, split.images[sets.val_indices])
    assert torch.equal(sets.test_labels, split.labels[sets.test_indices])


@reads("Workers' samples in Tables 1-3")
def test_one_pool_of_disjoint_samples_for_every_mechanism(fast_tables):
    from fedlib.experiments.multitask import publisher_of, worker_pool
    config, pool = fast_tables
    assert np.unique(pool.indices).size == pool.indices.size           # pairwise disjoint
    flipped = (pool.labels != pool.clean_labels).sum(1).numpy()
    assert flipped.tolist() == [round((1 - d) * config.n_samples) for d in pool.dacc]
    other = replace(config, mechanism="vanilla")
    assert np.array_equal(worker_pool(other).indices, pool.indices)
    assert torch.equal(worker_pool(other).labels, pool.labels)
    assert np.array_equal(publisher_of(other).val_indices, publisher_of(config).val_indices)


@reads("Tasks and payments of Tables 1-3")
def test_table1_over_all_tasks_tables2_3_over_the_evaluated():
    from fedlib.experiments import table_summaries
    from fedlib.experiments.multitask import MultiTaskConfig
    assert (MultiTaskConfig().n_tasks, MultiTaskConfig().eval_from) == (50, 5)
    Re = [0.5, 0.5, 0.5, 0.5]
    result = _result([  # daccs 1, 1, 0.1, 0.1; task 0 is not evaluated
        {"winners": [2], "payments": [1.0], "contribution": [0.2], "Re": Re,
         "rounds": {"test_loss": [9.0]}},
        {"winners": [0], "payments": [4.0], "contribution": [1.0], "Re": Re,
         "rounds": {"test_loss": [1.0]}},
        {"winners": [0, 1], "payments": [2.0, 3.0], "contribution": [0.9, 0.8], "Re": Re,
         "rounds": {"test_loss": [2.0]}}])
    t1 = table_summaries.table1(result)                                   # every task
    assert t1[1.0]["payment"] == pytest.approx(3.0)                 # (4 + 2 + 3) / 3 wins
    assert t1[0.1]["payment"] == pytest.approx(1.0)                 # task 0 counts
    assert t1[1.0]["payment_per_task"] == pytest.approx(9.0 / 6)    # 3 tasks x 2 workers
    late = table_summaries.table1(result, all_tasks=False)                # the alternative
    assert np.isnan(late[0.1]["payment"])                           # task 0 left out
    assert late[1.0]["payment_per_task"] == pytest.approx(9.0 / 4)  # 2 tasks x 2 workers
    assert table_summaries.table2(result) == 1.0
    assert table_summaries.table3(result) == pytest.approx(1.5)


@reads("Table 1's 'Reputation'")
def test_table1_reputation_is_the_final_accumulated_reputation():
    from fedlib.experiments import table_summaries
    empty = {"winners": [], "payments": [], "contribution": [], "rounds": {"test_loss": []}}
    result = _result([{**empty, "Re": [0.2, 0.4, 0.5, 0.5]},
                      {**empty, "Re": [0.6, 0.8, 0.5, 0.1]}], eval_from=0)
    t1 = table_summaries.table1(result)
    assert t1[1.0]["reputation"] == pytest.approx(0.7)
    assert t1[1.0]["mean_reputation"] == pytest.approx(0.5)
    assert t1[0.1]["reputation"] == pytest.approx(0.3)


@reads("Table 2's share")
def test_table2_pools_the_selections():
    from fedlib.experiments import table_summaries
    result = _result([{"winners": []}, {"winners": [0, 2, 3]}, {"winners": [0, 1]}])
    assert table_summaries.table2(result) == pytest.approx(3 / 5)        # not (1/3 + 1) / 2


@reads("Table 3's loss")
def test_table3_is_the_final_models_test_loss(engine):
    from fedlib.experiments import table_summaries
    from fedlib.fl.task import TaskOptions, score_round
    result = _result([{"winners": [0], "rounds": {"test_loss": [5.0, 4.0]}},
                      {"winners": [0], "rounds": {"test_loss": [0.9, 0.5]}},
                      {"winners": [], "rounds": {"test_loss": []}},
                      {"winners": [1], "rounds": {"test_loss": [0.8, 0.3]}}])
    assert table_summaries.table3(result) == pytest.approx(0.4)            # not the rounds' 0.625
    stacked, models, val, test = _models(engine, 3)
    record, new = score_round(engine, stacked, models[0], val, test, TaskOptions())
    assert record.test_loss == pytest.approx(engine.evaluate(new, *test)[0], rel=1e-9)
    assert record.test_loss != pytest.approx(engine.evaluate(new, *val)[0], rel=1e-9)


@reads("Input normalisation and models")
def test_models_and_pixel_statistics():
    from fedlib.fl.models import (
        MODEL_FOR_DATASET,
        PIXEL_MEAN,
        PIXEL_STD,
        make_model,
        preprocess,
    )
    assert (PIXEL_MEAN, PIXEL_STD) == (0.1307, 0.3081)
    image = torch.zeros(28, 28, dtype=torch.uint8)
    image[0, 0] = 255
    x = preprocess(image, "cpu", torch.float64)
    assert x[0, 0].item() == pytest.approx((1 - 0.1307) / 0.3081)
    assert x[1, 1].item() == pytest.approx(-0.1307 / 0.3081)
    shapes = {model: {k: tuple(v.shape) for k, v in make_model(model).state_dict().items()}
              for model in ("mlp", "lenet")}
    assert [shapes["mlp"][f"fc{i}.weight"] for i in (1, 2, 3)] == [(200, 784), (200, 200),
                                                                   (10, 200)]
    assert shapes["lenet"]["conv1.weight"] == (6, 1, 5, 5)
    assert shapes["lenet"]["conv2.weight"] == (16, 6, 5, 5)
    assert [shapes["lenet"][f"fc{i}.weight"] for i in (1, 2, 3)] == [(120, 400), (84, 120),
                                                                     (10, 84)]
    assert MODEL_FOR_DATASET == {"mnist": "mlp", "fashion": "lenet"}


@reads("Trials per point (Figures 4-5), seeds (Figures 2-3)")
def test_trials_and_seeds():
    from fedlib.experiments.auction_sweeps import DEFAULT_TRIALS, paper_config
    from fedlib.experiments.contribution import ContributionConfig
    assert DEFAULT_TRIALS == 1000
    assert paper_config("budget").trials == paper_config("workers").trials == 1000
    assert ContributionConfig().seeds == tuple(range(20))
