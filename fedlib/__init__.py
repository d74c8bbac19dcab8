"""fedlib: the reputation-and-contribution auction for horizontal federated learning.

Reference implementation of Zhang, Wu and Pan, *Auction-Based Ex-Post-Payment Incentive
Mechanism Design for Horizontal Federated Learning with Reputation and Contribution
Measurement*. Layers depend downwards only: ``cli``/``viz`` -> ``experiments`` -> ``fl`` ->
``mechanism``, with ``paper``, ``table``, ``runtime`` and ``book`` at the bottom.
``fedlib.mechanism`` is numpy only and never imports torch.

``fedlib.check_mechanism`` (:func:`fedlib.conformance.check_mechanism`) certifies a mechanism
of one's own; it is imported on first use, so that ``import fedlib`` stays light and the
package's root imports no layer.
"""

import importlib
from typing import Any

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    if name == "check_mechanism":
        return importlib.import_module("fedlib.conformance").check_mechanism
    raise AttributeError(f"module 'fedlib' has no attribute {name!r}")
