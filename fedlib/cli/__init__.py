"""Command line: ``python -m fedlib data {check,download}`` (:mod:`fedlib.cli.data`),
``python -m fedlib reproduce`` (:mod:`fedlib.cli.reproduce`), ``python -m fedlib federate``
(:mod:`fedlib.cli.federate`) and ``python -m fedlib check-mechanism``
(:mod:`fedlib.cli.check_mechanism`).

Usage errors (a bad value, a flag an experiment does not take) end with exit status 2 and one
line naming the argument; a problem found while running (missing data files, say) with exit
status 1 and its message, never a traceback. The library reports through :mod:`logging` (the
``fedlib`` logger): quiet by default, ``-v`` shows each task, ``-vv`` everything.
"""

from __future__ import annotations

import argparse
import logging
import sys

import fedlib
from fedlib.cli import check_mechanism, data, federate, reproduce
from fedlib.cli.text import plain
from fedlib.fl.data import DataError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m fedlib", description=plain(__doc__),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"fedlib {fedlib.__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="report progress through logging (-v: each task, -vv: all)")
    commands = parser.add_subparsers(dest="command", required=True)
    data.add_parser(commands)
    reproduce.add_parser(commands)
    federate.add_parser(commands)
    check_mechanism.add_parser(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    level = {0: logging.WARNING, 1: logging.INFO}.get(args.verbose, logging.DEBUG)
    logging.basicConfig(level=level, format="%(name)s: %(message)s")
    try:
        return int(args.func(args))
    except (DataError, FileNotFoundError) as error:  # the message says what to do
        print(f"python -m fedlib: error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
