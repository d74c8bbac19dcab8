"""Tests of an optional extra skip, with a message naming the extra, where it is missing."""

import subprocess
import sys

import pytest

from fedlib.book import ROOT

#: pytest on tests/flower in a process where ``import flwr`` fails, as without the extra.
WITHOUT_FLOWER = """
import sys
sys.modules["flwr"] = None
import pytest
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "-rs", "tests/flower"]))
"""


def test_the_flower_tests_skip_without_flower_and_name_the_extra():
    run = subprocess.run([sys.executable, "-c", WITHOUT_FLOWER], cwd=ROOT, text=True,
                         capture_output=True, timeout=300)
    # every module skipped: nothing collected (5), not a collection error (2)
    assert run.returncode == pytest.ExitCode.NO_TESTS_COLLECTED, run.stdout + run.stderr
    skipped = [line for line in run.stdout.splitlines() if line.startswith("SKIPPED")]
    assert len(skipped) == len(list((ROOT / "tests" / "flower").glob("test_*.py")))
    assert all("requirements-flower.txt" in line for line in skipped)
