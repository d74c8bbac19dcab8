"""One protocol for every stored experiment, and the one registry that lists them.

An experiment is its configuration class: a frozen dataclass that says everything a run
computes and carries what saving, loading, verifying, :func:`~fedlib.storage.stored.obtain`
and the command line need (:class:`Experiment`). The class registers itself with
:func:`register`, and everything else reads :data:`REGISTRY`, so a new experiment is one module
(plus its chapter) and one decorator line.

The experiments are ``tables`` (:class:`~fedlib.experiments.multitask.MultiTaskConfig`),
``contribution`` (:class:`~fedlib.experiments.contribution.ContributionConfig`),
``mechanisms`` (:class:`~fedlib.experiments.auction_sweeps.SweepConfig`) and the three grids of
multi-task runs (:mod:`fedlib.experiments.grid`): ``budgets``, ``sensitivity`` and
``adversarial``.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Protocol, Self, TypeVar


class Result(Protocol):
    """What a run returns: the records it stores and its compute time."""

    @property
    def records(self) -> Any: ...

    @property
    def wall_time_s(self) -> float: ...


@dataclass(frozen=True, eq=False)
class Records:
    """A result that is its configuration and the JSON-ready records it stores, one per task
    (the result type of most experiments)."""

    config: Any
    records: tuple[dict[str, Any], ...]
    wall_time_s: float

    @classmethod
    def from_stored(cls, config: Mapping[str, Any], records: Sequence[Mapping[str, Any]],
                    wall_time_s: float) -> Self:
        """Rebuild a result from stored JSON (:func:`~fedlib.storage.results.load_result`)."""
        return cls(rebuild(config), tuple(records), wall_time_s)


@dataclass(frozen=True)
class Options:
    """What the flags of ``python -m fedlib reproduce KIND`` ask for.

    Each experiment turns options into configurations (:meth:`Experiment.command_configs`)
    and a configuration back into options (:meth:`Experiment.command_options`); a configuration
    has a command line when it is among the configurations of its own options.

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
    seed: int = 0
    fast: bool = False
    device: str = "auto"

    def flags(self) -> list[str]:
        """The flags that give these options (what is not given left out; the device is not
        a flag here: a stored result is regenerated on the CPU)."""
        flags = [f"--dataset {dataset}" for dataset in self.datasets]
        if self.mechanisms:
            flags.append("--mechanisms " + " ".join(self.mechanisms))
        if self.budget is not None:
            flags.append(f"--budget {self.budget:g}")
        if self.carry_model:
            flags.append("--carry-model")
        if self.seed != 0:
            flags.append(f"--seeds {self.seed}")
        return [*flags, "--fast"] if self.fast else flags


class Experiment(Protocol):
    """What a registered configuration class provides.

    Attributes
    ----------
    kind : str
        Its name in :data:`REGISTRY`, in stored files (``"experiment"``) and on the command
        line (``python -m fedlib reproduce KIND``).
    result_type : type
        The result of :meth:`run`, rebuilt from a stored file by its
        ``from_stored(config, records, wall_time_s)``.
    default_datasets : tuple of str
        The datasets ``reproduce KIND`` runs when no ``--dataset`` is given (empty: the
        experiment has no dataset).
    accepts : tuple of str
        The fields of :class:`Options` its command takes (``device`` always).
    device : str
        Where the run executes (``"auto"``, ``"cpu"``, ``"cuda"``).
    """

    kind: ClassVar[str]
    result_type: ClassVar[type]
    default_datasets: ClassVar[tuple[str, ...]]
    accepts: ClassVar[tuple[str, ...]]

    @property
    def device(self) -> str: ...

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready configuration tagged ``"experiment": kind``."""

    @classmethod
    def from_dict(cls, state: Mapping[str, Any]) -> Self:
        """Rebuild a configuration from :meth:`to_dict` output."""

    def fast(self) -> Self:
        """The smoke-sized version (seconds), run by the book under ``FEDLIB_FAST=1``."""

    def result_name(self) -> str:
        """The stored file's name, ``<name>.json``."""

    def run(self, *, jobs: int = 1, checkpoint_dir: str | os.PathLike[str] | None = None,
            task_store: str | os.PathLike[str] | None = None) -> Result:
        """Compute the result (``jobs`` processes, checkpoints and a shared task store where
        the experiment uses them)."""

    def recompute(self, n_tasks: int,
                  task_store: str | os.PathLike[str] | None = None) -> list[dict[str, Any]]:
        """The first ``n_tasks`` stored records, recomputed on the CPU."""

    def command_options(self) -> Options:
        """The options of the command that would regenerate this configuration, less
        ``--fast`` (:func:`command_flags` tries both)."""

    @classmethod
    def command_configs(cls, options: Options) -> list[Self]:
        """The configurations ``reproduce KIND`` runs for ``options``, in the order to start
        them."""


#: Every registered experiment, by kind (filled as their modules are imported; read it through
#: :func:`experiments`).
REGISTRY: dict[str, type[Experiment]] = {}

_PROTOCOL = ("to_dict", "from_dict", "fast", "result_name", "run", "recompute",
             "command_options", "command_configs")


_Class = TypeVar("_Class", bound=type)


def register(cls: _Class) -> _Class:
    """Class decorator: add an experiment's configuration class to :data:`REGISTRY`.

    Raises
    ------
    TypeError
        If the class lacks part of :class:`Experiment`.
    ValueError
        If another class has registered the same kind.
    """
    missing = [name for name in ("kind", "result_type", "default_datasets", "accepts", *_PROTOCOL)
               if not hasattr(cls, name)]
    if missing:
        raise TypeError(f"{cls.__name__} lacks {', '.join(missing)} of the Experiment protocol")
    kind = cls.kind
    if REGISTRY.get(kind, cls) is not cls:
        raise ValueError(f"experiment {kind!r} is already registered by "
                         f"{REGISTRY[kind].__name__}")
    REGISTRY[kind] = cls
    return cls


def experiments() -> dict[str, type[Experiment]]:
    """:data:`REGISTRY`, once every module of :mod:`fedlib.experiments` is imported (each
    registers its experiment when imported), by kind."""
    package = importlib.import_module(__package__)
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{__package__}.{module.name}")
    return dict(sorted(REGISTRY.items()))


def experiment_class(config: Mapping[str, Any]) -> type[Experiment]:
    """The registered class of a stored configuration (its ``"experiment"`` key).

    Raises
    ------
    ValueError
        If the configuration names no registered experiment.
    """
    known = experiments()
    kind = config.get("experiment")
    if kind not in known:
        raise ValueError(f"config['experiment'] must be one of {sorted(known)}, got {kind!r}")
    return known[kind]


def rebuild(config: Mapping[str, Any]) -> Experiment:
    """The configuration object of a stored configuration."""
    return experiment_class(config).from_dict(config)


def command_flags(config: Experiment) -> list[str] | None:
    """Flags of ``python -m fedlib reproduce KIND`` that regenerate ``config``, or None when
    no command line gives it: ``config`` must be among the configurations of its own options,
    at full scale or with ``--fast``."""
    for options in (config.command_options(), replace(config.command_options(), fast=True)):
        if config in type(config).command_configs(options):
            return options.flags()
    return None
