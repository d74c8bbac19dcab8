"""The argument checks every layer shares (:mod:`fedlib.checks`): the strict integer, the
numbers, options and arrays, and the auction's inputs, each refusal naming its argument."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from fedlib import checks
from fedlib.checks import integer


def test_integers_in_range_come_back_as_python_ints():
    assert integer(np.int64(4), "n") == 4 and type(integer(np.int64(4), "n")) is int
    assert integer(0, "seed", minimum=0) == 0
    assert integer(16, "workers", minimum=2, maximum=16) == 16


@pytest.mark.parametrize(("value", "minimum", "maximum", "message"), [
    (0, 1, None, "n must be a positive integer, got 0"),
    (True, 1, None, "n must be a positive integer, got True"),
    (3.0, 1, None, "n must be a positive integer, got 3.0"),
    ("3", 1, None, "n must be a positive integer, got '3'"),
    (-1, 0, None, "n must be a non-negative integer, got -1"),
    (1, 2, None, "n must be an integer >= 2, got 1"),
    (17, 2, 16, r"n must be an integer in \[2, 16\], got 17"),
])
def test_everything_else_is_refused_by_name(value, minimum, maximum, message):
    with pytest.raises(ValueError, match=f"^{message}$"):
        integer(value, "n", minimum, maximum)


def test_array_checks_return_fresh_float_arrays():
    source = np.array([1, 2])
    a = checks.vector(source, "bids")
    assert a.dtype == float and a.tolist() == [1.0, 2.0] and not np.shares_memory(a, source)
    assert checks.counts([[1.0, 0]], "n_plus").dtype == np.int64
    assert checks.mask([1, 0], "passed").tolist() == [True, False]
    assert checks.indices([2, 0], "winners", 3).tolist() == [2, 0]
    assert np.isnan(checks.array([np.nan, 1], "r", allow_nan=True)[0])
    assert checks.scalar(np.float32(0.5), "theta", low=0.0, high=1.0) == 0.5
    assert checks.choice("re", "temp_denominator", ("re", "Re")) == "re"


@pytest.mark.parametrize(("check", "message"), [
    (lambda: checks.array("x", "P"), "P must be numeric"),
    (lambda: checks.array([[1.0]], "P", ndim=1), r"P must be 1-dimensional, got shape \(1, 1\)"),
    (lambda: checks.vector([], "bids"), "bids must not be empty"),
    (lambda: checks.vector([1, np.inf], "bids"), r"bids must be finite \(no NaN or inf\)"),
    (lambda: checks.vector([-1.0], "bids"), "bids must be non-negative"),
    (lambda: checks.scalar("a", "budget"), "budget must be a number"),
    (lambda: checks.scalar(0, "budget", positive=True), "budget must be positive, got 0.0"),
    (lambda: checks.scalar(1, "theta", low=0.0, high=1.0),
     r"theta must lie in the open interval \(0.0, 1.0\), got 1.0"),
    (lambda: checks.counts([1.5], "n_plus"), "n_plus must hold whole numbers"),
    (lambda: checks.mask([2], "passed"), r"passed must be boolean \(True/False or 0/1\)"),
    (lambda: checks.indices([1.0], "winners", 3), "winners must hold integer indices"),
    (lambda: checks.indices([3], "winners", 3), r"winners must index workers 0..2"),
    (lambda: checks.indices([1, 1], "winners", 3), "winners must not repeat a worker"),
    (lambda: checks.per_worker([1.0], "re", 2), r"re must have one entry per worker \(2\), got 1"),
    (lambda: checks.choice("x", "per", ("payment", "budget")),
     r"per must be one of \('payment', 'budget'\), got 'x'"),
    (lambda: checks.auction_inputs([1.0, 2.0], [0.5], 3.0),
     r"bids and Re must have the same length, got bids \(2,\), Re \(1,\)"),
    (lambda: checks.auction_inputs([1.0], [0.5], -3.0), "budget must be positive, got -3.0"),
])
def test_every_refusal_names_its_argument_first(check, message):
    with pytest.raises(ValueError, match=f"^{message}"):
        check()


def test_the_checks_import_without_torch():
    """Every layer may import the checks, the mechanism layer (numpy only) included."""
    code = "import sys, fedlib.checks; assert 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
