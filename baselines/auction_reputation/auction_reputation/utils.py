"""The run configuration and the run's result.

:data:`RUN_CONFIG` lists the keys of ``[tool.flwr.app.config]`` with their defaults
(:mod:`fedlib.flower.settings` documents each); :func:`load_run` reads back what the
ServerApp wrote for a run configuration.
"""

from collections.abc import Mapping
from typing import Any

from fedlib.flower.publisher import FederationRun
from fedlib.flower.settings import RUN_CONFIG, RunSettings
from fedlib.flower.simulation import read_run


def load_run(run_config: Mapping[str, Any]) -> FederationRun:
    """The result the ServerApp saved for ``run_config`` (the ``--run-config`` of its
    ``flwr run``): the records in the batched engine's format and each task's seconds."""
    settings = RunSettings.from_run_config(run_config)
    return read_run(settings.out, settings.config)


__all__ = ["RUN_CONFIG", "RunSettings", "load_run"]
