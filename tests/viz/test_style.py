"""The figure modules of fedlib.viz: matplotlib alone (ipywidgets is the explorers' only)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import fedlib.viz

#: Every module of fedlib.viz but the explorers' package.
FIGURE_MODULES = [f"fedlib.viz.{m.name}" for m in pkgutil.iter_modules(fedlib.viz.__path__)
                  if not m.ispkg]


def test_figure_modules_import_without_ipywidgets():
    """Each figure module is imported in a fresh interpreter where ipywidgets and IPython
    cannot be imported."""
    assert "fedlib.viz.auction" in FIGURE_MODULES and "fedlib.viz.style" in FIGURE_MODULES
    code = ("import importlib, sys\n"
            "sys.modules['ipywidgets'] = sys.modules['IPython'] = None\n"
            f"for name in {FIGURE_MODULES!r}:\n"
            "    importlib.import_module(name)\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
