"""One protocol for every stored experiment, and the one registry that lists them.

An experiment is its configuration class: a frozen dataclass that says everything a run
computes and carries what saving, loading, verifying and :func:`~fedlib.storage.stored.obtain`
need (:class:`Experiment`). The class registers itself with :func:`register`, and everything
else reads :data:`REGISTRY`, so a new experiment is one module (plus its chapter), one decorator
line and, for ``python -m fedlib reproduce KIND``, one entry in
:mod:`fedlib.experiments.commands`.

The experiments are ``tables`` (:class:`~fedlib.experiments.multitask.MultiTaskConfig`),
``contribution`` (:class:`~fedlib.experiments.contribution.ContributionConfig`),
``shapley`` (:class:`~fedlib.experiments.shapley_truth.ShapleyConfig`),
``mechanisms`` (:class:`~fedlib.experiments.auction_sweeps.SweepConfig`) and the grids of
multi-task runs (:mod:`fedlib.experiments.grid`): ``budgets``, ``sensitivity``, ``coldstart``,
``adversarial`` and ``noniid``.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
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
    device : str
        Where the run executes (``"auto"``, ``"cpu"``, ``"cuda"``).
    """

    kind: ClassVar[str]
    result_type: ClassVar[type]

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


#: Every registered experiment, by kind (filled as their modules are imported; read it through
#: :func:`experiments`).
REGISTRY: dict[str, type[Experiment]] = {}

#: What :func:`register` requires of a class: every attribute, property and method that
#: :class:`Experiment` declares.
MEMBERS = tuple(sorted({*Experiment.__annotations__,
                        *(name for name in vars(Experiment) if not name.startswith("_"))}))
#: The command line of each kind, filled by :mod:`fedlib.experiments.commands` (through
#: :func:`register_command`) when :func:`experiments` imports it.
COMMANDS: dict[str, Any] = {}


_Class = TypeVar("_Class", bound=type)


def register(cls: _Class) -> _Class:
    """Class decorator: add an experiment's configuration class to :data:`REGISTRY`.
    """
    missing = [name for name in MEMBERS if not hasattr(cls, name)]
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
    """
    known = experiments()
    kind = config.get("experiment")
    if kind not in known:
        raise ValueError(f"config['experiment'] must be one of {sorted(known)}, got {kind!r}")
    return known[kind]


def rebuild(config: Mapping[str, Any]) -> Experiment:
    """The configuration object of a stored configuration."""
    return experiment_class(config).from_dict(config)


def register_command(kind: str, command: Any) -> None:
    """Give the registered experiment ``kind`` its command line (a
    :class:`~fedlib.experiments.commands.Command`)."""
    if kind not in REGISTRY:
        raise ValueError(f"{kind!r} is not a registered experiment")
    COMMANDS[kind] = command


def command_flags(config: Experiment) -> list[str] | None:
    """Flags of ``python -m fedlib reproduce KIND`` that regenerate ``config``, or None when
    no command line gives it (:meth:`~fedlib.experiments.commands.Command.flags`)."""
    experiments()
    return COMMANDS[config.kind].flags(config)
