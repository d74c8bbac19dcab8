"""Label skew as a setting of the multi-task experiment, and the non-iid grid: configurations,
their stored form and names, and the fast run end to end (``reproduce noniid --fast``)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from fedlib.analysis.skew import KINDS
from fedlib.cli import main
from fedlib.experiments import registry
from fedlib.experiments.commands import Options, configurations
from fedlib.experiments.multitask import MultiTaskConfig, worker_pool
from fedlib.experiments.noniid import (
    NONIID_ALPHAS,
    NONIID_PIECES,
    NoniidConfig,
    NoniidResult,
    kinds_of,
    merge,
    summary_rows,
)
from fedlib.fl.seeding import seed_sequence
from fedlib.fl.task import TaskOptions
from fedlib.fl.workers import iid_workers
from fedlib.storage import results, verification

RESULTS = Path(__file__).resolve().parents[2] / "results"


# ------------------------------------------------------------ the setting in MultiTaskConfig


def test_the_default_configuration_reads_as_before():
    state = MultiTaskConfig().to_dict()
    assert "label_skew" not in state and "skewed_share" not in state
    stored = json.loads((RESULTS / "tables_mnist_ours.json").read_text())["config"]
    assert registry.rebuild(stored).to_dict() == stored
    loaded = results.load_result("tables_mnist_ours", MultiTaskConfig(), RESULTS)
    assert registry.rebuild(loaded.config) == MultiTaskConfig(device=loaded.config["device"])


def test_label_skew_round_trips_and_names_the_file():
    config = MultiTaskConfig(label_skew=1, skewed_share=0.2, device="cpu")
    assert config.label_skew == 1.0 and isinstance(config.label_skew, float)
    state = json.loads(json.dumps(config.to_dict()))
    assert state["label_skew"] == 1.0 and state["skewed_share"] == 0.2
    assert registry.rebuild(state) == config
    assert config.result_name() == "tables_mnist_ours_skew1_share0.2"
    assert MultiTaskConfig(label_skew=0.1).fast().result_name() == "tables_mnist_ours_skew0.1_fast"


def test_the_first_ceil_share_of_every_group_is_skewed():
    paper = MultiTaskConfig(label_skew=0.1)
    assert paper.skewed.tolist() == ([True] * 8 + [False] * 7 + ([True] * 3 + [False] * 2) * 3)
    assert not MultiTaskConfig().skewed.any()
    assert MultiTaskConfig(groups=((1.0, 10),), label_skew=1.0,
                           skewed_share=0.3).skewed.sum() == 3  # not 4 from 3.0000000000000004
    assert MultiTaskConfig(label_skew=1.0, skewed_share=1.0).skewed.all()
    assert kinds_of(paper).tolist() == (["clean skewed"] * 8 + ["clean balanced"] * 7
                                        + (["noisy skewed"] * 3 + ["noisy balanced"] * 2) * 3)


@pytest.mark.parametrize("changes,match", [
    ({"label_skew": 0.0}, "alpha"), ({"label_skew": float("inf")}, "alpha"),
    ({"label_skew": "0.1"}, "alpha"), ({"skewed_share": 0.0}, "skewed_share"),
    ({"skewed_share": 1.5}, "skewed_share"), ({"skewed_share": True}, "skewed_share"),
])
def test_bad_skew_settings_are_refused(changes, match):
    with pytest.raises(ValueError, match=match):
        MultiTaskConfig(**changes)


def test_the_pools_of_iid_and_skewed_runs(data_root):
    iid = MultiTaskConfig(seed=2).fast()
    pool = worker_pool(iid)
    stream = np.random.default_rng(seed_sequence(2, 0))  # the pool's stream: key 0
    again = iid_workers("mnist", iid.daccs, stream, n=200)
    assert np.array_equal(pool.indices, again.indices) and torch.equal(pool.labels, again.labels)
    config = replace(iid, label_skew=1e-6)
    skewed = worker_pool(config)
    held = (skewed.label_counts() > 0).sum(axis=1)
    assert np.all(held[config.skewed] == 1) and np.all(held[~config.skewed] > 1)
    assert len(np.unique(skewed.indices)) == skewed.indices.size


# ---------------------------------------------------------------------------------- the grid


def test_grid_names_round_trip_and_order():
    config = NoniidConfig(base=MultiTaskConfig(device="cpu"))
    assert config.result_name() == "noniid_mnist" and config.fast().result_name() == (
        "noniid_mnist_fast")
    assert config.alphas == NONIID_ALPHAS and config.base.label_skew is None
    state = json.loads(json.dumps(config.to_dict()))
    assert state["alphas"] == [0.1, 0.3, 1.0, None] and "label_skew" not in state["base"]
    assert registry.rebuild(state) == config and registry.rebuild(state).to_dict() == state
    assert [m for m, _ in config.points][-4:] == ["rrafl"] * 4  # RRAFL reads ours' tasks
    shuffled = replace(config, mechanisms=("rrafl", "ours"), alphas=(None, 2))
    assert shuffled.points == [("ours", None), ("ours", 2.0), ("rrafl", None), ("rrafl", 2.0)]
    assert shuffled.run_labels() == ["ours_iid", "ours_a2", "rrafl_iid", "rrafl_a2"]
    assert [c.label_skew for c in shuffled.run_configs()] == [None, 2.0, None, 2.0]
    assert registry.command_flags(replace(config, mechanisms=("ours",))) == [
        "--dataset mnist", "--mechanisms ours"]
    # the grid in pieces, each a file of its own, which the command without flags gives
    assert [replace(config, mechanisms=piece).result_name() for piece in NONIID_PIECES] == [
        "noniid_mnist_ours_rrafl", "noniid_mnist_reputation_greedy", "noniid_mnist_vanilla"]
    assert registry.command_flags(replace(config, mechanisms=("ours", "rrafl"))) == [
        "--dataset mnist"]
    assert replace(config, mechanisms=("ours",), base=replace(
        config.base, seed=3, task=TaskOptions(own_labels=True))).result_name() == (
        "noniid_mnist_ours_ownlabels_s3")
    assert registry.command_flags(replace(config, alphas=(0.1,))) == [  # whole: not a piece
        "--dataset mnist", "--mechanisms ours reputation_greedy vanilla rrafl", "--alphas 0.1"]
    assert registry.command_flags(replace(config, alphas=(0.1,), mechanisms=("vanilla",))) == [
        "--dataset mnist", "--alphas 0.1"]
    assert registry.command_flags(replace(config, base=replace(config.base, n_tasks=7))) is None
    # the carried model (Fashion-MNIST's reading that starts the mechanism): files of their own
    carried = configurations("noniid", Options(datasets=("fashion",), alphas=(0.1, 1.0),
                                               carry_model=True, seed=2))
    assert [c.result_name() for c in carried] == [
        "noniid_fashion_ours_rrafl_carried_s2", "noniid_fashion_reputation_greedy_carried_s2",
        "noniid_fashion_vanilla_carried_s2"]
    assert all(not c.base.fresh_model and c.alphas == (0.1, 1.0) for c in carried)
    assert registry.command_flags(carried[0]) == [
        "--dataset fashion", "--carry-model", "--alphas 0.1 1", "--seeds 2"]


@pytest.mark.parametrize("changes,match", [
    ({"alphas": ()}, "alphas must be distinct"), ({"alphas": (0.1, 0.1)}, "alphas must be"),
    ({"alphas": (None, None)}, "alphas must be"), ({"alphas": (-1.0,)}, "alpha must be"),
    ({"mechanisms": ("ours", "oracle")}, "mechanisms must be distinct keys"),
])
def test_bad_grids_are_refused(changes, match):
    with pytest.raises(ValueError, match=match):
        NoniidConfig(**changes)


@pytest.fixture(scope="module")
def fast_run(data_root, tmp_path_factory):
    """``python -m fedlib reproduce noniid --fast`` into a temporary folder (about 20 s of
    compute on one core): the grid's three pieces."""
    out = tmp_path_factory.mktemp("noniid")
    assert main(["reproduce", "noniid", "--fast", "--device", "cpu", "--jobs", "1", "--out",
                 str(out)]) == 0
    return out


FAST = NoniidConfig(base=MultiTaskConfig(device="cpu")).fast()


def _pieces(folder):
    """The fast run's pieces as stored, and as results."""
    stored = [results.load_result(replace(FAST, mechanisms=piece).result_name(),
                                  replace(FAST, mechanisms=piece), folder)
              for piece in NONIID_PIECES]
    return stored, [NoniidResult.from_stored(s.config, s.records, s.meta["wall_time_s"])
                    for s in stored]


def test_the_fast_run_is_stored_in_pieces_and_verified(fast_run):
    stored, pieces = _pieces(fast_run)
    assert sorted(path.stem for path in fast_run.glob("*.json")) == [
        "noniid_mnist_ours_rrafl_fast", "noniid_mnist_reputation_greedy_fast",
        "noniid_mnist_vanilla_fast"]
    assert [len(s.records[0]["runs"]) for s in stored] == [8, 4, 4]
    assert all(len(s.records) == 3 for s in stored)
    assert "label_counts" in stored[0].records[0] and "label_counts" not in stored[0].records[1]
    assert verification.verify_result(stored[0].name, n_tasks=1, results_dir=fast_run).ok
    assert all(piece.records == s.records for piece, s in zip(pieces, stored, strict=True))
    result = merge(pieces)
    config = FAST
    assert result.config == config and len(result.runs) == 16  # the default grid
    for (mechanism, alpha), run, counts in zip(config.points, result.runs, result.label_counts,
                                               strict=True):
        assert (run.config.mechanism, run.config.label_skew) == (mechanism, alpha)
        assert counts.shape == (30, 10) and (counts.sum(axis=1) == 200).all()
        assert np.array_equal(counts, worker_pool(run.config).label_counts())
    for alpha in NONIID_ALPHAS:  # RRAFL hires ours' winners and trains the same tasks
        ours, rrafl = result.run_of(alpha, "ours"), result.run_of(alpha, "rrafl")
        assert [r["winners"] for r in ours.records] == [r["winners"] for r in rrafl.records]
    with pytest.raises(ValueError, match="no run of 'bid_greedy' at alpha 0.1"):
        result.run_of(0.1, "bid_greedy")


def test_pieces_merge_only_when_they_differ_in_mechanisms(fast_run):
    _, pieces = _pieces(fast_run)
    assert merge(pieces[1:]).config.mechanisms == ("reputation_greedy", "vanilla")
    other = replace(pieces[1], config=replace(pieces[1].config, alphas=(0.1, 0.3, 1.0)))
    with pytest.raises(ValueError, match="differ in their mechanisms only"):
        merge([pieces[0], other])
    with pytest.raises(ValueError, match="at least one piece"):
        merge([])


def test_summary_rows_of_the_fast_run(fast_run):
    rows = summary_rows(merge(_pieces(fast_run)[1]), tail=1)
    assert [(r["mechanism"], r["alpha"]) for r in rows[:4]] == [
        ("ours", "alpha 0.1"), ("ours", "alpha 0.3"), ("ours", "alpha 1"), ("ours", "iid")]
    for row in rows:
        assert 0 <= row["test accuracy"] <= 1 and row["test loss"] > 0
        kinds = KINDS if row["alpha"] != "iid" else ("clean balanced", "noisy balanced")
        assert sum(row[f"places of {kind}"] for kind in kinds) == pytest.approx(1)
    assert np.isnan(rows[3]["clean skewed excluded"])


def test_its_first_runs_verify_without_the_grids_label_counts(fast_run):
    report = verification.verify_result("noniid_mnist_reputation_greedy_fast", n_tasks=1,
                                        results_dir=fast_run, runs=2)
    assert report.ok, report.mismatches


def test_the_own_label_variant_runs_stored_apart_and_verified(data_root, tmp_path, fast_run):
    """``reproduce noniid --fast --own-labels``: a file of its own, which verifies, and whose
    clean skewed workers were measured otherwise than in the paper's run of the same draws."""
    assert main(["reproduce", "noniid", "--fast", "--own-labels", "--alphas", "0.1",
                 "--mechanisms", "ours", "--device", "cpu", "--jobs", "1", "--out",
                 str(tmp_path)]) == 0
    [path] = tmp_path.glob("*.json")
    assert path.stem == "noniid_mnist_ours_ownlabels_fast"
    assert verification.verify_result(path.stem, n_tasks=1, results_dir=tmp_path).ok
    config = NoniidConfig(alphas=(0.1,), mechanisms=("ours",), base=MultiTaskConfig(
        device="cpu", task=TaskOptions(own_labels=True))).fast()
    own = results.load_result(path.stem, config, tmp_path).records[0]["runs"][0]
    paper = _pieces(fast_run)[0][0].records[0]["runs"][0]  # ours at alpha 0.1
    assert own["winners"] == paper["winners"] and own["re"] != paper["re"]
