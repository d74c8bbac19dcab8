"""The ``reproduce`` command: the paper's experiments from the command line.

``python -m fedlib reproduce {contribution,mechanisms,tables,budgets,sensitivity,adversarial}
--dataset {mnist,fashion,both} [--fast] [--out DIR] [--device auto|cpu|cuda] [--jobs N]
[--budget B] [--seed S] [--mechanisms NAME ...] [--carry-model]``, or
``python -m fedlib reproduce --config results/NAME.json [--out DIR]``

* ``--config FILE``: replay, i.e. rerun exactly the configuration stored in ``FILE`` (any
  stored result, including configurations the flags cannot express) on the device it names,
  save it under the same name in ``--out`` and compare the new records with the file's under
  the cross-machine rule of :mod:`fedlib.experiments.verification` (how far they agree, and
  where they part at a near tie);

* ``contribution``: Figures 2-3 (:mod:`fedlib.experiments.contribution`), saved as
  ``<out>/contribution_<dataset>.json``;
* ``tables``: Tables 1-3, the five mechanisms of Tables 2-3 on each dataset
  (:mod:`fedlib.experiments.multitask`), independent runs in ``--jobs`` parallel processes,
  each checkpointed under ``<out>/.checkpoints/`` (a restarted command resumes, and keeps
  results already saved) and saved as ``<out>/tables_<dataset>_<mechanism>.json``;
  ``--mechanisms`` runs only some of them, ``--carry-model`` starts every task from the previous
  task's global model (``fresh_model=False``, saved with the suffix ``_carried``); the runs
  share finished tasks (:mod:`fedlib.experiments.task_store`), so RRAFL, which hires the same
  winners as ours, starts last and reads ours' tasks instead of training them again;
* ``mechanisms``: Figures 4-5 through ``fedlib.experiments.auction_sweeps.run_figures``;
* ``budgets``: ours at several budgets with fewer tasks
  (:mod:`fedlib.experiments.budget_sweep`), the budgets in ``--jobs`` parallel processes,
  saved as ``<out>/budgets_<dataset>_ours.json`` (default dataset: mnist);
* ``sensitivity``: ours around the budget sweep's base with one parameter changed at a time
  (:mod:`fedlib.experiments.sensitivity`), the runs in ``--jobs`` parallel processes, saved as
  ``<out>/sensitivity_<dataset>_ours.json`` (default dataset: mnist);
* ``adversarial``: attackers among the clean workers, for ours, RRAFL and Reputation Greedy
  (:mod:`fedlib.experiments.adversarial`), the mechanisms in ``--jobs`` parallel processes,
  saved as ``<out>/adversarial_<dataset>.json`` (default dataset: mnist).

Stored results are verified by recomputing their first tasks on the CPU
(:func:`~fedlib.experiments.verification.verify_result`): to 1e-6 in the environment that made
them, within the measured cross-machine drift elsewhere. A result made on a GPU (``--device
cuda``, TF32 off) is verified under the cross-machine rule.
"""

from __future__ import annotations

import argparse
import importlib
import json
import tempfile
from pathlib import Path
from typing import Any

from fedlib.fl.data import DATASETS
from fedlib.runtime import parallel_map


def add_reproduce_parser(commands: argparse._SubParsersAction) -> None:
    """Register ``reproduce {contribution,mechanisms,tables,budgets,sensitivity}``."""
    from fedlib.experiments.multitask import DEFAULT_BUDGET

    sub = commands.add_parser("reproduce", help="run one of the paper's experiments",
                              description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    sub.add_argument("experiment", nargs="?",
                     choices=["contribution", "mechanisms", "tables", "budgets", "sensitivity",
                              "adversarial"])
    sub.add_argument("--config", metavar="FILE", default=None,
                     help="replay: rerun exactly the configuration stored in FILE (a stored "
                          "result such as results/tables_mnist_ours.json) into --out")
    sub.add_argument("--dataset", choices=[*DATASETS, "both"], default=None,
                     help="default: both for tables, mnist for contribution and budgets")
    sub.add_argument("--fast", action="store_true", help="a small smoke-sized run")
    sub.add_argument("--out", default="results", help="folder for the JSON results")
    sub.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    sub.add_argument("--jobs", type=int, default=2,
                     help="parallel processes for tables, budgets and sensitivity "
                          "(default 2)")
    sub.add_argument("--budget", type=float, default=DEFAULT_BUDGET,
                     help=f"budget per task for tables (default {DEFAULT_BUDGET:g})")
    sub.add_argument("--mechanisms", nargs="+", default=None, metavar="NAME",
                     help="tables: only these of the five mechanisms (default: all)")
    sub.add_argument("--carry-model", action="store_true",
                     help="tables: start each task from the previous task's global model "
                          "(default: a fresh model per task)")
    sub.add_argument("--seed", type=int, default=0,
                     help="experiment seed for tables and mechanisms")
    sub.set_defaults(func=_reproduce, parser=sub)


def _datasets(args: argparse.Namespace, default: str) -> tuple[str, ...]:
    chosen = args.dataset or default
    return DATASETS if chosen == "both" else (chosen,)


def _contribution(args: argparse.Namespace) -> int:
    from fedlib.experiments import contribution
    from fedlib.experiments.results import save_result

    for dataset in _datasets(args, "mnist"):
        config = contribution.ContributionConfig(dataset=dataset, device=args.device)
        config = contribution.fast_config(config) if args.fast else config
        result = contribution.run_contribution(config)
        path = save_result(contribution.result_name(config), config, result.records, args.out,
                           wall_time_s=result.wall_time_s)
        print(f"{path}: {len(result.records)} tasks in {result.wall_time_s:.1f} s")
    return 0


def _table_job(config: dict[str, Any], out: str, task_store: str) -> str:
    """Run (or resume) one multi-task experiment, save it, drop its checkpoint; a summary.

    A result already saved in ``out`` with the same configuration is kept, not recomputed, so
    a restarted command goes on where it stopped (finished runs, then checkpoints). Tasks that
    another run of the command already trained with the same inputs are read from
    ``task_store`` (:mod:`fedlib.experiments.task_store`).
    """
    from fedlib.experiments import multitask
    from fedlib.experiments.results import load_result, save_result

    cfg = multitask.MultiTaskConfig.from_dict(config)
    name = multitask.result_name(cfg)
    try:
        done = load_result(name, cfg, out)
    except (FileNotFoundError, ValueError):  # missing, or stored with another configuration
        pass
    else:
        return f"{done.path}: kept (already computed with this configuration; delete to redo)"
    checkpoint = Path(out) / ".checkpoints" / f"{name}.pt"
    result = multitask.run_multitask(cfg, checkpoint, task_store=task_store)
    path = save_result(name, cfg, result.records, out, wall_time_s=result.wall_time_s)
    checkpoint.unlink()
    return (f"{path}: share dacc 1.0 = {multitask.table2(result):.4f}, "
            f"final loss = {multitask.table3(result):.4f}, {result.wall_time_s:.0f} s")


def _table_mechanisms(args: argparse.Namespace) -> tuple[str, ...]:
    from fedlib.experiments.multitask import TABLE_MECHANISMS

    chosen = tuple(args.mechanisms or TABLE_MECHANISMS)
    unknown = sorted(set(chosen) - set(TABLE_MECHANISMS))
    if unknown:
        raise SystemExit(f"--mechanisms: unknown {unknown}; choose from {TABLE_MECHANISMS}")
    return chosen


def _tables(args: argparse.Namespace) -> int:
    from fedlib.experiments import multitask

    if args.jobs < 1:
        raise SystemExit(f"--jobs must be at least 1, got {args.jobs}")
    configs = [multitask.MultiTaskConfig(dataset=dataset, mechanism=mechanism,
                                         budget=args.budget, fresh_model=not args.carry_model,
                                         seed=args.seed, device=args.device)
               for dataset in sorted(_datasets(args, "both"))  # fashion (slowest) first
               for mechanism in _table_mechanisms(args)]
    # RRAFL selects like ours and updates reputations alike, so it hires the same winners and
    # trains the same tasks: its runs start last, when ours have finished, and read them.
    order = sorted(range(len(configs)), key=lambda i: configs[i].mechanism == "rrafl")
    with tempfile.TemporaryDirectory(prefix="fedlib-tasks-") as store:
        jobs = [((multitask.fast_config(configs[i]) if args.fast else configs[i]).to_dict(),
                 args.out, store) for i in order]
        summaries = parallel_map(_table_job, jobs, args.jobs)
    print("\n".join(summaries))
    return 0


def _mechanisms(args: argparse.Namespace) -> int:
    try:
        sweeps = importlib.import_module("fedlib.experiments.auction_sweeps")
    except ModuleNotFoundError as error:
        if error.name != "fedlib.experiments.auction_sweeps":
            raise
        raise SystemExit("reproduce mechanisms needs fedlib.experiments.auction_sweeps, which "
                         "this version of fedlib does not have yet") from None
    for path in sweeps.run_figures(out_dir=args.out, fast=args.fast, seed=args.seed):
        print(path)
    return 0


def _sweep(args: argparse.Namespace, module: Any, make: Any, run: Any, describe: Any) -> int:
    """Run, save and describe a group of multi-task runs of ``module`` (budget_sweep,
    sensitivity or adversarial) for each dataset: ``make(dataset)`` is the paper-scale
    configuration, ``run`` runs it in ``--jobs`` processes with checkpoints,
    ``describe(result)`` summarises it in a line."""
    from fedlib.experiments.results import save_result

    if args.jobs < 1:
        raise SystemExit(f"--jobs must be at least 1, got {args.jobs}")
    for dataset in _datasets(args, "mnist"):
        config = make(dataset)
        config = module.fast_config(config) if args.fast else config
        result = run(config, jobs=args.jobs, checkpoint_dir=Path(args.out) / ".checkpoints")
        path = save_result(module.result_name(config), config, result.records, args.out,
                           wall_time_s=result.wall_time_s)
        print(f"{path}: {describe(result)}; {result.wall_time_s:.0f} s")
    return 0


def _sweep_base(args: argparse.Namespace, dataset: str) -> Any:
    """The base of the budget and sensitivity sweeps for ``dataset``."""
    from fedlib.experiments.budget_sweep import SWEEP_TASKS
    from fedlib.experiments.multitask import MultiTaskConfig

    return MultiTaskConfig(dataset=dataset, n_tasks=SWEEP_TASKS, seed=args.seed,
                           device=args.device)


def _budgets(args: argparse.Namespace) -> int:
    from fedlib.experiments import budget_sweep

    def describe(result: Any) -> str:
        return "share dacc 1.0 " + ", ".join(f"B={row['budget']:g}: {row['share']:.3f}"
                                             for row in result.summary())

    return _sweep(args, budget_sweep,
                  lambda d: budget_sweep.BudgetSweepConfig(base=_sweep_base(args, d)),
                  budget_sweep.run_budget_sweep, describe)


def _sensitivity(args: argparse.Namespace) -> int:
    from fedlib.experiments import sensitivity

    def describe(result: Any) -> str:
        ranked = sensitivity.ranking(sensitivity.sensitivity_rows(result))
        return "share dacc 1.0 moved by " + ", ".join(f"{name} {effect:.3f}"
                                                     for name, effect in ranked)

    return _sweep(args, sensitivity,
                  lambda d: sensitivity.SensitivityConfig(base=_sweep_base(args, d)),
                  sensitivity.run_sensitivity, describe)


def _adversarial(args: argparse.Namespace) -> int:
    from fedlib.experiments import adversarial

    def make(dataset: str) -> Any:
        return adversarial.AdversarialConfig(base=adversarial.scenario_base(
            dataset, budget=args.budget, seed=args.seed, device=args.device))

    def describe(result: Any) -> str:
        return f"mechanisms {', '.join(result.config.mechanisms)}"

    return _sweep(args, adversarial, make, adversarial.run_adversarial, describe)


def _replay(args: argparse.Namespace) -> int:
    """Rerun the configuration stored in ``args.config``, save it in ``args.out`` and compare."""
    from fedlib.experiments import results, stored, verification

    path = Path(args.config)
    try:
        payload = json.loads(path.read_text())
        raw = payload["config"]
        config = results.experiment(raw).from_dict(raw)
    except (OSError, ValueError, KeyError, TypeError) as error:
        args.parser.error(f"--config: {path} is not a stored result ({error})")
    kind = stored.KINDS.get(type(config))
    if kind is None:
        args.parser.error(f"--config: results of experiment {raw['experiment']!r} cannot be "
                          f"replayed; use: {results.reproduce_command(raw)}")
    result = kind.run(config)
    saved = results.save_result(kind.name(config), config, result.records, args.out,
                                wall_time_s=result.wall_time_s)
    fresh = json.loads(saved.read_text())["records"]
    comparison, stops = verification.compare_records(raw, payload["records"], fresh, "foreign")
    verdict = ("agrees within the cross-machine tolerance" if not comparison.mismatches else
               f"differs beyond the cross-machine tolerance ({len(comparison.mismatches)} "
               f"difference(s), the first: {comparison.mismatches[0]})")
    print(f"{saved}: {len(fresh)} tasks in {result.wall_time_s:.0f} s; against {path}: "
          f"{verdict}; largest difference {comparison.largest()}")
    for stop in stops:
        print(f"  parts at a near tie: {stop}")
    return 0 if not comparison.mismatches else 1


def _reproduce(args: argparse.Namespace) -> int:
    if args.config is not None:
        if args.experiment is not None:
            args.parser.error("give either an experiment or --config FILE, not both")
        return _replay(args)
    if args.experiment is None:
        args.parser.error("name an experiment, or replay a stored result with --config FILE")
    runners = {"contribution": _contribution, "tables": _tables, "mechanisms": _mechanisms,
               "budgets": _budgets, "sensitivity": _sensitivity, "adversarial": _adversarial}
    return runners[args.experiment](args)
