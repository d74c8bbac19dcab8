"""Help text for the command line, from the docstrings that also feed the API reference."""

from __future__ import annotations

import re

#: A Sphinx cross-reference (``:mod:`x```, ``:func:`~a.b```) or a literal (````x````).
_ROLE = re.compile(r":\w+:`(~?)([^`]+)`|``([^`]+)``")


def plain(text: str) -> str:
    """A docstring as help text: Sphinx roles and literals as the names Sphinx shows.

    >>> plain("``reproduce`` runs :mod:`fedlib.experiments.grid` and :func:`~a.b.run`")
    'reproduce runs fedlib.experiments.grid and run'
    """
    def shown(match: re.Match[str]) -> str:
        tilde, target, literal = match.groups()
        return literal if target is None else target.rsplit(".", 1)[-1] if tilde else target

    return _ROLE.sub(shown, text)
