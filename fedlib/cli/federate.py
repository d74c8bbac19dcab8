"""``python -m fedlib federate``: one run of the multi-task experiment on the batched engine or
in a Flower federation.

``python -m fedlib federate --engine {flower,batched} [--runtime simulation|deployment]
[--dataset mnist|fashion] [--tasks N] [--mechanism NAME] [--budget B] [--seed S] [--fast]
[--out DIR]`` runs the Tables 1-3 setting (30 workers, 10 rounds per task; ``--fast``: 6
workers, 2 rounds, 200 samples each) and saves it as ``<out>/<name>.json``, the batched engine's
result format, with ``_flower`` at the end of the name for the Flower run. ``--engine flower``
needs the Flower extra (``pip install -r requirements-flower.txt``) and runs ``flwr run`` with
one Flower node per worker against a SuperLink started on this machine for the run
(:mod:`fedlib.flower`): on Flower's Simulation Runtime, or with ``--runtime deployment`` on its
Deployment Runtime, one SuperNode process per worker on the loopback.

``python -m fedlib federate --write-app DIR`` writes the Flower app bundle's source into DIR
(its pyproject.toml, which ships inside fedlib, with the installed fedlib's sources beside it)
for ``flwr run DIR`` against a federation of one's own, and exits; no checkout of the
repository is needed. ``baselines/auction_reputation`` is the same app as a Flower Baseline.
"""

from __future__ import annotations

import argparse

from fedlib.cli.reproduce import at_least
from fedlib.cli.text import plain
from fedlib.experiments.flower_presets import federation_config
from fedlib.experiments.multitask import run_multitask
from fedlib.fl.data import DATASETS
from fedlib.mechanism.mechanisms import MECHANISMS
from fedlib.storage import results


def _federate(args: argparse.Namespace) -> int:
    if args.write_app is not None:
        from fedlib.flower.launch import stage_app

        print(f"{stage_app(args.write_app)}: flwr run it, e.g. flwr run {args.write_app} "
              "<connection> --run-config \"fast=false tasks=5\"")
        return 0
    if args.engine == "batched" and args.runtime is not None:
        args.parser.error("--runtime is for --engine flower")
    config = federation_config(args.dataset, args.mechanism, args.tasks, args.budget,
                               args.seed, args.fast)
    name = config.result_name()
    if args.engine == "flower":
        try:
            from fedlib.flower import run_federation
        except ImportError as error:
            args.parser.error(str(error))
        result = run_federation(config, runtime=args.runtime or "simulation")
        name = f"{name}_flower"
    else:
        result = run_multitask(config)
    path = results.save_result(name, config, result.records, args.out,
                               wall_time_s=result.wall_time_s)
    print(f"{path}: {len(result.records)} tasks on the {args.engine} engine in "
          f"{result.wall_time_s:.0f} s")
    return 0


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Register ``federate``."""
    sub = commands.add_parser("federate", help="run the mechanism in a Flower federation",
                              description=plain(__doc__),
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    sub.add_argument("--engine", choices=["flower", "batched"], default="flower")
    sub.add_argument("--runtime", choices=["simulation", "deployment"], default=None,
                     help="--engine flower: Flower's Simulation Runtime, or its Deployment "
                          "Runtime (one SuperNode process per worker on 127.0.0.1)")
    sub.add_argument("--dataset", choices=list(DATASETS), default="mnist")
    sub.add_argument("--tasks", type=at_least(int, 1), default=None,
                     help="tasks to run (default 50, --fast 3)")
    sub.add_argument("--mechanism", choices=sorted(MECHANISMS), default="ours")
    sub.add_argument("--budget", type=at_least(float, 0, strict=True), default=None,
                     help="budget per task (default 60, --fast 12)")
    sub.add_argument("--seed", type=at_least(int, 0), default=0, help="experiment seed")
    sub.add_argument("--fast", action="store_true", help="a small smoke-sized run")
    sub.add_argument("--out", default="federation", help="folder for the JSON result")
    sub.add_argument("--write-app", metavar="DIR", default=None,
                     help="write the Flower app bundle's source into DIR and exit")
    sub.set_defaults(func=_federate, parser=sub)
