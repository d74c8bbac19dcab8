"""Command line: ``python -m fedlib data {check,download}`` (:mod:`fedlib.cli.data`) and
``python -m fedlib reproduce`` (:mod:`fedlib.cli.reproduce`)."""

from __future__ import annotations

import argparse

from fedlib.cli import data, reproduce


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m fedlib", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    data.add_parser(commands)
    reproduce.add_parser(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
