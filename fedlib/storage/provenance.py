"""Where a chapter's results came from, as a table: :func:`provenance_html`.

It renders the :class:`~fedlib.storage.stored.Provenance` that :func:`~fedlib.storage.stored.
obtain` returns with every result: a row per result (source, code revision, compute time,
date), then the machines that made them and the commands that regenerate the stored files.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from fedlib.storage.stored import Provenance
from fedlib.table import Markup, html_table

#: How each :attr:`~fedlib.storage.stored.Provenance.source` is said in the table.
SOURCES = {"stored": "results/ file", "fast": "computed now (fast)", "recompute": "computed now"}


def provenance_html(provenances: Sequence[Provenance]) -> str:
    """Where each result came from: a row per result (source, code revision, compute time,
    date), then the machines and the commands that regenerate the stored files."""
    body = [[p.name, SOURCES[p.source],
             Markup(f"<code>{html.escape(p.git_revision[:10])}</code>"
                    + ("+" if p.git_revision.endswith("+dirty") else "")),
             f"{p.wall_time_s / 60:.1f} min", p.created[:10]]
            for p in provenances]
    machines = sorted({p.machine for p in provenances})
    commands = sorted({p.command for p in provenances})
    dirty = any(p.git_revision.endswith("+dirty") for p in provenances)
    note = ("<p>A revision marked + was computed from a checkout with uncommitted changes.</p>"
            if dirty else "")
    return (html_table(["Result", "Source", "Code revision", "Compute", "Created"], body,
                       align="left") + note
            + f"<p>Machine(s):</p><ul>{_items(machines)}</ul>"
            + f"<p>To regenerate the stored files:</p><ul>{_items(commands)}</ul>")


def _items(texts: Sequence[str]) -> str:
    return "".join(f"<li><code>{html.escape(t)}</code></li>" for t in texts)
