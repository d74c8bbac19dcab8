"""The browser checks must catch what they look for: a deliberately broken page fails them."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from browser import check_page  # noqa: E402

#: A one-pixel PNG, so that an image loads without a file.
PIXEL = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
         "+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")

BROKEN = """<!doctype html><html><head><title>broken</title></head><body><main>
<p>Unrendered display math: $$x^2$$</p><p>and \\begin{align} a \\end{align}</p>
<img src="does-not-exist.png" alt="missing">
<div class="cell_output"><div class="output traceback"><pre>ZeroDivisionError</pre></div></div>
<span class="problematic">{prf:ref}`thm-missing`</span>
<pre>$$ inside code is fine $$</pre>
<script type="application/vnd.jupyter.widget-view+json">{"model_id": "none"}</script>
<div class="cell_output" style="width: 300px; overflow-x: auto"><table><tr>
<td>a_table_much_wider_than_the_300_px_column_that_holds_it_and_scrolls_sideways</td>
</tr></table></div>
<div class="cell"><div class="cell_output"><img src="PIXEL" alt="uncaptioned-plot"></div></div>
<article style="width: 400px"><table style="width: 700px"><tr><td>spills_into_the_margin</td>
</tr></table><ul><li>results/ch11/an_unbreakable_provenance_path_longer_than_the_column_is_wide_x.json
</li></ul><div class="jupyter-widgets" style="width: 500px">an explorer's text field</div>
</article>
<div style="width: 300px"><pre style="white-space: pre; overflow-x: auto">
a_line_of_code_that_runs_past_the_300_px_column = [1, 2, 3]  # and scrolls sideways
</pre><p>fedlib's plain notation in a table: Re^(tau-1)</p>
<table><tr><td style="height: 5000px">a_table_taller_than_two_screens</td></tr></table></div>
</main></body></html>""".replace("PIXEL", PIXEL)

CLEAN = """<!doctype html><html><head><title>clean</title></head><body><main>
<p>Plain text.</p><pre>$$ inside code is fine $$</pre>
<div class="cell_output" style="width: 300px; overflow-x: auto"><table><tr><td>fits</td></tr>
</table></div>
<div class="cell"><div class="cell_output"><figure><img src="PIXEL" alt="plot">
<figcaption>What the plot shows.</figcaption></figure></div></div>
<div class="cell"><div class="cell_output"><p class="explorer-caption">An explorer.</p>
<div class="jupyter-widgets"><img src="PIXEL" alt="explorer default"></div></div></div>
<div style="width: 300px"><pre style="white-space: pre-wrap; overflow-wrap: anywhere">
a_line_of_code_that_wraps_at_the_300_px_column = [1, 2, 3]  # instead of scrolling
</pre><div class="jupyter-widgets" style="width: 280px">a text field</div>
<details class="fedlib-fold"><summary>a long table, folded</summary><table>
<tr><td style="height: 5000px">folded away</td></tr></table></details></div>
</main></body></html>""".replace("PIXEL", PIXEL)


def test_broken_page_is_reported(driver, tmp_path):
    page = tmp_path / "broken.html"
    page.write_text(BROKEN)
    problems = " | ".join(check_page(driver, page, settle=0.2).problems)
    for expected in ("raw TeX $$", "raw TeX \\begin{", "broken image", "error output cell",
                     "undefined cross-reference", "widget without its default figure",
                     "table wider than its column", "figure without a caption: uncaptioned",
                     "table wider than its column (700 px): spills_into_the_margin",
                     "text wider than its column", "code scrolls sideways",
                     "widget wider than its column", "plain-text mathematics ^(",
                     "screens: a_table_taller_than_two_screens"):
        assert expected in problems, f"{expected!r} not reported in: {problems}"


def test_clean_page_passes(driver, tmp_path):
    page = tmp_path / "clean.html"
    page.write_text(CLEAN)
    assert check_page(driver, page, settle=0.2).problems == []
