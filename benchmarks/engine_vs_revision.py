"""The engine's round with this tree's batched layers against those of another git revision.

Loads ``fedlib/fl/batched.py`` as it was at ``--rev`` into a module of its own, then times a
round of the batched engine (``train_local`` and ``probs_and_loo_losses``, the shapes of
``round_speed.py``) with each version's network, interleaved, and prints the medians, the
median ratio of the revision's time to this tree's in the same repeat (above 1: this tree is
faster) and whether the two versions give the same numbers bit for bit. The revision's
``batched.py`` must import only what this tree still has (revisions from before the per-machine
kernel choices were removed import ``fedlib.fl.tuning`` and do not load).

Usage::

    python benchmarks/engine_vs_revision.py --rev HEAD~1 [--models lenet] [--k 20]
        [--repeats 7] [--threads 2]
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import torch
from round_speed import round_inputs

from fedlib.fl.batched import BATCHED_NETS
from fedlib.storage.environment import describe, fingerprint


def batched_at(rev: str):
    """The module ``fedlib/fl/batched.py`` of revision ``rev``."""
    root = Path(__file__).resolve().parent.parent
    source = subprocess.run(["git", "show", f"{rev}:fedlib/fl/batched.py"], cwd=root,
                            check=True, capture_output=True, text=True).stdout
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "batched_at_rev.py"
        path.write_text(source)
        spec = importlib.util.spec_from_file_location("batched_at_rev", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", required=True, help="the git revision to compare with")
    parser.add_argument("--models", default="lenet", help="comma-separated models")
    parser.add_argument("--k", type=int, default=20, help="workers")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    old = batched_at(args.rev)
    print(f"machine: {describe(fingerprint('cpu', torch.get_num_threads()))}; "
          f"this tree against {args.rev}")
    for model in args.models.split(","):
        engine, theta, images, labels, val_images, val_labels, orders = round_inputs(
            model, args.k, torch.device("cpu"))
        nets = {"this tree": BATCHED_NETS[model], args.rev: old.BATCHED_NETS[model]}
        seconds = {(name, part): [] for name in nets for part in ("train", "eval")}
        outputs = {}
        for _ in range(args.repeats + 1):
            for name, net in nets.items():
                engine._net = net
                start = time.perf_counter()
                local = engine.train_local(theta, images, labels, orders)
                middle = time.perf_counter()
                scores = engine.probs_and_loo_losses(local, val_images, val_labels)
                seconds[name, "train"].append(middle - start)
                seconds[name, "eval"].append(time.perf_counter() - middle)
                outputs[name] = [*local.values(), scores[0], torch.tensor(scores[1]), scores[2]]
        same = all(torch.equal(a, b) for a, b in zip(*outputs.values(), strict=True))
        for part in ("train", "eval"):
            ours, theirs = (seconds[name, part][1:] for name in nets)
            ratio = statistics.median(t / o for t, o in zip(theirs, ours, strict=True))
            print(f"{model:>5} k={args.k} {part:<5}  this tree {statistics.median(ours):6.3f} s"
                  f"  {args.rev} {statistics.median(theirs):6.3f} s  ratio {ratio:4.2f}")
        print(f"{model:>5} k={args.k} the same numbers bit for bit: {same}")


if __name__ == "__main__":
    main()
