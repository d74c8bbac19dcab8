"""The analysis layer as a whole: numpy only, and the docstring examples of its modules."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import subprocess
import sys

import pytest

import fedlib.analysis

MODULES = [m.name for m in pkgutil.iter_modules(fedlib.analysis.__path__, "fedlib.analysis.")]


def test_importing_every_analysis_does_not_import_torch() -> None:
    code = (f"import importlib, sys\nfor name in {MODULES!r}:\n    importlib.import_module(name)\n"
            "sys.exit('torch' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_the_torch_check_can_fail() -> None:
    code = "import sys, fedlib.fl.engine; sys.exit('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 1


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0
