"""fedlib: the reputation-and-contribution auction for horizontal federated learning.

Reference implementation of Zhang, Wu and Pan, *Auction-Based Ex-Post-Payment Incentive
Mechanism Design for Horizontal Federated Learning with Reputation and Contribution
Measurement*. Layers depend downwards only: ``cli``/``viz`` -> ``experiments`` -> ``fl`` ->
``mechanism``, with ``paper``, ``table``, ``runtime`` and ``book`` at the bottom.
``fedlib.mechanism`` is numpy only and never imports torch.
"""

__version__ = "0.1.0"
