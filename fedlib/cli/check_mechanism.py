"""``python -m fedlib check-mechanism``: search a mechanism of one's own for counterexamples to
the paper's properties.

``python -m fedlib check-mechanism PATH.py:CLASS|MODULE:CLASS [--claims P ...]
[--instances N] [--seed S] [--trials T] [--out DIR] [--federated {none,fast,mnist}]
[--engine {batched,flower}] [--replay {none,flower}] [--replay-runtime
{simulation,deployment,both}]`` loads the mechanism (any class or object with ``name``,
``label``, ``claims``, ``knows``, ``select`` and ``pay``: see
:class:`fedlib.conformance.MechanismBase` and ``examples/``), searches adversarial instances
and N random ones of 1 to 200 workers (many at the paper's 30-100) for counterexamples to
budget feasibility, individual rationality, truthfulness and monotonicity, with workers
misreporting their bid or delivering less, alone and (for the budget) in pairs, and times it;
compares it with the paper's seven mechanisms in the Figures 4-5 sweeps, optionally runs it
beside ours in a federation, prints the certificate and writes ``<out>/<name>.json`` and
``<out>/<name>.html`` (:func:`fedlib.conformance.check_mechanism`). ``--replay flower`` replays
each refuted claim's counterexample in which one worker misreports in a Flower federation, on
the Simulation Runtime, the Deployment Runtime over the loopback, or both: that worker's
ClientApp bids and delivers as the counterexample says, the others truthfully, and a table
gives its payment and utility measured in the federation beside the kit's prediction
(:func:`fedlib.flower.replay_counterexample`).

A search is finite: a property without a counterexample reads "no counterexample in N
instances of up to n workers, M misreports each", and ``efficient`` states the exponent
fitted ("CPU time ~ n^1.02 over n = 1000..30000"). The certificate also gives the ex-post
regret, the IR violation and the budget overrun (mean and maximum), and the regret on the
paper's Theorem 4 counterexample.

The exit status is 0 when the search found no counterexample to any claimed property, 1 when
it refuted one (the certificate names it) or a replay disagrees with the kit's prediction
(it says so), 2 on a usage error (a mechanism that cannot be
loaded or does not fit the protocol) or when the data a federated run needs is missing (the
message says how to get it).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from typing import Any

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

#: The Flower runtimes of each ``--replay-runtime`` (:data:`fedlib.flower.simulation.RUNTIMES`).
RUNTIMES = {"simulation": ("simulation",), "deployment": ("deployment",),
            "both": ("simulation", "deployment")}


def _check(args: argparse.Namespace) -> int:
    if args.engine == "flower" and args.federated == "none":
        args.parser.error("--engine flower runs a federation: add --federated fast or mnist")
    for option in ("engine", "replay"):
        if getattr(args, option) == "flower" and importlib.util.find_spec("flwr") is None:
            args.parser.error(f"--{option} flower needs the Flower extra: pip install -r "
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
    agrees = args.replay == "none" or _replay(certificate, RUNTIMES[args.replay_runtime])
    return 0 if certificate.passed and agrees else 1


def _replay(certificate: Any, runtimes: tuple[str, ...]) -> bool:
    """Replay each refuted claim's counterexample with one misreporting worker in a Flower
    federation on each of ``runtimes``, print what was measured beside the prediction (and
    which claims are not replayed, and why); whether every replay agrees with the kit."""
    from fedlib.flower.counterexample_replay import replay_counterexample, replayable

    agrees, done = True, {}
    for prop in certificate.refuted:
        found = certificate.search.verdict(prop).counterexample
        same = None if found is None else json.dumps(
            {k: v for k, v in found.to_dict().items() if k not in ("property", "text", "origin")})
        why = ("it has no counterexample play" if found is None else
               f"its counterexample is {done[same]}'s, replayed above" if same in done
               else replayable(found))
        if why:
            print(f"replay: {prop} not replayed: {why}")
            continue
        done[same] = prop
        for runtime in runtimes:
            replay = replay_counterexample(found, certificate.mechanism, runtime=runtime)
            print(replay.table())
            if not replay.agrees:
                agrees = False
                print(f"replay: the federation DISAGREES with the kit's prediction of {prop}'s "
                      f"counterexample on the {runtime} runtime")
    return agrees


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
    sub.add_argument("--replay", choices=["none", "flower"], default="none",
                     help="replay each refuted claim's counterexample with a misreporting "
                          "worker in a Flower federation (needs the Flower extra)")
    sub.add_argument("--replay-runtime", choices=list(RUNTIMES), default="both",
                     help="Flower runtime(s) of --replay (default both)")
    sub.set_defaults(func=_check, parser=sub)
