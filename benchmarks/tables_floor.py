"""The compute floor of Tables 1-3: how fast `reproduce tables` could be on this machine.

The work of the command follows from the stored runs (``results/tables_<dataset>_<mechanism>
.json``, fresh model per task): task t of a run trains the k winners of its record for the
config's rounds. A task with the same dataset, index and winners is the same task in every run
(same data, seed and fresh model), and the command trains it once (the task store); this script
counts it once too. Per round it counts, as ``round_speed.py`` does, 3 forward passes per
training sample, 1 per validation sample for each of the k local models (P) and the k + 1
plain-average aggregates (the leave-one-out check), and 1 per test sample for the new global
model: the *naive* count. The *engine* count is what the batched engine computes: for the MLP
the aggregates' first layer is combined from the local models' (2 FLOPs per first-layer output
and aggregate) instead of computed.

Dividing by this machine's fp32 matrix-product ceiling, measured in the same run with all
threads, gives the floor: the command's time if every FLOP ran at the speed of a large matrix
product. The script prints the floor against the issue's 40-minute target and, given the
measured time of the command (``--measured-s``), the share of the ceiling it sustained.

Usage::

    python benchmarks/tables_floor.py [--results results] [--measured-s SECONDS]
        [--target-min 40] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch
from round_speed import layer_flops, matmul_ceiling

from fedlib.experiments.multitask import TABLE_MECHANISMS, MultiTaskConfig
from fedlib.fl.data import DATASETS
from fedlib.fl.models import MODEL_FOR_DATASET

#: First-layer outputs per sample of the MLP, combined for every aggregate (2 FLOPs each).
MLP_HIDDEN = 200


def round_flops(model: str, k: int, config: MultiTaskConfig, engine: bool) -> int:
    """FLOPs of one global round with k workers (naive count, or as the engine computes)."""
    layers = layer_flops(model)
    forward = sum(layers)
    aggregate = forward
    if engine and model == "mlp":
        aggregate = forward - layers[0] + 2 * MLP_HIDDEN
    train = 3 * forward * config.n_samples * k
    evaluate = (k * forward + (k + 1) * aggregate) * config.n_val
    return train + evaluate + forward * config.n_test


def dataset_work(results: Path, dataset: str) -> dict[str, float]:
    """Distinct tasks, rounds and TFLOP (naive and engine) of one dataset's five runs."""
    seen: set[tuple[int, tuple[int, ...]]] = set()
    tasks = rounds = 0
    naive = engine = 0.0
    for mechanism in TABLE_MECHANISMS:
        path = results / f"tables_{dataset}_{mechanism}.json"
        if not path.exists():
            raise SystemExit(f"{path} is missing: run `python -m fedlib reproduce tables "
                             f"--dataset {dataset} --out {results}` first")
        stored = json.loads(path.read_text())
        config = MultiTaskConfig.from_dict(stored["config"])
        if not config.fresh_model:
            raise SystemExit(f"{path}: counted only for fresh-model runs")
        for record in stored["records"]:
            key = (record["task"], tuple(record["winners"]))
            k = len(record["winners"])
            if k == 0 or key in seen:
                continue
            seen.add(key)
            tasks += 1
            rounds += config.task.rounds
            model = MODEL_FOR_DATASET[dataset]
            naive += config.task.rounds * round_flops(model, k, config, engine=False) / 1e12
            engine += config.task.rounds * round_flops(model, k, config, engine=True) / 1e12
    return {"distinct_tasks": tasks, "rounds": rounds, "naive_tflop": naive,
            "engine_tflop": engine}


def main(argv: list[str] | None = None) -> dict[str, object]:
    """Count, measure the ceiling, print a summary (or JSON) and return it."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=Path, default=Path("results"),
                        help="folder of the stored tables_<dataset>_<mechanism>.json runs")
    parser.add_argument("--measured-s", type=float, default=None,
                        help="measured wall time of `reproduce tables --dataset both`")
    parser.add_argument("--target-min", type=float, default=40.0, help="the issue's target")
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    args = parser.parse_args(argv)
    if args.measured_s is not None and not args.measured_s > 0:
        parser.error("--measured-s must be positive")
    if not args.target_min > 0:
        parser.error("--target-min must be positive")

    work = {dataset: dataset_work(args.results, dataset) for dataset in DATASETS}
    ceiling = matmul_ceiling(torch.device("cpu"))
    total = {name: sum(w[name] for w in work.values()) for name in work[DATASETS[0]]}
    floor_min = {name: total[f"{name}_tflop"] * 1e3 / ceiling / 60 for name in ("naive", "engine")}
    target_s = args.target_min * 60
    result: dict[str, object] = {
        "threads": torch.get_num_threads(),
        "matmul_ceiling_gflops": ceiling,
        "datasets": work,
        "floor_min": floor_min,
        "target_min": args.target_min,
        "target_share_of_ceiling": total["engine_tflop"] * 1e3 / target_s / ceiling,
    }
    if args.measured_s is not None:
        result["measured_min"] = args.measured_s / 60
        sustained = total["engine_tflop"] * 1e3 / args.measured_s
        result["measured_share_of_ceiling"] = sustained / ceiling
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
        return result
    print(f"fp32 matmul ceiling {ceiling:.1f} GFLOP/s on cpu ({torch.get_num_threads()} threads)")
    for dataset, w in work.items():
        print(f"{dataset:>7}: {w['distinct_tasks']} distinct tasks, {w['rounds']} rounds, "
              f"{w['naive_tflop']:.1f} TFLOP naive, {w['engine_tflop']:.1f} TFLOP as computed")
    print(f"floor: {floor_min['naive']:.1f} min (naive count), {floor_min['engine']:.1f} min "
          f"(as the engine computes)")
    print(f"the {args.target_min:g}-minute target needs "
          f"{result['target_share_of_ceiling']:.0%} of the ceiling, sustained")
    if args.measured_s is not None:
        print(f"measured: {result['measured_min']:.1f} min, "
              f"{result['measured_share_of_ceiling']:.0%} of the ceiling sustained")
    return result


if __name__ == "__main__":
    main()
