"""The distribution: its sdist and wheel build, pass ``twine check``, and the wheel installs and
imports in a fresh virtual environment, away from the repository, where its command line
certifies a mechanism of one's own."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

import fedlib

ROOT = Path(__file__).resolve().parents[1]
#: One worker for the whole module: the ``dist`` fixture builds in the checkout itself (setuptools
#: stages the sdist in ``ROOT``), and two workers building at once delete each other's files.
pytestmark = pytest.mark.xdist_group("distribution")
RELEASE = "needs the release extra (build, twine): pip install -r requirements-tools.txt"


def _run(*args: str | Path, cwd: Path = ROOT) -> str:
    # Without PYTHONPATH: a path to this checkout there would shadow the installed wheel.
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True,
                          env=env)
    assert done.returncode == 0, f"{args}: {done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    for tool in ("build", "twine"):
        pytest.importorskip(tool, reason=RELEASE)
    out = tmp_path_factory.mktemp("dist")
    _run(sys.executable, "-m", "build", "--no-isolation", "--outdir", out, ROOT)
    return out


def test_the_distribution_name_is_not_the_import_name():
    """``fedlib`` on the package index is another project: ours is distributed under a name of
    its own and imported as ``fedlib``, whose ``__version__`` is the distribution's (the metadata
    of ``pyproject.toml``'s version, its one source)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == "fedlib-incentive-book"
    assert project["version"] == fedlib.__version__ and "dynamic" not in project


def test_sdist_and_wheel_build_and_pass_twine_check(dist):
    files = sorted(p.name for p in dist.iterdir())
    version = fedlib.__version__
    assert files == [f"fedlib_incentive_book-{version}-py3-none-any.whl",
                     f"fedlib_incentive_book-{version}.tar.gz"]
    assert "PASSED" in _run(sys.executable, "-m", "twine", "check", "--strict", *dist.iterdir())
    names = zipfile.ZipFile(next(dist.glob("*.whl"))).namelist()
    assert "fedlib/experiments/coldstart.py" in names
    assert not any(n.startswith(("tests/", "chapters/", "results/")) for n in names)


def test_the_wheel_installs_and_imports_without_the_repository(dist, tmp_path):
    venv = tmp_path / "venv"
    # The environment's packages (torch and the rest) are visible; fedlib comes from the wheel.
    _run(sys.executable, "-m", "venv", "--system-site-packages", venv)
    python = venv / "bin" / "python"
    _run(python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
         next(dist.glob("*.whl")))
    out = _run(python, "-c", "import fedlib, fedlib.mechanism, fedlib.experiments.registry as r; "
               "print(fedlib.__file__); print(fedlib.__version__); print(len(r.experiments()))",
               cwd=tmp_path)
    where, version, kinds = out.split()
    assert Path(where).is_relative_to(venv) and version == fedlib.__version__
    assert int(kinds) >= 7
    assert _run(venv / "bin" / "fedlib", "--version", cwd=tmp_path).strip() == (
        f"fedlib {fedlib.__version__}")
    # The conformance kit, as a reader runs it on the example copied beside its own files.
    shutil.copy(ROOT / "examples" / "reserve.py", tmp_path)
    out = _run(python, "-m", "fedlib", "check-mechanism", "reserve.py:Reserve", "--instances",
               "5", "--trials", "0", "--out", tmp_path / "certificates", cwd=tmp_path)
    assert out.startswith("Reserve (80% of B) (reserve.py:Reserve): no counterexample to any "
                          "claimed property in this search\n")
    saved = json.loads((tmp_path / "certificates" / "reserve.json").read_text())
    assert saved["passed"] and saved["fedlib_version"] == fedlib.__version__
    assert saved["search"]["random_cases"] == 5
    efficient = next(p for p in saved["properties"] if p["property"] == "efficient")
    assert isinstance(efficient["exponent"], float)
    report = (tmp_path / "certificates" / "reserve.html").read_text()
    assert "No counterexample to any claimed property in this search." in report


@pytest.mark.slow
def test_the_wheel_runs_a_flower_federation_without_the_repository(dist, tmp_path):
    """The Flower app's pyproject.toml ships in the wheel (package data): from a folder outside
    the checkout, the installed fedlib stages the app bundle and runs ``federate --engine
    flower --fast`` through ``flwr run`` on the Simulation Runtime (the federation's processes
    check that they run the wheel's sources, the bundle's fingerprint)."""
    pytest.importorskip("flwr", reason="needs the flower extra: "
                        "pip install -r requirements-flower.txt")
    wheel = next(dist.glob("*.whl"))
    assert "fedlib/flower/app_template/pyproject.toml" in zipfile.ZipFile(wheel).namelist()
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", "--system-site-packages", venv)
    python = venv / "bin" / "python"
    _run(python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", wheel)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert "--instances" in _run(python, "-m", "fedlib", "check-mechanism", "--help",
                                 cwd=elsewhere)
    assert "--write-app" in _run(python, "-m", "fedlib", "federate", "--engine", "flower",
                                 "--fast", "--help", cwd=elsewhere)
    staged = _run(python, "-c", "from fedlib.flower.launch import stage_app; "
                  "print(stage_app('app'))", cwd=elsewhere).strip()
    assert (elsewhere / staged / "pyproject.toml").is_file()
    out = _run(python, "-m", "fedlib", "federate", "--engine", "flower", "--fast", "--out",
               "federation", cwd=elsewhere)
    assert out.startswith("federation/tables_mnist_ours_b12_fast_flower.json: 3 tasks")
    saved = json.loads((elsewhere / "federation" / "tables_mnist_ours_b12_fast_flower.json"
                        ).read_text())
    assert len(saved["records"]) == 3
