"""Time one federated round: the per-worker reference loop against the batched engine.

A round is what a global round of a task computes before aggregation: ``train_local`` for k
workers (1000 samples each, 1 epoch, batch 128, SGD lr 0.05), the true-class probabilities of
the k local models on 5000 validation samples, and the validation losses of the k + 1
plain-average aggregates of the leave-one-out check. The engine computes the last two in one
pass (``BatchedEngine.probs_and_loo_losses``); the loop calls ``fedlib.fl.reference``.

The run first measures the device's fp32 matrix-product ceiling (GFLOP/s, median of a few 4096
x 4096 products), then for each model and k alternates loop and engine rounds on random data
of the right shapes and reports per case: the median seconds of each, the ratio loop/engine,
the relative difference between the two sides' trained parameters (about 1e-6 for the MLP;
LeNet-5 in float32 can reach about 1e-4 where rounding flips a max-pool or ReLU decision), the
round's GFLOP counted analytically (forward FLOPs of the model times 3 per training sample
and 1 per evaluated model and validation sample, the usual naive count), the engine's achieved
GFLOP/s and its distance to the FLOP floor (round GFLOP / ceiling).

Usage::

    python benchmarks/round_speed.py [--json] [--repeats N] [--loop-repeats N]
        [--ks 10,20,30] [--models mlp,lenet] [--device cpu] [--threads N]

On a CPU shared with other processes, two OpenMP threads can stall on every parallel region;
``--threads 1`` then gives steadier (if slower) numbers for both sides.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable

import torch
from torch import nn

from fedlib.fl import reference
from fedlib.fl.batched import Stacked
from fedlib.fl.device import resolve_device
from fedlib.fl.engine import BatchedEngine, batch_orders
from fedlib.fl.models import make_model
from fedlib.storage.environment import describe, fingerprint

TRAIN_SAMPLES = 1000
VALIDATION_SAMPLES = 5000
EPOCHS = 1
#: Targets at k = 20 of the engine-speed issue: loop/engine ratio, and engine time / FLOP floor.
TARGET_K = 20
TARGET_SPEEDUP = {"mlp": 1.5, "lenet": 8.0}
TARGET_FLOOR_RATIO = {"lenet": 1.6}


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _timed(fn: Callable[[], object], device: torch.device) -> float:
    _sync(device)
    start = time.perf_counter()
    fn()
    _sync(device)
    return time.perf_counter() - start


def _load() -> float | None:
    """The 1-minute load average, where the platform has one (a busy machine times slower)."""
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else None


def matmul_ceiling(device: torch.device, size: int = 4096, repeats: int = 5) -> float:
    """Median fp32 GFLOP/s of ``size`` x ``size`` matrix products on ``device``."""
    gen = torch.Generator().manual_seed(0)
    a = torch.randn(size, size, generator=gen).to(device)
    b = torch.randn(size, size, generator=gen).to(device)
    _timed(lambda: a @ b, device)
    seconds = statistics.median(_timed(lambda: a @ b, device) for _ in range(repeats))
    return 2 * size**3 / seconds / 1e9


def layer_flops(model: str) -> list[int]:
    """FLOPs of each linear or convolutional layer (in order) in one forward pass of one
    sample, from the shapes of the layers (2 per multiply-add)."""
    module = make_model(model)
    counts = []

    def count(layer: nn.Module, inputs: tuple[torch.Tensor, ...], output: torch.Tensor) -> None:
        if isinstance(layer, nn.Linear):
            counts.append(2 * layer.in_features * layer.out_features)
        elif isinstance(layer, nn.Conv2d):
            taps = layer.in_channels // layer.groups * layer.kernel_size[0] * layer.kernel_size[1]
            counts.append(2 * output[0].numel() * taps)

    for layer in module.modules():
        layer.register_forward_hook(count)
    with torch.no_grad():
        module(torch.zeros(1, 28, 28))
    return counts


def forward_flops(model: str) -> int:
    """FLOPs of one forward pass of one sample (:func:`layer_flops` summed)."""
    return sum(layer_flops(model))


def round_gflop(model: str, k: int) -> float:
    """Naive FLOP count of one round: 3 passes per training sample, 1 per evaluation."""
    passes = 3 * k * TRAIN_SAMPLES * EPOCHS + (2 * k + 1) * VALIDATION_SAMPLES
    return forward_flops(model) * passes / 1e9


def round_inputs(model: str, k: int, device: torch.device) -> tuple:
    """An engine and the random inputs of one round with k workers (seeded by k): the global
    model, training images and labels, validation images and labels, batch orders."""
    gen = torch.Generator().manual_seed(k)
    engine = BatchedEngine(model, device=device)
    theta = engine.init_params(gen)
    images = torch.randn(k, TRAIN_SAMPLES, 28, 28, generator=gen).to(device)
    labels = torch.randint(0, 10, (k, TRAIN_SAMPLES), generator=gen).to(device)
    val_images = torch.randn(VALIDATION_SAMPLES, 28, 28, generator=gen).to(device)
    val_labels = torch.randint(0, 10, (VALIDATION_SAMPLES,), generator=gen).to(device)
    orders = batch_orders(k, TRAIN_SAMPLES, EPOCHS, gen)
    return engine, theta, images, labels, val_images, val_labels, orders


def _case(
    model: str, k: int, device: torch.device, repeats: int, loop_repeats: int
) -> dict[str, float | int | str]:
    """Alternate loop and engine rounds for one model and k; return the summary."""
    engine, theta, images, labels, val_images, val_labels, orders = round_inputs(model, k,
                                                                                 device)

    def engine_round() -> tuple[float, float, Stacked]:
        out: dict[str, Stacked] = {}
        train = _timed(
            lambda: out.update(local=engine.train_local(theta, images, labels, orders)), device
        )
        evaluate = _timed(
            lambda: engine.probs_and_loo_losses(out["local"], val_images, val_labels), device
        )
        return train, evaluate, out["local"]

    def loop_round() -> tuple[float, float, Stacked]:
        out: dict[str, Stacked] = {}
        train = _timed(
            lambda: out.update(local=reference.train_local(model, theta, images, labels, orders)),
            device,
        )

        def evaluate() -> None:
            reference.true_class_probs(model, out["local"], val_images, val_labels)
            reference.loo_losses(model, out["local"], val_images, val_labels)

        return train, _timed(evaluate, device), out["local"]

    engine_round()  # warm-ups: one-off allocations, kernel selection, library handles
    local = reference.train_local(model, theta, images[:1], labels[:1], orders[:1])
    reference.true_class_probs(model, local, val_images, val_labels)
    engine_runs, loop_runs = [], []
    for rep in range(max(repeats, loop_repeats)):
        if rep < loop_repeats:
            loop_runs.append(loop_round())
        if rep < repeats:
            engine_runs.append(engine_round())
    drift = max(
        float((engine_runs[0][2][key] - loop_runs[0][2][key]).norm() / loop_runs[0][2][key].norm())
        for key in theta
    )
    loop_s = statistics.median(train + evaluate for train, evaluate, _ in loop_runs)
    engine_s = statistics.median(train + evaluate for train, evaluate, _ in engine_runs)
    gflop = round_gflop(model, k)
    return {
        "model": model,
        "k": k,
        "loop_s": loop_s,
        "engine_s": engine_s,
        "loop_train_s": statistics.median(run[0] for run in loop_runs),
        "loop_eval_s": statistics.median(run[1] for run in loop_runs),
        "engine_train_s": statistics.median(run[0] for run in engine_runs),
        "engine_eval_s": statistics.median(run[1] for run in engine_runs),
        "loop_runs": len(loop_runs),
        "engine_runs": len(engine_runs),
        "params_rel_diff": drift,
        "speedup": loop_s / engine_s,
        "round_gflop": gflop,
        "engine_gflops": gflop / engine_s,
    }


def _targets(cases: list[dict]) -> list[dict[str, object]]:
    """Check the issue's targets at k = 20 for the cases that were run."""
    checks = []
    for case in cases:
        if case["k"] != TARGET_K:
            continue
        model = case["model"]
        checks.append(
            {
                "model": model,
                "what": f"loop/engine >= {TARGET_SPEEDUP[model]}",
                "value": case["speedup"],
                "met": case["speedup"] >= TARGET_SPEEDUP[model],
            }
        )
        if model in TARGET_FLOOR_RATIO:
            limit = TARGET_FLOOR_RATIO[model]
            checks.append(
                {
                    "model": model,
                    "what": f"engine/floor <= {limit}",
                    "value": case["floor_ratio"],
                    "met": case["floor_ratio"] <= limit,
                }
            )
    return checks


def main(argv: list[str] | None = None) -> dict[str, object]:
    """Run the benchmark, print a table (or JSON) and return the results."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    parser.add_argument("--repeats", type=int, default=3, help="engine rounds per case")
    parser.add_argument(
        "--loop-repeats",
        type=int,
        default=2,
        help="loop rounds per case (the LeNet loop takes ~15 s at k = 20)",
    )
    parser.add_argument("--ks", default="10,20,30", help="comma-separated numbers of workers")
    parser.add_argument("--models", default="mlp,lenet", help="comma-separated models")
    parser.add_argument("--device", default="cpu", help="cpu, cuda or auto")
    parser.add_argument(
        "--threads", type=int, default=None, help="intra-op CPU threads (default: torch's choice)"
    )
    args = parser.parse_args(argv)
    if args.repeats < 1 or args.loop_repeats < 1:
        parser.error("--repeats and --loop-repeats must be at least 1")
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    device = resolve_device(args.device)
    ks = [int(k) for k in args.ks.split(",")]
    models = args.models.split(",")

    load_start = _load()
    ceiling = matmul_ceiling(device)
    if not args.json:
        print(f"machine: {describe(fingerprint('cpu', torch.get_num_threads()))}")
        print(
            f"fp32 matmul ceiling {ceiling:.1f} GFLOP/s on {device} "
            f"({torch.get_num_threads()} threads)",
            flush=True,
        )
    cases = []
    for model in models:
        for k in ks:
            case = _case(model, k, device, args.repeats, args.loop_repeats)
            case["floor_s"] = case["round_gflop"] / ceiling
            case["floor_ratio"] = case["engine_s"] / case["floor_s"]
            cases.append(case)
            if not args.json:
                print(
                    f"{model:>5} k={k:<3} loop {case['loop_s']:7.3f} s  engine "
                    f"{case['engine_s']:6.3f} s (train {case['engine_train_s']:.3f} + eval "
                    f"{case['engine_eval_s']:.3f})  loop/engine {case['speedup']:5.2f}x  "
                    f"{case['round_gflop']:6.1f} GFLOP  {case['engine_gflops']:6.1f} GFLOP/s  "
                    f"engine/floor {case['floor_ratio']:4.2f}",
                    flush=True,
                )
    result = {
        "device": str(device),
        "device_name": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "loadavg_start": load_start,
        "loadavg_end": _load(),
        "matmul_ceiling_gflops": ceiling,
        "cases": cases,
        "targets": _targets(cases),
    }
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
    else:
        for check in result["targets"]:
            status = "met" if check["met"] else "MISSED"
            print(
                f"target {check['model']} k={TARGET_K}: {check['what']}: "
                f"{check['value']:.2f} {status}"
            )
    return result


if __name__ == "__main__":
    main()
