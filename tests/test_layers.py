"""fedlib's layers depend downwards only, and no module imports itself back.

``cli`` -> ``conformance`` -> ``viz`` and ``flower`` -> ``storage`` -> ``experiments`` -> ``fl``
and ``analysis`` -> ``mechanism`` (``fl`` trains models, ``analysis`` computes with numpy alone;
neither imports the other), with the bottom modules (``runtime``, ``book``, ``paper``,
``table``: anything directly under ``fedlib/`` that is not a layer) below them all, and
``checks`` (the argument checks every layer shares) below those. Imports are
read from the source (every ``import`` statement, those inside functions too), so a lazy import
does not hide a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import fedlib

PACKAGE = Path(fedlib.__file__).parent
#: Rank of each layer: a module may import its own layer and the layers of lower rank
#: (``fedlib.__main__``, ``python -m fedlib``, is the command line's entry point; the argument
#: checks of ``fedlib.checks`` lie below the bottom modules, which may all use them).
LAYERS = {"checks": -1, "mechanism": 1, "fl": 2, "analysis": 2, "experiments": 3, "storage": 4,
          "viz": 5, "flower": 5, "conformance": 6, "cli": 7, "__main__": 8}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> str:
    """``fedlib.fl.engine`` -> ``fl``; a bottom module is its own layer (``runtime``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "fedlib"


def rank(module: str) -> int:
    return LAYERS.get(layer(module), 0)


def imports(source: str, own: str) -> set[str]:
    """The fedlib modules that module ``own`` imports, from its ``source`` (``from fedlib.x
    import y`` counts as ``fedlib.x.y`` when that is a module, else ``fedlib.x``)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
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


def test_no_import_cycles():
    cycle = find_cycle(GRAPH)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_checks_can_fail():
    source = "from fedlib.experiments import multitask\nimport fedlib.viz\n"
    assert imports(source, "fedlib.fl.engine") == {"fedlib.experiments.multitask", "fedlib.viz"}
    assert rank("fedlib.experiments.multitask") > rank("fedlib.fl.engine") > rank("fedlib.runtime")
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
