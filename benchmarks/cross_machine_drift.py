"""How far stored results drift on another machine: the measurement behind the foreign tier.

Recomputes the first tasks of every stored result (``results/*.json``) in this environment,
saves the recomputed records beside the environment's fingerprint, and reports, per file, how
far the recomputation agrees with the stored records under the foreign tier of
:mod:`fedlib.storage.comparison` (where it stops at a near tie, its largest difference,
any difference beyond the tolerance), then, over all files, the largest drift of every field
by the rounds of training behind the value, next to the tolerance there: their ratio is the
safety factor of :data:`~fedlib.storage.tolerance.FOREIGN_TOLERANCE`. ``--pair A:B``
compares two recomputations instead (two environments, both with the leave-one-out margins);
several pairs give one envelope over all of them.

    python benchmarks/cross_machine_drift.py --out /tmp/drift_here
    ATEN_CPU_CAPABILITY=default MKL_ENABLE_INSTRUCTIONS=AVX ONEDNN_MAX_CPU_ISA=AVX \\
        python benchmarks/cross_machine_drift.py --out /tmp/drift_avx
    python benchmarks/cross_machine_drift.py --pair /tmp/drift_here:stored \\
        --pair /tmp/drift_avx:stored --pair /tmp/drift_avx:/tmp/drift_here

Recomputations already saved in ``--out`` are reused (delete them to measure again).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from fedlib.experiments import registry
from fedlib.storage import comparison, environment, tolerance
from fedlib.storage.stored import results_dir


def recompute(name: str, out: Path, n_tasks: int) -> dict:
    """The saved recomputation of ``name`` in ``out``, made now if missing."""
    path = out / f"{name}.json"
    if path.exists():
        return json.loads(path.read_text())
    config = json.loads((results_dir() / f"{name}.json").read_text())["config"]
    began = time.perf_counter()
    records = registry.rebuild(config).recompute(n_tasks)
    payload = {"environment": environment.fingerprint("cpu", config.get("threads", 1)),
               "seconds": time.perf_counter() - began,
               "records": json.loads(json.dumps(records))}
    path.write_text(json.dumps(payload))
    return payload


#: Fields whose tolerance is relative (the others are absolute: omega, margins, accuracy).
RELATIVE = ("default", "test_loss")


def compare(name: str, stored: dict, fresh: dict) -> tuple[str, comparison.Comparison, list]:
    """The family of ``name``, and how ``fresh`` agrees with ``stored`` under the foreign tier."""
    config = json.loads((results_dir() / f"{name}.json").read_text())["config"]
    n = len(fresh["records"])
    measured, stops = comparison.compare_records(config, stored["records"][:n],
                                                 fresh["records"], "foreign")
    return tolerance.family(config), measured, list(stops)


def largest_drift(comparisons: list[tuple[str, comparison.Comparison]]
                  ) -> dict[tuple[str, str], dict[int, float]]:
    """(family, tolerance field) to {rounds of training behind: largest drift}, relative for
    fields with a relative tolerance and absolute for the others."""
    largest: dict[tuple[str, str], dict[int, float]] = {}
    for family, measured in comparisons:
        tolerances = tolerance.FOREIGN_TOLERANCE[family]
        for (field, rounds), (gap, relative) in measured.drift.items():
            kind = field if field in tolerances else "default"
            value = relative if tolerances[kind].rtol > 0 else gap
            seen = largest.setdefault((family, kind), {})
            seen[rounds] = max(seen.get(rounds, 0.0), value)
    return largest


#: Fields measured too coarsely to fit a growth of their own (task-level values once per task,
#: the accuracy in steps of one image, the margins only between two recomputations here, since
#: older stored files lack them): they grow like the test loss of their family.
GROWS_LIKE_LOSS = ("default", "test_acc", "margin")
#: The largest loss of a 10-class model at chance, ln 10: a margin (a difference of two such
#: losses) may drift at most as far as the loss itself, ``cap(test_loss) * ln 10``.
CHANCE_LOSS = float(np.log(10))
#: The least tolerance of the test accuracy after one round: five images of 5000.
ACCURACY_FLOOR = 1e-3


def fit(measured: dict[int, float], growth: float | None = None,
        safety: float = 10.0) -> tuple[float, float, float]:
    """The tightest envelope ``min(start * growth**(n - 1), cap)`` over the measured drift
    (``cap`` its largest value; ``growth`` fitted unless given), times ``safety``:
    (start, growth, cap)."""
    cap = max(measured.values())
    best = None
    for g in [growth] if growth else np.geomspace(1.0, 30.0, 300):
        start = max(v / g ** (n - 1) for n, v in measured.items())
        cost = sum(np.log(max(min(start * g ** (n - 1), cap), 1e-300)) for n in measured)
        if best is None or cost < best[0]:
            best = (cost, start, float(g))
    return safety * best[1], best[2], safety * cap


def envelope(comparisons: list[tuple[str, comparison.Comparison]]) -> list[str]:
    """Per family, field and rounds of training behind: the largest drift measured, the
    tolerance there, and their ratio (the safety factor); then 10 times the tightest envelope
    of the measurements, the basis of the tolerance."""
    lines = ["family   field        rounds  measured   tolerance  tolerance/measured"]
    largest = largest_drift(comparisons)
    for (family, kind), measured in sorted(largest.items()):
        drift = tolerance.FOREIGN_TOLERANCE[family][kind]
        for rounds, value in sorted(measured.items()):
            after = drift.after(rounds)
            allowed = after.rtol if drift.rtol > 0 else after.atol
            ratio = f"{allowed / value:8.1f}" if value else "       -"
            lines.append(f"{family:8} {kind:12} {rounds:6}  {value:9.2e}  {allowed:9.2e}  "
                         f"{ratio}")
    lines += ["", "10 x the tightest envelope min(start * growth**(rounds - 1), cap):"]
    for (family, kind), measured in sorted(largest.items()):
        loss = largest.get((family, "test_loss"))
        growth = fit(loss)[1] if kind in GROWS_LIKE_LOSS and loss else None
        start, growth, cap = fit(measured, growth)
        if kind == "test_acc":
            start = max(start, ACCURACY_FLOOR)
        if kind == "margin" and loss:
            cap = max(cap, fit(loss)[2] * CHANCE_LOSS)
        lines.append(f"{family:8} {kind:12} start {start:9.2e}  growth {growth:5.2f}  "
                     f"cap {cap:9.2e}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=None,
                        help="recompute into this folder (this environment), where missing")
    parser.add_argument("--pair", action="append", default=[], metavar="A:B",
                        help="compare the records in folder A against folder B, or against "
                             "the stored files when B is 'stored' (repeatable; default: "
                             "--out against the stored files)")
    parser.add_argument("--tasks", type=int, default=2, help="tasks recomputed per file")
    parser.add_argument("names", nargs="*", help="stored results (default: all)")
    args = parser.parse_args()
    names = args.names or sorted(p.stem for p in results_dir().glob("*.json"))
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        here = environment.fingerprint("cpu", 1)
        print(f"recomputing into {args.out}: {environment.describe(here)}")
        for name in names:
            recompute(name, Path(args.out), args.tasks)
    pairs = [pair.split(":", 1) for pair in args.pair] or [[args.out, "stored"]]
    comparisons = []
    for folder, against in pairs:
        print(f"\n{folder} against {against}:")
        for name in names:
            path = Path(folder) / f"{name}.json"
            if not path.exists():
                continue
            fresh = json.loads(path.read_text())
            other = json.loads((results_dir() / f"{name}.json" if against == "stored"
                                else Path(against) / f"{name}.json").read_text())
            family, measured, stops = compare(name, other, fresh)
            comparisons.append((family, measured))
            print(f"{name} ({family}), {environment.describe(fresh['environment'])} against "
                  + (environment.describe(other["environment"]) if other.get("environment")
                     else f"{other['machine']['cpu']} (stored, not fingerprinted)") + ": "
                  + ("; ".join(str(stop) for stop in stops) or "no near tie")
                  + f"; largest {measured.largest()}")
            print("".join(f"    beyond: {m}\n" for m in comparison.mismatches[:5]), end="")
    print("\nLargest drift by rounds of training behind a value, over all pairs and files:")
    print("\n".join(envelope(comparisons)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
