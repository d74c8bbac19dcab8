"""Verifying a stored result: recompute its first tasks and compare, on its own machine or another.

A stored result (:mod:`fedlib.storage.results`) records the :func:`fingerprint
<fedlib.storage.environment.fingerprint>` of the environment that made it. Verification
recomputes the first tasks of the stored configuration on the CPU and compares them
(:func:`~fedlib.storage.comparison.compare_records`) under the ``"same"`` tier when this
environment has the stored fingerprint, and under the ``"foreign"`` tier otherwise (see
:mod:`fedlib.storage.comparison` for what each demands). A result made on a GPU is verified
under the foreign tier like one from another CPU.

``FEDLIB_VERIFY_TIER=foreign`` (or ``same``) forces a tier; the default ``auto`` picks it from the
fingerprints. A result stored before fingerprints were recorded is verified under the foreign
tier.

A verification can also cover only the first rounds of the first task (``rounds``): the task's
winners, bids and every round field of those rounds, recomputed with a task of that many rounds
(a round draws its batch orders after the rounds before it, so the first rounds of a shorter
task are those of the longer one), and of a grid it can cover only the first runs (``runs``).
How much of each stored file CI recomputes is :func:`verification_plan`'s rule: whole tasks of
the seed-0 tables, the first rounds of the first task of every other file (of the first runs
only in the cold-start maps of the seeds other than 0).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal, NamedTuple

from fedlib.experiments import registry
from fedlib.experiments.grid import Grid
from fedlib.experiments.multitask import MultiTaskConfig
from fedlib.experiments.shapley_truth import ShapleyConfig, first_rounds
from fedlib.storage import environment, results
from fedlib.storage.comparison import MIN_PREFIX, Stop, Tier, compare_records


def requested_tier() -> Literal["auto", "same", "foreign"]:
    """``FEDLIB_VERIFY_TIER``: ``auto`` (default), ``same`` or ``foreign``."""
    chosen = os.environ.get("FEDLIB_VERIFY_TIER", "auto") or "auto"
    if chosen not in ("auto", "same", "foreign"):
        raise ValueError(f"FEDLIB_VERIFY_TIER must be 'auto', 'same' or 'foreign', got "
                         f"{chosen!r}")
    return chosen  # type: ignore[return-value]


@dataclass(frozen=True)
class VerificationReport:
    """The outcome of :func:`verify_result`.

    Attributes
    ----------
    name : str
    tier : {"same", "foreign"}
        The rule that ran (see the module docstring).
    ok : bool
    n_tasks : int
        Tasks recomputed.
    mismatches : tuple of str
        Differences beyond the tier's tolerance, decisions that differ with a large margin,
        and a verified prefix shorter than :data:`MIN_PREFIX` (empty when ``ok``).
    stops : tuple of Stop
        Runs whose comparison stopped at a near tie (foreign tier only).
    largest : str
        The largest relative difference seen over the compared part.
    drift : dict
        Field name to (largest absolute, largest relative) difference.
    stored_environment, environment : str
        Who made the stored file, and who recomputed it (:func:`environment.describe`).
    foreign_ok : bool
        Whether the same recomputation also passes the foreign tier (it must: the foreign
        rule is the looser one; computed under either tier, so that the build machine's CI
        exercises the cross-machine rule too).
    seconds : float
        Time the recomputation took.
    """

    name: str
    tier: Tier
    ok: bool
    n_tasks: int
    mismatches: tuple[str, ...]
    stops: tuple[Stop, ...]
    largest: str
    drift: dict[str, tuple[float, float]]
    stored_environment: str
    environment: str
    foreign_ok: bool
    seconds: float


#: Round fields of a task's record that a verification of its first rounds compares (the rest
#: sums up the whole task).
PREFIX_FIELDS = ("task", "winners", "bids", "rounds")


def with_rounds(config: registry.Experiment, rounds: int) -> registry.Experiment:
    """``config`` with ``rounds`` global rounds per task: a multi-task configuration, a grid
    of them (its ``base``), or the Shapley ground truth (its contribution tasks)."""
    if isinstance(config, MultiTaskConfig):
        return replace(config, task=replace(config.task, rounds=rounds))
    if isinstance(config, ShapleyConfig):
        tasks = config.contribution
        return replace(config, contribution=replace(tasks, task=replace(tasks.task,
                                                                        rounds=rounds)))
    base = getattr(config, "base", None)
    if not isinstance(base, MultiTaskConfig):
        raise ValueError(f"{type(config).__name__} has no multi-task runs: verify it by tasks")
    return replace(config, base=with_rounds(base, rounds))


def round_prefix(records: Sequence[Mapping[str, Any]], rounds: int) -> list[dict[str, Any]]:
    """The first task of ``records`` cut to its first ``rounds`` rounds (:data:`PREFIX_FIELDS`);
    a grid's task-major record is cut run by run, a Shapley ground truth's by
    :func:`~fedlib.experiments.shapley_truth.first_rounds`."""
    def cut(record: Mapping[str, Any]) -> dict[str, Any]:
        if "runs" in record:
            return {"task": record["task"], "runs": [cut(run) for run in record["runs"]]}
        if "v_empty" in record:  # a task of the Shapley ground truth
            return first_rounds(record, rounds)
        kept = {key: record[key] for key in PREFIX_FIELDS}
        kept["rounds"] = {key: values[:rounds] for key, values in record["rounds"].items()}
        return kept

    return [cut(record) for record in records[:1]]


def least_rounds(config: registry.Experiment) -> int:
    """The fewest rounds a verification by rounds may cover: :data:`MIN_PREFIX` for multi-task
    runs, whose comparison may stop at a near tie; one for the Shapley ground truth, whose
    first round's game already runs every step of a round (training, the ``2**k`` coalitions,
    every measure) and comes before the task's first decision (the leave-one-out checks that
    weight the round's aggregate), so that two machines' runs cannot part before it."""
    return 1 if isinstance(config, ShapleyConfig) else MIN_PREFIX[1]


#: Whole tasks recomputed of the seed-0 tables of ours (and of every other MNIST mechanism).
WHOLE_TASKS = {"mnist": 2, "fashion": 1}
#: Runs recomputed of the cold-start map of a seed other than 0: its first ones, the default
#: run and the two other budgets (:data:`~fedlib.experiments.coldstart.COLD_START_VALUES`), or
#: of each of its pieces (:data:`~fedlib.experiments.coldstart.COLD_START_PIECES`: the default
#: run and the two budgets, or the two other local epochs).
SEED_RUNS = 3


class Plan(NamedTuple):
    """What :func:`verify_result` recomputes of a stored file: its first ``tasks`` tasks, whole
    (``rounds`` None) or cut to their first ``rounds`` rounds, of every run (``runs`` None) or
    of a grid's first ``runs`` runs."""

    tasks: int
    rounds: int | None
    runs: int | None = None


def verification_plan(config: Mapping[str, Any]) -> Plan:
    """What CI recomputes of a stored result whose configuration is ``config`` (its
    ``"config"``): whole tasks (``rounds`` None) for the seed-0 tables of ours and of the
    other MNIST mechanisms (:data:`WHOLE_TASKS`) and for the contribution tasks of Figures 2-3
    (two; they have no rounds to cut), the first round of the Shapley ground truth's first task
    (:func:`least_rounds`), and the first ``MIN_PREFIX`` rounds of every other file's first task
    (the least a verification covers, :data:`~fedlib.storage.comparison.MIN_PREFIX`): the
    files of the other seeds, of the other mechanisms on Fashion-MNIST, the sweeps and the
    cold-start map, every run of it for seed 0 and its first :data:`SEED_RUNS` runs for the
    other seeds, and of a non-iid grid its first mechanism's run at every alpha.

    Whole tasks run the task's end (the contributions, Eq. (13), the payments), which is the
    same code for every run of a mechanism: two tasks for the MNIST tables of seed 0, so that
    the second auction runs on the reputations the first task updated, and one for ours on
    Fashion-MNIST, where a task of LeNet-5 at paper scale costs about a minute of one core
    (more on a CPU without AVX-512) and its second task adds no code path the MNIST files do
    not verify. The prefix (one round from the initial model, one from the first round's
    aggregate) runs every path in which the other files differ: the seed's draws
    (data, label noise, bids, batch orders, initial model), the mechanism's first auction, and
    the settings a sweep or the cold-start map changes (budget, local epochs, learning rate,
    momentum), each in every one of its runs; the rest of the task is the code that the whole
    tasks above verify. So adding a seed, a mechanism or a sweep adds a prefix to CI's time,
    not whole tasks. The runs of a cold-start map differ from one another in one setting
    each, and share their seed's draws: seed 0's map verifies every setting's path, and the
    map of another seed its draws through three first auctions (the default budget and the two
    others), at under a quarter of the whole map's cost (three runs of one local epoch each,
    where the whole map trains as much as thirteen: its runs of 2 and 5 epochs count for 7).
    The runs of a non-iid grid (:mod:`fedlib.experiments.noniid`) differ from the tables' in
    the skewed workers' data alone, drawn once per alpha; every mechanism meets the same bids
    and data at one alpha, and its first auction is the one its tables file verifies. So the
    prefix of ours' run at every alpha (the grid's first runs) covers every draw the grid adds,
    at a quarter of its runs.

    The Shapley ground truth's first task solves ten games of 1024 coalitions on 5000
    validation images, minutes of one core; its first round's game (training, every
    coalition, every measure) takes a tenth of that, and its other rounds run the same code.
    """
    experiment = config.get("experiment")
    if experiment == "shapley":
        return Plan(1, least_rounds(ShapleyConfig()))
    if experiment == "contribution":
        return Plan(2, None)
    dataset, mechanism = config.get("dataset"), config.get("mechanism")
    if experiment == "tables" and not config.get("seed") and (
            mechanism == "ours" or dataset == "mnist"):
        return Plan(WHOLE_TASKS[str(dataset)], None)
    if experiment == "coldstart" and config.get("seed"):
        return Plan(1, MIN_PREFIX[1], SEED_RUNS)
    if experiment == "noniid":
        return Plan(1, MIN_PREFIX[1], len(config["alphas"]))
    return Plan(1, MIN_PREFIX[1])


def plan_numbers() -> dict[str, int]:
    """:func:`verification_plan`'s numbers by the names the chapters glue them under: the whole
    tasks of the seed-0 tables on MNIST and on Fashion-MNIST, the rounds of the prefix, and the
    runs of the cold-start maps of the other seeds."""
    return {"verify_mnist_tasks": WHOLE_TASKS["mnist"],
            "verify_fashion_tasks": WHOLE_TASKS["fashion"],
            "verify_prefix_rounds": MIN_PREFIX[1],
            "verify_seed_runs": SEED_RUNS}


def verify_result(name: str, n_tasks: int = 2,
                  results_dir: str | os.PathLike[str] = "results", *,
                  tier: Tier | None = None,
                  task_store: str | os.PathLike[str] | None = None,
                  rounds: int | None = None,
                  runs: int | None = None) -> VerificationReport:
    """Recompute the first ``n_tasks`` tasks of a stored result on the CPU and compare.

    Parameters
    ----------
    name : str
        The file ``<results_dir>/<name>.json``.
    n_tasks : int, default 2
        Tasks recomputed (1 when ``rounds`` is given).
    results_dir : path
    tier : {"same", "foreign"}, optional
        Default: ``FEDLIB_VERIFY_TIER`` if it forces one, else ``"same"`` when this
        environment has the stored fingerprint and ``"foreign"`` otherwise.
    task_store : path, optional
        A :class:`~fedlib.experiments.task_store.TaskStore` folder shared by several
        verifications (e.g. the RRAFL file reads the tasks of ours, which hires the same
        winners); tasks are keyed by all their inputs, so the records are the same.
    rounds : int, optional
        Recompute only the first task's first ``rounds`` rounds (see the module docstring).
    runs : int, optional
        Of a grid (:class:`~fedlib.experiments.grid.Grid`), recompute only its first ``runs``
        runs (in the order of its ``run_configs``); default every run.

    Raises
    ------
    FileNotFoundError
        If the result does not exist.
    ValueError
        If it records no environment fingerprint (every stored result does), or ``runs`` is
        given for a file that is not a grid or exceeds its runs.
    """
    path = Path(results_dir) / f"{name}.json"
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist")
    payload = json.loads(path.read_text())
    config = payload["config"]
    here = environment.fingerprint("cpu", config.get("threads", 1))
    stored_environment = payload.get("environment")
    if stored_environment is None:
        raise ValueError(f"{path} records no environment fingerprint, so neither rule of "
                         f"comparison applies to it: regenerate it with its command, "
                         f"{payload['command']!r}")
    if tier is None:
        forced = requested_tier()
        same = environment.same_environment(stored_environment, here)
        tier = ("same" if same else "foreign") if forced == "auto" else forced
    began = time.perf_counter()
    store = None if task_store is None else str(task_store)
    built, stored = registry.rebuild(config), payload["records"][:n_tasks]
    if runs is not None:
        if not isinstance(built, Grid):
            raise ValueError(f"runs applies to a grid of runs; {path} holds a "
                             f"{type(built).__name__}")
        # the task and its first runs' records (Grid.recompute's), without the grid's extras
        stored = [{"task": record["task"], "runs": record["runs"][:runs]} for record in stored]
    if rounds is not None:
        least = least_rounds(built)
        if rounds < least or n_tasks != 1:
            raise ValueError(f"a verification by rounds covers the first task (n_tasks = 1) "
                             f"and at least {least} round{'s' if least > 1 else ''}, got "
                             f"n_tasks = {n_tasks}, rounds = {rounds}")
        built = with_rounds(built, rounds)
        config, stored = built.to_dict(), round_prefix(stored, rounds)
    recomputed = (built.recompute(n_tasks, store) if runs is None else
                  built.recompute(n_tasks, store, runs=runs))
    fresh = results.json_values(recomputed)
    if rounds is not None:
        fresh = round_prefix(fresh, rounds)
    comparison, stops = compare_records(config, stored, fresh, tier)
    foreign = comparison if tier == "foreign" else compare_records(
        config, stored, fresh, "foreign")[0]
    return VerificationReport(
        name, tier, not comparison.mismatches, n_tasks, tuple(comparison.mismatches), stops,
        comparison.largest(), comparison.by_field(),
        environment.describe(stored_environment),
        environment.describe(here), not foreign.mismatches, time.perf_counter() - began)


class StaleResultError(AssertionError):
    """A stored result that the current code does not reproduce (:func:`check_fresh`)."""


def check_fresh(name: str, folder: str | os.PathLike[str], n_tasks: int = 2, *,
                tier: Tier | None = None,
                task_store: str | os.PathLike[str] | None = None,
                rounds: int | None = None,
                runs: int | None = None) -> VerificationReport:
    """:func:`verify_result`, raising :class:`StaleResultError` when it fails.

    The message names the tier, the first differences and what to do: under the same tier
    (this environment made the file) regenerate it; under the foreign tier, replay the stored
    configuration into another folder and compare, since the file is not this machine's to
    overwrite.
    """
    report = verify_result(name, n_tasks, folder, tier=tier, task_store=task_store,
                           rounds=rounds, runs=runs)
    if report.ok:
        return report
    part = (f"first {n_tasks} task(s)" if rounds is None else
            f"first task's first {rounds} rounds")
    part += "" if runs is None else f" of its first {runs} run(s)"
    path = Path(folder) / f"{name}.json"
    shown = "\n  ".join(report.mismatches[:8])
    more = len(report.mismatches) - 8
    differences = (f"({len(report.mismatches)} difference(s); largest {report.largest})"
                   f":\n  {shown}" + (f"\n  ... and {more} more" if more > 0 else ""))
    if report.tier == "same":
        raise StaleResultError(
            f"{path} is stale: recomputing its {part} in the environment that "
            f"made it ({report.environment}) gives other records {differences}\nRegenerate "
            f"it: {results.replay_command(path, folder)}")
    raise StaleResultError(
        f"{path} differs beyond the cross-machine tolerance: its {part} "
        f"recomputed here ({report.environment}) disagree with the file, made on "
        f"{report.stored_environment}, by more than the measured drift between machines "
        f"{differences}\nDo not overwrite {folder}: replay the stored configuration into "
        f"another folder and compare the two, "
        f"{results.replay_command(path, '/tmp/fedlib-replay')}")
