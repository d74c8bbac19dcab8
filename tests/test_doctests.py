"""Every docstring example of fedlib runs, under the command CI runs (``python -m pytest
tests``): one test per module, found from the source files so that a module whose import fails
is reported, not left out. The examples that read data use ``FEDLIB_DATA``, as the tests do."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

import fedlib

PACKAGE = Path(fedlib.__file__).parent
#: Every module of fedlib but the command line's entry point (importing it runs the command).
MODULES = sorted(".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(
    ".__init__") for path in PACKAGE.rglob("*.py") if path.name != "__main__.py")
#: Packages of the optional extras, which CI installs: a module that needs one is skipped, with
#: this reason, only where the extra is missing.
EXTRAS = {"flwr": "the Flower extra (pip install -e '.[flower]'), which CI installs",
          "ray": "the Flower extra's Ray (pip install -e '.[flower]'), which CI installs"}


def examples_of(module: str) -> doctest.TestResults:
    try:
        imported = importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name and error.name.split(".")[0] in EXTRAS:
            pytest.skip(f"{module} needs {EXTRAS[error.name.split('.')[0]]}")
        raise
    return doctest.testmod(imported, report=True)


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples(module, data_root):
    assert examples_of(module).failed == 0


def test_the_examples_are_found_and_can_fail(tmp_path, monkeypatch):
    for module in ("fedlib.fl.engine", "fedlib.fl.data", "fedlib.storage.comparison",
                   "fedlib.experiments.commands", "fedlib.mechanism.auction", "fedlib.table"):
        assert module in MODULES
    assert examples_of("fedlib.fl.engine").attempted > 0
    broken = tmp_path / "broken_example.py"
    broken.write_text('def f():\n    """\n    >>> 1 + 1\n    3\n    """\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    assert examples_of("broken_example").failed == 1
