"""``python -m fedlib reproduce``: the paper's experiments from the command line.

``python -m fedlib reproduce KIND [--dataset {mnist,fashion,both}] [--fast] [--out DIR]
[--device auto|cpu|cuda] [--jobs N] [--executor local|ray] [--budget B] [--seeds S ...]
[--mechanisms NAME ...] [--carry-model] [--alphas A ...] [--own-labels] [--settings NAME ...]``,
or
``python -m fedlib reproduce --config results/NAME.json [--out DIR]``

KIND is a registered experiment (:mod:`fedlib.experiments.registry`; its flags are mapped onto
configurations by :mod:`fedlib.experiments.commands`):

* ``tables``: Tables 1-3, the five mechanisms of Tables 2-3 on each dataset
  (:mod:`fedlib.experiments.multitask`), saved as ``<out>/tables_<dataset>_<mechanism>.json``;
  ``--mechanisms`` runs only some of them, ``--carry-model`` starts every task from the previous
  task's global model (saved with the suffix ``_carried``); RRAFL, which hires the same winners
  as ours, starts last and reads ours' tasks instead of training them again;
* ``contribution``: Figures 2-3 (:mod:`fedlib.experiments.contribution`);
* ``shapley``: the exact Shapley values of every round's game of the contribution tasks,
  against every contribution measure (:mod:`fedlib.experiments.shapley_truth`);
* ``mechanisms``: Figures 4-5 (:mod:`fedlib.experiments.auction_sweeps`; no dataset);
* ``budgets``, ``sensitivity``, ``adversarial``, ``noniid``: the grids of multi-task runs
  (:mod:`fedlib.experiments.grid`) over budgets, parameter values, mechanisms facing
  attackers, or mechanisms and the label skew of honest workers (default dataset: mnist;
  ``--alphas`` runs only some of the label skews, ``iid`` the paper's iid workers);
  ``--own-labels`` (tables and noniid) measures every worker on the validation samples of its
  own labels, a variant beyond the paper (saved with the suffix ``_ownlabels``), and
  ``--carry-model`` (noniid too) carries the model across tasks as for the tables;
* ``coldstart``: the map of the Fashion-MNIST cold start (:mod:`fedlib.experiments.coldstart`),
  ours under one changed setting at a time (default dataset: fashion); ``--settings`` runs a
  piece of it, only the named settings with the default run (``--settings epochs``, then
  ``--settings budget lr momentum fresh_model``: the two pieces the book reads when a seed
  has no whole map).

Each configuration the flags give is run and saved as ``<out>/<name>.json``; ``--jobs``
processes share the configurations, or the runs of one grid. ``--seeds`` (``--seed``) runs every
configuration once per seed, one file per seed (``_s<seed>`` ends the name of every seed but
0): ``--seeds 0-9`` or ``--seeds 0 3 5``; a seed draws everything random in a run (the workers'
data and label noise, the validation and test sets, bids, batch orders and initial models).
Runs checkpoint under ``<out>/.checkpoints/<environment>/`` and share finished tasks
(:mod:`fedlib.experiments.task_store`), so a restarted command resumes, and keeps results
already saved with the same configuration. ``<environment>`` names the environment fingerprint
of the run's device (:func:`checkpoint_dir`): a run resumes only where its environment is the
one that checkpointed it (another CPU kind, torch or lock starts it over), so that a saved file
never mixes the rounding of two machines.

``--executor ray`` runs the configurations as tasks on a Ray cluster
(:class:`fedlib.runtime.RayExecutor`: the one ``RAY_ADDRESS`` names, else a Ray started on
this machine): one task of one CPU per
configuration, ``--jobs`` at a time (default: as many as the cluster runs), the runs of a grid
on the node of its task. Each task saves its result on its node, so that the file records the
environment of the machine that computed it, and sends the file to this machine, which writes
it into ``--out`` (results need no shared folder). Checkpoints go to
``<out>/.checkpoints/<environment>/`` as each node sees that path (a folder shared at the same
path by every node lets a restarted command resume on any node of the same environment;
otherwise a run resumes on the node that checkpointed it); the tasks a
run shares with another (RRAFL's with ours) are kept in a folder of each node's own, deleted at
the end, so that a file never mixes machines. Every node must run the same fedlib sources as
this machine (a task refuses otherwise).

``--config FILE`` replays: it reruns exactly the configuration stored in ``FILE`` (any stored
result, including configurations the flags cannot express) on the device it names, saves it
under the same name in ``--out`` and compares the new records with the file's under the
cross-machine rule of :mod:`fedlib.storage.comparison` (how far they agree, and where they
part at a near tie); the exit status is 1 when they differ beyond it.

Stored results are verified by recomputing their first tasks on the CPU
(:func:`~fedlib.storage.verification.verify_result`): to 1e-6 in the environment that made
them, within the measured cross-machine drift elsewhere. A result made on a GPU (``--device
cuda``, TF32 off) is verified under the cross-machine rule.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import shutil
import socket
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fedlib.cli.text import plain
from fedlib.experiments import registry
from fedlib.experiments.coldstart import COLD_START_VALUES
from fedlib.experiments.commands import FLAGS, Options, configurations
from fedlib.experiments.task_store import code_fingerprint
from fedlib.fl.data import DATASETS
from fedlib.fl.partitions import check_alpha
from fedlib.mechanism.mechanisms import MECHANISMS
from fedlib.runtime import parallel_map, write_atomic
from fedlib.storage import comparison, environment, results


def at_least(cast: Callable[[str], float], minimum: float,
              strict: bool = False) -> Callable[[str], float]:
    """An argparse type: ``cast`` of the text, finite and at least ``minimum`` (above it if
    ``strict``); otherwise a usage error naming the accepted values."""
    wanted = f"{'above' if strict else 'at least'} {minimum:g}"

    def parse(text: str) -> float:
        try:
            value = cast(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number {wanted}, got {text!r}") from None
        if not math.isfinite(value) or value < minimum or (strict and value == minimum):
            raise argparse.ArgumentTypeError(f"must be {wanted}, got {text}")
        return value

    return parse


def seed_list(text: str) -> list[int]:
    """An argparse type: one seed (``3``) or an inclusive range (``0-9``) of seeds >= 0."""
    first, dash, last = text.partition("-")
    try:
        low, high = int(first), int(last if dash else first)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a seed (an integer >= 0) or a range such as "
                                         f"0-9, got {text!r}") from None
    if low < 0 or high < low:
        raise argparse.ArgumentTypeError(f"must be seeds >= 0, a range low-high with low <= "
                                         f"high, got {text!r}")
    return list(range(low, high + 1))


def alpha_or_iid(text: str) -> float | None:
    """An argparse type: ``iid`` (None) or a Dirichlet concentration, a finite number above 0."""
    if text == "iid":
        return None
    try:
        return check_alpha(float(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be 'iid' or a number above 0, got {text!r}"
                                         ) from None


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Register ``reproduce KIND`` for every registered experiment, and ``reproduce --config``."""
    registry.experiments()
    takes = "\n".join(f"  {kind:13} takes {', '.join(FLAGS[name] for name in command.accepts)}"
                      for kind, command in sorted(registry.COMMANDS.items()))
    sub = commands.add_parser("reproduce", help="run one of the paper's experiments",
                              description=plain(__doc__),
                              epilog=f"Flags by experiment:\n{takes}",
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    sub.add_argument("experiment", nargs="?", choices=list(registry.experiments()))
    sub.add_argument("--config", metavar="FILE", default=None,
                     help="replay: rerun exactly the configuration stored in FILE (a stored "
                          "result such as results/tables_mnist_ours.json) into --out")
    sub.add_argument("--dataset", choices=[*DATASETS, "both"], default=None,
                     help="default: both for tables, fashion for coldstart, mnist for the others")
    sub.add_argument("--fast", action="store_true", help="a small smoke-sized run")
    sub.add_argument("--out", default="results", help="folder for the JSON results")
    sub.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    sub.add_argument("--jobs", type=at_least(int, 1), default=None,
                     help="parallel processes (default 2); with --executor ray, tasks at a time "
                          "(default: as many as the cluster runs)")
    sub.add_argument("--executor", choices=["local", "ray"], default="local",
                     help="local: processes on this machine; ray: tasks on the Ray cluster of "
                          "RAY_ADDRESS, else on a Ray started here")
    sub.add_argument("--budget", type=at_least(float, 0, strict=True), default=None,
                     help="budget per task (tables, sensitivity, adversarial, noniid; "
                          "default 60)")
    sub.add_argument("--mechanisms", nargs="+", default=None, metavar="NAME",
                     choices=sorted(MECHANISMS),
                     help="tables, adversarial and noniid: only these mechanisms")
    sub.add_argument("--carry-model", action="store_true",
                     help="tables and noniid: start each task from the previous task's "
                          "global model (default: a fresh model per task)")
    sub.add_argument("--alphas", nargs="+", type=alpha_or_iid, default=None, metavar="A",
                     help="noniid: only these Dirichlet concentrations of the skewed workers' "
                          "labels, 'iid' for none (default: 0.1 0.3 1 iid)")
    sub.add_argument("--own-labels", action="store_true",
                     help="tables and noniid: measure each worker's contribution and check on "
                          "the validation samples of its own labels (a variant beyond the "
                          "paper; default: every sample)")
    sub.add_argument("--settings", nargs="+", default=None, metavar="NAME",
                     choices=[name for name, _ in COLD_START_VALUES],
                     help="coldstart: only these settings, with the default run (a piece of "
                          "the map; default: every setting)")
    sub.add_argument("--seeds", "--seed", dest="seeds", nargs="+", type=seed_list,
                     default=None, metavar="S",
                     help="experiment seeds: one file per seed; S is a seed or a range such as "
                          "0-9 (default: 0)")
    sub.set_defaults(func=_reproduce, parser=sub)


def _seeds(args: argparse.Namespace) -> list[int]:
    """The seeds ``--seeds`` names, each once, in the order given (default: seed 0)."""
    given = [seed for group in args.seeds or [[0]] for seed in group]
    return list(dict.fromkeys(given))


def _options(args: argparse.Namespace, kind: str) -> list[Options]:
    """The options of ``args`` for experiment ``kind``, one per seed; a usage error names a
    flag the experiment does not take."""
    given = {"datasets": args.dataset is not None, "mechanisms": args.mechanisms is not None,
             "budget": args.budget is not None, "carry_model": args.carry_model,
             "alphas": args.alphas is not None, "own_labels": args.own_labels,
             "settings": args.settings is not None, "seed": _seeds(args) != [0],
             "fast": args.fast}
    command = registry.COMMANDS[kind]
    unused = [FLAGS[name] for name, set_ in given.items() if set_ and name not in command.accepts]
    if unused:
        args.parser.error(f"reproduce {kind} does not take {', '.join(unused)}")
    datasets = (command.default_datasets if args.dataset is None else
                DATASETS if args.dataset == "both" else (args.dataset,))
    return [Options(datasets=tuple(datasets), mechanisms=tuple(args.mechanisms or ()),
                    budget=args.budget, carry_model=args.carry_model,
                    alphas=tuple(args.alphas or ()), own_labels=args.own_labels,
                    settings=tuple(args.settings or ()), seed=seed,
                    fast=args.fast, device=args.device) for seed in _seeds(args)]


def checkpoint_dir(out: str | os.PathLike[str], state: dict[str, Any]) -> Path:
    """Where the runs of the configuration ``state`` (its ``to_dict``) checkpoint on this
    machine: ``<out>/.checkpoints/`` and 12 hex digits of the hash of the environment
    fingerprint of its device and threads (:func:`fedlib.storage.environment.fingerprint`, as
    the saved file will record it)."""
    machine = environment.fingerprint(state["device"], state.get("threads", 1))
    key = hashlib.sha256(json.dumps(machine, sort_keys=True).encode()).hexdigest()[:12]
    return Path(out) / ".checkpoints" / key


def _job(state: dict[str, Any], out: str, task_store: str, jobs: int) -> str:
    """Run (or resume) one configuration, save it; a line saying what was done.

    A result already saved in ``out`` with the same configuration is kept, not recomputed, so
    a restarted command goes on where it stopped (finished results, then checkpoints).
    """
    config = registry.rebuild(state)
    name = config.result_name()
    if (kept := _kept(config, out)) is not None:
        return kept
    result = config.run(jobs=jobs, checkpoint_dir=checkpoint_dir(out, state),
                        task_store=task_store)
    path = results.save_result(name, config, result.records, out,
                               wall_time_s=result.wall_time_s)
    return f"{path}: {len(result.records)} records in {result.wall_time_s:.0f} s"


def _kept(config: Any, out: str | os.PathLike[str]) -> str | None:
    """The line for a result already stored in ``out`` with this configuration, else None."""
    try:
        done = results.load_result(config.result_name(), config, out)
    except (FileNotFoundError, ValueError):  # missing, or stored with another configuration
        return None
    return f"{done.path}: kept (already computed with this configuration; delete to redo)"


def _ray_job(state: dict[str, Any], out: str, command: str, code: str) -> tuple[str, str, str]:
    """On a Ray node: run one configuration and save it on the node (its environment recorded
    by the node); its name, the file's text and a line saying what was done."""
    if code != code_fingerprint():
        raise RuntimeError(f"node {socket.gethostname()} runs other fedlib sources "
                           f"({code_fingerprint()[:12]}) than the command's ({code[:12]}): "
                           "install the same revision on every node")
    config = registry.rebuild(state)
    name = config.result_name()
    result = config.run(jobs=1, checkpoint_dir=checkpoint_dir(out, state),
                        task_store=_node_store(command))
    with tempfile.TemporaryDirectory(prefix="fedlib-result-") as staging:
        path = results.save_result(name, config, result.records, staging,
                                   wall_time_s=result.wall_time_s)
        text = path.read_text()
    return name, text, (f"{len(result.records)} records in {result.wall_time_s:.0f} s on "
                        f"{socket.gethostname()}")


def _node_store(command: str) -> str:
    """This node's folder of finished tasks for the command ``command``."""
    return str(Path(tempfile.gettempdir()) / f"fedlib-tasks-{command}")


def _drop_node_store(command: str) -> None:
    shutil.rmtree(_node_store(command), ignore_errors=True)


def _run_on_ray(args: argparse.Namespace, configs: list[Any]) -> list[str]:
    """The configurations as Ray tasks (:class:`fedlib.runtime.RayExecutor`), each file written
    here."""
    from fedlib.runtime import RayExecutor

    out = Path(args.out).resolve()
    kept = [(config, _kept(config, out)) for config in configs]
    lines = [line for _, line in kept if line is not None]
    todo = [config for config, line in kept if line is None]
    command = uuid.uuid4().hex
    with RayExecutor() as executor:
        try:
            ran = executor.map(_ray_job, [(c.to_dict(), str(out), command, code_fingerprint())
                                          for c in todo], args.jobs)
        finally:
            executor.on_every_node(_drop_node_store, command)
    out.mkdir(parents=True, exist_ok=True)
    for name, text, line in ran:
        path = write_atomic(out / f"{name}.json", lambda tmp, text=text: tmp.write_text(text))
        lines.append(f"{path}: {line}")
    return lines


def _run(args: argparse.Namespace) -> int:
    try:
        configs = [config for options in _options(args, args.experiment)
                   for config in configurations(args.experiment, options)]
    except ValueError as error:  # a value the configuration rejects
        args.parser.error(str(error))
    # Each experiment orders its own configurations (RRAFL after ours); across seeds, each
    # position of that order runs for every seed before the next position starts.
    per_seed = len(configs) // len(_seeds(args))
    configs = [config for _, config in sorted(enumerate(configs),
                                              key=lambda pair: pair[0] % per_seed)]
    if args.executor == "ray":
        print("\n".join(_run_on_ray(args, configs)))
        return 0
    # The configurations share the processes; what is left over goes to each run's own runs.
    jobs = args.jobs or 2
    outer = min(jobs, len(configs))
    with tempfile.TemporaryDirectory(prefix="fedlib-tasks-") as store:
        lines = parallel_map(_job, [(c.to_dict(), args.out, store, jobs // outer)
                                    for c in configs], outer)
    print("\n".join(lines))
    return 0


def _replay(args: argparse.Namespace) -> int:
    """Rerun the configuration stored in ``args.config``, save it in ``args.out`` and compare."""
    path = Path(args.config)
    try:
        payload = json.loads(path.read_text())
        raw = payload["config"]
        config = registry.rebuild(raw)
    except (OSError, ValueError, KeyError, TypeError) as error:
        args.parser.error(f"--config: {path} is not a stored result ({error})")
    result = config.run()
    saved = results.save_result(config.result_name(), config, result.records, args.out,
                                wall_time_s=result.wall_time_s)
    fresh = json.loads(saved.read_text())["records"]
    measured, stops = comparison.compare_records(raw, payload["records"], fresh, "foreign")
    verdict = ("agrees within the cross-machine tolerance" if not measured.mismatches else
               f"differs beyond the cross-machine tolerance ({len(measured.mismatches)} "
               f"difference(s), the first: {measured.mismatches[0]})")
    print(f"{saved}: {len(fresh)} tasks in {result.wall_time_s:.0f} s; against {path}: "
          f"{verdict}; largest difference {measured.largest()}")
    for stop in stops:
        print(f"  parts at a near tie: {stop}")
    return 0 if not measured.mismatches else 1


def _reproduce(args: argparse.Namespace) -> int:
    if args.config is not None:
        if args.experiment is not None:
            args.parser.error("give either an experiment or --config FILE, not both")
        if args.executor != "local":
            args.parser.error("--config replays in this process: --executor is for KIND")
        return _replay(args)
    if args.experiment is None:
        args.parser.error("name an experiment, or replay a stored result with --config FILE")
    return _run(args)
