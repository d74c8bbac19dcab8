"""A certificate on disk: JSON for programs, one self-contained HTML page for a person.

The page states the verdict, a table of the properties (what each means, whether it is
claimed, its verdict, what was searched for it, its measure and the smallest counterexample),
the measures (regret, IR violation, budget overrun) with the regret plotted against the number
of workers and stated for Theorem 4's counterexample, each counterexample worker by worker,
the running time, the Figures 4-5 comparison with its figures embedded as PNG, the federated
runs, what the search tried and the machine it ran on.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt

from fedlib.conformance.certificate import (
    COLOURS,
    NO_COUNTEREXAMPLE,
    Certificate,
    measures_table,
    theorem4_text,
    verdict_html,
)
from fedlib.conformance.figures import regret_figure
from fedlib.conformance.search import ANCHORS, BIDS, DEVIANTS, PAIRS, PAPER_SIZES
from fedlib.table import html_table

_STYLE = """body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;
line-height:1.45}table{border-collapse:collapse;margin:0.6em 0}th,td{border-bottom:1px solid
#ddd;vertical-align:top}caption{text-align:left;font-style:italic;padding:4px 0}
.verdict{font-size:1.3em;font-weight:bold;padding:0.5em 0.8em;border-radius:4px;color:white}
figure{margin:1em 0}figure img{max-width:100%}figcaption{font-style:italic}"""


def _plain(value: Any) -> Any:
    """``value`` with every non-finite float as None (strict JSON)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


def _figure(caption: str, fig: Any) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=80)
    plt.close(fig)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return (f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{html.escape(caption)}</figcaption></figure>")


def report_html(cert: Certificate) -> str:
    """The certificate as one HTML page (figures embedded)."""
    m = cert.mechanism
    colour = COLOURS[NO_COUNTEREXAMPLE if cert.passed else "REFUTED"]
    verdict = ("No counterexample to any claimed property in this search." if cert.passed
               else f"Refuted: {', '.join(cert.refuted)}.")
    parts = [f"<h1>Certificate of {html.escape(m.label)} (<code>{html.escape(m.name)}</code>)"
             "</h1>",
             f'<p class="verdict" style="background:{colour}">{html.escape(verdict)}</p>',
             f"<p>From <code>{html.escape(cert.source)}</code>; claims "
             f"{html.escape(', '.join(sorted(cert.claims)))}. Checked on "
             f"{cert.created} by fedlib {cert.fedlib_version}.</p>",
             "<h2>Properties</h2>", verdict_html(cert.search, cert.claims, meaning=True),
             "<h2>Measures</h2>", measures_table(cert.search)._repr_html_()]
    theorem4 = theorem4_text(cert.theorem4)
    parts += [f"<p>{html.escape(theorem4)}.</p>"] if theorem4 else []
    if cert.search.records:
        parts.append(_figure("The largest ex-post regret of each instance's examined workers, "
                             "relative to the worker's cost, against its number of workers",
                             regret_figure(cert.search)))
    for v in cert.search.verdicts:
        if v.counterexample is not None:
            cex = v.counterexample
            parts += [f"<h3>Counterexample to {v.property}</h3>",
                      f"<p>{html.escape(cex.text)}.</p>", cex.table()._repr_html_()]
    if cert.search.timing is not None:
        parts += ["<h2>Running time</h2>",
                  f"<p>{html.escape(cert.search.verdict('efficient').measured)} (CPU time of "
                  "select, then pay, on the paper's synthetic workers with B = n).</p>",
                  cert.search.timing.table()._repr_html_()]
    if cert.comparison is not None:
        parts += ["<h2>Beside the paper's mechanisms (Figures 4-5)</h2>",
                  cert.comparison.table()._repr_html_()]
        parts += [_figure(caption, fig) for caption, fig in cert.comparison.figures().items()]
    if cert.federated is not None:
        parts += ["<h2>Federated runs</h2>", cert.federated.table()._repr_html_()]
    parts += [f"<p><b>{part}</b> not run: {html.escape(why)}</p>"
              for part, why in cert.skipped.items()]
    s = cert.search
    parts += ["<h2>What was tried</h2>",
              f"<p>{s.cases} instances ({s.random_cases} random, seed {s.seed}) of up to "
              f"{s.largest} workers, {s.paper_sized} of them with {PAPER_SIZES[0]}-"
              f"{PAPER_SIZES[1]}; random sizes (fewest, most, share): "
              f"{html.escape(', '.join(f'{lo}-{hi}: {share:.0%}' for lo, hi, share in s.sizes))}"
              f". In each instance at most {DEVIANTS} workers misreport alone (a sample, half "
              f"winners, in larger instances), each trying at most {BIDS} bids of its deviation "
              f"grid and {len(ANCHORS)} multiples of its cost, then delivering less; {PAIRS} "
              f"pairs misreport together. {s.plays} plays of the mechanism, in "
              f"{s.seconds:.1f} s.</p>",
              "<h2>Environment</h2>",
              html_table(("field", "value"), [(key, str(value)) for key, value in
                                              cert.environment.items()], align="left")]
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Certificate of "
            f"{html.escape(m.label)}</title><style>{_STYLE}</style></head><body>"
            + "\n".join(parts) + "</body></html>\n")


def save(cert: Certificate, out: str | Path) -> tuple[Path, Path]:
    """Write ``<out>/<name>.json`` (strict JSON: NaN as null) and ``<out>/<name>.html``;
    their paths."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    json_path = folder / f"{cert.mechanism.name}.json"
    html_path = folder / f"{cert.mechanism.name}.html"
    json_path.write_text(json.dumps(_plain(cert.to_dict()), indent=1, allow_nan=False) + "\n")
    html_path.write_text(report_html(cert))
    return json_path, html_path
