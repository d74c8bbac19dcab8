"""Where a chapter's results came from, as a table (fedlib.storage.provenance)."""

from __future__ import annotations

from fedlib.storage.provenance import SOURCES, provenance_html
from fedlib.storage.stored import Provenance


def _provenance(name: str, source: str = "stored", revision: str = "0123456789abcdef",
                command: str = "python -m fedlib reproduce tables --dataset mnist") -> Provenance:
    return Provenance(name, source, None, revision, "2 CPUs, x86_64", 90.0,
                      "2026-01-02T03:04:05", command)


def test_a_row_per_result_and_each_machine_and_command_once():
    page = provenance_html([_provenance("tables_mnist_ours"),
                            _provenance("tables_mnist_ours", source="fast")])
    assert page.count("<tr") == 3 and page.count("<li>") == 2
    assert f">{SOURCES['stored']}<" in page and f">{SOURCES['fast']}<" in page
    assert "<code>0123456789</code>" in page and ">1.5 min<" in page and ">2026-01-02<" in page
    assert page.count("reproduce tables --dataset mnist") == 1 and "2 CPUs" in page
    assert "uncommitted" not in page


def test_a_dirty_revision_is_marked_and_said():
    page = provenance_html([_provenance("a", revision="0123456789abcdef+dirty"),
                            _provenance("b", command="<other>")])
    assert "<code>0123456789</code>+" in page and "uncommitted changes" in page
    assert "<code>&lt;other&gt;</code>" in page
