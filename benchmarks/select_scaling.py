"""Time Algorithm 1's selection for growing n and show its O(n log n) cost (Theorem 3).

For each n the script times :func:`fedlib.mechanism.select` on synthetic workers (the
generator of Figures 4-5, budget n so that many workers win) and prints the median time, the
time per n log2 n, and that per-unit cost relative to the smallest n. Ratios near 1 mean the
measured growth is n log n.

Usage::

    python benchmarks/select_scaling.py [--sizes 1000 10000 100000 1000000] [--repeats 5] [--json]
"""

from __future__ import annotations

import json
import math
import time

import numpy as np
from _sizes import parse_sizes

from fedlib.mechanism import select, synthetic_instance


def time_select(n: int, repeats: int, rng: np.random.Generator) -> float:
    """Median wall time in seconds of ``select`` over ``repeats`` runs on ``n`` workers."""
    instance = synthetic_instance(n, float(n), rng)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        select(instance.bids, instance.Re, instance.budget)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def main(argv: list[str] | None = None) -> list[dict[str, float]]:
    """Run the benchmark, print a table (or JSON with ``--json``) and return the rows."""
    args = parse_sizes(__doc__, argv, [10**3, 10**4, 10**5, 10**6], 5)
    rng = np.random.default_rng(args.seed)
    rows = []
    for n in args.sizes:
        seconds = time_select(n, args.repeats, rng)
        rows.append({"n": n, "seconds": seconds, "per_nlogn": seconds / (n * math.log2(n))})
    for row in rows:
        row["ratio"] = row["per_nlogn"] / rows[0]["per_nlogn"]
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(f"{'n':>9} {'median s':>10} {'s / (n log2 n)':>15} {'ratio':>7}")
        for row in rows:
            print(f"{row['n']:>9} {row['seconds']:>10.4f} {row['per_nlogn']:>15.3e} "
                  f"{row['ratio']:>7.2f}")
    return rows


if __name__ == "__main__":
    main()
