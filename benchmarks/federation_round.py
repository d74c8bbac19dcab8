"""Time one global round through Flower's Deployment Runtime, its Simulation Runtime and the
batched engine, in one run.

For each k, one run of two tasks with k clean workers and a budget that hires them all
(:func:`fedlib.flower.round_cost`): through ``flwr run`` on the Deployment Runtime (a SuperLink
and one SuperNode process per worker on 127.0.0.1, each message answered by a ClientApp process
of its own), on the Simulation Runtime (one Ray actor per node, one per CPU at a time) and on
the batched engine (one torch thread per CPU), on this machine's CPU. Prints the seconds per
round of the second task of each and the ratios to the batched engine, with the machine
(CPU vendor, model and ISA, torch version), the date and the commit.

Usage::

    FEDLIB_DATA=../shared/data python benchmarks/federation_round.py [--ks 10,20] [--rounds 5]
        [--repeats 1] [--cpus N]
"""

from __future__ import annotations

import argparse
import os
import statistics
from datetime import UTC, datetime

from fedlib.flower import round_cost
from fedlib.storage import environment
from fedlib.storage.results import git_revision

RUNTIMES = ("deployment", "simulation")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ks", default="10,20", help="winners per round, comma-separated")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of each task")
    parser.add_argument("--repeats", type=int, default=1, help="runs per k (medians)")
    parser.add_argument("--cpus", type=int, default=None,
                        help="CPUs of the simulation and of the engine (default: all)")
    parser.add_argument("--samples", type=int, default=1000, help="samples per worker")
    parser.add_argument("--val", type=int, default=5000, help="validation and test samples")
    args = parser.parse_args()
    cpus = args.cpus or os.cpu_count() or 1
    revision, dirty = git_revision()
    print(f"# {environment.describe(environment.fingerprint('cpu', cpus))}")
    print(f"# {datetime.now(UTC):%Y-%m-%d}, commit {revision[:7]}{' (dirty)' if dirty else ''}"
          f"; MNIST, {args.samples} samples per worker, {args.val} validation samples, "
          f"{args.rounds} rounds; simulation: {cpus} worker processes at a time, batched "
          f"engine: {cpus} torch threads; deployment: one SuperNode per worker")
    print(f"{'k':>3} {'deployment s/round':>19} {'simulation s/round':>19} "
          f"{'batched s/round':>16} {'deploy/batched':>15} {'sim/batched':>12}")
    for k in (int(k) for k in args.ks.split(",")):
        runs = [round_cost(k, rounds=args.rounds, n_samples=args.samples, n_val=args.val,
                           cpus=cpus, runtimes=RUNTIMES) for _ in range(args.repeats)]
        deployment, simulation, batched = (statistics.median(run[i] for run in runs)
                                           for i in range(3))
        print(f"{k:>3} {deployment:>19.3f} {simulation:>19.3f} {batched:>16.3f} "
              f"{deployment / batched:>14.1f}x {simulation / batched:>11.1f}x")


if __name__ == "__main__":
    main()
