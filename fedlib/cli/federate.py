"""``python -m fedlib federate``: one run of the multi-task experiment on the batched engine or
in a Flower federation.

``python -m fedlib federate --engine {flower,batched} [--dataset mnist|fashion] [--tasks N]
[--mechanism NAME] [--budget B] [--seed S] [--fast] [--out DIR]`` runs the Tables 1-3 setting
(30 workers, 10 rounds per task; ``--fast``: 6 workers, 2 rounds, 200 samples each) and saves
it as ``<out>/<name>.json``, the batched engine's result format, with ``_flower`` at the end of
the name for the Flower run. ``--engine flower`` needs the Flower extra
(``pip install -r requirements-flower.txt``) and runs one Flower node per worker on Flower's
Simulation Runtime (:mod:`fedlib.flower`).
"""

from __future__ import annotations

import argparse

from fedlib.cli.reproduce import at_least
from fedlib.cli.text import plain
from fedlib.experiments.federation import federation_config
from fedlib.experiments.multitask import run_multitask
from fedlib.fl.data import DATASETS
from fedlib.mechanism.mechanisms import MECHANISMS
from fedlib.storage import results


def _federate(args: argparse.Namespace) -> int:
    config = federation_config(args.dataset, args.mechanism, args.tasks, args.budget,
                               args.seed, args.fast)
    name = config.result_name()
    if args.engine == "flower":
        try:
            from fedlib.flower import run_federation
        except ImportError as error:
            args.parser.error(str(error))
        result, name = run_federation(config), f"{name}_flower"
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
    sub.add_argument("--dataset", choices=list(DATASETS), default="mnist")
    sub.add_argument("--tasks", type=at_least(int, 1), default=None,
                     help="tasks to run (default 50, --fast 3)")
    sub.add_argument("--mechanism", choices=sorted(MECHANISMS), default="ours")
    sub.add_argument("--budget", type=at_least(float, 0, strict=True), default=None,
                     help="budget per task (default 60, --fast 12)")
    sub.add_argument("--seed", type=at_least(int, 0), default=0, help="experiment seed")
    sub.add_argument("--fast", action="store_true", help="a small smoke-sized run")
    sub.add_argument("--out", default="federation", help="folder for the JSON result")
    sub.set_defaults(func=_federate, parser=sub)
