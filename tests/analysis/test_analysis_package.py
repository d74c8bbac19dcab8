"""The analysis layer as a whole: numpy only (its docstring examples run in test_doctests.py)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import fedlib.analysis

MODULES = [m.name for m in pkgutil.iter_modules(fedlib.analysis.__path__, "fedlib.analysis.")]


def test_importing_every_analysis_does_not_import_torch() -> None:
    code = (f"import importlib, sys\nfor name in {MODULES!r}:\n    importlib.import_module(name)\n"
            "sys.exit('torch' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_the_torch_check_can_fail() -> None:
    code = "import sys, fedlib.fl.engine; sys.exit('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 1
