"""The smoke-sized runs that the figures and the tables of the federated chapter are tested on
(computed once per test process)."""

from __future__ import annotations

import pytest

from fedlib.experiments import budget_sweep
from fedlib.experiments.multitask import TABLE_MECHANISMS, MultiTaskConfig


@pytest.fixture(scope="session")
def fast_runs(data_root):
    """Fast runs: every mechanism of Tables 2-3 on MNIST, ours and Vanilla FL on Fashion."""
    keys = [("mnist", m) for m in TABLE_MECHANISMS] + [("fashion", "ours"),
                                                       ("fashion", "vanilla")]
    return {(d, m): MultiTaskConfig(dataset=d, mechanism=m, device="cpu").fast().run()
            for d, m in keys}


@pytest.fixture(scope="session")
def fast_sweep(data_root):
    return budget_sweep.BudgetSweepConfig(
        budgets=(30.0, 75.0), base=MultiTaskConfig(n_tasks=20, device="cpu")).fast().run()
