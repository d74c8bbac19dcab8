"""The ``reproduce`` command: the paper's experiments from the command line."""

from __future__ import annotations

import argparse


def add_reproduce_parser(commands: argparse._SubParsersAction) -> None:
    """Register ``reproduce {contribution,mechanisms,tables}``."""
    sub = commands.add_parser("reproduce", help="run one of the paper's experiments")
    sub.add_argument("experiment", choices=["contribution", "mechanisms", "tables"])
    sub.add_argument("--dataset", choices=["mnist", "fashion"], default="mnist")
    sub.add_argument("--fast", action="store_true", help="a small smoke-sized run")
    sub.add_argument("--out", default="results", help="folder for the JSON results")
    sub.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    sub.set_defaults(func=_reproduce)


def _reproduce(args: argparse.Namespace) -> int:
    raise SystemExit("reproduce is not implemented yet")
