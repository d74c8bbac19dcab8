"""The book's table of contents, read from ``_toc.yml``: which chapters exist and which run,
which of them teach, and the exercises that end those.

Exercises are sphinx-exercise directives in a chapter's last section, ``## Exercises``: an
``{exercise}`` with a ``:label:``, then its ``{solution}`` (text only) or the gated pair
``{solution-start}`` / ``{solution-end}`` around the solution's prose and code cells, whose
checks run at every build. :func:`exercises` reads them from a chapter's MyST source.

This module belongs to the book, not to fedlib's wheel: ``python scripts/book.py`` prints the
notebook chapters for the build scripts, and the tests import it as ``book`` (``pythonpath``
in pyproject.toml).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Chapters that CI executes at the paper's scale only (in the book's build), not in fast mode
#: as well, because their slowest sections run in both modes alike: the Flower federation
#: (09), whose small federation with failing workers and on the Deployment Runtime run in
#: both modes and whose fast comparison with the batched engine is the unit tests'
#: (tests/flower); the kit's chapter (10), whose replay of Theorem 4 on the Simulation Runtime
#: and search of the control mechanisms (about 240 of its 310 CPU-seconds in fast mode on a
#: Zen 1 EPYC) do not depend on the mode, and whose smaller certificates are the unit tests'
#: (tests/conformance). Executing them twice cost CI several minutes of its two cores; a
#: reader still runs them in fast mode as any other.
FULL_SCALE_ONLY = ("09_federation", "10_design_mechanism")
#: The caption of the part of ``_toc.yml`` that holds no chapter of the book proper.
BACK_MATTER = "Back matter"


def _toc(root: Path) -> dict:
    import yaml

    return yaml.safe_load((root / "_toc.yml").read_text())


def toc_files(root: Path = ROOT) -> list[str]:
    """Every file listed in ``_toc.yml`` (root first), as paths without suffix."""
    toc = _toc(root)
    files = [toc["root"]]
    for part in toc.get("parts", []):
        files += [entry["file"] for entry in part["chapters"]]
    return files


def toc_parts(root: Path = ROOT) -> dict[str, list[str]]:
    """The files of each captioned part of ``_toc.yml``, in order (the root is in none)."""
    return {part.get("caption", ""): [entry["file"] for entry in part["chapters"]]
            for part in _toc(root).get("parts", [])}


def is_notebook(md: Path) -> bool:
    """A chapter is an executable notebook when its front matter names a kernel."""
    text = md.read_text()
    return text.startswith("---\n") and "kernelspec:" in text.split("\n---\n", 1)[0]


def notebook_chapters(root: Path = ROOT) -> list[Path]:
    """The ``.md`` chapters of the table of contents that are notebooks, in book order."""
    paths = [root / f"{name}.md" for name in toc_files(root)]
    return [path for path in paths if path.exists() and is_notebook(path)]


def teaching_chapters(root: Path = ROOT) -> list[Path]:
    """The notebook chapters that teach, in book order: those of every part but the back
    matter. Each must end with its exercises."""
    names = [name for caption, files in toc_parts(root).items() if caption != BACK_MATTER
             for name in files]
    paths = [root / f"{name}.md" for name in names]
    return [path for path in paths if path.exists() and is_notebook(path)]


@dataclass
class Exercise:
    """One ``{exercise}`` of a chapter's source and what its solution holds.

    Attributes
    ----------
    label, title : str
        The exercise's ``:label:`` and title (the directive's argument).
    statement : str
        Its text, options left out.
    line : int
        The line (from 1) of its opening fence.
    solutions : list of str
        The kind of each solution that names it: ``"text"`` ({solution}) or ``"code"``
        ({solution-start} ... {solution-end}).
    dropdown : list of bool
        For each solution, whether it has ``:class: dropdown`` (folded in the HTML).
    closed : list of bool
        For each solution, whether it is closed (a gated one by its {solution-end}) before the
        next exercise begins.
    solution_text : str
        The prose of its solutions, options and fences left out.
    code : list of str
        The code cells inside its gated solutions.
    """

    label: str
    title: str
    statement: str
    line: int
    solutions: list[str] = field(default_factory=list)
    dropdown: list[bool] = field(default_factory=list)
    closed: list[bool] = field(default_factory=list)
    solution_text: str = ""
    code: list[str] = field(default_factory=list)


_FENCE = re.compile(r"^(:{3,}|`{3,})\{([\w:-]+)\}\s*(.*)$")


def _block(lines: list[str], start: int) -> tuple[list[str], list[str], int]:
    """The options and the body of the colon-fenced directive opening at ``start``, and the
    index of its closing fence."""
    fence = _FENCE.match(lines[start]).group(1)
    options, body, i = [], [], start + 1
    while i < len(lines) and lines[i].startswith(":") and not lines[i].startswith(fence):
        options.append(lines[i])
        i += 1
    while i < len(lines) and lines[i].rstrip() != fence:
        body.append(lines[i])
        i += 1
    return options, body, i


def exercises(text: str) -> list[Exercise]:
    """The exercises of a chapter's MyST source, with their solutions, in order.

    A solution belongs to the exercise its argument names. Code cells count for the gated
    solution they lie in; one outside any gated solution is not an exercise's.

    Examples
    --------
    >>> found = exercises(":::{exercise} Sum\\n:label: ex-sum\\n\\nAdd.\\n:::\\n\\n"
    ...                   ":::{solution} ex-sum\\n:class: dropdown\\n\\nTwo.\\n:::\\n")
    >>> [(e.label, e.solutions, e.dropdown, e.closed) for e in found]
    [('ex-sum', ['text'], [True], [True])]
    """
    lines = text.splitlines()
    found: dict[str, Exercise] = {}
    gated: Exercise | None = None
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        name = match.group(2) if match else None
        if name == "exercise":
            if gated is not None:
                gated.closed.append(False)
                gated = None
            options, body, end = _block(lines, i)
            label = next((o.split(":", 2)[2].strip() for o in options
                          if o.startswith(":label:")), "")
            found[label] = Exercise(label, match.group(3).strip(), "\n".join(body).strip(), i + 1)
            i = end
        elif name in ("solution", "solution-start"):
            options, body, end = _block(lines, i)
            exercise = found.setdefault(match.group(3).strip(),
                                        Exercise(match.group(3).strip(), "", "", i + 1))
            exercise.solutions.append("text" if name == "solution" else "code")
            exercise.dropdown.append(any(o.split() == [":class:", "dropdown"] for o in options))
            if name == "solution":
                exercise.closed.append(True)
                exercise.solution_text += "\n".join(body)
            else:
                if gated is not None:
                    gated.closed.append(False)
                gated = exercise
            i = end
        elif name == "solution-end":
            if gated is not None:
                gated.closed.append(True)
                gated = None
            i = _block(lines, i)[2]
        elif name == "code-cell":
            end = next((j for j in range(i + 1, len(lines)) if lines[j].rstrip() == "```"),
                       len(lines))
            if gated is not None:
                gated.code.append("\n".join(lines[i + 1:end]))
            i = end
        elif gated is not None:
            gated.solution_text += lines[i] + "\n"
        i += 1
    if gated is not None:
        gated.closed.append(False)
    return list(found.values())


def chapter_titles(root: Path = ROOT) -> dict[str, str]:
    """The title (first ``# `` heading) of every chapter of the table of contents, keyed by
    its file name without folder or suffix (e.g. ``"05_proofs"``)."""
    titles = {}
    for name in toc_files(root):
        path = root / f"{name}.md"
        heading = next((line[2:].strip() for line in path.read_text().splitlines()
                        if line.startswith("# ")), None) if path.exists() else None
        titles[Path(name).name] = heading or Path(name).name
    return titles


def fast_checked_chapters(root: Path = ROOT) -> list[Path]:
    """The notebook chapters CI also executes in fast mode: all but :data:`FULL_SCALE_ONLY`."""
    return [path for path in notebook_chapters(root) if path.stem not in FULL_SCALE_ONLY]


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Print the notebook chapters, one path a line.")
    parser.add_argument("--fast-checked", action="store_true",
                        help="only those CI also executes in fast mode")
    chosen = (fast_checked_chapters() if parser.parse_args().fast_checked
              else notebook_chapters())
    print("\n".join(str(path.relative_to(ROOT)) for path in chosen))
