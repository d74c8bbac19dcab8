"""``python -m fedlib check-mechanism``: search a mechanism of one's own for counterexamples to
the paper's properties.

``python -m fedlib check-mechanism PATH.py:CLASS|MODULE:CLASS [--claims P ...]
[--instances N] [--seed S] [--trials T] [--out DIR] [--federated {none,fast,mnist}]
[--engine {batched,flower}]`` loads the mechanism (any class or object with ``name``,
``label``, ``claims``, ``knows``, ``select`` and ``pay``: see
:class:`fedlib.conformance.MechanismBase` and ``examples/``), searches adversarial instances
and N random ones of 1 to 200 workers (many at the paper's 30-100) for counterexamples to
budget feasibility, individual rationality, truthfulness and monotonicity, with workers
misreporting their bid or delivering less, alone and (for the budget) in pairs, and times it;
compares it with the paper's seven mechanisms in the Figures 4-5 sweeps, optionally runs it
beside ours in a federation, prints the certificate and writes ``<out>/<name>.json`` and
``<out>/<name>.html`` (:func:`fedlib.conformance.check_mechanism`).

A search is finite: a property without a counterexample reads "no counterexample in N
instances of up to n workers, M misreports each", and ``efficient`` states the exponent
fitted ("CPU time ~ n^1.02 over n = 1000..30000"). The certificate also gives the ex-post
regret, the IR violation and the budget overrun (mean and maximum), and the regret on the
paper's Theorem 4 counterexample.

The exit status is 0 when the search found no counterexample to any claimed property, 1 when
it refuted one (the certificate names it), 2 on a usage error (a mechanism that cannot be
loaded or does not fit the protocol) or when the data a federated run needs is missing (the
message says how to get it).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys

from fedlib.cli.reproduce import at_least
from fedlib.cli.text import plain
from fedlib.conformance import check_mechanism
from fedlib.conformance.comparison import DEFAULT_TRIALS
from fedlib.conformance.federated_run import SETTINGS
from fedlib.conformance.mechanism_check import DEFAULT_INSTANCES
from fedlib.conformance.protocol import load
from fedlib.conformance.report import save
from fedlib.conformance.search import SIZES
from fedlib.fl.data import DataError
from fedlib.mechanism import CLAIMABLE


def _check(args: argparse.Namespace) -> int:
    if args.engine == "flower" and args.federated == "none":
        args.parser.error("--engine flower runs a federation: add --federated fast or mnist")
    if args.engine == "flower" and importlib.util.find_spec("flwr") is None:
        args.parser.error("--engine flower needs the Flower extra: pip install -r "
                          "requirements-flower.txt")
    try:
        mechanism = load(args.mechanism)
    except ValueError as error:
        args.parser.error(str(error))
    try:
        certificate = check_mechanism(mechanism, claims=args.claims, instances=args.instances,
                                      seed=args.seed, trials=args.trials,
                                      federated=args.federated, engine=args.engine)
    except DataError as error:  # the environment's, not the mechanism's: not status 1
        print(f"{args.parser.prog}: error: {error}", file=sys.stderr)
        return 2
    json_path, html_path = save(certificate, args.out)
    print(certificate.summary())
    print(f"certificate: {json_path} and {html_path}")
    return 0 if certificate.passed else 1


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Register ``check-mechanism``."""
    sub = commands.add_parser("check-mechanism", help="search a mechanism of your own for "
                              "counterexamples to the paper's properties",
                              description=plain(__doc__),
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    sub.add_argument("mechanism", metavar="PATH_OR_MODULE:CLASS",
                     help="e.g. examples/reserve.py:Reserve")
    sub.add_argument("--claims", nargs="+", choices=CLAIMABLE, default=None,
                     metavar="PROPERTY", help="check these instead of the mechanism's claims: "
                                              + ", ".join(CLAIMABLE))
    sub.add_argument("--instances", type=at_least(int, 0), default=DEFAULT_INSTANCES,
                     help=f"random instances searched (default {DEFAULT_INSTANCES}), of "
                          + ", ".join(f"{lo}-{hi} workers ({100 * share:.0f}%%)"
                                      for lo, hi, share in SIZES))
    sub.add_argument("--seed", type=at_least(int, 0), default=0, help="seed of everything")
    sub.add_argument("--trials", type=at_least(int, 0), default=DEFAULT_TRIALS,
                     help=f"worker pools per point of the Figures 4-5 sweeps (default "
                          f"{DEFAULT_TRIALS}; 0: no comparison)")
    sub.add_argument("--out", default="certificates",
                     help="folder for <name>.json and <name>.html (default certificates)")
    sub.add_argument("--federated", choices=SETTINGS, default="none",
                     help="also run it beside ours: fast (6 workers, 3 tasks) or mnist (the "
                          "Tables 1-3 setting, long)")
    sub.add_argument("--engine", choices=["batched", "flower"], default="batched",
                     help="engine of the federated runs")
    sub.set_defaults(func=_check, parser=sub)
