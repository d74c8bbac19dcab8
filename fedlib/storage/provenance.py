"""Where a chapter's results came from, as a table.

:func:`provenance_html` renders the :class:`~fedlib.storage.stored.Provenance` that
:func:`~fedlib.storage.stored.obtain` returns with every result: a row per result (source, code
revision, compute time, date), then the machines that made them and the commands that
regenerate the stored files. :func:`seed_provenance_html` does the same for the runs of several
seeds (:func:`~fedlib.storage.stored.obtain_seeds`), one row per configuration. Both end with
the :func:`notes` of their stored files: what a file's own fields do not say about how it was
made (a checkout with uncommitted changes, a GPU, a run replaced, a pair of runs from two
machines), from ``results/notes.toml``.
"""

from __future__ import annotations

import html
import re
import tomllib
from collections.abc import Sequence
from pathlib import Path

from fedlib.storage.stored import Provenance, results_dir
from fedlib.table import Markup, html_table

#: How each :attr:`~fedlib.storage.stored.Provenance.source` is said in the table.
SOURCES = {"stored": "results/ file", "fast": "computed now (fast)", "recompute": "computed now"}


def provenance_html(provenances: Sequence[Provenance]) -> str:
    """Where each result came from: a row per result (source, code revision, compute time,
    date), then the machines and the commands that regenerate the stored files."""
    body = [[breakable(p.name), SOURCES[p.source],
             Markup(f"<code>{html.escape(p.git_revision[:10])}</code>"
                    + ("+" if p.git_revision.endswith("+dirty") else "")),
             f"{p.wall_time_s / 60:.1f} min", p.created[:10]]
            for p in provenances]
    return (html_table(["Result", "Source", "Code revision", "Compute", "Created"], body,
                       align="left")
            + _closing(provenances, sorted({p.command for p in provenances})))


def breakable(name: str) -> Markup:
    """A result's name that may break after its underscores (``<wbr>``): a long name such as
    ``coldstart_fashion_ours_budget_lr_momentum_fresh_model`` would otherwise widen its table
    past the page's column."""
    return Markup(html.escape(name).replace("_", "_<wbr>"))


#: The notes on stored files, under the results folder.
NOTES_FILE = "notes.toml"


def notes(folder: str | Path | None = None) -> list[tuple[tuple[str, ...], str]]:
    """The notes on the stored files of ``folder`` (default: the results folder): a list of
    (file names, text), each name a path under the folder without ``.json``."""
    path = Path(folder or results_dir()) / NOTES_FILE
    if not path.exists():
        return []
    with path.open("rb") as file:
        table = tomllib.load(file)
    return [(tuple(note["files"]), " ".join(note["text"].split()))
            for note in table.get("note", [])]


def stored_name(provenance: Provenance) -> str | None:
    """A stored result's path under the results folder without ``.json`` (None when it was
    computed, or lies elsewhere)."""
    path = provenance.path
    if path is None:
        return None
    folder = Path(results_dir()).resolve()
    full = path.resolve()
    return full.relative_to(folder).with_suffix("").as_posix() if full.is_relative_to(
        folder) else None


def _notes_html(provenances: Sequence[Provenance]) -> str:
    """The notes that concern these results, each with the names of its files among them."""
    names = {name for name in map(stored_name, provenances) if name}
    items = []
    for files, text in notes():
        these = sorted(names.intersection(files))
        if these:
            grouped = [f"{name} (seed{'s' if len(pairs) > 1 else ''} "
                       f"{_seed_list([seed for seed, _ in pairs])})"
                       for name, pairs in by_configuration(
                           [_named(n) for n in these]).items()]
            items.append(f"<li><b>{html.escape(', '.join(grouped))}</b>: "
                         f"{html.escape(text)}</li>")
    return f"<p>About these files:</p><ul>{''.join(items)}</ul>" if items else ""


def _named(name: str) -> Provenance:
    """A stand-in provenance carrying only ``name``, for :func:`by_configuration`."""
    return Provenance(name, "stored", None, "", "", 0.0, "", "")


def _closing(provenances: Sequence[Provenance], commands: Sequence[str]) -> str:
    """What follows a provenance table: the note on uncommitted changes (where a revision has
    them), the notes on the stored files, the machines with the environments that made the
    results, and the commands."""
    dirty = any(p.git_revision.endswith("+dirty") for p in provenances)
    note = ("<p>A revision marked + was computed from a checkout with uncommitted changes.</p>"
            if dirty else "") + _notes_html(provenances)
    machines = sorted({f"{p.machine}; {p.environment}" if p.environment else p.machine
                       for p in provenances})
    return (note + f"<p>Machine(s):</p><ul>{_items(machines)}</ul>"
            + f"<p>To regenerate the stored files:</p><ul>{_items(commands)}</ul>")


def _items(texts: Sequence[str]) -> str:
    return "".join(f"<li><code>{html.escape(t)}</code></li>" for t in texts)


#: The seed in a result's name (``_s<seed>``; seed 0's name has none).
_SEED = re.compile(r"_s(\d+)(?=_|$)")


def _seed_list(seeds: Sequence[int]) -> str:
    """``0-9`` for consecutive seeds, else the seeds listed (``0 2 5``)."""
    ordered = sorted(seeds)
    if len(ordered) > 1 and ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"{ordered[0]}-{ordered[-1]}"
    return " ".join(map(str, ordered))


def by_configuration(provenances: Sequence[Provenance]
                     ) -> dict[str, list[tuple[int, Provenance]]]:
    """The provenances grouped by configuration: the result's name without its seed (the
    ``_s<seed>`` of :func:`~fedlib.storage.stored.obtain_seeds`' files) to the ``(seed,
    provenance)`` pairs of its seeds, in the order given."""
    groups: dict[str, list[tuple[int, Provenance]]] = {}
    for p in provenances:
        found = _SEED.search(p.name)
        groups.setdefault(_SEED.sub("", p.name), []).append(
            (int(found.group(1)) if found else 0, p))
    return groups


def seed_provenance_html(provenances: Sequence[Provenance]) -> str:
    """Where the runs of several seeds came from: one row per configuration (the files of its
    seeds together: how many, their code revisions, their compute time and dates), then the
    machines and environments and the commands that regenerate every seed, each once (the
    pieces of a grid stored in pieces share one command)."""
    body, commands = [], []
    for name, group in by_configuration(provenances).items():
        seeds = [seed for seed, _ in group]
        revisions = sorted({p.git_revision[:8] + ("+" if p.git_revision.endswith("+dirty")
                                                  else "") for _, p in group})
        created = sorted(p.created[:10] for _, p in group)
        body.append([breakable(name), f"{len(group)} ({_seed_list(seeds)})", ", ".join(revisions),
                     f"{sum(p.wall_time_s for _, p in group) / 60:.0f} min",
                     created[0] if created[0] == created[-1] else
                     f"{created[0]} to {created[-1]}"])
        first = min(group, key=lambda pair: pair[0])[1]
        commands.append(re.sub(r" --seeds \d+", "", first.command).replace(
            " --device", f" --seeds {_seed_list(seeds)} --device", 1))
    return (html_table(["Result", "Seeds", "Code revisions", "Compute", "Created"], body,
                       align="left") + _closing(provenances, list(dict.fromkeys(commands))))
