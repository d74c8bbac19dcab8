"""The Flower Baseline of the paper (``baselines/auction_reputation``): the structure Flower's
``baselines/dev/test-baseline-structure.sh`` and its baseline template ask for, a package that
only names fedlib's code, and a fast run through ``flwr run`` on the Simulation Runtime."""

from __future__ import annotations

import importlib
import re
import shutil
import tomllib

import numpy as np
import pytest

pytest.importorskip("flwr", reason="the Flower tests need the flower extra: "
                    "pip install -r requirements-flower.txt")

from book import ROOT

from fedlib.experiments.flower_presets import federation_config
from fedlib.experiments.multitask import worker_pool
from fedlib.flower.settings import RUN_CONFIG

BASELINE = ROOT / "baselines" / "auction_reputation"
PACKAGE = BASELINE / "auction_reputation"
#: The modules test-baseline-structure.sh requires (and the package's __init__).
MODULES = ("client_app", "dataset", "model", "server_app", "strategy", "utils")
#: The README's sections in the template's order.
SECTIONS = ("About this baseline", "Experimental Setup", "Environment Setup",
            "Running the Experiments")


@pytest.fixture
def baseline(monkeypatch):
    """The baseline's package importable, as ``pip install -e`` of the baseline makes it."""
    monkeypatch.syspath_prepend(str(BASELINE))
    return lambda name: importlib.import_module(f"auction_reputation.{name}")


def _pyproject() -> dict:
    return tomllib.loads((BASELINE / "pyproject.toml").read_text())


def _front_matter(text: str) -> dict[str, str]:
    match = re.match(r"---\n(.*?)\n---\n", text, re.S)
    assert match, "the README starts with no front matter"
    return dict(line.split(": ", 1) for line in match.group(1).splitlines())


def test_the_baseline_has_the_templates_files():
    missing = [f"{name}.py" for name in ("__init__", *MODULES)
               if not (PACKAGE / f"{name}.py").is_file()]
    missing += [name for name in ("pyproject.toml", "README.md", "plot_results.py")
                if not (BASELINE / name).is_file()]
    assert not missing


def test_the_pyproject_names_the_apps_the_run_configuration_and_a_local_simulation():
    from flwr.cli.config_utils import load_and_validate
    from flwr.cli.utils import validate_project_name

    project = _pyproject()
    validate_project_name(project["project"]["name"], "[project].name")  # as flwr run does
    flwr = project["tool"]["flwr"]
    assert flwr["app"]["components"] == {"serverapp": "auction_reputation.server_app:app",
                                         "clientapp": "auction_reputation.client_app:app"}
    assert flwr["app"]["config"] == RUN_CONFIG
    federations = flwr["federations"]
    assert federations["default"] == "local-simulation"
    assert federations["local-simulation"]["options"]["num-supernodes"] == 6
    assert federations["local-simulation-paper"]["options"]["num-supernodes"] == 30
    assert any(d.startswith("fedlib-incentive-book") for d in project["project"]["dependencies"])
    _, warnings = load_and_validate(BASELINE / "pyproject.toml", check_module=True)
    assert warnings == []


def test_flower_takes_the_federations_as_local_simulation_connections(tmp_path, monkeypatch):
    """Flower 1.42 moves ``[tool.flwr.federations]`` into its configuration on the first
    ``flwr run .`` (SuperLink connections on the local simulation SuperLink, ``:local:``)."""
    from flwr.cli.config_migration import migrate

    monkeypatch.setenv("FLWR_HOME", str(tmp_path / "home"))
    app = shutil.copytree(BASELINE, tmp_path / "app",
                          ignore=shutil.ignore_patterns("__pycache__", "_static"))
    migrate(str(app), [], ignore_legacy_usage=True)
    links = tomllib.loads((tmp_path / "home" / "config.toml").read_text())["superlink"]
    assert links["default"] == "local-simulation"
    for name, nodes in (("local-simulation", 6), ("local-simulation-paper", 30)):
        assert links[name]["address"] == ":local:"
        assert links[name]["options"]["num-supernodes"] == nodes
        assert links[name]["options"]["backend"]["client-resources"]["num-cpus"] == 1


def test_the_readme_has_the_templates_front_matter_and_sections():
    text = (BASELINE / "README.md").read_text()
    front = _front_matter(text)
    assert {"title", "url", "labels", "dataset"} <= set(front)
    assert front["title"] == _pyproject()["project"]["description"]
    assert 4 <= len(front["labels"].strip("[]").split(",")) <= 10
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert [h for h in headings if h in SECTIONS] == list(SECTIONS)
    setup = text.split("## Experimental Setup", 1)[1].split("\n## ", 1)[0]
    for table in ("| workers (nodes) |", "| hyperparameter |"):
        assert table in setup
    assert "1.0 x 15, 0.7 x 5, 0.4 x 5, 0.1 x 5" in setup


def test_every_run_command_is_followed_by_what_it_produces():
    """Each ``flwr run .`` block ends with the script that redraws its results, and the text
    after it names the figure; a paper-scale result is either *to be recorded* or recorded with
    the date, the CPU and the commit of its run."""
    running = (BASELINE / "README.md").read_text().split("## Running the Experiments", 1)[1]
    blocks = re.findall(r"```bash\n(.*?)```\n\n(.*?)(?=\n\*\*|\n## |\Z)", running, re.S)
    runs = [(code, after) for code, after in blocks if "flwr run ." in code]
    assert len(runs) >= 3
    for code, after in runs:
        assert "python plot_results.py" in code.splitlines()[-1]
        assert "_trajectories.png" in after and "results.md" in after
    results = re.findall(r"^Results: (.*?)(?=\n\n)", running, re.M | re.S)
    assert len(results) == 2  # MNIST and Fashion-MNIST at paper scale
    for said in results:
        recorded = (re.search(r"\b20\d\d-\d\d-\d\d\b", said) and re.search(r"\b[0-9a-f]{7}\b", said)
                    and ("AMD" in said or "Intel" in said))
        assert said.startswith("*to be recorded*") or recorded, said[:200]


def test_the_modules_import_and_only_name_fedlibs_code(baseline):
    import fedlib.flower.app
    import fedlib.flower.client
    import fedlib.flower.strategy

    assert baseline("server_app").app is fedlib.flower.app.server_app
    assert baseline("client_app").app is fedlib.flower.client.client_app
    assert baseline("strategy").MechanismStrategy is fedlib.flower.strategy.MechanismStrategy
    assert baseline("utils").RUN_CONFIG is RUN_CONFIG
    for name in MODULES:
        source = (PACKAGE / f"{name}.py").read_text()
        assert not re.search(r"^class ", source, re.M), f"{name}.py defines a class"


def test_the_model_and_the_partition_are_fedlibs(baseline, data_root):
    model = baseline("model")
    assert type(model.model_for("fashion")) is model.LeNet5
    assert type(model.model_for("mnist")) is model.MLP
    with pytest.raises(ValueError, match="mnist, fashion"):
        model.model_for("cifar")
    dataset = baseline("dataset")
    images, labels = dataset.load_partition(5, {"fast": True})
    pool = worker_pool(federation_config(fast=True))
    np.testing.assert_array_equal(images, np.asarray(pool.images[5]))
    np.testing.assert_array_equal(labels, np.asarray(pool.labels[5]))
    with pytest.raises(ValueError, match=r"the run has 6 \(0..5\)"):
        dataset.load_partition(6, {"fast": True})


@pytest.mark.slow
def test_the_baseline_runs_fast_on_the_simulation_runtime(shared_ray_head, baseline, tmp_path,
                                                         data_root):
    """``flwr run`` of (a copy of: Flower 1.42 rewrites its federations) the baseline folder,
    6 nodes, against a SuperLink started for it; then the README's plot script on its result."""
    from fedlib.flower.launch import LocalFederation

    app = shutil.copytree(BASELINE, tmp_path / "auction_reputation",
                          ignore=shutil.ignore_patterns("__pycache__", "_static"))
    run_config = {"fast": True, "out": str(tmp_path / "out")}
    with LocalFederation(tmp_path / "federation", simulation=True) as federation:
        ran = federation.run(app, run_config, {"num-supernodes": 6,
                                               "client-resources-num-cpus": 1,
                                               "client-resources-num-gpus": 0},
                             timeout=600)
    assert ran.returncode == 0, ran.stdout[-3000:]
    result = baseline("utils").load_run(run_config).result
    config = federation_config(fast=True)
    assert result.config == config and len(result.records) == config.n_tasks
    for record in result.records:
        assert record["winners"] and sum(record["payments"]) <= config.budget + 1e-9
    plot = importlib.import_module("plot_results")
    plot.main(["--run-config", "fast=true out='" + str(tmp_path / "out") + "'",
               "--to", str(tmp_path / "static")])
    name = f"{config.result_name()}_flower"
    assert (tmp_path / "static" / f"{name}_trajectories.png").stat().st_size > 10_000
    rows = (tmp_path / "static" / "results.md").read_text().splitlines()
    assert len(rows) == 3 and rows[2].startswith("| mnist | ours | 3 | 1: ")
