"""The command line of the experiments: which configurations ``python -m fedlib reproduce KIND``
runs for its flags, and the flags that give a configuration back.

The experiment classes know nothing of the command line. Here each registered kind gets a
:class:`Command` (the flags it takes, its default datasets, its configurations for a set of
:class:`Options`), registered with :func:`~fedlib.experiments.registry.register_command`.
:mod:`fedlib.cli.reproduce` parses the flags into :class:`Options` and runs
:func:`configurations`; a stored result names the command that regenerates it through
:func:`~fedlib.experiments.registry.command_flags` (it lives in this layer, below the storage
that writes that command, not in :mod:`fedlib.cli` above it).

Examples
--------
>>> config = configurations("tables", Options(datasets=("mnist",), mechanisms=("ours",)))[0]
>>> config.result_name(), registry.command_flags(config)
('tables_mnist_ours', ['--dataset mnist', '--mechanisms ours'])
>>> registry.command_flags(replace(config, n_tasks=7)) is None
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from fedlib.experiments import registry
from fedlib.experiments.adversarial import AdversarialConfig
from fedlib.experiments.auction_sweeps import paper_config
from fedlib.experiments.budget_sweep import BudgetSweepConfig
from fedlib.experiments.coldstart import ColdStartConfig
from fedlib.experiments.contribution import ContributionConfig
from fedlib.experiments.grid import Grid
from fedlib.experiments.multitask import DEFAULT_BUDGET, TABLE_MECHANISMS, MultiTaskConfig
from fedlib.experiments.noniid import NONIID_PIECES, NoniidConfig
from fedlib.experiments.sensitivity import SensitivityConfig
from fedlib.experiments.shapley_truth import ShapleyConfig
from fedlib.fl.data import DATASETS
from fedlib.fl.task import TaskOptions

#: The flag that sets each field of :class:`Options`.
FLAGS = {"datasets": "--dataset", "mechanisms": "--mechanisms", "budget": "--budget",
         "carry_model": "--carry-model", "alphas": "--alphas", "own_labels": "--own-labels",
         "settings": "--settings", "seed": "--seeds", "fast": "--fast"}


def _number(value: float) -> str:
    """``value`` as a flag's text that reads back as the same float: ``60``, ``0.1``, and all
    the digits where ``:g`` would round (``0.123456789``)."""
    short = f"{value:g}"
    return short if float(short) == value else repr(float(value))


@dataclass(frozen=True)
class Options:
    """What the flags of ``python -m fedlib reproduce KIND`` ask for.

    Attributes
    ----------
    datasets : tuple of str
        ``--dataset`` (``both`` gives both).
    mechanisms : tuple of str
        ``--mechanisms`` (empty: the experiment's own).
    budget : float or None
        ``--budget`` (None: the default budget).
    carry_model : bool
        ``--carry-model``: start each task from the previous task's global model.
    alphas : tuple of (float or None)
        ``--alphas``: the Dirichlet concentrations of a label-skew grid, None for iid (empty:
        the grid's own, :data:`~fedlib.experiments.noniid.NONIID_ALPHAS`).
    own_labels : bool
        ``--own-labels``: measure every worker on its own labels
        (:attr:`TaskOptions.own_labels <fedlib.fl.task.TaskOptions.own_labels>`).
    settings : tuple of str
        ``--settings``: only these settings of a one-at-a-time map, at their default values
        (empty: all; the pieces of the cold-start map,
        :data:`~fedlib.experiments.coldstart.COLD_START_PIECES`).
    seed : int
        One seed of ``--seeds`` (the command builds one Options per seed).
    fast : bool
        ``--fast``: the smoke-sized version.
    device : str
        ``--device``.
    """

    datasets: tuple[str, ...] = ()
    mechanisms: tuple[str, ...] = ()
    budget: float | None = None
    carry_model: bool = False
    alphas: tuple[float | None, ...] = ()
    own_labels: bool = False
    settings: tuple[str, ...] = ()
    seed: int = 0
    fast: bool = False
    device: str = "auto"

    def flags(self) -> list[str]:
        """The flags that give these options (what is not given left out; the device is not
        a flag here: a stored result is regenerated on the CPU)."""
        flags = [f"{FLAGS['datasets']} {dataset}" for dataset in self.datasets]
        if self.mechanisms:
            flags.append(f"{FLAGS['mechanisms']} " + " ".join(self.mechanisms))
        if self.budget is not None:
            flags.append(f"{FLAGS['budget']} {_number(self.budget)}")
        if self.carry_model:
            flags.append(FLAGS["carry_model"])
        if self.alphas:
            flags.append(f"{FLAGS['alphas']} " + " ".join(
                "iid" if alpha is None else _number(alpha) for alpha in self.alphas))
        if self.own_labels:
            flags.append(FLAGS["own_labels"])
        if self.settings:
            flags.append(f"{FLAGS['settings']} " + " ".join(self.settings))
        if self.seed != 0:
            flags.append(f"{FLAGS['seed']} {self.seed}")
        return [*flags, FLAGS["fast"]] if self.fast else flags


@dataclass(frozen=True)
class Command:
    """``reproduce KIND`` for one experiment.

    Attributes
    ----------
    accepts : tuple of str
        The fields of :class:`Options` its command takes (``device`` always).
    default_datasets : tuple of str
        The datasets it runs when no ``--dataset`` is given (empty: it has no dataset).
    configs : callable
        ``configs(options)``: the full-scale configurations of ``options``, in the order to
        start them (:func:`configurations` applies ``--fast``).
    options : callable
        ``options(config)``: the options, less ``--fast``, whose configurations would hold
        ``config`` if any command line gives it.
    """

    accepts: tuple[str, ...]
    default_datasets: tuple[str, ...]
    configs: Callable[[Options], list[Any]]
    options: Callable[[Any], Options]

    def flags(self, config: Any) -> list[str] | None:
        """The flags that regenerate ``config`` (full scale or ``--fast``), or None when no
        command line gives it."""
        for options in (self.options(config), replace(self.options(config), fast=True)):
            if config in self.run(options):
                return options.flags()
        return None

    def run(self, options: Options) -> list[Any]:
        """The configurations ``options`` give, ``--fast`` applied, in the order to start them."""
        return [config.fast() if options.fast else config for config in self.configs(options)]


def configurations(kind: str, options: Options) -> list[Any]:
    """The configurations ``python -m fedlib reproduce KIND`` runs for ``options``."""
    registry.experiments()
    return registry.COMMANDS[kind].run(options)


def _budget(options: Options) -> float:
    return DEFAULT_BUDGET if options.budget is None else options.budget


def _tables(options: Options) -> list[MultiTaskConfig]:
    """One run per dataset (Fashion-MNIST, the slowest, first) and mechanism (default
    :data:`~fedlib.experiments.multitask.TABLE_MECHANISMS`); RRAFL last: it hires the same
    winners as ours and trains the same tasks, so it starts when ours have finished and reads
    them from the shared task store."""
    configs = [MultiTaskConfig(dataset=dataset, mechanism=mechanism, budget=_budget(options),
                               fresh_model=not options.carry_model, seed=options.seed,
                               device=options.device, task=_task(options))
               for dataset in sorted(options.datasets)
               for mechanism in options.mechanisms or TABLE_MECHANISMS]
    return sorted(configs, key=lambda config: config.mechanism == "rrafl")


def _task(options: Options, task: TaskOptions | None = None) -> TaskOptions:
    """``task`` (default the paper's) with the own-label variant of the options."""
    return replace(task or TaskOptions(), own_labels=options.own_labels)


def _tables_options(config: MultiTaskConfig) -> Options:
    return Options(datasets=(config.dataset,), mechanisms=(config.mechanism,),
                   budget=None if config.budget == DEFAULT_BUDGET else config.budget,
                   carry_model=not config.fresh_model, own_labels=config.task.own_labels,
                   seed=config.seed, device=config.device)


def _grid(cls: type[Grid], accepts: tuple[str, ...],
          pieces: tuple[tuple[str, ...], ...] = ()) -> Command:
    """The command of a grid: its default grid on each dataset, with the seed, device and
    (where the grid takes them) budget, mechanisms, alphas, settings, carried model and
    own-label variant of the options; a grid stored in ``pieces`` (groups of its mechanisms)
    gives one grid per piece unless ``--mechanisms`` names some."""

    def configs(options: Options) -> list[Grid]:
        default = cls()
        axes: dict[str, Any] = {"alphas": options.alphas} if options.alphas else {}
        if options.settings:
            axes["values"] = _settings(default.values, options.settings)
        groups = [options.mechanisms] if options.mechanisms else list(pieces) or [()]
        return [replace(default, **axes, **({"mechanisms": group} if group else {}),
                        base=replace(default.base, dataset=dataset, seed=options.seed,
                                     device=options.device, budget=_budget(options),
                                     task=_task(options, default.base.task),
                                     **({"fresh_model": False} if options.carry_model else {})))
                for dataset in options.datasets for group in groups]

    def options(config: Grid) -> Options:
        base = config.base
        given = {name: getattr(config, name) for name in ("mechanisms", "alphas")
                 if hasattr(config, name)}
        # what the command gives without the flag: the default, or the pieces of a grid in
        # pieces (whose whole then needs --mechanisms)
        without = {"alphas": (cls().alphas,) if "alphas" in given else (),
                   "mechanisms": (pieces or (cls().mechanisms,)) if "mechanisms" in given
                   else ()}
        chosen = {name: () if value in without[name] else value
                  for name, value in given.items()}
        if "settings" in accepts and config.values != cls().values:
            chosen["settings"] = tuple(name for name, _ in config.values)
        return Options(datasets=(base.dataset,), **chosen,
                       budget=None if "budget" not in accepts or base.budget == DEFAULT_BUDGET
                       else base.budget, carry_model=not base.fresh_model,
                       own_labels=base.task.own_labels, seed=base.seed, device=config.device)

    return Command(accepts, (cls().base.dataset,), configs, options)


def _settings(values: tuple[tuple[str, tuple[float, ...]], ...],
              names: tuple[str, ...]) -> tuple[tuple[str, tuple[float, ...]], ...]:
    """The ``values`` of a one-at-a-time map for the settings ``names`` only."""
    known = [name for name, _ in values]
    if unknown := [name for name in names if name not in known]:
        raise ValueError(f"unknown settings {unknown}; the map changes {', '.join(known)}")
    return tuple(pair for pair in values if pair[0] in names)


for _kind, _command in {
    "tables": Command(("datasets", "mechanisms", "budget", "carry_model", "own_labels", "seed",
                       "fast"),
                      DATASETS, _tables, _tables_options),
    "contribution": Command(
        ("datasets", "fast"), ("mnist",),
        lambda options: [ContributionConfig(dataset=dataset, device=options.device)
                         for dataset in options.datasets],
        lambda config: Options(datasets=(config.dataset,), device=config.device)),
    "shapley": Command(
        ("datasets", "fast"), ("mnist",),
        lambda options: [ShapleyConfig(replace(ShapleyConfig().contribution, dataset=dataset,
                                               device=options.device))
                         for dataset in options.datasets],
        lambda config: Options(datasets=(config.contribution.dataset,), device=config.device)),
    "mechanisms": Command(
        ("seed", "fast"), (),
        lambda options: [paper_config(sweep, seed=options.seed) for sweep in ("budget",
                                                                              "workers")],
        lambda config: Options(seed=config.seed, device="cpu")),
    "budgets": _grid(BudgetSweepConfig, ("datasets", "seed", "fast")),
    "sensitivity": _grid(SensitivityConfig, ("datasets", "budget", "seed", "fast")),
    "coldstart": _grid(ColdStartConfig, ("datasets", "settings", "seed", "fast")),
    "adversarial": _grid(AdversarialConfig, ("datasets", "mechanisms", "budget", "seed", "fast")),
    "noniid": _grid(NoniidConfig, ("datasets", "mechanisms", "budget", "alphas", "carry_model",
                                   "own_labels", "seed", "fast"), NONIID_PIECES),
}.items():
    registry.register_command(_kind, _command)
