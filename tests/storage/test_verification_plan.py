"""How much of a stored file CI recomputes (fedlib.storage.verification.verification_plan)."""

from __future__ import annotations

import pytest

from fedlib.storage.verification import plan_numbers, verification_plan


@pytest.mark.parametrize("config, plan", [
    ({"experiment": "tables", "dataset": "mnist", "mechanism": "ours", "seed": 0},
     (2, None, None)),
    ({"experiment": "tables", "dataset": "mnist", "mechanism": "vanilla", "seed": 0},
     (2, None, None)),
    ({"experiment": "tables", "dataset": "fashion", "mechanism": "ours", "seed": 0},
     (1, None, None)),
    ({"experiment": "tables", "dataset": "fashion", "mechanism": "vanilla", "seed": 0},
     (1, 2, None)),
    ({"experiment": "tables", "dataset": "mnist", "mechanism": "ours", "seed": 4}, (1, 2, None)),
    ({"experiment": "coldstart", "dataset": "fashion", "seed": 0}, (1, 2, None)),
    ({"experiment": "coldstart", "dataset": "fashion", "seed": 2}, (1, 2, 3)),
    ({"experiment": "budgets", "dataset": "mnist", "seed": 0}, (1, 2, None)),
    ({"experiment": "noniid", "dataset": "mnist", "seed": 0, "alphas": [0.1, 0.3, 1.0, None]},
     (1, 2, 4)),
    ({"experiment": "noniid", "dataset": "fashion", "seed": 2, "alphas": [0.1, 1.0]},
     (1, 2, 2)),
    ({"experiment": "contribution", "dataset": "mnist"}, (2, None, None)),
    ({"experiment": "shapley", "dataset": "mnist"}, (1, 1, None)),
])
def test_whole_tasks_for_the_seed_0_tables_and_a_prefix_for_the_rest(config, plan):
    assert verification_plan(config) == plan


def test_the_chapters_glue_the_rules_numbers():
    assert plan_numbers() == {"verify_mnist_tasks": 2, "verify_fashion_tasks": 1,
                              "verify_prefix_rounds": 2, "verify_seed_runs": 3}
