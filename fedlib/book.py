"""The book's table of contents, read from ``_toc.yml``: which chapters exist and which run."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def toc_files(root: Path = ROOT) -> list[str]:
    """Every file listed in ``_toc.yml`` (root first), as paths without suffix."""
    import yaml

    toc = yaml.safe_load((root / "_toc.yml").read_text())
    files = [toc["root"]]
    for part in toc.get("parts", []):
        files += [entry["file"] for entry in part["chapters"]]
    return files


def is_notebook(md: Path) -> bool:
    """A chapter is an executable notebook when its front matter names a kernel."""
    text = md.read_text()
    return text.startswith("---\n") and "kernelspec:" in text.split("\n---\n", 1)[0]


def notebook_chapters(root: Path = ROOT) -> list[Path]:
    """The ``.md`` chapters of the table of contents that are notebooks, in book order."""
    paths = [root / f"{name}.md" for name in toc_files(root)]
    return [path for path in paths if path.exists() and is_notebook(path)]


def chapter_titles(root: Path = ROOT) -> dict[str, str]:
    """The title (first ``# `` heading) of every chapter of the table of contents, keyed by
    its file name without folder or suffix (e.g. ``"04_proofs"``)."""
    titles = {}
    for name in toc_files(root):
        path = root / f"{name}.md"
        heading = next((line[2:].strip() for line in path.read_text().splitlines()
                        if line.startswith("# ")), None) if path.exists() else None
        titles[Path(name).name] = heading or Path(name).name
    return titles


if __name__ == "__main__":
    print("\n".join(str(path.relative_to(ROOT)) for path in notebook_chapters()))
