"""The command line the benchmarks that time growing sizes share."""

from __future__ import annotations

import argparse


def parse_sizes(doc: str, argv: list[str] | None, sizes: list[int],
                repeats: int) -> argparse.Namespace:
    """``--sizes``, ``--repeats``, ``--seed`` and ``--json`` of a benchmark whose module
    docstring is ``doc``, with its default ``sizes`` and ``repeats``."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=sizes)
    parser.add_argument("--repeats", type=int, default=repeats)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    return parser.parse_args(argv)
