"""The ServerApp and ClientApp that ``flwr run`` loads (``[tool.flwr.app.components]`` in
pyproject.toml).

The run configuration (``[tool.flwr.app.config]``, each key overridable with
``flwr run . --run-config "tasks=5 fast=false"``) names the run as ``python -m fedlib federate``
does: ``dataset``, ``mechanism``, ``tasks`` (0: the setting's), ``budget`` (0: the setting's),
``seed``, ``fast``, and ``out``, the folder the result JSON is written to (an absolute path: the
ServerApp does not run in the project folder). The federation needs one node per worker: 6 with
``fast``, 30 for the Tables 1-3 setting (``options.num-supernodes``).
"""

from __future__ import annotations

from flwr.app import Context
from flwr.serverapp import Grid, ServerApp

from fedlib.experiments.federation import federation_config
from fedlib.flower.client import client_app
from fedlib.flower.strategy import MechanismStrategy
from fedlib.storage import results

server_app = ServerApp()


@server_app.main()
def main(grid: Grid, context: Context) -> None:
    """Run the configured federation and save its result."""
    run = context.run_config
    config = federation_config(str(run["dataset"]), str(run["mechanism"]),
                               int(run["tasks"]) or None, float(run["budget"]) or None,
                               int(run["seed"]), bool(run["fast"]))
    result = MechanismStrategy(config).start(grid)
    path = results.save_result(f"{config.result_name()}_flower", config, result.records,
                               str(run["out"]), wall_time_s=result.wall_time_s)
    print(f"{path}: {len(result.records)} tasks in a Flower federation in "
          f"{result.wall_time_s:.0f} s")


__all__ = ["client_app", "server_app"]
