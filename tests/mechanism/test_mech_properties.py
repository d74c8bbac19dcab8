"""fedlib.mechanism.properties: the reports, the counterexample search, and every mechanism's
claims checked on thousands of random instances."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest
from hypothesis import given
from mech_strategies import FAST, instances

from fedlib.mechanism import (
    MECHANISMS,
    Allocation,
    Instance,
    budget_feasibility,
    deviation_grid,
    find_truthfulness_counterexample,
    individual_rationality,
    random_instances,
    truthfulness,
)
from fedlib.mechanism.mechanisms import RRAFL
from fedlib.paper.examples import THEOREM4

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

THEOREM_4 = Instance(*THEOREM4)


@dataclass(frozen=True)
class _Overpaying(RRAFL):
    """A deliberately broken mechanism: pays twice the upper payment."""

    name: ClassVar[str] = "overpaying"

    def _pay(self, allocation: Allocation, re: np.ndarray) -> np.ndarray:
        return 2 * allocation.upper


def test_theorem_4_counterexample_is_reported() -> None:
    report = truthfulness(MECHANISMS["ours"], [THEOREM_4])
    assert (report.instances, report.checks, report.violations) == (1, 3, 1)
    w = report.counterexample
    assert w is not None and w.worker == 0
    assert w.utility == pytest.approx(10 / 3 - 4) and w.deviant_utility == 0.0
    assert w.margin == pytest.approx(4 - 10 / 3) and w.bid > 5.0  # overbid and lose
    assert truthfulness(MECHANISMS["ours"], [THEOREM_4], workers="honest").holds
    assert truthfulness(MECHANISMS["rrafl"], [THEOREM_4]).holds


def test_theorem_4_instance_ir_split() -> None:
    report = individual_rationality(MECHANISMS["ours"], [THEOREM_4])
    assert report.honest.holds and report.honest.checks == 1  # worker 1: re = Re
    assert report.dishonest.checks == 1 and report.dishonest.violations == 1
    assert report.dishonest.counterexample.utility == pytest.approx(10 / 3 - 4)


def test_a_broken_mechanism_is_caught() -> None:
    report = budget_feasibility(_Overpaying(), [THEOREM_4])
    assert not report.holds and report.counterexample.margin == pytest.approx(10.0)
    assert budget_feasibility(MECHANISMS["ours"], [THEOREM_4]).holds


def test_search_finds_the_dishonest_overbidder() -> None:
    w = find_truthfulness_counterexample(MECHANISMS["ours"], np.random.default_rng(1))
    assert w is not None
    assert not w.instance.honest[w.worker]
    assert w.utility < 0 and w.deviant_utility == 0.0  # it was paid below cost; it loses
    assert find_truthfulness_counterexample(MECHANISMS["ours"], np.random.default_rng(1),
                                            tries=100, workers="honest") is None


@pytest.mark.parametrize("name", ["rrafl", "proportional_share"])
def test_search_finds_nothing_for_truthful_mechanisms(name: str) -> None:
    assert find_truthfulness_counterexample(MECHANISMS[name], np.random.default_rng(2),
                                            tries=100) is None


@pytest.mark.parametrize("name", ["vanilla", "bid_greedy", "reputation_greedy"])
def test_pay_as_bid_mechanisms_reward_overbidding(name: str) -> None:
    w = find_truthfulness_counterexample(MECHANISMS[name], np.random.default_rng(3))
    assert w is not None and w.bid > w.instance.costs[w.worker]


def test_deviation_grid_brackets_the_critical_bid() -> None:
    grid = deviation_grid(THEOREM_4, 0)
    # Others' densities 4.5 and 100 and the shares 10/1, 10/2, 10/3, each bracketed.
    for point in (4.5, 100.0, 10.0, 5.0, 10 / 3):
        assert np.any((grid < point) & (grid > point * (1 - 1e-8)))
        assert np.any((grid > point) & (grid < point * (1 + 1e-8)))
    # A bid above B, which always loses, even for a worker with Re = 0 among cheap rivals.
    assert deviation_grid(Instance([1.0, 1.0], [0.0, 1.0], 10.0, [0.0, 1.0]), 0).max() > 10.0


def test_explicit_grid_and_bad_arguments() -> None:
    report = truthfulness(MECHANISMS["ours"], [THEOREM_4], grid=[4.0, 6.0])
    assert report.violations == 1 and report.counterexample.bid == 6.0
    with pytest.raises(ValueError, match="^grid "):
        truthfulness(MECHANISMS["ours"], [THEOREM_4], grid=[np.nan])
    with pytest.raises(ValueError, match="^workers "):
        truthfulness(MECHANISMS["ours"], [THEOREM_4], workers="some")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="^workers "):
        find_truthfulness_counterexample(MECHANISMS["ours"], np.random.default_rng(0),
                                         workers="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="^rng "):
        find_truthfulness_counterexample(MECHANISMS["ours"], 0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="^rtol "):
        budget_feasibility(MECHANISMS["ours"], [THEOREM_4], rtol=-1.0)
    with pytest.raises(ValueError, match="^worker "):
        deviation_grid(THEOREM_4, 3)


def test_claims_hold_on_thousands_of_random_instances() -> None:
    pool = list(random_instances(np.random.default_rng(2024), 1500))
    for m in MECHANISMS.values():
        sample = pool if m.name != "approx_optimal_exact" else pool[:400]
        assert budget_feasibility(m, sample).holds, m.name
        ir = individual_rationality(m, sample)
        assert ir.honest.holds, m.name
        # Only ours lacks "ir": some dishonest winners are paid below cost.
        assert ir.dishonest.holds == ("ir" in m.claims), m.name


def test_truthfulness_on_random_instances() -> None:
    pool = list(random_instances(np.random.default_rng(7), 80, n_workers=(1, 6)))
    assert truthfulness(MECHANISMS["ours"], pool, workers="honest").holds
    assert not truthfulness(MECHANISMS["ours"], pool, workers="dishonest").holds
    for name in ("rrafl", "proportional_share"):
        assert truthfulness(MECHANISMS[name], pool).holds


@FAST
@given(instances(max_workers=5))
def test_ours_is_truthful_for_honest_workers(instance: Instance) -> None:
    report = truthfulness(MECHANISMS["ours"], [instance], workers="honest")
    assert report.holds, report.counterexample


@FAST
@given(instances(max_workers=5))
def test_ex_ante_variant_is_truthful_for_everyone(instance: Instance) -> None:
    for name in ("rrafl", "proportional_share"):
        report = truthfulness(MECHANISMS[name], [instance])
        assert report.holds, report.counterexample


def test_instance_validation() -> None:
    with pytest.raises(ValueError, match="^re "):
        Instance([1.0], [1.0], 1.0, [1.0, 2.0])
    with pytest.raises(ValueError, match="^costs "):
        Instance([1.0], [1.0], 1.0, [1.0], costs=[-1.0])
    with pytest.raises(ValueError, match="^seed "):
        Instance([1.0], [1.0], 1.0, [1.0], seed=-1)
    with pytest.raises(ValueError, match="^budget "):
        Instance([1.0], [1.0], 0.0, [1.0])
