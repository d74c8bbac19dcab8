"""fedlib's plain-text notation as HTML, for the book's tables of claims and readings.

The claims, findings and readings of :mod:`fedlib.analysis` and :mod:`fedlib.paper` are plain
text, so that a terminal, a log or a JSON file shows them as written: ``Re^(tau-1)``,
``re_i^tau``, ``beta1``, ``b_k / Re^0 <= B``. A reader of the rendered book should read the
paper's notation instead (Re<sup>τ−1</sup>, re<sub>i</sub><sup>τ</sup>, β<sub>1</sub>,
b<sub>k</sub> / Re<sup>0</sup> ≤ B): :func:`to_html` escapes the text and rewrites:

* the Greek letters the paper uses, by name (``tau``, ``alpha``, ``beta1``, ...), with a
  trailing digit as a subscript;
* a superscript ``^(...)``, ``^{...}`` or ``^x`` (a word or a number), with its minus signs;
* a subscript ``x_i``: a base of one or two letters and an index of one letter or digit, or
  one of the paper's named indices (:data:`NAMED_INDICES`); a parameter name such as
  ``n_val`` or ``fresh_model`` stays as it is;
* ``<=``, ``>=`` and ``!=``.
"""

from __future__ import annotations

import html
import re

#: The Greek letters of the paper's notation, by the names fedlib's strings spell.
GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "Delta": "Δ", "theta": "θ",
         "tau": "τ", "rho": "ρ", "sigma": "σ", "phi": "φ", "omega": "ω"}
#: Indices longer than one letter that are the paper's notation (p_up, n_pass, Re_prev, ...).
NAMED_INDICES = ("up", "low", "high", "pass", "fail", "plus", "minus", "prev", "full", "lie",
                 "ij", "paid")

_GREEK = re.compile(r"\b(" + "|".join(GREEK) + r")(\d?)\b")
_SUPERSCRIPT = re.compile(r"\^(?:\(([^()]*)\)|\{([^{}]*)\}|(\w+(?:\.\d+)?))")
_SUBSCRIPT = re.compile(r"(?<![\w.])([A-Za-z]{1,2}|[α-ωΔ])_(" + "|".join(NAMED_INDICES)
                        + r"|[A-Za-z0-9])\b")
_OPERATORS = {"&lt;=": "≤", "&gt;=": "≥", "!=": "≠"}


def _greek(match: re.Match[str]) -> str:
    letter, digit = match.groups()
    return GREEK[letter] + (f"<sub>{digit}</sub>" if digit else "")


def _superscript(match: re.Match[str]) -> str:
    exponent = next(group for group in match.groups() if group is not None)
    return f"<sup>{exponent.replace('-', '−')}</sup>"


def to_html(text: str) -> str:
    """``text`` HTML-escaped, with its plain notation written as the paper's (see the module).

    >>> to_html("Re^(tau-1) <= re_i")
    'Re<sup>τ−1</sup> ≤ re<sub>i</sub>'
    """
    out = html.escape(text, quote=False)
    for plain, symbol in _OPERATORS.items():
        out = out.replace(plain, symbol)
    out = _GREEK.sub(_greek, out)
    out = _SUBSCRIPT.sub(r"\1<sub>\2</sub>", out)
    return _SUPERSCRIPT.sub(_superscript, out)
