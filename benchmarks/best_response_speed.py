"""Time the exact best response (enumerated breakpoints) against the kit's sampled search.

For each n the script draws random instances of the kit's kind with n workers and times, on
the paper's mechanism, two ways of finding what misreporting gains a worker:

* **exact**: :func:`fedlib.conformance.best_response.best_response` of
  :data:`~fedlib.conformance.search.DEVIANTS` workers (every worker when there are
  fewer), each playing one bid per interval between its breakpoints (about ``4 n`` plays of an
  ``O(n log n)`` selection: ``O(n^2 log n)`` per worker);
* **search**: :func:`fedlib.conformance.search.search` of the same instance with
  the mechanism's ``bid_breakpoints`` hidden, as the kit searches a mechanism that does not
  say where its steps are (the same number of deviants, a sample of
  :data:`~fedlib.conformance.search.BIDS` bids each, plus the IR, budget,
  monotonicity, delivery and pair checks it always makes).

It prints the median seconds of each over ``--repeats`` instances, their ratio
(exact / search), and the largest regret each found (the exact one over its deviants and the
search's worst worker): the exact one is never smaller.

Usage::

    python benchmarks/best_response_speed.py [--sizes 10 100 1000] [--repeats 3] [--json]
"""

from __future__ import annotations

import json
import time
from typing import Any

import numpy as np
from _sizes import parse_sizes

from fedlib.conformance.best_response import best_response
from fedlib.conformance.search import DEVIANTS, random_cases, search
from fedlib.mechanism import MECHANISMS


class WithoutBreakpoints:
    """``mechanism`` with its ``bid_breakpoints`` hidden: the kit can only search it."""

    def __init__(self, mechanism: Any) -> None:
        self.mechanism = mechanism
        self.name, self.label = f"{mechanism.name}_searched", f"{mechanism.label} (searched)"
        self.claims, self.knows = mechanism.claims, mechanism.knows

    def select(self, *args: Any, **kwargs: Any) -> Any:
        return self.mechanism.select(*args, **kwargs)

    def pay(self, *args: Any, **kwargs: Any) -> np.ndarray:
        return self.mechanism.pay(*args, **kwargs)


def measure(n: int, rng: np.random.Generator) -> dict[str, float]:
    """One instance of ``n`` workers: seconds and largest regret of each way."""
    mechanism = MECHANISMS["ours"]
    case, = random_cases(rng, 1, sizes=((n, n, 1.0),))
    workers = rng.choice(n, min(n, DEVIANTS), replace=False)
    start = time.perf_counter()
    exact = max(best_response(mechanism, case.instance, int(w)).regret for w in workers)
    exact_seconds = time.perf_counter() - start
    start = time.perf_counter()
    record, = search(WithoutBreakpoints(mechanism), 0, timing=False, cases=[case]).records
    search_seconds = time.perf_counter() - start
    if record.worker is not None:  # the search's deviants are its own: add its worst one
        exact = max(exact, best_response(mechanism, case.instance, record.worker).regret)
    return {"exact_seconds": exact_seconds, "search_seconds": search_seconds,
            "exact_regret": exact, "search_regret": record.regret}


def main(argv: list[str] | None = None) -> list[dict[str, float]]:
    """Run the benchmark, print a table (or JSON with ``--json``) and return the rows."""
    args = parse_sizes(__doc__, argv, [10, 100, 1000], 3)
    rng = np.random.default_rng(args.seed)
    rows = []
    for n in args.sizes:
        runs = [measure(n, rng) for _ in range(args.repeats)]
        row = {"n": n, **{key: float(np.median([r[key] for r in runs]))
                          for key in ("exact_seconds", "search_seconds")},
               **{key: max(r[key] for r in runs) for key in ("exact_regret", "search_regret")}}
        row["ratio"] = row["exact_seconds"] / row["search_seconds"]
        rows.append(row)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(f"{'n':>6} {'exact s':>9} {'search s':>9} {'exact/search':>13} "
              f"{'exact regret':>13} {'searched regret':>16}")
        for row in rows:
            print(f"{row['n']:>6} {row['exact_seconds']:>9.3f} {row['search_seconds']:>9.3f} "
                  f"{row['ratio']:>13.2f} {row['exact_regret']:>13.4g} "
                  f"{row['search_regret']:>16.4g}")
    return rows


if __name__ == "__main__":
    main()
