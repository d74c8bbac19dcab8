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

from fedlib.flower.counterexample_replay import Replay, replay_counterexample
from fedlib.flower.simulation import federate, round_cost, run_federation
from fedlib.flower.strategy import MechanismStrategy, TaskPlan

__all__ = ["MechanismStrategy", "Replay", "TaskPlan", "federate", "replay_counterexample",
           "round_cost", "run_federation"]
