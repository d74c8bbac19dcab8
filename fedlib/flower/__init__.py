"""The mechanism in a Flower federation (``pip install -e ".[flower]"``).

* :mod:`fedlib.flower.client`: the workers' ClientApp (bid, local training, payment);
* :mod:`fedlib.flower.strategy`: the publisher's strategy (auction, rounds scored and
  aggregated with omega, ex-post payment, reputations), on Flower's message API;
* :mod:`fedlib.flower.simulation`: a run on Flower's Simulation Runtime (Ray);
* :mod:`fedlib.flower.app`: the ServerApp and ClientApp that ``flwr run`` loads.

The batched engine (:mod:`fedlib.fl.engine`) stays the book's engine; this path is for
federations of one's own and for scaling out over machines.
"""

try:
    import flwr  # noqa: F401
except ImportError as error:  # pragma: no cover - depends on the installed extras
    raise ImportError("fedlib.flower needs Flower: install it with "
                      "pip install -r requirements-flower.txt (or pip install -e \".[flower]\")"
                      ) from error

from fedlib.flower.client import make_client_app
from fedlib.flower.simulation import round_cost, run_federation
from fedlib.flower.strategy import MechanismStrategy

__all__ = ["MechanismStrategy", "make_client_app", "round_cost", "run_federation"]
