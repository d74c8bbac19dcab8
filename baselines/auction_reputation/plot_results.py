"""Redraw the figures and tables of the README from the runs' results.

Give each run's ``--run-config`` as it was given to ``flwr run``; the script reads what the
ServerApp wrote for it (``<out>/<name>_flower.json``) and writes, into ``--to``:

* ``<name>_trajectories.png``: each data-accuracy group's accumulated reputation and mean
  payment, task by task (the paper's Tables 1-2 in time);
* ``results.md``: one row per run with Table 1 (mean payment of each group's winners and its
  reputation after the last task), Table 2 (share of the evaluated selections with data
  accuracy 1.0) and Table 3 (mean test loss of the final global models).

Example (from this folder, after the README's commands)::

    python plot_results.py --run-config "fast=true" --to _static
"""

from __future__ import annotations

import argparse
from pathlib import Path

from auction_reputation.utils import load_run
from flwr.common.config import parse_config_args

from fedlib.experiments.multitask import MultiTaskResult
from fedlib.experiments.table_summaries import table1, table2, table3
from fedlib.viz.multitask_figures import trajectories_figure


def summary_row(result: MultiTaskResult) -> str:
    """The Markdown row of one run: Tables 1-3 of the paper, computed from its records."""
    config = result.config
    groups = table1(result)
    table_1 = "; ".join(f"{dacc:g}: {row['payment']:.3f} / {row['reputation']:.3f}"
                        for dacc, row in groups.items())
    return (f"| {config.dataset} | {config.mechanism} | {len(result.records)} | {table_1} | "
            f"{table2(result):.3f} | {table3(result):.4f} |")


def main(argv: list[str] | None = None) -> None:
    """Write the figures and ``results.md`` of every run named on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run-config", action="append", required=True,
                        help="a run's --run-config, as given to flwr run (repeatable)")
    parser.add_argument("--to", type=Path, default=Path("_static"),
                        help="folder for the figures and results.md (default: _static)")
    args = parser.parse_args(argv)
    args.to.mkdir(parents=True, exist_ok=True)
    rows = ["| dataset | mechanism | tasks | Table 1: dacc: payment / Re | "
            "Table 2: share dacc 1.0 | Table 3: test loss |", "|---|---|---|---|---|---|"]
    for text in args.run_config:
        result = load_run(parse_config_args([text])).result
        name = f"{result.config.result_name()}_flower"
        figure = trajectories_figure({result.config.dataset: result})
        figure.savefig(args.to / f"{name}_trajectories.png", dpi=120)
        rows.append(summary_row(result))
        print(f"{args.to / f'{name}_trajectories.png'}")
    (args.to / "results.md").write_text("\n".join(rows) + "\n")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
