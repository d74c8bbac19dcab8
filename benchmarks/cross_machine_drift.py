"""How far stored results drift on another machine: the measurement behind the foreign tier.

Recomputes the first tasks of every stored result (``results/*.json``) in this environment,
saves the recomputed records beside the environment's fingerprint, and reports, per file, how
far the recomputation agrees with the stored records under the foreign tier of
:mod:`fedlib.experiments.verification` (where it stops at a near tie, its largest difference,
any difference beyond the tolerance), then, over all files, the largest drift of every field
by the rounds of training behind the value, next to the tolerance there: their ratio is the
safety factor of :data:`~fedlib.experiments.verification.FOREIGN_TOLERANCE`. With ``--against``
it compares two recomputations instead (two environments, both with the leave-one-out margins).

    python benchmarks/cross_machine_drift.py --out /tmp/drift_here
    ATEN_CPU_CAPABILITY=default MKL_ENABLE_INSTRUCTIONS=AVX ONEDNN_MAX_CPU_ISA=AVX \\
        python benchmarks/cross_machine_drift.py --out /tmp/drift_avx
    python benchmarks/cross_machine_drift.py --out /tmp/drift_avx --against /tmp/drift_here

Recomputations already saved in ``--out`` are reused (delete them to measure again).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

from fedlib.experiments import environment, results, verification
from fedlib.experiments.stored import results_dir


def recompute(name: str, out: Path, n_tasks: int) -> dict:
    """The saved recomputation of ``name`` in ``out``, made now if missing."""
    path = out / f"{name}.json"
    if path.exists():
        return json.loads(path.read_text())
    config = json.loads((results_dir() / f"{name}.json").read_text())["config"]
    began = time.perf_counter()
    records = results.experiment(config).recompute(config, n_tasks, None)
    payload = {"environment": environment.fingerprint("cpu", config.get("threads", 1)),
               "seconds": time.perf_counter() - began,
               "records": json.loads(json.dumps(records))}
    path.write_text(json.dumps(payload))
    return payload


#: Fields whose tolerance is relative (the others are absolute: omega, margins, accuracy).
RELATIVE = ("default", "test_loss")


def compare(name: str, stored: dict, fresh: dict) -> tuple[str, verification.Comparison, list]:
    """The family of ``name``, and how ``fresh`` agrees with ``stored`` under the foreign tier."""
    config = json.loads((results_dir() / f"{name}.json").read_text())["config"]
    n = len(fresh["records"])
    comparison, stops = verification.compare_records(config, stored["records"][:n],
                                                     fresh["records"], "foreign")
    return verification.family(config), comparison, list(stops)


def envelope(comparisons: list[tuple[str, verification.Comparison]]) -> list[str]:
    """Per family, field and rounds of training behind: the largest drift measured, the
    tolerance there, and their ratio (the safety factor)."""
    largest: dict[tuple[str, str, int], float] = {}
    for family, comparison in comparisons:
        tolerances = verification.FOREIGN_TOLERANCE[family]
        for (field, rounds), (gap, relative) in comparison.drift.items():
            kind = field if field in tolerances else "default"
            value = relative if tolerances[kind].rtol > 0 else gap
            key = (family, kind, rounds)
            largest[key] = max(largest.get(key, 0.0), value)
    lines = ["family   field        rounds  measured   tolerance  tolerance/measured"]
    for (family, kind, rounds), value in sorted(largest.items()):
        drift = verification.FOREIGN_TOLERANCE[family][kind].after(rounds)
        allowed = drift.rtol if drift.rtol > 0 else drift.atol
        ratio = f"{allowed / value:8.1f}" if value else "       -"
        lines.append(f"{family:8} {kind:12} {rounds:6}  {value:9.2e}  {allowed:9.2e}  {ratio}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="folder of this environment's records")
    parser.add_argument("--against", default=None,
                        help="another environment's folder: compare --out against it instead "
                             "of the stored files")
    parser.add_argument("--tasks", type=int, default=2, help="tasks recomputed per file")
    parser.add_argument("names", nargs="*", help="stored results (default: all)")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    names = args.names or sorted(p.stem for p in results_dir().glob("*.json"))
    here = environment.fingerprint("cpu", 1)
    print(f"recomputed in: {environment.describe(here)} (torch {torch.__version__})")
    comparisons = []
    for name in names:
        fresh = recompute(name, out, args.tasks)
        if args.against:
            other = json.loads((Path(args.against) / f"{name}.json").read_text())
        else:
            other = json.loads((results_dir() / f"{name}.json").read_text())
        family, comparison, stops = compare(name, other, fresh)
        comparisons.append((family, comparison))
        against = (environment.describe(other["environment"]) if other.get("environment")
                   else f"{other['machine']['cpu']} (stored, not fingerprinted)")
        print(f"{name} ({family}) against {against}: "
              + ("; ".join(str(stop) for stop in stops) or "no near tie")
              + f"; largest {comparison.largest()}")
        print("".join(f"    beyond: {m}\n" for m in comparison.mismatches[:5]), end="")
    print("\nLargest drift by rounds of training behind a value, over all files:")
    print("\n".join(envelope(comparisons)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
