"""Where a chapter's long experiments come from: the stored results, or a run made now.

A chapter builds the configuration it wants at paper scale and calls :func:`obtain`, which,
depending on the process's mode (:func:`mode`),

* ``"stored"`` (default): reads ``<results>/<name>.json`` through
  :func:`~fedlib.storage.results.load_result`, which checks that the stored configuration
  is the one asked for and otherwise fails with the command that regenerates it;
* ``"fast"`` (``FEDLIB_FAST=1``): runs the experiment's smoke-sized configuration
  (its ``fast()`` version) now, in seconds, and stores nothing;
* ``"recompute"`` (``FEDLIB_RECOMPUTE=1``): runs the asked configuration now, at its full
  scale, instead of reading (minutes to an hour).

Either way the chapter gets the result object and a :class:`Provenance` saying where it came
from (revision, machine, time taken, how to regenerate). The results folder is
``$FEDLIB_RESULTS`` if set, else ``results/`` at the root of the fedlib checkout.

A verdict on a multi-task experiment rests on several seeds (:func:`obtain_seeds`; the file of
seed ``s > 0`` ends its name with ``_s<s>``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from fedlib.experiments import adversarial, coldstart, multitask, noniid, registry, sensitivity
from fedlib.experiments.adversarial import AdversarialConfig
from fedlib.experiments.budget_sweep import BudgetSweepConfig
from fedlib.experiments.coldstart import ColdStartConfig, ColdStartResult
from fedlib.experiments.contribution import ContributionConfig
from fedlib.experiments.multitask import MultiTaskConfig
from fedlib.experiments.noniid import NoniidConfig, NoniidResult
from fedlib.experiments.registry import Experiment
from fedlib.experiments.sensitivity import SensitivityConfig
from fedlib.fl.task import TaskOptions
from fedlib.runtime import fast_mode
from fedlib.storage import environment, results
from fedlib.storage.locations import book_root

Mode = Literal["stored", "fast", "recompute"]


def results_dir() -> Path:
    """``$FEDLIB_RESULTS`` if set, else the ``results`` folder of the book's checkout that
    holds the working folder (:func:`~fedlib.storage.locations.book_root`); outside a checkout
    without the variable, a FileNotFoundError says so."""
    if os.environ.get("FEDLIB_RESULTS"):
        return Path(os.environ["FEDLIB_RESULTS"])
    root = book_root()
    if root is None:
        raise FileNotFoundError(
            f"no stored results: {Path.cwd()} is not inside a checkout of the book (a folder "
            "with _toc.yml and fedlib/); run from one, or set FEDLIB_RESULTS to a results "
            "folder")
    return root / "results"


def recompute_mode() -> bool:
    """True when ``FEDLIB_RECOMPUTE=1``: chapters rerun their long experiments."""
    return os.environ.get("FEDLIB_RECOMPUTE", "0") not in ("", "0", "false", "False")


def mode() -> Mode:
    """``"fast"`` under ``FEDLIB_FAST=1`` (it wins), ``"recompute"`` under
    ``FEDLIB_RECOMPUTE=1``, else ``"stored"``."""
    if fast_mode():
        return "fast"
    return "recompute" if recompute_mode() else "stored"


@dataclass(frozen=True)
class Provenance:
    """Where a result came from.

    Attributes
    ----------
    name : str
        The result's name (its file is ``<name>.json``).
    source : {"stored", "fast", "recompute"}
        Read from a file, or computed in this process (smoke-sized or at full scale).
    path : pathlib.Path or None
        The file read (None when computed).
    git_revision : str
        Revision of the code that computed it (``+dirty`` when tracked files were modified).
    machine : str
        CPU, cores, platform and compute device.
    wall_time_s : float
        Compute time of the run.
    created : str
        When it was computed (ISO 8601, UTC).
    command : str
        How to regenerate the paper-scale file.
    environment : str
        The environment that computed it (:func:`~fedlib.storage.environment.describe`: CPU
        model and instruction set, torch and numpy, threads).
    """

    name: str
    source: Mode
    path: Path | None
    git_revision: str
    machine: str
    wall_time_s: float
    created: str
    command: str
    environment: str = ""

    def row(self) -> dict[str, str]:
        """The provenance as strings, for a table."""
        path, root = self.path, book_root()
        if path is not None and root is not None and path.resolve().is_relative_to(root):
            path = path.resolve().relative_to(root)
        where = {"stored": f"read from {path}",
                 "fast": "computed now, smoke-sized (FEDLIB_FAST=1)",
                 "recompute": "computed now (FEDLIB_RECOMPUTE=1)"}[self.source]
        return {"result": self.name, "source": where, "revision": self.git_revision,
                "machine": self.machine, "environment": self.environment,
                "wall time": f"{self.wall_time_s:.0f} s", "created": self.created,
                "regenerate": self.command}


@dataclass(frozen=True, eq=False)
class Obtained:
    """A result and its :class:`Provenance`."""

    result: Any
    provenance: Provenance


def describe_machine(machine: Mapping[str, Any]) -> str:
    """A stored result's machine (:func:`~fedlib.storage.results.machine_description`) in one
    line."""
    device = machine["device"]
    if device != "cpu":
        device = f"{device} ({machine['device_name']})"
    generation = machine.get("cpu_generation")  # recorded since 2026-12-01
    cpu = f"{machine['cpu']} ({generation})" if generation else machine["cpu"]
    return f"{cpu}, {machine['cpu_count']} CPUs, {machine['platform']}, device {device}"


def _revision(revision: str, dirty: bool) -> str:
    return revision + ("+dirty" if dirty else "")


def obtain(config: Experiment, folder: str | os.PathLike[str] | None = None, *,
           how: Mode | None = None) -> Obtained:
    """The result of ``config`` (a paper-scale configuration), read or computed per :func:`mode`.

    Parameters
    ----------
    config : a registered experiment (:mod:`fedlib.experiments.registry`)
        What the chapter asks for, at the scale it wants to show.
    folder : path, optional
        The results folder; default :func:`results_dir`.
    how : {"stored", "fast", "recompute"}, optional
        Default :func:`mode`.

    Returns
    -------
    Obtained
        In fast mode, the result of ``config.fast()``.

    Raises
    ------
    FileNotFoundError, ValueError
        In stored mode, if the file is missing or holds another configuration; the message
        names the command that regenerates it.
    """
    known = registry.experiments().values()
    if type(config) not in known:
        raise TypeError(f"obtain() takes a registered experiment configuration "
                        f"({', '.join(c.__name__ for c in known)}), got {type(config).__name__}")
    folder = Path(folder) if folder is not None else results_dir()
    chosen = how or mode()
    command = results.reproduce_command(config, "results")
    name = config.result_name()
    if chosen == "stored":
        stored = results.load_result(name, config, folder)
        meta = stored.meta
        return Obtained(
            config.result_type.from_stored(stored.config, stored.records,
                                           float(meta["wall_time_s"])),
            Provenance(name, "stored", stored.path,
                       _revision(meta["git_revision"], meta["git_dirty"]),
                       describe_machine(meta["machine"]), float(meta["wall_time_s"]),
                       meta["created"], command, environment.describe(meta["environment"])))
    if chosen not in ("fast", "recompute"):
        raise ValueError(f"mode must be 'stored', 'fast' or 'recompute', got {chosen!r}")
    run_config = config.fast() if chosen == "fast" else config
    result = run_config.run()
    return Obtained(result, Provenance(
        run_config.result_name(), chosen, None, _revision(*results.git_revision()),
        describe_machine(results.machine_description(run_config.device)), float(result.wall_time_s),
        datetime.now(UTC).isoformat(timespec="seconds"), command,
        environment.describe(environment.fingerprint(run_config.device,
                                                     getattr(run_config, "threads", 1)))))


def obtain_all(configs: Mapping[Any, Any], folder: str | os.PathLike[str] | None = None, *,
               how: Mode | None = None) -> dict[Any, Obtained]:
    """:func:`obtain` for every configuration of ``configs`` (same keys).

    Raises
    ------
    FileNotFoundError
        In stored mode, naming every missing or mismatched file and its regenerate command at
        once (not just the first).
    """
    out, problems = {}, []
    for key, config in configs.items():
        try:
            out[key] = obtain(config, folder, how=how)
        except (FileNotFoundError, ValueError) as error:
            if (how or mode()) != "stored":
                raise
            problems.append(str(error))
    if problems:
        raise FileNotFoundError(f"{len(problems)} stored result(s) missing or stale:\n"
                                + "\n".join(problems))
    return out


#: The seeds a chapter computes in fast mode: two, so that the seed axis is exercised.
FAST_SEEDS = (0, 1)


def with_seed(config: Any, seed: int) -> Any:
    """``config`` with experiment seed ``seed``: a multi-task configuration, or a grid of them
    (the seed of its ``base``)."""
    if isinstance(config, MultiTaskConfig):
        return replace(config, seed=seed)
    base = getattr(config, "base", None)
    if not isinstance(base, MultiTaskConfig):
        raise TypeError(f"{type(config).__name__} has no seed axis (no multi-task runs)")
    return replace(config, base=replace(base, seed=seed))


def stored_seeds(config: Any, folder: str | os.PathLike[str] | None = None) -> tuple[int, ...]:
    """The seeds of ``config`` (any seed: it is replaced) with a file in ``folder`` (default
    :func:`results_dir`), in increasing order. A file of another configuration with a seed in
    its name is not counted: the name must be the one ``config`` with that seed gives."""
    folder = Path(folder) if folder is not None else results_dir()
    candidates = {0} | {int(seed) for path in folder.glob("*.json")
                        for seed in re.findall(r"_s(\d+)", path.stem)}
    return tuple(sorted(seed for seed in candidates
                        if (folder / f"{with_seed(config, seed).result_name()}.json").exists()))


def obtain_seeds(configs: Mapping[Any, Any], folder: str | os.PathLike[str] | None = None, *,
                 how: Mode | None = None) -> dict[Any, list[Obtained]]:
    """:func:`obtain_all` for every seed of a group of configurations (same keys, each a list
    with one result per seed, in increasing seed order).

    The seeds are those stored for the group (:func:`stored_seeds`) in stored mode (and in
    recompute mode, seed 0 when none is stored), :data:`FAST_SEEDS` in fast mode.

    Raises
    ------
    FileNotFoundError
        In stored mode, when a seed (seed 0 included) is stored for part of the group only (the
        verdicts pair the runs of one seed); the message names the files and their command.
    """
    chosen = how or mode()
    if chosen == "fast":
        seeds: list[int] = list(FAST_SEEDS)
    else:
        per_config = {key: set(stored_seeds(config, folder)) for key, config in configs.items()}
        every = set().union(*per_config.values())
        seeds = sorted(every | {0})
        if chosen == "stored":
            missing = {with_seed(configs[key], seed).result_name(): with_seed(configs[key], seed)
                       for key, have in per_config.items() for seed in seeds if seed not in have}
            if missing:
                commands = sorted({results.reproduce_command(c, "results")
                                   for c in missing.values()})
                raise FileNotFoundError(
                    f"seeds {seeds} are stored for part of the group only; missing "
                    f"{sorted(missing)}; make them with: {'; '.join(commands)}")
    out: dict[Any, list[Obtained]] = {key: [] for key in configs}
    for seed in seeds:
        got = obtain_all({key: with_seed(c, seed) for key, c in configs.items()}, folder,
                         how=chosen)
        for key in configs:
            out[key].append(got[key])
    return out


def table_configs(datasets: Iterable[str] = ("mnist", "fashion"),
                  mechanisms: Iterable[str] = multitask.TABLE_MECHANISMS,
                  **fields: Any) -> dict[tuple[str, str], MultiTaskConfig]:
    """One :class:`~fedlib.experiments.multitask.MultiTaskConfig` per (dataset, mechanism),
    every other field from ``fields`` (e.g. ``n_tasks``, ``budget``, ``task``)."""
    return {(dataset, mechanism): MultiTaskConfig(dataset=dataset, mechanism=mechanism,
                                                  **fields)
            for dataset in datasets for mechanism in mechanisms}


def federated_results() -> dict[str, Any]:
    """The paper-scale results the chapter "Federated experiments" reads, by name: Tables 1-3
    (both datasets, the mechanisms of :data:`~fedlib.experiments.multitask.TABLE_MECHANISMS`)
    and the budget sweep (:class:`~fedlib.experiments.budget_sweep.BudgetSweepConfig`), and
    both datasets with the model carried across tasks for
    :data:`~fedlib.experiments.multitask.CARRIED_MECHANISMS`."""
    configs: list[Any] = [*table_configs().values(), BudgetSweepConfig(),
                          *table_configs(mechanisms=multitask.CARRIED_MECHANISMS,
                                         fresh_model=False).values()]
    return {c.result_name(): c for c in configs}


def report_results() -> dict[str, Any]:
    """The results the reproducibility report reads: :func:`federated_results` and the
    contribution run of Figures 2-3 (:class:`~fedlib.experiments.contribution.ContributionConfig`).
    """
    return {**federated_results(), ContributionConfig().result_name(): ContributionConfig()}


#: The folder of ``results/`` that holds runs repeated in another environment (another CPU
#: model, or the same CPU with its vector instructions held back, which the file records) than
#: the one that made the book's runs, to measure how far the tables move between machines.
SECOND_MACHINE = "second_machine"
#: The runs repeated there: ours, RRAFL (which reads ours' tasks) and Reputation Greedy on
#: Fashion-MNIST, and ours and RRAFL on MNIST.
SECOND_MACHINE_RUNS = (("fashion", ("ours", "rrafl", "reputation_greedy")),
                       ("mnist", ("ours", "rrafl")))


def second_machine_results() -> dict[str, Any]:
    """The runs of :data:`SECOND_MACHINE_RUNS`, by name within ``results/second_machine/``."""
    configs = [config for dataset, mechanisms in SECOND_MACHINE_RUNS
               for config in table_configs((dataset,), mechanisms).values()]
    return {c.result_name(): c for c in configs}


def sensitivity_results() -> dict[str, Any]:
    """The paper-scale results the chapter "How sensitive is the mechanism to its
    parameters?" reads, by name: the sensitivity sweep and the budget sweep around the same
    base (:func:`~fedlib.experiments.sensitivity.budget_config`)."""
    config = SensitivityConfig()
    return {c.result_name(): c for c in (config, sensitivity.budget_config(config))}


def adversarial_results() -> dict[str, Any]:
    """The paper-scale results the chapter "Adversarial and strategic workers" reads, by name:
    the scenario (:class:`~fedlib.experiments.adversarial.AdversarialConfig`) and the honest
    MNIST runs of its mechanisms."""
    configs: list[Any] = [AdversarialConfig(), *table_configs(
        ("mnist",), adversarial.ADVERSARIAL_MECHANISMS).values()]
    return {c.result_name(): c for c in configs}


def coldstart_results() -> dict[str, Any]:
    """The paper-scale results the chapter "The cold start on Fashion-MNIST" reads, by name: the
    cold-start map (:class:`~fedlib.experiments.coldstart.ColdStartConfig`) and the Tables 1-3
    run of ours on Fashion-MNIST whose first 20 tasks are its default run."""
    configs: list[Any] = [ColdStartConfig(), *table_configs(("fashion",), ("ours",)).values()]
    return {c.result_name(): c for c in configs}


def coldstart_pieces(config: ColdStartConfig | None = None) -> dict[str, ColdStartConfig]:
    """The pieces (by name) a seed's cold-start map ``config`` (default the paper-scale map)
    may be stored in instead of one file: its settings split as
    :data:`~fedlib.experiments.coldstart.COLD_START_PIECES` splits them, each piece with the
    default run."""
    config = config or ColdStartConfig()
    pieces = [tuple(pair for pair in config.values if pair[0] in piece)
              for piece in coldstart.COLD_START_PIECES]
    configs = [replace(config, values=values) for values in pieces if values]
    return {c.result_name(): c for c in configs}


def coldstart_seeds(config: ColdStartConfig | None = None,
                    folder: str | os.PathLike[str] | None = None, *,
                    how: Mode | None = None) -> tuple[list[ColdStartResult], list[Provenance]]:
    """Every seed's cold-start map ``config`` (default the paper-scale map; any seed: it is
    replaced), in increasing seed order, and the provenance of every file read.

    In stored mode a seed's map is read from its one file where there is one, else from its
    pieces (:func:`coldstart_pieces`, merged by :func:`~fedlib.experiments.coldstart.merge`);
    seed 0 is always read (a missing file fails with its command). A seed with part of its
    pieces stored, whose map is computed piece by piece, is left out until the rest is:
    :func:`coldstart_pending` names it, and the chapter says so. In fast and recompute mode,
    the whole map of every seed of :func:`obtain_seeds`."""
    config = config or ColdStartConfig()
    chosen = how or mode()
    if chosen == "stored":
        pieces = coldstart_pieces(config)
        whole, have = _stored_pieces(config, folder)
        complete = set.intersection(*have.values()) - whole

        def files(seed: int) -> list[Obtained]:
            if seed in complete:
                return list(obtain_all({name: with_seed(piece, seed)
                                        for name, piece in pieces.items()},
                                       folder, how=chosen).values())
            return [obtain(with_seed(config, seed), folder, how=chosen)]

        got = [files(seed) for seed in sorted(whole | complete | {0})]
    else:
        got = [[one] for one in obtain_seeds({"map": config}, folder, how=chosen)["map"]]
    return ([coldstart.merge([one.result for one in seed]) for seed in got],
            [one.provenance for seed in got for one in seed])


def coldstart_pending(config: ColdStartConfig | None = None,
                      folder: str | os.PathLike[str] | None = None
                      ) -> dict[int, list[ColdStartConfig]]:
    """The seeds of the cold-start map ``config`` (default the paper-scale map) stored in part
    of their pieces (:func:`coldstart_pieces`) and not whole, each with its missing pieces
    (with that seed), in increasing seed order."""
    config = config or ColdStartConfig()
    whole, have = _stored_pieces(config, folder)
    partial = set().union(*have.values()) - set.intersection(*have.values()) - whole
    return {seed: [with_seed(piece, seed) for name, piece in coldstart_pieces(config).items()
                   if seed not in have[name]]
            for seed in sorted(partial)}


def _stored_pieces(config: ColdStartConfig, folder: str | os.PathLike[str] | None
                   ) -> tuple[set[int], dict[str, set[int]]]:
    """The seeds of the map ``config`` stored whole, and by the name of each of its pieces the
    seeds stored of that piece."""
    return (set(stored_seeds(config, folder)),
            {name: set(stored_seeds(piece, folder))
             for name, piece in coldstart_pieces(config).items()})


def noniid_configs(dataset: str = "mnist", own_labels: bool = False) -> dict[str, NoniidConfig]:
    """The pieces of the non-iid grid of ``dataset`` (:data:`~fedlib.experiments.noniid.
    NONIID_PIECES`), by name; with ``own_labels``, the one piece of the own-label variant
    (ours alone).

    On MNIST the grid is the Tables' reading (a fresh model per task) at every alpha of
    :data:`~fedlib.experiments.noniid.NONIID_ALPHAS`. On Fashion-MNIST a fresh LeNet-5 per task
    does not start ours (the chapter "The cold start"), so that a grid there would measure the
    cold start, not the skew: its runs carry the model across tasks, at the alphas of
    :data:`~fedlib.experiments.noniid.FASHION_ALPHAS`."""
    carried = dataset == "fashion"
    base = MultiTaskConfig(dataset=dataset, fresh_model=not carried,
                           task=TaskOptions(own_labels=own_labels))
    alphas = noniid.FASHION_ALPHAS if carried else noniid.NONIID_ALPHAS
    pieces = (("ours",),) if own_labels else noniid.NONIID_PIECES
    configs = [NoniidConfig(alphas=alphas, mechanisms=piece, base=base) for piece in pieces]
    return {c.result_name(): c for c in configs}


def noniid_seeds(dataset: str = "mnist", own_labels: bool = False,
                 folder: str | os.PathLike[str] | None = None, *,
                 how: Mode | None = None) -> tuple[list[NoniidResult], list[Provenance]]:
    """Every seed's grid of :func:`noniid_configs` (its pieces read or run by
    :func:`obtain_seeds`, then merged), in increasing seed order, and the provenance of every
    piece."""
    got = obtain_seeds(noniid_configs(dataset, own_labels), folder, how=how)
    per_seed = list(zip(*got.values(), strict=True))
    return ([noniid.merge([piece.result for piece in pieces]) for pieces in per_seed],
            [piece.provenance for pieces in per_seed for piece in pieces])


def noniid_results() -> dict[str, Any]:
    """The paper-scale results the chapter "Skewed data" reads, by name: the seed-0 pieces of
    the MNIST non-iid grid, of its own-label variant and of the Fashion-MNIST grid."""
    return {**noniid_configs(), **noniid_configs(own_labels=True), **noniid_configs("fashion")}
