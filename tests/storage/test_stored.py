"""Reading a chapter's results: stored files, fast runs, recomputation, provenance."""

from __future__ import annotations

from dataclasses import replace

import pytest
from book import ROOT

from fedlib.experiments import budget_sweep, multitask
from fedlib.experiments.coldstart import ColdStartConfig
from fedlib.experiments.multitask import MultiTaskConfig
from fedlib.fl.task import TaskOptions
from fedlib.storage import results, stored, verification

# Small enough to run, not the fast configuration (so "fast" and "recompute" differ).
SMALL = MultiTaskConfig(dataset="mnist", n_tasks=2, eval_from=1, n_samples=100, n_val=200,
                        n_test=200, task=TaskOptions(rounds=2), device="cpu")


@pytest.fixture(scope="module")
def folder(data_root, tmp_path_factory):
    out = tmp_path_factory.mktemp("results")
    run = multitask.run_multitask(SMALL)
    results.save_result(SMALL.result_name(), SMALL, run.records, out,
                        wall_time_s=run.wall_time_s)
    return out, run


def test_mode_follows_the_environment(monkeypatch):
    monkeypatch.delenv("FEDLIB_FAST", raising=False)
    monkeypatch.delenv("FEDLIB_RECOMPUTE", raising=False)
    assert stored.mode() == "stored"
    monkeypatch.setenv("FEDLIB_RECOMPUTE", "1")
    assert stored.mode() == "recompute"
    monkeypatch.setenv("FEDLIB_FAST", "1")
    assert stored.mode() == "fast"  # fast wins
    monkeypatch.setenv("FEDLIB_FAST", "0")
    monkeypatch.setenv("FEDLIB_RECOMPUTE", "0")
    assert stored.mode() == "stored"


def test_results_dir(monkeypatch, tmp_path):
    monkeypatch.delenv("FEDLIB_RESULTS", raising=False)
    assert stored.results_dir() == ROOT / "results"
    monkeypatch.setenv("FEDLIB_RESULTS", str(tmp_path))
    assert stored.results_dir() == tmp_path


def test_stored_mode_reads_the_file(folder):
    out, run = folder
    got = stored.obtain(replace(SMALL, device="auto"), out, how="stored")
    assert got.result.records == run.records and got.result.config == SMALL
    p = got.provenance
    assert p.source == "stored" and p.path == out / f"{SMALL.result_name()}.json"
    assert p.wall_time_s == run.wall_time_s and "CPUs" in p.machine and p.git_revision
    assert p.command.startswith("run MultiTaskConfig.from_dict(config).run() in Python")
    row = p.row()
    assert row["source"].startswith("read from") and row["wall time"].endswith(" s")


def test_stored_mode_fails_loudly_with_the_command(folder, tmp_path):
    out, _ = folder
    paper = MultiTaskConfig(dataset="fashion", mechanism="vanilla")
    with pytest.raises(FileNotFoundError, match="reproduce tables --dataset fashion"):
        stored.obtain(paper, tmp_path, how="stored")
    with pytest.raises(ValueError, match=r"n_tasks: stored 2, expected 3"):
        stored.obtain(replace(SMALL, n_tasks=3), out, how="stored")
    # obtain_all names every missing file at once
    with pytest.raises(FileNotFoundError, match=r"2 stored result\(s\)(.|\n)*vanilla"
                                                r"(.|\n)*bid_greedy"):
        stored.obtain_all({1: SMALL, 2: paper, 3: replace(paper, mechanism="bid_greedy")},
                          out, how="stored")


def test_fast_mode_runs_the_fast_configuration(data_root, tmp_path):
    got = stored.obtain(SMALL, tmp_path, how="fast")
    assert got.result.config == SMALL.fast()
    assert got.provenance.source == "fast" and got.provenance.path is None
    assert got.provenance.name.endswith("_fast")
    assert not list(tmp_path.iterdir())  # nothing stored


def test_recompute_mode_runs_the_asked_configuration(folder, tmp_path):
    _, run = folder
    got = stored.obtain_all({"a": SMALL}, tmp_path, how="recompute")["a"]
    assert got.result.config == SMALL and got.result.records == run.records
    assert got.provenance.source == "recompute"


def test_obtain_knows_the_sweep_and_refuses_others(data_root, tmp_path):
    sweep = budget_sweep.BudgetSweepConfig(budgets=(20.0,), base=SMALL)
    got = stored.obtain(sweep, tmp_path, how="fast")
    assert got.result.config == sweep.fast()
    with pytest.raises(TypeError, match="MultiTaskConfig"):
        stored.obtain({"experiment": "tables"}, tmp_path)
    with pytest.raises(ValueError, match="mode"):
        stored.obtain(SMALL, tmp_path, how="sometimes")


def test_the_chapters_results():
    wanted = stored.federated_results()
    assert sorted(wanted) == sorted(
        [f"tables_{d}_{m}" for d in ("mnist", "fashion") for m in multitask.TABLE_MECHANISMS]
        + ["budgets_mnist_ours"]
        + [f"tables_{d}_{m}_carried" for d in ("mnist", "fashion")
           for m in ("ours", "reputation_greedy")])
    assert not wanted["tables_fashion_ours_carried"].fresh_model
    report = stored.report_results()
    assert set(report) == set(wanted) | {"contribution_mnist"}
    configs = stored.table_configs(("mnist",), ("ours", "rrafl"), n_tasks=7)
    assert list(configs) == [("mnist", "ours"), ("mnist", "rrafl")]
    assert configs["mnist", "rrafl"].n_tasks == 7


def test_check_fresh_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        verification.check_fresh("nothing", tmp_path)


# ------------------------------------------------------------------------------ seeds


def _save(folder, config):
    results.save_result(config.result_name(), config, [], folder, wall_time_s=0.0)


@pytest.fixture
def seeded(tmp_path):
    """Seeds 0, 1 and 3 of ours and RRAFL (records left empty: only the files matter)."""
    configs = {m: replace(SMALL, mechanism=m) for m in ("ours", "rrafl")}
    for config in configs.values():
        for seed in (0, 1, 3):
            _save(tmp_path, stored.with_seed(config, seed))
    _save(tmp_path, replace(SMALL, fresh_model=False, seed=7))  # another configuration
    return tmp_path, configs


def test_stored_seeds_are_those_of_the_configuration(seeded):
    folder, configs = seeded
    assert stored.stored_seeds(configs["ours"], folder) == (0, 1, 3)
    assert stored.stored_seeds(replace(SMALL, fresh_model=False), folder) == (7,)
    assert stored.stored_seeds(replace(SMALL, mechanism="vanilla"), folder) == ()


def test_obtain_seeds_pairs_the_runs_of_each_seed(seeded):
    folder, configs = seeded
    got = stored.obtain_seeds(configs, folder, how="stored")
    assert [[o.result.config.seed for o in got[m]] for m in configs] == [[0, 1, 3]] * 2
    assert got["rrafl"][2].provenance.name == "tables_mnist_rrafl_s3"


def test_a_seed_stored_for_part_of_a_group_is_refused(seeded):
    folder, configs = seeded
    (folder / f"{stored.with_seed(configs['rrafl'], 3).result_name()}.json").unlink()
    with pytest.raises(FileNotFoundError, match=r"missing \['tables_mnist_rrafl_s3'\]; make"):
        stored.obtain_seeds(configs, folder, how="stored")


def test_fast_mode_computes_the_fast_seeds(data_root, tmp_path):
    got = stored.obtain_seeds({"ours": SMALL}, tmp_path, how="fast")
    assert [o.result.config.seed for o in got["ours"]] == list(stored.FAST_SEEDS)
    assert got["ours"][1].result.config == stored.with_seed(SMALL, 1).fast()


def test_with_seed_reaches_a_grids_base():
    sweep = budget_sweep.BudgetSweepConfig(base=SMALL)
    assert stored.with_seed(sweep, 4).base.seed == 4
    with pytest.raises(TypeError, match="no seed axis"):
        from fedlib.experiments.contribution import ContributionConfig
        stored.with_seed(ContributionConfig(), 1)


def test_the_noniid_pieces_the_chapter_reads():
    assert list(stored.noniid_configs()) == ["noniid_mnist_ours_rrafl",
                                             "noniid_mnist_reputation_greedy",
                                             "noniid_mnist_vanilla"]
    (name, variant), = stored.noniid_configs("mnist", own_labels=True).items()
    assert name == "noniid_mnist_ours_ownlabels" and variant.base.task.own_labels
    assert [c.alphas for c in stored.noniid_configs().values()] == [(0.1, 0.3, 1.0, None)] * 3
    # Fashion-MNIST: the model carried (a fresh LeNet-5 does not start ours), two alphas
    fashion = stored.noniid_configs("fashion")
    assert list(fashion) == ["noniid_fashion_ours_rrafl_carried",
                             "noniid_fashion_reputation_greedy_carried",
                             "noniid_fashion_vanilla_carried"]
    assert all(c.alphas == (0.1, 1.0) and not c.base.fresh_model for c in fashion.values())
    assert sorted(stored.noniid_results()) == sorted([*stored.noniid_configs(),
                                                      "noniid_mnist_ours_ownlabels", *fashion])


def test_noniid_seeds_merge_each_seeds_pieces(data_root, tmp_path, monkeypatch):
    from fedlib.experiments import noniid

    small = replace(SMALL, n_tasks=1, eval_from=0)

    def configs(dataset="mnist", own_labels=False):  # two alphas, small runs
        return {c.result_name(): c for c in (
            noniid.NoniidConfig(alphas=(0.1, None), mechanisms=piece, base=small)
            for piece in (("ours",), ("vanilla",)))}

    monkeypatch.setattr(stored, "noniid_configs", configs)
    for config in configs().values():
        for seed in (0, 2):
            seeded = stored.with_seed(config, seed)
            result = seeded.run()
            results.save_result(seeded.result_name(), seeded, result.records, tmp_path,
                                wall_time_s=result.wall_time_s)
    grids, provenances = stored.noniid_seeds(folder=tmp_path, how="stored")
    assert [g.config.base.seed for g in grids] == [0, 2]
    assert [g.config.mechanisms for g in grids] == [("ours", "vanilla")] * 2
    assert len(grids[1].runs) == 4 and len(provenances) == 4
    assert provenances[3].name.endswith("vanilla_s2")


def test_the_cold_start_pieces_split_the_map_by_settings():
    pieces = stored.coldstart_pieces()
    assert list(pieces) == ["coldstart_fashion_ours_epochs",
                            "coldstart_fashion_ours_budget_lr_momentum_fresh_model"]
    whole = ColdStartConfig()
    assert sorted(pair for piece in pieces.values() for pair in piece.values) == sorted(
        whole.values)
    assert all(replace(piece, values=whole.values) == whole for piece in pieces.values())
    # a map of fewer settings keeps the pieces it has settings of
    small = ColdStartConfig(values=(("lr", (0.1,)),))
    assert [c.values for c in stored.coldstart_pieces(small).values()] == [(("lr", (0.1,)),)]


def test_coldstart_seeds_read_a_whole_map_or_its_pieces(data_root, tmp_path):
    """Seed 0 stored whole, seed 2 in pieces, seed 5 in part of its pieces (pending)."""
    small = ColdStartConfig(values=(("budget", (30.0,)), ("epochs", (2.0,))),
                            base=replace(SMALL, dataset="mnist", n_tasks=1, eval_from=0))
    for config in (small, *[stored.with_seed(piece, seed)
                            for seed in (2, 5) for piece in stored.coldstart_pieces(small).values()
                            if seed == 2 or "epochs" in piece.result_name()]):
        result = config.run()
        results.save_result(config.result_name(), config, result.records, tmp_path,
                            wall_time_s=result.wall_time_s)
    pending = stored.coldstart_pending(small, tmp_path)
    assert [(seed, [c.result_name() for c in missing]) for seed, missing in pending.items()] == [
        (5, ["coldstart_mnist_ours_budget_s5"])]
    maps, provenances = stored.coldstart_seeds(small, tmp_path, how="stored")
    assert [m.config for m in maps] == [small, stored.with_seed(small, 2)]
    assert [p.name for p in provenances] == ["coldstart_mnist_ours_budget_epochs",
                                             "coldstart_mnist_ours_epochs_s2",
                                             "coldstart_mnist_ours_budget_s2"]
    # the merged map's runs are those of the whole map's seed 2, run by run
    whole = stored.with_seed(small, 2).run()
    assert [r.records for r in maps[1].runs] == [r.records for r in whole.runs]
    # seed 0 must be stored; a seed stored whole is read whole, even with pieces beside it
    (tmp_path / "coldstart_mnist_ours_budget_epochs.json").rename(
        tmp_path / "coldstart_mnist_ours_budget_epochs_s5.json")
    with pytest.raises(FileNotFoundError, match="coldstart_mnist_ours_budget_epochs"):
        stored.coldstart_seeds(small, tmp_path, how="stored")
    assert stored.coldstart_pending(small, tmp_path) == {}
