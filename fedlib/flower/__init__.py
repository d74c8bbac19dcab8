"""The mechanism in a Flower federation (``pip install -r requirements-flower.txt``).

* :mod:`fedlib.flower.client`: the workers' ClientApp (bid, local training, payment);
* :mod:`fedlib.flower.strategy`: the publisher's strategy for the global rounds of a task
  (scored and aggregated with omega), a Flower ``Strategy`` on its message API;
* :mod:`fedlib.flower.publisher`: the publisher's loop over the tasks (bids, auction, the
  strategy's rounds, ex-post payment, reputations), which the ServerApp runs;
* :mod:`fedlib.flower.app`: the ServerApp that ``flwr run`` loads;
* :mod:`fedlib.flower.answers`: the ServerApp's record of the requests each worker answered;
* :mod:`fedlib.flower.settings`: the run configuration both apps read;
* :mod:`fedlib.flower.worker_data`: the workers' data through Flower Datasets (a
  ``Partitioner`` serving the worker pool; ``DirichletPartitioner`` for label skew);
* :mod:`fedlib.flower.launch`: a SuperLink and SuperNodes on this machine, the app bundle;
* :mod:`fedlib.flower.simulation`: a run through ``flwr run`` on the Simulation or the
  Deployment Runtime, and the cost of a round;
* :mod:`fedlib.flower.node_failure`: a winner's SuperNode stopped mid-task on the Deployment
  Runtime;
* :mod:`fedlib.flower.replay`: one play of a conformance-kit counterexample as a one-auction
  run (the plan in the run configuration, the publisher's side);
* :mod:`fedlib.flower.counterexample_replay`: a counterexample's plays replayed in a federation and
  compared with the kit's prediction.

The batched engine (:mod:`fedlib.fl.engine`) stays the book's engine; this path is for
federations of one's own and for scaling out over machines.
"""

try:
    import flwr  # noqa: F401
except ImportError as error:  # pragma: no cover - depends on the installed extras
    raise ImportError("fedlib.flower needs Flower: install it with "
                      "pip install -r requirements-flower.txt (or pip install -e \".[flower]\")"
                      ) from error

import importlib
from typing import Any

#: Each name the package exports and the module that defines it. They are imported on first
#: use (PEP 562), so that a ClientApp process, which imports :mod:`fedlib.flower.client` for
#: every message it answers on the Deployment Runtime, does not also import the launcher and
#: the counterexample replay of the publisher's side.
_EXPORTS = {"Replay": "counterexample_replay", "replay_counterexample": "counterexample_replay",
            "federate": "simulation", "round_cost": "simulation",
            "run_federation": "simulation", "MechanismStrategy": "strategy",
            "TaskPlan": "strategy"}


def __getattr__(name: str) -> Any:
    """An exported name, imported from its module on first use."""
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)


__all__ = sorted(_EXPORTS)
