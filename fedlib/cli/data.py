"""``python -m fedlib data {check,download}``: the MNIST and Fashion-MNIST files."""

from __future__ import annotations

import argparse
import sys


def _check(args: argparse.Namespace) -> int:
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


def _download(args: argparse.Namespace) -> int:
    from fedlib.fl import data

    print(f"downloaded into {data.download(args.root)}")
    return 0


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Register ``data {check,download}``."""
    parser = commands.add_parser("data", help="check or download MNIST and Fashion-MNIST")
    actions = parser.add_subparsers(dest="action", required=True)
    for name, func, text in (
        ("check", _check, "verify the files (exit 1 when something is missing or wrong)"),
        ("download", _download, "fetch the files with torchvision (needs the internet)"),
    ):
        sub = actions.add_parser(name, help=text)
        sub.add_argument("--root", default=None, help="data folder (default: $FEDLIB_DATA)")
        sub.set_defaults(func=func)
