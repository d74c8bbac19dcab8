"""No two module names of fedlib differ by a suffix: a module's name says what it holds.

A name is a module's file stem (``__init__`` and ``__main__`` left out), in any sub-package.
Two stems *differ by a suffix* when

* **a word ending** tells them apart, anywhere in fedlib: after their longest common prefix
  of at least 4 letters, each has at most 3 letters left and no ``_`` (``federat|ed`` /
  ``federat|ion``, ``federate`` / ``federate|d``, ``check`` / ``check|s``). The two names are
  one word spelt two ways, so neither says how its module differs from the other;
* or, within one package, **one stem is the other followed by more words**
  (``federated`` / ``federated_tables``): one topic split between siblings, the bare name
  saying nothing of what its half holds.

What the rule leaves alone, and why:

* A stem followed by more words in *another* package (``mechanism/auction.py`` beside
  ``analysis/auction_steps.py``): a higher layer names the aspect of a lower layer's topic
  it holds, and the package says which layer; the words after the topic name that aspect.
* A singular used as the first word of a compound (``mechanism/properties.py`` beside
  ``mechanism/property_rules.py``): the compound's second word names something else, so the
  two are not one word spelt two ways.
* Identical stems in different packages (``fl/data.py``, ``cli/data.py``;
  ``experiments/adversarial.py``, ``viz/adversarial.py``): the layered convention that a topic
  keeps its name in each layer that treats it (the chapter's experiment and its figures).
  :func:`test_identical_stems_are_listed` prints them; it does not fail on them.

Issue 46, item 2 ("no two module names differ by a suffix").
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import fedlib

PACKAGE = Path(fedlib.__file__).parent
def modules(root: Path = PACKAGE) -> list[tuple[str, str]]:
    """``(path relative to root, stem)`` of every module under ``root``; the Flower app
    template (copied into a user's app, not a module of fedlib) left out."""
    found = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        if "app_template" in relative.parts or path.stem in ("__init__", "__main__"):
            continue
        found.append((relative.as_posix(), path.stem))
    return found


def differ_by_a_suffix(first: tuple[str, str], second: tuple[str, str]) -> str | None:
    """Why two modules' stems differ by a suffix (see the module's docstring), or None."""
    (path_a, a), (path_b, b) = first, second
    if a == b:
        return None
    common = len(os.path.commonprefix([a, b]))
    rest_a, rest_b = a[common:], b[common:]
    if common >= 4 and max(len(rest_a), len(rest_b)) <= 3 and "_" not in rest_a + rest_b:
        return f"a word ending ({a[:common]}|{rest_a} / {b[:common]}|{rest_b})"
    siblings = Path(path_a).parent == Path(path_b).parent
    longer = rest_b if not rest_a else rest_a if not rest_b else None
    if siblings and longer is not None and longer.startswith("_"):
        return f"one is the other followed by more words ({a} / {b})"
    return None


def suffix_pairs(root: Path = PACKAGE) -> list[str]:
    return [f"{pa} / {pb}: {why}"
            for (pa, a), (pb, b) in itertools.combinations(modules(root), 2)
            if (why := differ_by_a_suffix((pa, a), (pb, b)))]


def test_no_two_module_names_differ_by_a_suffix():
    pairs = suffix_pairs()
    assert not pairs, "module names that differ by a suffix:\n" + "\n".join(pairs)


def test_the_rule_catches_the_pairs_of_issue_46_and_leaves_the_rest():
    def why(a: str, b: str) -> str | None:
        return differ_by_a_suffix((a, Path(a).stem), (b, Path(b).stem))

    assert why("experiments/federated.py", "experiments/federation.py")
    assert why("viz/federated.py", "viz/federated_tables.py")
    assert why("cli/federate.py", "viz/federated.py")
    assert why("checks.py", "conformance/check.py")
    assert not why("mechanism/auction.py", "analysis/auction_steps.py")
    assert not why("mechanism/properties.py", "mechanism/property_rules.py")
    assert not why("viz/multitask_figures.py", "viz/multitask_tables.py")
    assert not why("mechanism/contribution.py", "viz/explorers/controls.py")
    assert not why("fl/data.py", "cli/data.py")


def test_identical_stems_are_listed():
    """Identical stems in different packages are allowed (see the module's docstring); listed
    with ``pytest -s`` for whoever reviews the names."""
    by_stem: dict[str, list[str]] = {}
    for path, stem in modules():
        by_stem.setdefault(stem, []).append(path)
    shared = {stem: paths for stem, paths in by_stem.items() if len(paths) > 1}
    print("\nidentical stems:", *(f"{stem}: {', '.join(p)}" for stem, p in sorted(shared.items())),
          sep="\n  ")
    assert all(len({Path(p).parent for p in paths}) == len(paths) for paths in shared.values())
