"""Time the candidates of every per-machine kernel choice (:mod:`fedlib.fl.tuning`) here.

For each choice: the median seconds of every candidate on the choice's workload, its median
ratio to the default in the same rounds (below 1 is faster), the value :func:`fastest` picks
from these timings and the value this machine's cache holds (what the engine uses).

Usage::

    python benchmarks/kernel_choice.py [--rounds 15] [--threads 2]
"""

from __future__ import annotations

import argparse
import statistics

import torch

from fedlib.fl import batched, tuning


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    print(f"machine: {tuning.machine_key()}")
    for name, (candidates, default, run) in batched.TUNED_CHOICES.items():
        seconds = tuning.time_candidates(candidates, run, args.rounds)
        print(f"{name} (default {default}):")
        for candidate, times in seconds.items():
            ratio = statistics.median(t / d for t, d in zip(times, seconds[default], strict=True))
            print(f"  {candidate:>10}  {statistics.median(times) * 1e3:8.2f} ms"
                  f"  vs default {ratio:5.2f}")
        print(f"  these timings pick {tuning.fastest(seconds, default)}; "
              f"the engine uses {tuning.choice(name, candidates, default, run)} "
              f"({tuning.cache_path()})")


if __name__ == "__main__":
    main()
