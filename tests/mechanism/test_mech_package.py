"""The package as a whole: numpy only, its docstring examples, and the scaling benchmark."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import fedlib.mechanism

ROOT = Path(__file__).resolve().parents[2]


def test_importing_the_mechanism_layer_does_not_import_torch() -> None:
    code = "import sys, fedlib.mechanism; sys.exit('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT).returncode == 0


def test_public_api_is_exported() -> None:
    for name in fedlib.mechanism.__all__:
        assert hasattr(fedlib.mechanism, name), name
    design = ["sample_weights", "contributions", "round_contributions", "gompertz_trust", "h", "g",
              "attenuation", "update_reputation", "ReputationLedger", "leave_one_out_pass",
              "aggregation_weights", "select", "ex_post_payments", "MECHANISMS"]
    assert set(design) <= set(fedlib.mechanism.__all__)


def test_scaling_benchmark_runs() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "select_scaling.py"),
                          "--sizes", "1000", "4000", "--repeats", "2", "--json"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    rows = json.loads(out)
    assert [r["n"] for r in rows] == [1000, 4000] and rows[0]["ratio"] == 1.0
    assert all(r["seconds"] > 0 and r["per_nlogn"] > 0 for r in rows)
