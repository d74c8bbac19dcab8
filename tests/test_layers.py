"""fedlib's layers depend downwards only, and no module imports itself back.

``cli`` -> ``conformance`` -> ``viz`` and ``flower`` -> ``storage`` -> ``experiments`` ->
``conformance.search`` -> ``fl`` and ``analysis`` -> ``mechanism`` (``fl`` trains models,
``analysis`` computes with numpy alone; neither imports the other), with the bottom modules
(``runtime``, ``paper``, ``table``: anything directly under ``fedlib/`` that is not a
layer) below them all, and ``checks`` (the argument checks every layer shares) below those.
``conformance.search`` is a sub-layer: the conformance kit's numpy-only modules (its mechanism
protocol, counterexample search and exact best response), which rank apart from the rest of
their package, import no ``fl`` and load neither torch nor the kit's figures. Imports are
read from the source (every ``import`` statement, those inside functions too), so a lazy import
does not hide a dependency. The map of ``fedlib/README.md`` must name every layer, sub-layer
module and bottom module, in this order, and only files that exist.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

import fedlib

PACKAGE = Path(fedlib.__file__).parent
#: Rank of each layer: a module may import its own layer and the layers of lower rank
#: (``fedlib.__main__``, ``python -m fedlib``, is the command line's entry point; the argument
#: checks of ``fedlib.checks`` lie below the bottom modules, which may all use them).
LAYERS = {"checks": -1, "mechanism": 1, "fl": 2, "analysis": 2, "conformance.search": 3,
          "experiments": 4, "storage": 5, "viz": 6, "flower": 6, "conformance": 7, "cli": 8,
          "__main__": 9}
#: The sub-layers: modules of a layer's package that form a layer of their own, below the rest
#: of the package. The conformance kit's protocol, search and best response compute with numpy
#: alone, so they rank with analysis (above it: the search reads its auction steps and timing
#: fits) and may import each other, never the rest of the kit.
SUBLAYERS = {f"fedlib.conformance.{name}": "conformance.search"
             for name in ("protocol", "search", "best_response")}
#: The layers that compute with numpy alone: they import no module of ``fl`` (torch), even where
#: it ranks below them, and importing them loads none of ``HEAVY``.
NUMPY_ONLY = ("mechanism", "analysis", "conformance.search")
HEAVY = ("torch", "matplotlib", "ipywidgets", "flwr")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> str:
    """``fedlib.fl.engine`` -> ``fl``; ``fedlib.conformance.search`` -> its sub-layer,
    ``conformance.search``; a bottom module is its own layer (``runtime``)."""
    if module in SUBLAYERS:
        return SUBLAYERS[module]
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "fedlib"


def rank(module: str) -> int:
    return LAYERS.get(layer(module), 0)


def imports(source: str, own: str) -> set[str]:
    """The fedlib modules that module ``own`` imports, from its ``source`` (``from fedlib.x
    import y`` counts as ``fedlib.x.y`` when that is a module, else ``fedlib.x``; a call of
    ``import_module`` with a literal name counts too)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", ""))
                == "import_module" and node.args and isinstance(node.args[0], ast.Constant)
                and str(node.args[0].value).startswith("fedlib")):
            found.add(node.args[0].value)  # importlib.import_module("fedlib.x")
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("fedlib")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("fedlib"):
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                found.add(candidate if candidate in MODULES else node.module)
    return found - {own}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``graph`` (module -> the modules it imports), found depth first, or None."""
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = "open"
        path.append(module)
        for target in sorted(graph.get(module, ())):
            if state.get(target) == "open":
                return path[path.index(target):] + [target]
            if target in graph and target not in state and (cycle := visit(target)):
                return cycle
        state[module] = "done"
        path.pop()
        return None

    return next((cycle for module in sorted(graph)
                 if module not in state and (cycle := visit(module))), None)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}
GRAPH = {name: imports(path.read_text(), name) for name, path in MODULES.items()}


def test_the_layers_are_the_expected_ones():
    assert {layer(m) for m in MODULES if rank(m)} == set(LAYERS)


@pytest.mark.parametrize("module", sorted(m for m in MODULES if layer(m) != "fedlib"))
def test_a_module_imports_only_its_layer_and_those_below(module):
    upward = sorted(target for target in GRAPH[module]
                    if layer(target) != layer(module) and rank(target) >= rank(module)
                    and target != "fedlib")
    assert not upward, f"{module} imports {upward} (layer {layer(module)} must not)"


def test_the_package_root_imports_no_module_of_its_own():
    """``fedlib/__init__.py`` lies below every layer: each may read ``fedlib.__version__``, so the
    root importing any of them, even lazily, would be an import upwards and a cycle."""
    assert GRAPH["fedlib"] == set(), f"fedlib/__init__.py imports {sorted(GRAPH['fedlib'])}"
    code = "import sys, fedlib; print(sorted(m for m in sys.modules if m.startswith('fedlib.')))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "[]"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if layer(m) in NUMPY_ONLY))
def test_a_numpy_only_module_imports_no_torch_layer(module):
    assert not [target for target in GRAPH[module] if layer(target) == "fl"]


def loaded(modules: list[str]) -> list[str]:
    """The packages of ``HEAVY`` that a fresh interpreter holds after importing ``modules``
    (with their packages' ``__init__``, which the source alone does not show)."""
    code = (f"import importlib, sys\nfor name in {modules!r}:\n    importlib.import_module(name)\n"
            f"print(sorted(set({HEAVY!r}) & set(sys.modules)))")
    return ast.literal_eval(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                           text=True, check=True).stdout)


def test_the_numpy_only_layers_load_no_torch_figures_widgets_or_flower():
    assert loaded(sorted(m for m in MODULES if layer(m) in NUMPY_ONLY)) == []


def test_no_import_cycles():
    cycle = find_cycle(GRAPH)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_checks_can_fail():
    source = "from fedlib.experiments import multitask\nimport fedlib.viz\n"
    assert imports(source, "fedlib.fl.engine") == {"fedlib.experiments.multitask", "fedlib.viz"}
    lazy = "def f():\n    return importlib.import_module('fedlib.conformance').check_mechanism\n"
    assert imports(lazy, "fedlib") == {"fedlib.conformance"}
    assert rank("fedlib.experiments.multitask") > rank("fedlib.fl.engine") > rank("fedlib.runtime")
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    assert layer("fedlib.conformance.best_response") == "conformance.search"
    assert rank("fedlib.experiments") > rank("fedlib.conformance.search") > rank(
        "fedlib.analysis.claims")
    assert rank("fedlib.conformance.mechanism_check") > rank("fedlib.viz")
    assert loaded(["fedlib.conformance.mechanism_check", "fedlib.fl.engine"]) == [
        "matplotlib", "torch"]


def map_problems(text: str, package: Path = PACKAGE) -> list[str]:
    """What is wrong with the map ``text`` (``fedlib/README.md``): its layer table (the first
    table, top layer first) must name every package and bottom module directly under
    ``package``, no other, with their ranks never rising down the table; every backticked
    ``*.py`` or ``*/`` path it names must exist under ``package``. A sub-layer's modules are
    named in its own row (``conformance/search.py``)."""
    first_table = text.split("\n\n| ", 1)[1].split("\n\n", 1)[0]
    rows = [re.findall(r"`([^`]+)`", line.split("|")[1]) for line in first_table.splitlines()[2:]]
    named = [name for row in rows for name in row]
    entries = {f"{p.name}/" if p.is_dir() else p.name for p in package.iterdir()
               if (p.is_dir() and (p / "__init__.py").exists())
               or (p.suffix == ".py" and p.name not in ("__init__.py", "__main__.py"))}
    entries |= {f"{module.removeprefix('fedlib.').replace('.', '/')}.py" for module in SUBLAYERS}
    problems = [f"the map names {name}, which is not a layer or bottom module"
                for name in named if name not in entries]
    problems += [f"the map misses {entry}" for entry in sorted(entries - set(named))]
    ranks = [{rank("fedlib." + name.removesuffix("/").removesuffix(".py").replace("/", "."))
              for name in row}
             for row in rows]
    if any(len(r) != 1 for r in ranks) or [max(r) for r in ranks] != sorted(
            (max(r) for r in ranks), reverse=True):
        problems.append(f"the map's layer table is not in the layer order: {rows}")
    problems += [f"the map names {path}, which does not exist" for path in
                 sorted(set(re.findall(r"`([\w/]+(?:\.py|/))`", text)))
                 if not path.startswith("tests/") and not (package / path).exists()]
    return problems


def test_the_map_names_every_layer_in_order_and_only_what_exists():
    assert map_problems((PACKAGE / "README.md").read_text()) == []


def test_the_map_check_can_fail():
    text = (PACKAGE / "README.md").read_text()
    assert "the map names gui/, which is not a layer or bottom module" in map_problems(
        text.replace("| `cli/` |", "| `cli/`, `gui/` |"))
    assert "the map misses checks.py" in map_problems(text.replace("`checks.py`", "checks"))
    swapped = text.replace("| `cli/` |", "| `@@/` |").replace("| `mechanism/` |", "| `cli/` |")
    assert any("not in the layer order" in p
               for p in map_problems(swapped.replace("| `@@/` |", "| `mechanism/` |")))
    assert map_problems(text.replace("`conformance/search.py`, ", "", 1)) == [
        "the map misses conformance/search.py"]
    assert map_problems(text.replace("`fl/engine.py`", "`fl/motor.py`")) == [
        "the map names fl/motor.py, which does not exist"]

