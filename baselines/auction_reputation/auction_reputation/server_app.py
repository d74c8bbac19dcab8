"""The publisher's ServerApp (``[tool.flwr.app.components] serverapp``).

It reads the run from ``context.run_config`` (``[tool.flwr.app.config]``), runs every task
(bids, the auction of Algorithm 1, the strategy's global rounds, ex-post payments and the
reputation update of Eqs. 10-13) and writes the result to ``<out>/<name>_flower.json``:
:data:`fedlib.flower.app.server_app`.
"""

from fedlib.flower.app import server_app as app

__all__ = ["app"]
