"""How far the Shapley ground truth's games drift on another machine: the measurement behind
:data:`fedlib.storage.tolerance.SHAPLEY_SAMPLES`.

``--out FILE`` recomputes the first tasks of the book's Shapley ground truth
(``results/shapley_mnist.json``: paper scale, seed 0, Cases 1 and 2) in this environment, with
the utility of every coalition of every round's game, and saves them beside the environment's
fingerprint. ``--pair A B`` compares two such files: per round, the largest move of a
coalition's utility in validation images and how many coalitions moved, then 10 times the
tightest envelope of the drift, fitted as ``benchmarks/cross_machine_drift.py`` fits the other
cross-machine tolerances.

    python benchmarks/shapley_drift.py --out /tmp/shapley_here.json
    ATEN_CPU_CAPABILITY=default MKL_ENABLE_INSTRUCTIONS=SSE4_2 ONEDNN_MAX_CPU_ISA=SSE41 \\
        python benchmarks/shapley_drift.py --out /tmp/shapley_sse.json
    python benchmarks/shapley_drift.py --pair /tmp/shapley_here.json /tmp/shapley_sse.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from cross_machine_drift import fit

from fedlib.experiments import shapley_truth
from fedlib.storage import environment, verification


def recompute(tasks: int, rounds: int) -> dict:
    """The first ``tasks`` tasks' first ``rounds`` games in this environment, every table."""
    config = verification.with_rounds(shapley_truth.ShapleyConfig(), rounds)
    tables, observed = [], shapley_truth.round_game

    def recording(*args, **kwargs):
        game = observed(*args, **kwargs)
        tables.append(game.table.tolist())
        return game

    began = time.perf_counter()
    shapley_truth.round_game = recording
    try:
        config.recompute(tasks)
    finally:
        shapley_truth.round_game = observed
    return {"environment": environment.fingerprint("cpu", config.contribution.threads),
            "n_val": config.contribution.n_val, "tasks": tasks, "rounds": rounds,
            "seconds": time.perf_counter() - began, "tables": tables}


def compare(first: dict, second: dict) -> list[str]:
    """Per round, the largest move of a coalition's utility (in images) over the tasks."""
    moved = np.abs(np.array(first["tables"]) - np.array(second["tables"])) * first["n_val"]
    moved = moved.round().reshape(first["tasks"], first["rounds"], -1)
    largest = moved.max(axis=(0, 2))
    lines = [f"{environment.describe(first['environment'])}\n  against "
             f"{environment.describe(second['environment'])}", "round  largest move (images)  "
             "coalitions moved, per task"]
    lines += [f"{r + 1:5}  {largest[r]:21.0f}  {(moved[:, r] > 0).sum(axis=1).tolist()}"
              for r in range(first["rounds"])]
    start, growth, cap = fit({r + 1: float(v) for r, v in enumerate(largest)})
    return [*lines, f"10 x the tightest envelope: start {start:.3g}, growth {growth:.3g}, "
                    f"cap {cap:.3g} images"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=None, help="recompute into this JSON file")
    parser.add_argument("--pair", nargs=2, default=None, metavar=("A", "B"),
                        help="compare two recomputations")
    parser.add_argument("--tasks", type=int, default=2, help="tasks recomputed (default 2)")
    parser.add_argument("--rounds", type=int, default=10, help="rounds of each (default 10)")
    args = parser.parse_args()
    if args.out:
        Path(args.out).write_text(json.dumps(recompute(args.tasks, args.rounds)))
    if args.pair:
        print("\n".join(compare(*(json.loads(Path(p).read_text()) for p in args.pair))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
