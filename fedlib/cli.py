"""Command line: ``python -m fedlib data {check,download}`` and ``python -m fedlib reproduce``."""

from __future__ import annotations

import argparse
import sys


def _data_check(args: argparse.Namespace) -> int:
    from fedlib.fl import data

    rows = data.check(args.root)
    for row in rows:
        status = "ok" if row["ok"] else "PROBLEM"
        samples = row["samples"] if row["samples"] is not None else "-"
        print(f"{row['dataset']:8} {row['split']:5} {samples:>6} md5 {status:7} {row['path']}")
    problems = [row for row in rows if not row["ok"]]
    for row in problems:
        print(f"\n{row['dataset']} {row['split']}: {row['problem']}", file=sys.stderr)
    return 1 if problems else 0


def _data_download(args: argparse.Namespace) -> int:
    from fedlib.fl import data

    print(f"downloaded into {data.download(args.root)}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m fedlib", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    data_parser = commands.add_parser("data", help="check or download MNIST and Fashion-MNIST")
    data_commands = data_parser.add_subparsers(dest="action", required=True)
    for name, func, text in (
        ("check", _data_check, "verify the files (exit 1 when something is missing or wrong)"),
        ("download", _data_download, "fetch the files with torchvision (needs the internet)"),
    ):
        sub = data_commands.add_parser(name, help=text)
        sub.add_argument("--root", default=None, help="data folder (default: $FEDLIB_DATA)")
        sub.set_defaults(func=func)

    from fedlib.experiments.cli import add_reproduce_parser

    add_reproduce_parser(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
