"""Every registered experiment keeps the Experiment protocol: one suite over the registry (as
scikit-learn's ``parametrize_with_checks`` runs one suite over every estimator), and every one
has a command line (:mod:`fedlib.experiments.commands`) that gives its configurations back."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, replace

import pytest

from fedlib.cli import build_parser
from fedlib.cli.reproduce import _options
from fedlib.experiments import coldstart, registry
from fedlib.experiments.commands import Options, configurations
from fedlib.experiments.multitask import MultiTaskConfig
from fedlib.storage import results

KINDS = registry.experiments()
#: The file name of each experiment's paper-scale configuration, as results/ holds them.
PAPER_NAMES = {"adversarial": "adversarial_mnist", "budgets": "budgets_mnist_ours",
               "coldstart": "coldstart_fashion_ours", "contribution": "contribution_mnist",
               "mechanisms": "mechanisms_budget", "sensitivity": "sensitivity_mnist_ours",
               "noniid": "noniid_mnist_ours_rrafl", "shapley": "shapley_mnist",
               "tables": "tables_mnist_ours"}


def paper(kind: str) -> registry.Experiment:
    """The first configuration ``reproduce KIND`` runs on the CPU."""
    datasets = registry.COMMANDS[kind].default_datasets[:1]
    return configurations(kind, Options(datasets=datasets, device="cpu"))[0]


def beyond_the_command(config: registry.Experiment) -> registry.Experiment:
    """A configuration no command line gives: 7 tasks, or 7 trials, or seed 9 only."""
    if hasattr(config, "contribution"):  # the Shapley ground truth of contribution tasks
        return replace(config, contribution=beyond_the_command(config.contribution))
    if hasattr(config, "base"):
        return replace(config, base=replace(config.base, n_tasks=7))
    if isinstance(config, MultiTaskConfig):
        return replace(config, n_tasks=7)
    return replace(config, seeds=(9,)) if hasattr(config, "seeds") else replace(config, trials=7)


def examples(kind: str) -> list[registry.Experiment]:
    config = paper(kind)
    return [config, config.fast(), beyond_the_command(config)]


def test_the_registry_holds_the_nine_experiments():
    assert sorted(KINDS) == sorted(PAPER_NAMES)
    assert all(cls.kind == kind for kind, cls in KINDS.items())


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_configurations_round_trip_through_json(kind):
    for config in examples(kind):
        state = json.loads(json.dumps(config.to_dict()))
        assert state["experiment"] == kind and state["device"] == "cpu"
        assert registry.rebuild(state) == config
        assert registry.rebuild(state).to_dict() == config.to_dict()


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_names_of_the_paper_scale_and_fast_configurations(kind):
    config = paper(kind)
    assert config.result_name() == PAPER_NAMES[kind]
    assert config.fast() != config
    assert config.fast().result_name() == PAPER_NAMES[kind] + "_fast"
    assert config.result_type.__name__.endswith(("Result", "Summary"))


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_command_line_gives_back_the_configuration(kind):
    """The command of :func:`~fedlib.storage.results.reproduce_command`, parsed by the real
    parser, runs the configuration it was made from (full scale and --fast)."""
    for config in examples(kind)[:2]:
        command = results.reproduce_command(config)
        words = shlex.split(command)
        assert words[:4] == ["python", "-m", "fedlib", "reproduce"] and words[4] == kind
        args = build_parser().parse_args(words[3:])
        assert [config] == [run for options in _options(args, kind)
                            for run in configurations(kind, options) if run == config]


@pytest.mark.parametrize("alphas, budget, flags", [
    ((0.1, None), 60.0, "--alphas 0.1 iid"),
    ((0.123456789, 2.0), 61.23456789, "--budget 61.23456789 --alphas 0.123456789 2")])
def test_the_command_line_gives_back_a_noniid_grid_of_chosen_alphas(alphas, budget, flags):
    """Numbers that ``:g`` would round are written with every digit, so the command gives back
    the configuration itself."""
    config = replace(paper("noniid"), alphas=alphas)
    config = replace(config, base=replace(config.base, budget=budget))
    command = results.reproduce_command(config)
    assert flags in command
    args = build_parser().parse_args(shlex.split(command)[3:])
    assert config in configurations("noniid", _options(args, "noniid")[0])


@pytest.mark.parametrize("settings", coldstart.COLD_START_PIECES)
def test_the_command_line_gives_back_each_piece_of_the_cold_start_map(settings):
    whole = paper("coldstart")
    piece = replace(whole, values=tuple(p for p in whole.values if p[0] in settings),
                    base=replace(whole.base, seed=3))
    command = results.reproduce_command(piece)
    assert f"--settings {' '.join(settings)}" in command and "--seeds 3" in command
    args = build_parser().parse_args(shlex.split(command)[3:])
    assert configurations("coldstart", _options(args, "coldstart")[0]) == [piece]
    assert "--settings" not in results.reproduce_command(whole)
    # a setting at another value than the map's is beyond the flag
    assert registry.command_flags(replace(whole, values=(("epochs", (3.0,)),))) is None


@pytest.mark.parametrize("kind, name", [("noniid", "noniid_mnist_ours_rrafl_ownlabels"),
                                        ("tables", "tables_mnist_ours_ownlabels")])
def test_the_own_label_variant_has_a_flag_and_a_name_of_its_own(kind, name):
    config = paper(kind)
    task = replace(config.task if kind == "tables" else config.base.task, own_labels=True)
    config = (replace(config, task=task) if kind == "tables" else
              replace(config, base=replace(config.base, task=task)))
    assert config.result_name() == name and config.fast().result_name() == f"{name}_fast"
    command = results.reproduce_command(config)
    assert "--own-labels" in command
    args = build_parser().parse_args(shlex.split(command)[3:])
    assert config in configurations(kind, _options(args, kind)[0])
    shared = replace(task, label_share=0.1)  # a share the flag cannot give
    other = (replace(config, task=shared) if kind == "tables" else
             replace(config, base=replace(config.base, task=shared)))
    assert other.result_name() == f"{name}0.1" and registry.command_flags(other) is None


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_configuration_beyond_the_command_says_how_to_run_it(kind):
    config = beyond_the_command(paper(kind))
    assert registry.command_flags(config) is None
    command = results.reproduce_command(config)
    assert "in Python" in command and type(config).__name__ in command


def test_every_experiment_has_a_command_and_only_registered_ones_do():
    assert sorted(registry.COMMANDS) == sorted(KINDS)
    with pytest.raises(ValueError, match="'nope' is not a registered experiment"):
        registry.register_command("nope", registry.COMMANDS["tables"])


def test_unknown_or_incomplete_experiments_are_refused():
    with pytest.raises(ValueError, match="must be one of"):
        registry.rebuild({"experiment": "nope"})

    @dataclass(frozen=True)
    class Incomplete:
        kind = "incomplete"

    with pytest.raises(TypeError, match="Incomplete lacks device, fast, from_dict, recompute, "
                                        "result_name, result_type, run, to_dict of the"):
        registry.register(Incomplete)

    class Twin(MultiTaskConfig):
        pass

    with pytest.raises(ValueError, match="'tables' is already registered by MultiTaskConfig"):
        registry.register(Twin)
    assert "incomplete" not in registry.experiments()
