"""The paper itself: its settings, its printed numbers, its worked examples and our readings.

Zhang, Wu and Pan, *Auction-Based Ex-Post-Payment Incentive Mechanism Design for Horizontal
Federated Learning with Reputation and Contribution Measurement*. The bottom layer of fedlib:
it imports no other fedlib module, so the mechanism, the federated layer, the experiments and
the book may all read it.

Modules: ``settings`` (the grids and parameters of Section 6 that several modules use),
``numbers`` (the paper's Tables 1-3, to print beside ours), ``examples`` (the small auctions
that the chapters and the tests share, among them the counterexamples to Theorem 4 and to its
proof) and ``readings`` (every place where the paper is silent, ambiguous or wrong, and what
fedlib does there; the reproducibility chapter renders it).

Equation numbers in fedlib count the paper's displayed equations in order: (1) utility,
(2) sample weight ``w_j``, (3) contribution, (4) Gompertz input ``x_i``, (5) internal
reputation ``re``, (6) moving average, (7) ``n+``, (8) ``n-``, (9) ``Re_i - Re_j``, (10) ``h``,
(11) ``g``, (12) ``alpha``, (13) ``Re`` update, (14) ``rho*``, (15) ``p_up``, (16) ``p_i``.
"""
