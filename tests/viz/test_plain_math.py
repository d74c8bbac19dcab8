"""fedlib's plain-text notation as the paper's, in HTML: each rule on a hand-written case, and
the names that must stay as they are."""

from __future__ import annotations

import pytest

from fedlib.viz.plain_math import to_html


@pytest.mark.parametrize(("plain", "paper"), [
    ("Re^(tau-1)", "Re<sup>τ−1</sup>"),
    ("re_i^tau", "re<sub>i</sub><sup>τ</sup>"),
    ("Re^{t-1}", "Re<sup>t−1</sup>"),
    ("b_k / Re^0 <= B / (k Re^0)", "b<sub>k</sub> / Re<sup>0</sup> ≤ B / (k Re<sup>0</sup>)"),
    ("p_up = Re_i rho*", "p<sub>up</sub> = Re<sub>i</sub> ρ*"),
    ("beta1 >= beta2 != alpha", "β<sub>1</sub> ≥ β<sub>2</sub> ≠ α"),
    ("time grows as n^0.92", "time grows as n<sup>0.92</sup>"),
    ("U_paid and n_pass", "U<sub>paid</sub> and n<sub>pass</sub>"),
    ("Delta l_i - delta < theta & omega", "Δ l<sub>i</sub> - δ &lt; θ &amp; ω"),
])
def test_the_plain_notation_is_written_as_the_papers(plain, paper):
    assert to_html(plain) == paper


@pytest.mark.parametrize("name", ["n_val", "fresh_model", "to_dict", "x_name", "ex_ante",
                                  "reputation_greedy", "alphabet", "betas", "Re_prevx"])
def test_parameter_names_and_words_stay_as_written(name):
    assert to_html(name) == name
