"""Figures 4-5 sweeps: reproducibility, what must hold on every instance, and the stored form."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import numpy as np
import pytest

from fedlib.analysis import sweep_results
from fedlib.experiments import auction_sweeps as sw
from fedlib.experiments import registry
from fedlib.experiments.commands import Options, configurations
from fedlib.mechanism import MECHANISMS, synthetic_instance, utility_per_payment


@pytest.fixture(scope="module")
def budget_result() -> sweep_results.SweepResult:
    return sw.budget_sweep((10.0, 25.0, 125.0, 250.0, 600.0), trials=25, seed=3)


@pytest.fixture(scope="module")
def worker_result() -> sweep_results.SweepResult:
    return sw.worker_sweep((1, 5, 20, 100, 200), trials=25, seed=4)


@pytest.fixture(scope="module", params=["budget", "workers"])
def result(request, budget_result, worker_result) -> sweep_results.SweepResult:
    return budget_result if request.param == "budget" else worker_result


def test_same_seed_same_numbers_and_another_seed_others():
    a = sw.budget_sweep((50.0, 150.0), trials=6, seed=11)
    b = sw.budget_sweep((50.0, 150.0), trials=6, seed=11)
    c = sw.budget_sweep((50.0, 150.0), trials=6, seed=12)
    for field in ("payment", "winners", "sum_re", "budget"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    assert not np.array_equal(a.payment, c.payment)


def test_first_trials_of_a_long_run_equal_a_short_run():
    """Trial t depends on (seed, sweep, t) only: what the stored-results check relies on."""
    short = sw.worker_sweep((10, 30), trials=3, seed=5)
    long = sw.worker_sweep((10, 30), trials=8, seed=5)
    np.testing.assert_array_equal(short.payment, long.payment[:, :, :3])
    np.testing.assert_array_equal(short.sum_re, long.sum_re[:, :, :3])


def test_all_seven_mechanisms_on_every_point(result):
    assert result.mechanisms == sw.SEVEN
    assert set(sw.SEVEN) <= set(MECHANISMS) and len(sw.SEVEN) == 7
    assert result.payment.shape == (7, len(result.xs), result.trials)


def test_budget_never_exceeded(result):
    feasible = sweep_results.budget_feasible_mechanisms(result)
    assert feasible == sw.SEVEN  # every mechanism of the paper claims it
    over = sweep_results.budget_exceeded(result)
    assert all(over[m] == 0 for m in feasible), over


def test_budget_feasibility_check_can_fail(budget_result):
    doubled = replace(budget_result, payment=budget_result.payment * 2)
    assert max(sweep_results.budget_exceeded(doubled).values()) > 0


def test_ours_at_least_rrafl_on_every_instance(result):
    """Same selection (Algorithm 1), ours pays min(p_up, p') <= p_up = RRAFL's payment, so with
    the same numerator sum re / sum p can only be larger (exactly, in floating point too: the
    sums add the same number of terms in the same order and rounding is monotone)."""
    ours, rrafl = result.index("ours"), result.index("rrafl")
    np.testing.assert_array_equal(result.winners[ours], result.winners[rrafl])
    np.testing.assert_array_equal(result.sum_re[ours], result.sum_re[rrafl])
    assert np.all(result.payment[ours] <= result.payment[rrafl])
    m = result.metric("payment")
    assert np.all(m[ours] >= m[rrafl])
    # per unit of budget the two coincide: the ex-post payment is invisible in that reading
    mb = result.metric("budget")
    np.testing.assert_array_equal(mb[ours], mb[rrafl])


def test_metrics_finite_in_the_paper_setting(budget_result, worker_result):
    for r in (budget_result, worker_result):
        for per in ("payment", "budget"):
            assert np.all(np.isfinite(r.metric(per)))
        assert np.all(r.winners >= 1)


def test_metric_is_utility_per_payment():
    rng = np.random.default_rng(0)
    for _ in range(10):
        inst = synthetic_instance(int(rng.integers(1, 60)), float(rng.uniform(1, 200)), rng)
        for name in sw.SEVEN:
            mech = MECHANISMS[name]
            values = inst.re if mech.knows == "costs" else inst.Re
            alloc = mech.select(inst.bids, values, inst.budget, costs=inst.costs,
                                rng=np.random.default_rng(inst.seed))
            pay = mech.pay(alloc, inst.re)
            total, k, gained, cost = sw.play(name, inst.bids, inst.Re, inst.re, inst.budget,
                                             inst.seed)
            assert (total, k) == (float(pay.sum()), alloc.winners.size)
            assert (gained, cost) == (float(inst.re[alloc.selected].sum()),
                                      float(inst.bids[alloc.selected].sum()))
            for per in ("payment", "budget"):
                assert sweep_results.metric(gained, total, inst.budget, per) == pytest.approx(
                    utility_per_payment(alloc, pay, inst.re, per=per, budget=inst.budget),
                    rel=1e-12)


def test_metric_edge_cases():
    out = sweep_results.metric(np.array([0.0, 1.0, 2.0]), np.array([0.0, 0.0, 4.0]), 10.0)
    assert np.isnan(out[0]) and out[1] == np.inf and out[2] == 0.5
    np.testing.assert_array_equal(
        sweep_results.metric(np.array([1.0, 2.0]), np.array([5.0, 0.0]), 4.0, "budget"),
        [0.25, 0.5])
    with pytest.raises(ValueError, match="per"):
        sweep_results.metric(1.0, 1.0, 1.0, "unit")


def test_optimal_values_reading_changes_only_the_optimal_benchmark():
    a = sw.budget_sweep((60.0, 120.0), trials=5, seed=1, optimal_values="re")
    b = sw.budget_sweep((60.0, 120.0), trials=5, seed=1, optimal_values="Re")
    opt = a.index("approx_optimal")
    others = [i for i in range(7) if i != opt]
    np.testing.assert_array_equal(a.payment[others], b.payment[others])
    assert not np.array_equal(a.sum_re[opt], b.sum_re[opt])


def test_default_distribution_is_the_papers_generator():
    rng1, rng2 = np.random.default_rng(7), np.random.default_rng(7)
    bids, Re, re, seed = sw.WorkerDistribution().draw(50, rng1)
    inst = synthetic_instance(50, 1.0, rng2)
    np.testing.assert_array_equal(bids, inst.bids)
    np.testing.assert_array_equal(Re, inst.Re)
    np.testing.assert_array_equal(re, inst.re)
    assert seed == inst.seed
    # the general code path with the paper's values draws the same workers (to rounding)
    paper = sw.WorkerDistribution()
    general = paper.with_bid_spread(2.0)
    assert not general.is_paper and general.bid_spread == pytest.approx(2.0)
    g = general.draw(50, np.random.default_rng(7))
    np.testing.assert_allclose(g[0], inst.bids, rtol=1e-12)
    np.testing.assert_array_equal(g[1], inst.Re)


def test_custom_distribution_is_respected():
    d = sw.WorkerDistribution(Re_low=0.5, Re_high=0.6, re_noise=0.0).with_bid_spread(0.5)
    bids, Re, re, _ = d.draw(400, np.random.default_rng(0))
    assert Re.min() >= 0.5 and Re.max() <= 0.6
    np.testing.assert_array_equal(re, Re)
    centre = 10 / 3 * Re + 5 / 3
    assert np.all(np.abs(bids - centre) <= 0.25 + 1e-12)


@pytest.mark.parametrize("kwargs", [
    {"Re_low": -0.1}, {"Re_low": 0.8, "Re_high": 0.2}, {"bid_low": 3.0, "bid_high": 2.0},
    {"bid_low": -1.0, "Re_low": 0.0}, {"re_noise": -0.1}, {"Re_high": float("nan")},
])
def test_invalid_distributions_are_rejected(kwargs):
    with pytest.raises(ValueError):
        sw.WorkerDistribution(**kwargs)


@pytest.mark.parametrize("call", [
    lambda: sw.budget_sweep((), trials=2),
    lambda: sw.budget_sweep((-1.0,), trials=2),
    lambda: sw.budget_sweep((10.0,), trials=0),
    lambda: sw.budget_sweep((10.0,), trials=2, per="unit"),
    lambda: sw.budget_sweep((10.0,), trials=2, mechanisms=("ours", "nope")),
    lambda: sw.budget_sweep((10.0,), trials=2, mechanisms=("ours", "ours")),
    lambda: sw.budget_sweep((10.0,), trials=2, optimal_values="RE"),
    lambda: sw.worker_sweep((0, 10), trials=2),
    lambda: sw.worker_sweep((10,), budget=0.0, trials=2),
    lambda: sw.SweepConfig(sweep="workers", xs=(2.5,), n_workers=None, budget=1.0),
    lambda: sw.SweepConfig(sweep="diagonal"),
])
def test_invalid_sweeps_are_rejected(call):
    with pytest.raises(ValueError):
        call()


def test_summaries_are_ordered_and_tidy(result):
    for quantity in sweep_results.QUANTITIES:
        s = sweep_results.summarize(result, quantity=quantity)
        assert s.median.shape == (7, len(result.xs))
        assert np.all(s.q25 <= s.median) and np.all(s.median <= s.q75)
    records = sweep_results.summarize(result).records()
    assert len(records) == 7 * len(result.xs)
    assert {r["mechanism"] for r in records} == set(sw.SEVEN)
    tidy = result.records()
    assert len(tidy) == 7 * len(result.xs) * result.trials
    assert set(tidy[0]) == {"mechanism", "x", "trial", "metric", "total_payment", "budget",
                            "budget_used", "winners", "sum_re", "sum_cost"}
    text = sweep_results.summarize(result).text(x_name="B")
    assert len(text.splitlines()) == 1 + len(result.xs)
    assert text.splitlines()[0].split() == ["B", *(sweep_results.SHORT_LABELS[m] for m in sw.SEVEN)]
    assert max(len(line) for line in text.splitlines()) <= 70  # fits the book's column
    # every number stands under the end of its heading
    head, first = text.splitlines()[:2]
    assert [m.end() for m in re.finditer(r"\S+", head)] == [
        m.end() for m in re.finditer(r"\S+", first)]


def test_metric_is_re_per_cost_over_markup(result):
    """Per unit paid, utility = (re per unit of true cost) / (payment per unit of true cost)."""
    np.testing.assert_allclose(result.metric("payment"),
                               result.quantity("re_per_cost") / result.quantity("markup"),
                               rtol=1e-12)
    markup = result.quantity("markup")
    for name in ("vanilla", "bid_greedy", "reputation_greedy", "approx_optimal"):
        np.testing.assert_allclose(markup[result.index(name)], 1.0, rtol=1e-12)  # pay as bid
    for name in ("rrafl", "proportional_share"):  # IR: every winner is paid at least its cost
        assert np.all(markup[result.index(name)] >= 1 - 1e-12)
    # ours is IR for honest winners only (re >= Re): in total it may pay below the costs
    with pytest.raises(ValueError, match="quantity"):
        result.quantity("profit")


def test_everyone_selected_when_the_budget_covers_every_bid(worker_result):
    """n = 1: a single worker whose bid (<= 6) fits B = 125 is selected by every mechanism."""
    j = worker_result.xs.index(1.0)
    assert np.all(worker_result.winners[:, j] == 1)


def test_claims_checks(budget_result):
    claims = {c.statement: c for c in sweep_results.check_claims(budget_result)}
    assert list(claims) == [text for text, _, _ in sweep_results.PAPER_CLAIMS]
    above = sweep_results.medians_above(budget_result, "approx_optimal", "ours")
    optimal = claims["Approx. Optimal above ours"]
    assert optimal.where == "Figure 4 (per payment)"
    assert optimal.holds == bool(above.all())
    assert optimal.finding.startswith(f"medians agree at {above.mean():.0%} of the points")
    # per unit of budget ours and RRAFL tie on every instance: the claim fails everywhere
    budget_reading = {c.statement: c for c in sweep_results.check_claims(budget_result, "budget")}
    rrafl = budget_reading["ours above RRAFL"]
    assert rrafl.where == "Figure 4 (per budget)" and rrafl.verdict == "not reproduced"
    assert rrafl.finding.endswith("single trials agree 0.0%, ties 100.0%")


def test_medians_above(budget_result):
    for better, worse in (("ours", "rrafl"), ("rrafl", "ours")):
        median = sweep_results.summarize(budget_result).median
        expected = median[budget_result.index(better)] > median[budget_result.index(worse)]
        assert np.array_equal(sweep_results.medians_above(budget_result, better, worse), expected)
    # per unit of budget the two tie on every instance, so neither median is above
    assert not sweep_results.medians_above(budget_result, "ours", "rrafl", "budget").any()
    assert not sweep_results.medians_above(budget_result, "rrafl", "ours", "budget").any()


def test_mechanism_table_from_the_registry():
    rows = sw.mechanism_table()
    assert [r["name"] for r in rows] == list(sw.SEVEN)
    by_name = {r["name"]: r for r in rows}
    assert by_name["approx_optimal"]["knows"] == "true costs"
    assert by_name["ours"]["knows"] == "bids"
    assert "budget_feasible" in by_name["rrafl"]["claims"]
    assert all(r["summary"] and r["label"] for r in rows)


def test_names_and_commands():
    for sweep in ("budget", "workers"):
        config = sw.paper_config(sweep)
        assert registry.command_flags(config) == []
        assert registry.command_flags(config.fast()) == ["--fast"]
        assert registry.command_flags(replace(config, trials=7)) is None
        assert config.result_name() == f"mechanisms_{sweep}"
        assert config.fast().result_name() == f"mechanisms_{sweep}_fast"
        assert replace(config, seed=2).result_name() == f"mechanisms_{sweep}_s2"
    assert sw.paper_config("budget").n_workers == 100
    assert sw.paper_config("workers").budget == 125.0


def test_recompute_matches_summary_records():
    config = sw.paper_config("budget").fast()
    stored = sw.run_sweep(config).summary_records()
    again = registry.rebuild(json.loads(json.dumps(config.to_dict()))).recompute(3)
    assert json.loads(json.dumps(stored[:3])) == json.loads(json.dumps(again))


def test_the_stored_summary_has_a_record_per_mechanism_and_point():
    for config in configurations("mechanisms", Options(fast=True)):
        summary = config.run()
        payload = json.loads(json.dumps({"config": config.to_dict(),
                                         "records": summary.records}))
        assert payload["config"]["experiment"] == "mechanisms"
        assert len(payload["records"]) == 7 * len(payload["config"]["xs"])
        assert all(r["over_budget"] == 0 for r in payload["records"])
        again = sw.SweepSummary.from_stored(payload["config"], payload["records"], 1.0)
        assert again.config == config and list(again.records) == payload["records"]


def test_gap_decomposition_adds_up(result):
    parts = sweep_results.gap_decomposition(result)
    np.testing.assert_allclose(parts["total"], parts["selection"] + parts["markup"],
                               rtol=1e-9, atol=1e-12)
    assert parts["total"].shape == (len(result.xs), result.trials)
    same = sweep_results.gap_decomposition(result, "ours", "ours")
    assert np.all(same["total"] == 0)
