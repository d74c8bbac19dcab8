"""The Shapley ground-truth experiment on a tiny configuration, and its pieces."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
import torch

from fedlib.experiments.contribution import _TRAIN, ContributionConfig, _setup
from fedlib.experiments.shapley_truth import (
    MEASURES,
    ShapleyConfig,
    ShapleyResult,
    correlations,
    first_rounds,
    kendall_tau,
    round_game,
    round_measures,
    run_shapley_truth,
)
from fedlib.fl.engine import BatchedEngine
from fedlib.fl.seeding import seed_sequence, torch_threads
from fedlib.fl.task import TaskOptions, run_task
from fedlib.mechanism.shapley import leave_one_out
from fedlib.storage import results, stored, verification

WORKERS, ROUNDS = 4, 2
TINY = ShapleyConfig(
    ContributionConfig(seeds=(0,), n_samples=100, n_val=200, n_test=100,
                       task=TaskOptions(rounds=ROUNDS), device="cpu"),
    workers=WORKERS, mc_permutations=3, curve_permutations=8)


@pytest.fixture(scope="module")
def result(data_root):
    return run_shapley_truth(TINY)


def test_efficiency_holds_every_round(result) -> None:
    for record in result.records:
        shapley = np.array(record["rounds"]["shapley"])
        gain = np.array(record["v_full"]) - np.array(record["v_empty"])
        np.testing.assert_allclose(shapley.sum(1), gain, atol=1e-9)
        assert np.any(shapley != 0)


def test_records_are_complete(result) -> None:
    assert [(r["case"], r["seed"]) for r in result.records] == [(1, 0), (2, 0)]
    for record in result.records:
        for name in ("shapley", *MEASURES):
            assert np.shape(record["rounds"][name]) == (ROUNDS, WORKERS)
            assert np.allclose(record["task"][name], np.mean(record["rounds"][name], axis=0))
            assert record["seconds"][name] > 0
        assert record["evaluations"] == {
            "shapley": ROUNDS * 2**WORKERS, "ours": ROUNDS * WORKERS, "equal": ROUNDS * WORKERS,
            "local": ROUNDS * WORKERS, "loo": ROUNDS * (WORKERS + 1),
            "monte_carlo": record["evaluations"]["monte_carlo"]}
        assert WORKERS + 1 <= record["evaluations"]["monte_carlo"] <= ROUNDS * 2**WORKERS
        assert np.shape(record["mc_error"]) == np.shape(record["mc_evaluations"]) == (ROUNDS, 8)
        # Our measure seen through the hook is the task's own contribution.
        np.testing.assert_allclose(record["task"]["ours"], record["task_contribution"],
                                   atol=1e-12)
    table = result.cost_table()
    assert table["shapley"]["evaluations"] == 2**WORKERS
    assert set(correlations(result.records)) == set(MEASURES)
    assert correlations(result.case(1), "kendall", "round")["ours"].shape == (ROUNDS,)


def test_observing_does_not_change_the_task(result, data_root) -> None:
    engine, pool, publisher = _setup(TINY.contribution, 1, 0)
    with torch_threads(1):
        plain = run_task(engine, pool.subset(np.arange(WORKERS)), publisher,
                         seed=seed_sequence(0, 1, _TRAIN), options=TINY.contribution.task)
    assert plain.contribution.tolist() == result.records[0]["task_contribution"]


def test_runs_are_deterministic(result, data_root) -> None:
    again = run_shapley_truth(TINY, jobs=2)  # in two processes: the same records
    for first, second in zip(result.records, again.records, strict=True):
        assert {k: v for k, v in first.items() if k != "seconds"} == {
            k: v for k, v in second.items() if k != "seconds"}


def test_round_measures_agree_with_the_game_table() -> None:
    engine = BatchedEngine("mlp", device="cpu", dtype=torch.float64)
    gen = torch.Generator().manual_seed(0)
    models = [engine.init_params(gen) for _ in range(4)]
    stacked = {key: torch.stack([m[key] for m in models[1:]]) for key in models[0]}
    images = torch.randn(60, 28, 28, generator=gen, dtype=torch.float64)
    labels = torch.randint(0, 10, (60,), generator=gen)
    for utility in ("accuracy", "neg_loss"):
        game = round_game(engine, models[0], stacked, images, labels, utility)
        loss, accuracy = engine.evaluate(models[0], images, labels)
        assert game.table[0] == (accuracy if utility == "accuracy" else -loss)
        config = replace(TINY, utility=utility, mc_permutations=500, curve_permutations=500)
        out = round_measures(engine, models[0], stacked, images, labels, config,
                             np.random.default_rng(0))
        np.testing.assert_allclose(out["loo"], leave_one_out(game.table), atol=1e-12)
        np.testing.assert_allclose(out["local"], game.table[[1, 2, 4]], atol=1e-12)
        # 500 orders of 3 players visit all 8 coalitions, and the error has shrunk.
        assert out["evaluations"]["monte_carlo"] == 8
        assert out["mc_error"][-1] < out["mc_error"][0] or out["mc_error"][0] == 0


def test_kendall_tau_by_hand() -> None:
    # Pairs (0,1) and (0,2) concordant, (1,2) discordant: (2 - 1) / 3.
    assert kendall_tau([1, 2, 3], [10, 30, 20]) == pytest.approx(1 / 3)
    # tau-b with a tie in x: 2 concordant, 0 discordant, sqrt(2 * 3) in the denominator.
    assert kendall_tau([1, 1, 2], [1, 2, 3]) == pytest.approx(2 / np.sqrt(6))
    assert np.isnan(kendall_tau([1, 1], [1, 2]))


@pytest.mark.parametrize(("call", "match"), [
    (lambda: ShapleyConfig(workers=1), "workers"),
    (lambda: ShapleyConfig(workers=17), "workers"),
    (lambda: ShapleyConfig(utility="loss"), "utility"),
    (lambda: ShapleyConfig(mc_permutations=0), "mc_permutations"),
    (lambda: ShapleyConfig(mc_permutations=20, curve_permutations=10), "curve_permutations"),
    (lambda: kendall_tau([1, 2], [1, 2, 3]), "same length"),
    (lambda: run_shapley_truth(TINY, jobs=0), "jobs"),
    (lambda: correlations([], method="pearson"), "method"),
    (lambda: correlations([], level="worker"), "level"),
])
def test_bad_input_is_rejected(call, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()


def test_fast_shrinks_the_contribution_run() -> None:
    fast = ShapleyConfig().fast()
    assert fast.contribution.task.rounds == 2 and fast.workers == 10
    assert fast.contribution.n_val < ShapleyConfig().contribution.n_val


def test_the_configuration_round_trips_through_json() -> None:
    for config in (TINY, ShapleyConfig(), replace(ShapleyConfig(), utility="neg_loss").fast()):
        state = json.loads(json.dumps(config.to_dict()))
        assert state["experiment"] == "shapley" and state["n_val"] == config.contribution.n_val
        assert ShapleyConfig.from_dict(state) == config
    assert ShapleyConfig().result_name() == "shapley_mnist"
    assert ShapleyConfig().fast().result_name() == "shapley_mnist_fast"


def test_a_stored_result_is_rebuilt_with_everything_the_chapter_reads(result, tmp_path) -> None:
    results.save_result(TINY.result_name(), TINY, result.records, tmp_path,
                        wall_time_s=result.wall_time_s)
    got = stored.obtain(TINY, tmp_path, how="stored").result
    assert isinstance(got, ShapleyResult) and got.config == TINY
    assert got.wall_time_s == result.wall_time_s
    assert list(got.records) == json.loads(json.dumps(list(result.records)))
    assert got.cost_table() == result.cost_table()
    assert got.case(2) == list(result.case(2))
    for case in (1, 2):
        for name, values in correlations(got.case(case), level="round").items():
            np.testing.assert_array_equal(
                values, correlations(result.case(case), level="round")[name])


def test_the_first_round_of_a_shorter_task_is_that_of_the_longer_one(result) -> None:
    short = verification.with_rounds(TINY, 1).recompute(1)
    assert first_rounds(short[0], 1) == first_rounds(result.records[0], 1)
    assert first_rounds(result.records[0], 1)["mc_error"] == result.records[0]["mc_error"][:1]
