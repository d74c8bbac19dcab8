"""Where a chapter's results came from, as a table (fedlib.storage.provenance)."""

from __future__ import annotations

from fedlib.storage.provenance import SOURCES, provenance_html, seed_provenance_html
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


def test_provenance_groups_the_seeds_of_a_configuration():
    def made(name, revision, command):
        return Provenance(name, "stored", None, revision, "AMD EPYC", 60.0, "2026-11-28T01:00",
                          command, "AMD EPYC (AuthenticAMD, AVX2)")

    base = "python -m fedlib reproduce tables --dataset mnist --mechanisms ours"
    page = seed_provenance_html([
        made("tables_mnist_ours", "a" * 40, f"{base} --device cpu --out results"),
        *(made(f"tables_mnist_ours_s{s}", "b" * 40 + "+dirty",
               f"{base} --seeds {s} --device cpu --out results") for s in (1, 2, 3))])
    assert page.count("<tr>") == 2 and "4 (0-3)" in page and "4 min" in page
    assert "aaaaaaaa, bbbbbbbb+" in page and "uncommitted changes" in page
    assert f"<code>{base} --seeds 0-3 --device cpu --out results</code>" in page
    assert "<code>AMD EPYC; AMD EPYC (AuthenticAMD, AVX2)</code>" in page  # machine; environment


def test_pieces_that_one_command_makes_print_it_once():
    command = "python -m fedlib reproduce noniid --dataset mnist --seeds {} --device cpu"
    page = seed_provenance_html([
        _provenance(f"noniid_mnist_{piece}{suffix}", command=command.format(seed))
        for piece in ("ours_rrafl", "vanilla") for seed, suffix in ((0, ""), (1, "_s1"))])
    assert page.count("<tr>") == 3
    assert page.count("reproduce noniid --dataset mnist --seeds 0-1 --device cpu") == 1


def test_a_long_name_may_break_after_its_underscores():
    name = "coldstart_fashion_ours_budget_lr_momentum_fresh_model"
    page = seed_provenance_html([_provenance(f"{name}_s3"), _provenance(f"{name}_s4")])
    assert "coldstart_<wbr>fashion_<wbr>ours_<wbr>budget" in page
    assert name not in page  # no unbreakable run of the whole name is left
    assert "fresh_<wbr>model" in provenance_html([_provenance(name)])
