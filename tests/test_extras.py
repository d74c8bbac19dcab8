"""Tests of an optional extra skip, with a message naming the extra and its pinned file, where the
extra is missing: none errors at collection."""

import re
import subprocess
import sys

import pytest
from book import ROOT

#: What needs an extra, the modules that its absence makes fail to import, and the pinned file
#: that the skip must name.
NEEDS = {
    "tests/flower": (["flwr"], "flower", "requirements-flower.txt"),
    "tests/test_ray_executor.py": (["ray"], "flower", "requirements-flower.txt"),
    # the shared_ray_head fixture of tests/conftest.py
    "tests/conformance/test_federated_run.py::"
    "test_flower_runs_a_mechanism_from_a_file_as_the_batched_engine_does":
        (["flwr"], "flower", "requirements-flower.txt"),
    "tests/test_packaging.py": (["build", "twine"], "release", "requirements-tools.txt"),
    "tests_book/test_pdf.py": (["pypdf"], "release", "requirements-tools.txt"),
    "tests_book/test_jupyterlab.py": (["jupyterlab"], "lab", "requirements-lab.txt"),
    "tests/test_book_layout.py::test_the_readme_lab_reads_the_books_jupyterlab_defaults":
        (["jupyterlab_server"], "lab", "requirements-lab.txt"),
}

#: pytest on ``paths`` in a process where importing ``blocked`` fails, as without the extras.
WITHOUT = """
import sys
for name in {blocked!r}:
    sys.modules[name] = None
import pytest
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "-rs", *{paths!r}]))
"""


def test_what_needs_an_extra_skips_without_it_and_names_the_extra():
    blocked = sorted({module for modules, _, _ in NEEDS.values() for module in modules})
    run = subprocess.run([sys.executable, "-c", WITHOUT.format(blocked=blocked,
                                                               paths=list(NEEDS))],
                         cwd=ROOT, text=True, capture_output=True, timeout=600)
    output = run.stdout + run.stderr
    # no collection error (2) and no failure (1); test_packaging's first test needs no extra
    assert run.returncode == pytest.ExitCode.OK, output
    skipped = [line for line in run.stdout.splitlines() if line.startswith("SKIPPED")]
    for line in skipped:
        assert re.search(r"\bneeds? the (\w+) extra\b.*: pip install -r requirements-\w+\.txt",
                         line), line
    for path, (_, extra, pins) in NEEDS.items():
        assert any(line.split()[2].startswith(path.split("::")[0]) and f"the {extra} extra" in line
                   and pins in line for line in skipped), (path, skipped)
    # every module of tests/flower, each skipped at its import
    flower = [line for line in skipped if line.split()[2].startswith("tests/flower/")]
    assert len(flower) == len(list((ROOT / "tests" / "flower").glob("test_*.py")))
