"""The non-iid grid's statements, checked seed by seed (fedlib.experiments.skew_claims), on
hand-made grids whose answers are counted by hand."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from fedlib.experiments.multitask import MultiTaskConfig, MultiTaskResult
from fedlib.experiments.noniid import EXCLUDED_TAIL, NoniidConfig, NoniidResult, summary_rows
from fedlib.experiments.skew_claims import (
    grid_claims,
    payment_per_worker,
    seed_summary,
    still_hired,
    variant_claims,
)
from fedlib.fl.task import TaskOptions

# Worker 0 clean skewed, 1 clean balanced, 2 noisy skewed, 3 noisy balanced (at alpha 0.1).
BASE = MultiTaskConfig(groups=((1.0, 2), (0.1, 2)), n_tasks=12, eval_from=2, device="cpu")
GRID = NoniidConfig(alphas=(0.1, None), mechanisms=("ours", "reputation_greedy", "vanilla"),
                    base=BASE)
SHUT = [[0, 1]] * 2 + [[1, 3]] * 10          # worker 0 wins the first two tasks only
TAKES_TURNS = [[0, 2], [1, 3]] * 6             # every worker wins every other task


def _run(config: MultiTaskConfig, winners: list[list[int]], pay: float = 1.0) -> MultiTaskResult:
    records = tuple({"task": t, "winners": w, "payments": [pay] * len(w),
                     "contribution": [0.5] * len(w), "re": [0.5] * len(w), "Re": [0.5] * 4,
                     "rounds": {"test_loss": [1.0, 0.5], "test_acc": [0.5, 0.8]}}
                    for t, w in enumerate(winners))
    return MultiTaskResult(config, records, 0.0)


def _grid(seed: int = 0, config: NoniidConfig = GRID, **winners: list[list[int]]) -> NoniidResult:
    """A grid of ``config`` with the given seed: every run's winners from ``winners`` (by
    mechanism; default :data:`SHUT` for ours and Reputation Greedy, :data:`TAKES_TURNS` for
    Vanilla)."""
    config = replace(config, base=replace(config.base, seed=seed))
    chosen = {"ours": SHUT, "reputation_greedy": SHUT, "vanilla": TAKES_TURNS, **winners}
    runs = tuple(_run(run, chosen[mechanism])
                 for (mechanism, _), run in zip(config.points, config.run_configs(), strict=True))
    return NoniidResult(config, runs, 0.0, tuple(np.zeros((4, 10), int) for _ in runs))


def test_still_hired_and_payments_counted_by_hand():
    run = _grid().run_of(0.1, "ours")
    assert still_hired(run) == {"clean skewed": 0.0, "clean balanced": 1.0,
                                "noisy skewed": 0.0, "noisy balanced": 1.0}
    assert still_hired(run, tail=11) == {"clean skewed": 1.0, "clean balanced": 1.0,
                                         "noisy skewed": 0.0, "noisy balanced": 1.0}
    # evaluated tasks 2-11: workers 1 and 3 paid 1 each task, 0 and 2 never
    assert payment_per_worker(run) == {"clean skewed": 0.0, "clean balanced": 1.0,
                                       "noisy skewed": 0.0, "noisy balanced": 1.0}
    turns = _run(run.config, TAKES_TURNS, pay=2.0)
    assert payment_per_worker(turns) == {kind: 1.0 for kind in payment_per_worker(run)}
    # iid: workers 0 and 1 clean balanced, 2 and 3 noisy balanced; 1 and 3 win at the end
    assert still_hired(_grid().run_of(None, "ours")) == {"clean balanced": 0.5,
                                                         "noisy balanced": 0.5}
    with pytest.raises(ValueError, match="tail"):
        still_hired(run, tail=13)


def test_the_claims_hold_on_five_seeds_and_are_indicative_on_one():
    claims = grid_claims([_grid(seed) for seed in range(5)])
    assert len(claims) == 4 and all(c.verdict == "reproduced" for c in claims)
    assert [c.where for c in claims] == ["Our mechanism, alpha 0.1",
                                         "Reputation Greedy, alpha 0.1",
                                         "Vanilla FL, alpha 0.1", "Our mechanism, alpha 0.1"]
    assert f"last {EXCLUDED_TAIL} tasks" in claims[0].statement
    assert [c.verdict for c in grid_claims([_grid()])] == ["indicative"] * 4


def test_a_planted_fault_in_one_seed_turns_its_claim():
    late_win = SHUT[:-1] + [[0, 1]]               # worker 0 wins the last task
    grids = [_grid(seed) for seed in range(9)] + [_grid(9, ours=late_win)]
    ours, greedy, *_ = grid_claims(grids)
    assert ours.seeds.checks == (True,) * 9 + (False,) and ours.verdict == "reproduced"
    assert greedy.seeds.held == 10 and "9 of 10 seeds" in ours.finding
    assert grid_claims(grids[5:])[0].verdict == "partly"          # 4 of 5: p = 0.19
    assert grid_claims([_grid(vanilla=SHUT)])[2].verdict == "not reproduced"
    assert grid_claims([_grid(ours=TAKES_TURNS)])[3].verdict == "not reproduced"  # paid alike


def test_variant_claims_against_ours():
    variant = replace(GRID, mechanisms=("ours",), base=replace(BASE, task=TaskOptions(
        own_labels=True)))
    grids = [_grid(seed) for seed in range(5)]
    kept = [_grid(seed, variant, ours=TAKES_TURNS) for seed in range(5)]
    fewer, more = variant_claims(grids, kept)
    assert fewer.verdict == more.verdict == "reproduced"
    assert fewer.seeds.statistic.values == (1.0,) * 5   # every clean skewed worker kept
    shut = [_grid(seed, variant) for seed in range(5)]
    assert [c.verdict for c in variant_claims(grids, shut)] == ["not reproduced"] * 2
    with pytest.raises(ValueError, match="own labels"):
        variant_claims(grids, grids)
    with pytest.raises(ValueError, match="one variant grid per seed"):
        variant_claims(grids, kept[:4])


def test_bad_groups_of_grids_are_refused():
    with pytest.raises(ValueError, match="at least one seed"):
        grid_claims([])
    with pytest.raises(ValueError, match="one grid per seed"):
        grid_claims([_grid(), _grid()])
    iid_only = replace(GRID, alphas=(None,))
    with pytest.raises(ValueError, match="no skewed alpha"):
        grid_claims([_grid(config=iid_only)])


def test_seed_summary_over_seeds():
    grids = [_grid(0), _grid(1, ours=TAKES_TURNS)]
    rows = seed_summary(grids)
    singles = [summary_rows(g) for g in grids]
    assert [(r["alpha"], r["mechanism"]) for r in rows] == [
        (r["alpha"], r["mechanism"]) for r in singles[0]]
    first = rows[0]                               # ours at alpha 0.1
    assert first["payments to clean skewed"].values == (0.0, 0.25)
    assert first["payments to clean skewed"].seeds == (0, 1)
    assert rows[1]["clean skewed excluded"] is None  # iid: no clean skewed worker
    assert "payments to clean skewed" not in rows[1]
