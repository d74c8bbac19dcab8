"""The workers' ClientApp (``[tool.flwr.app.components] clientapp``).

A node is the worker its ``partition-id`` names: it bids its private cost, trains the global
model on its partition for one local epoch per round and takes its ex-post payment:
:data:`fedlib.flower.client.client_app`.
"""

from fedlib.flower.client import client_app as app

__all__ = ["app"]
