"""Time one global round in a Flower federation against the batched engine.

For each k, one run of two tasks with k clean workers and a budget that hires them all, in a
Flower federation on the Simulation Runtime (one node per worker) and on the batched engine, on
this machine's CPU (:func:`fedlib.flower.round_cost`); prints the seconds per round of the
second task and the ratio Flower / batched, with the CPU and the torch version.

Usage::

    FEDLIB_DATA=../shared/data python benchmarks/federation_round.py [--ks 10,20] [--rounds 5]
        [--repeats 1]
"""

from __future__ import annotations

import argparse
import os
import statistics

from fedlib.flower import round_cost
from fedlib.storage import environment


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ks", default="10,20", help="winners per round, comma-separated")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of each task")
    parser.add_argument("--repeats", type=int, default=1, help="runs per k (medians)")
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    print(f"# {environment.describe(environment.fingerprint('cpu', cores))}; Flower: one "
          f"worker process per core ({cores}), batched engine: {cores} torch threads")
    print(f"{'k':>3} {'flower s/round':>15} {'batched s/round':>16} {'flower/batched':>15}")
    for k in (int(k) for k in args.ks.split(",")):
        runs = [round_cost(k, rounds=args.rounds) for _ in range(args.repeats)]
        flower = statistics.median(f for f, _ in runs)
        batched = statistics.median(b for _, b in runs)
        print(f"{k:>3} {flower:>15.3f} {batched:>16.3f} {flower / batched:>14.1f}x")


if __name__ == "__main__":
    main()
