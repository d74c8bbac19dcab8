"""What the mechanism does, computed with numpy alone: no model is trained here.

The analyses the chapters run on :mod:`fedlib.mechanism` (Algorithm 1 step by step, the
theorems checked on many instances, misreporting, ex-ante against ex-post payment, reputation
paths, selection timing, the auction's steady state under Table 1's reputations), the
statistics read off contribution records and mechanism sweeps, and
:class:`~fedlib.analysis.claims.Claim`, the one shape in which every analysis and experiment
reports what it checks. This layer sits beside :mod:`fedlib.fl` above the mechanism, and below
:mod:`fedlib.experiments`, which trains; importing it does not import torch.
"""
