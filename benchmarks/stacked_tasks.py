"""What stacking independent tasks into one engine call saves (item 2 of the engine-speed
issue): :func:`fedlib.fl.task.run_tasks` against one :func:`~fedlib.fl.task.run_task` per task.

Tables 1-3 run the five mechanisms' tasks one after the other; each round of each task calls
the engine once to train its k winners and once to evaluate them. Stacked, the G tasks of one
round are one call that trains the G k models (each task from its own global model) and one
that evaluates them (``probs_and_loo_losses_by_group``: each task's leave-one-out aggregates
average its own models). This script times the two ways on the same random inputs of G k
workers (1000 samples each, 5000 validation samples, as ``round_speed.py``), alternating them,
and prints the median of the same-repeat ratios separate / stacked for training, evaluation and
both (above 1: stacking is faster).

Usage::

    python benchmarks/stacked_tasks.py [--tasks 5] [--k 10] [--models mlp,lenet]
        [--repeats 4] [--device cpu] [--threads N]
"""

from __future__ import annotations

import argparse
import statistics

import torch
from round_speed import _timed, round_inputs

from fedlib.fl import tuning
from fedlib.fl.device import resolve_device


def _case(model: str, tasks: int, k: int, device: torch.device,
          repeats: int) -> dict[str, float]:
    """Median separate/stacked ratios (train, evaluation, both) and the stacked seconds."""
    engine, _, images, labels, val_images, val_labels, orders = round_inputs(
        model, tasks * k, device)
    starts = [engine.init_params(torch.Generator().manual_seed(g)) for g in range(tasks)]
    together = {key: torch.cat([start[key].expand(k, *start[key].shape) for start in starts])
                for key in starts[0]}
    rows = [slice(g * k, (g + 1) * k) for g in range(tasks)]

    def separate() -> tuple[float, float]:
        local: list = []
        train = _timed(lambda: local.extend(
            engine.train_local(start, images[r], labels[r], orders[r])
            for start, r in zip(starts, rows, strict=True)), device)
        evaluate = _timed(lambda: [engine.probs_and_loo_losses(models, val_images, val_labels)
                                   for models in local], device)
        return train, evaluate

    def stacked() -> tuple[float, float]:
        local: list = []
        train = _timed(lambda: local.append(
            engine.train_local(together, images, labels, orders)), device)
        evaluate = _timed(lambda: engine.probs_and_loo_losses_by_group(
            local[0], [k] * tasks, val_images, val_labels), device)
        return train, evaluate

    stacked(), separate()  # warm-ups
    ratios, stacked_s = [], []
    for _ in range(repeats):
        a, b = separate(), stacked()
        ratios.append((a[0] / b[0], a[1] / b[1], sum(a) / sum(b)))
        stacked_s.append(sum(b))
    train, evaluate, both = (statistics.median(r[i] for r in ratios) for i in range(3))
    return {"train": train, "eval": evaluate, "both": both,
            "stacked_s": statistics.median(stacked_s)}


def main(argv: list[str] | None = None) -> list[dict[str, object]]:
    """Run the benchmark, print one line per model and return the rows."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=5, help="independent tasks G (default: "
                        "the five mechanisms of Tables 2-3)")
    parser.add_argument("--k", type=int, default=10, help="workers per task")
    parser.add_argument("--models", default="mlp,lenet", help="comma-separated models")
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--device", default="cpu", help="cpu, cuda or auto")
    parser.add_argument("--threads", type=int, default=None, help="intra-op CPU threads")
    args = parser.parse_args(argv)
    if min(args.tasks, args.k, args.repeats) < 1:
        parser.error("--tasks, --k and --repeats must be at least 1")
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    device = resolve_device(args.device)
    print(f"machine: {tuning.machine_key()}, device {device}")
    print(f"{args.tasks} tasks of k = {args.k}: separate / stacked, median of {args.repeats} "
          "paired repeats (above 1: stacking is faster)")
    rows = []
    for model in args.models.split(","):
        row = {"model": model, **_case(model, args.tasks, args.k, device, args.repeats)}
        print(f"{model:6s} train {row['train']:.2f}x  evaluation {row['eval']:.2f}x  "
              f"both {row['both']:.2f}x  (stacked round {row['stacked_s']:.3f} s)", flush=True)
        rows.append(row)
    return rows


if __name__ == "__main__":
    main()
