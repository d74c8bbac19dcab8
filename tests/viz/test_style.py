"""The figure modules of fedlib.viz: matplotlib alone (ipywidgets is the explorers' only), and
one style applied by every figure function."""

from __future__ import annotations

import importlib
import inspect
import io
import pkgutil
import subprocess
import sys

import matplotlib as mpl
from matplotlib.figure import Figure

import fedlib.viz
from fedlib.viz.style import STYLE, styled

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


def _figure_functions() -> dict[str, object]:
    """The public functions of the figure modules that return a Figure."""
    found = {}
    for name in FIGURE_MODULES:
        for attr, obj in vars(importlib.import_module(name)).items():
            if (inspect.isfunction(obj) and obj.__module__ == name and not attr.startswith("_")
                    and inspect.signature(obj).return_annotation in ("Figure", Figure)):
                found[f"{name}.{attr}"] = obj
    return found


def test_every_figure_function_is_styled():
    functions = _figure_functions()
    assert "fedlib.viz.mechanisms.sweep_figure" in functions and len(functions) > 40
    built_by_styled = styled(Figure).__code__
    assert [name for name, f in functions.items() if f.__code__ is not built_by_styled] == []


def test_a_styled_figure_keeps_the_style_wherever_it_is_drawn():
    @styled
    def draw() -> Figure:
        fig = Figure()
        ax = fig.subplots()
        ax.plot([0, 1], [0, 1], label="line")
        ax.set_title("title")
        ax.legend()
        return fig

    before = {key: mpl.rcParams[key] for key in STYLE}
    fig = draw()
    assert {key: mpl.rcParams[key] for key in STYLE} == before  # the caller's settings stay
    with mpl.rc_context({"xtick.labelsize": 30, "axes.titlesize": 30, "legend.fontsize": 30,
                         "axes.grid": False, "grid.alpha": 1.0}):
        fig.savefig(io.BytesIO(), format="png")  # drawn under other settings
    ax = fig.axes[0]
    assert {label.get_fontsize() for label in ax.get_xticklabels()} == {STYLE["xtick.labelsize"]}
    assert ax.title.get_fontsize() == STYLE["axes.titlesize"]
    assert ax.get_legend().get_texts()[0].get_fontsize() == STYLE["legend.fontsize"]
    grid = ax.get_xgridlines()
    assert all(line.get_visible() for line in grid)
    assert {line.get_alpha() for line in grid} == {STYLE["grid.alpha"]}
