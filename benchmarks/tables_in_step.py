"""All of Tables 1-3 with each dataset's five runs in step, against the same runs one by one.

In step (:func:`fedlib.experiments.grid.run_lockstep`), task t of the five mechanisms' runs of
a dataset is one stack: one engine call trains all their winners and one evaluates them, and a
task two runs share (RRAFL hires ours' winners) is trained once. One by one is what
``python -m fedlib reproduce tables --jobs 1`` does (:func:`fedlib.experiments.grid.run_many`
in this process, with the shared task store). The script times both in the same run, prints
the wall times and their ratio (above 1: in step is faster), and how far the two agree: the
share of (run, task) pairs with the same winners and the largest difference of ``re``. The
GPU target of the engine-speed issue is all of Tables 1-3 in 60 s on one H100.

Usage::

    python benchmarks/tables_in_step.py [--device cuda] [--fast] [--dataset mnist|fashion|both]
        [--in-step-only]
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

import numpy as np
import torch

from fedlib.experiments.grid import run_lockstep, run_many
from fedlib.experiments.multitask import MultiTaskResult
from fedlib.fl import tuning
from fedlib.fl.data import DATASETS
from fedlib.fl.device import resolve_device
from fedlib.storage.stored import table_configs


def agreement(a: list[MultiTaskResult], b: list[MultiTaskResult]) -> tuple[float, float]:
    """Share of (run, task) pairs with the same winners, and the largest difference of
    ``re`` where they are the same."""
    same, pairs, largest = 0, 0, 0.0
    for run_a, run_b in zip(a, b, strict=True):
        for ra, rb in zip(run_a.records, run_b.records, strict=True):
            pairs += 1
            if ra["winners"] == rb["winners"]:
                same += 1
                if ra["re"]:
                    largest = max(largest, float(np.max(np.abs(np.subtract(ra["re"],
                                                                           rb["re"])))))
    return same / pairs, largest


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cpu", help="cpu, cuda or auto")
    parser.add_argument("--fast", action="store_true", help="smoke-sized runs")
    parser.add_argument("--dataset", choices=[*DATASETS, "both"], default="both")
    parser.add_argument("--in-step-only", action="store_true",
                        help="time only the runs in step (e.g. where one by one takes long)")
    args = parser.parse_args(argv)
    device = resolve_device(args.device)
    where = torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU"
    print(f"machine: {tuning.machine_key().rsplit(' | ', 1)[0]}, device {device} ({where}); "
          "every run on its configuration's torch threads (1)")
    datasets = DATASETS if args.dataset == "both" else (args.dataset,)
    for dataset in datasets:  # warm-up: datasets loaded, kernels chosen, before any timing
        run_lockstep([replace(config.fast(), n_tasks=1)
                      for config in table_configs((dataset,), device=device.type).values()])
    totals = {"in step": 0.0, "one by one": 0.0}
    for dataset in datasets:
        configs = list(table_configs((dataset,), device=device.type).values())
        if args.fast:
            configs = [config.fast() for config in configs]
        began = time.perf_counter()
        in_step = run_lockstep(configs)
        totals["in step"] += (seconds := time.perf_counter() - began)
        line = (f"{dataset}: {len(configs)} runs of {configs[0].n_tasks} tasks, in step "
                f"{seconds:.1f} s")
        if not args.in_step_only:
            began = time.perf_counter()
            alone = run_many(configs, jobs=1)
            totals["one by one"] += (alone_s := time.perf_counter() - began)
            share, largest = agreement(in_step, alone)
            line += (f", one by one {alone_s:.1f} s ({alone_s / seconds:.2f}x); same winners "
                     f"in {share:.1%} of (run, task) pairs, largest re difference {largest:.1e}")
        print(line, flush=True)
    summary = f"all: in step {totals['in step']:.1f} s"
    if not args.in_step_only:
        ratio = totals["one by one"] / totals["in step"]
        summary += f", one by one {totals['one by one']:.1f} s ({ratio:.2f}x)"
    print(summary)


if __name__ == "__main__":
    main()
