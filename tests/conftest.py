"""Shared fixtures. Tests that need the real datasets read them from ``FEDLIB_DATA``."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def data_root() -> Path:
    """The dataset folder from ``FEDLIB_DATA``; a clear failure (not a skip) when unset."""
    root = os.environ.get("FEDLIB_DATA")
    if not root:
        pytest.fail(
            "FEDLIB_DATA is not set: point it at a folder holding MNIST/raw and "
            "FashionMNIST/raw (in this project: FEDLIB_DATA=../shared/data)"
        )
    return Path(root)


@pytest.fixture(scope="session")
def adversarial_fast(data_root):
    """The smoke-sized adversarial scenario, run once for the experiment's and the figures'
    tests."""
    from fedlib.experiments import adversarial

    base = adversarial.scenario_base(device="cpu")
    return adversarial.AdversarialConfig(base=base).fast().run()


@pytest.fixture
def trained_tasks(monkeypatch) -> list:
    """The tasks the multi-task runs of this process train (the arguments of each
    :func:`~fedlib.fl.task.run_task` call they make), recorded as they go."""
    from fedlib.experiments import multitask

    trained, run_task = [], multitask.run_task

    def counted(*args, **kwargs):
        trained.append((args, kwargs))
        return run_task(*args, **kwargs)

    monkeypatch.setattr(multitask, "run_task", counted)
    return trained


def pytest_configure(config):
    """In CI (``CI`` set) hypothesis draws the same examples every run, so a red CI always
    reproduces; local runs keep exploring new examples."""
    from hypothesis import settings

    settings.register_profile("ci", derandomize=True, print_blob=True)
    if os.environ.get("CI"):
        settings.load_profile("ci")


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups into the tests' ids
def pytest_collection_modifyitems(items):
    """A module whose tests share a fixture of module scope (a search, a federation, a fast
    run) is one group for ``--dist loadgroup``: one test process runs all its tests, so that
    the fixture is computed once instead of once per process that a test of it lands on.
    Tests grouped already (the stored results, by the tasks they share) keep their group."""
    for item in items:
        if item.get_closest_marker("xdist_group") or not hasattr(item, "_fixtureinfo"):
            continue
        definitions = item._fixtureinfo.name2fixturedefs.values()
        if any(defs[-1].scope == "module" for defs in definitions):
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))


_VERIFICATIONS: list[str] = []


def pytest_runtest_logreport(report):
    """Collect what the stored-result checks recorded (``record_property("verification",
    ...)``), also from xdist workers."""
    if report.when == "call":
        _VERIFICATIONS.extend(value for key, value in report.user_properties
                              if key == "verification")


def pytest_terminal_summary(terminalreporter):
    """Print the tier, largest difference and verified prefix of every stored result."""
    if _VERIFICATIONS:
        terminalreporter.section("stored results verified")
        for line in sorted(_VERIFICATIONS):
            terminalreporter.write_line(line)


@pytest.fixture(scope="module")
def shared_ray_head():
    """One Ray head for a module's runs on Flower's Simulation Runtime, named by
    ``RAY_ADDRESS`` (as for a cluster) while the module runs; stopped, with its process group,
    after it. Module-scoped: a head kept for the session would be a running child of its test
    process while other modules check that their process pools leave none
    (tests/test_runtime.py)."""
    pytest.importorskip("flwr", reason="needs the flower extra: "
                        "pip install -r requirements-flower.txt")
    from fedlib.flower.launch import RayHead

    folder = tempfile.mkdtemp(prefix="fr", dir="/tmp")  # Ray's socket paths must be short
    try:
        with RayHead(folder, cpus=os.cpu_count() or 1) as head, \
                pytest.MonkeyPatch.context() as patch:
            patch.setenv("RAY_ADDRESS", head.address)
            yield head.address
    finally:
        shutil.rmtree(folder, ignore_errors=True)
