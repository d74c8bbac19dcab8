"""The ServerApp that ``flwr run`` loads (``[tool.flwr.app.components]`` in the app's
pyproject.toml; the ClientApp is :data:`fedlib.flower.client.client_app`).

The ServerApp reads the run from its run configuration (:mod:`fedlib.flower.settings`), runs
its tasks (:func:`fedlib.flower.publisher.run_tasks`) and writes the result in the batched
engine's format to ``<out>/<name>_flower.json`` and each task's wall seconds to
``<out>/.seconds/<name>_flower.json``; a run with a ``replay`` plays that one auction instead
(:func:`fedlib.flower.replay.serve`) and writes ``<out>/replay.json``. Either way the requests
each worker answered go to ``<out>/answers.jsonl`` as they arrive (:mod:`fedlib.flower.answers`).
The federation needs one node per worker: 6 with ``fast``, 30 for the Tables 1-3 setting.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import cast

from flwr.app import Context
from flwr.serverapp import Grid, ServerApp

from fedlib.flower.answers import AnsweringGrid
from fedlib.flower.client import client_app
from fedlib.flower.publisher import run_tasks
from fedlib.flower.replay import serve
from fedlib.flower.settings import RunSettings
from fedlib.storage import results

server_app = ServerApp()


@server_app.main()
def main(grid: Grid, context: Context) -> None:
    """Run the configured federation (or replay) and save its result."""
    settings = RunSettings.from_run_config(context.run_config)
    grid = cast(Grid, AnsweringGrid(grid, settings.out))
    if settings.replay is not None:
        print(f"{serve(grid, settings.replay, settings.out, settings.timeout)}: a replay of "
              f"{settings.replay.mechanism} with {settings.replay.instance.n} workers")
        return
    config = settings.config
    run = run_tasks(grid, config, timeout=settings.timeout)
    name = f"{config.result_name()}_flower"
    timing = Path(settings.out) / ".seconds" / f"{name}.json"
    timing.parent.mkdir(parents=True, exist_ok=True)
    timing.write_text(json.dumps({"task_seconds": list(run.task_seconds)}))
    path = results.save_result(name, config, run.result.records, settings.out,
                               wall_time_s=run.result.wall_time_s)
    print(f"{path}: {len(run.result.records)} tasks in a Flower federation in "
          f"{run.result.wall_time_s:.0f} s")


__all__ = ["client_app", "server_app"]
