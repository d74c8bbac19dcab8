"""The short federated runs the contribution and reputation chapters look at closely."""

from __future__ import annotations

import numpy as np
import pytest

from fedlib.experiments.single_rounds import quality_example, warm_round
from fedlib.mechanism import aggregation_weights, contributions, sample_weights


@pytest.mark.parametrize("case", [1, 2])
def test_warm_round_on_real_models(data_root, case) -> None:
    view = warm_round("mnist", case, (1.0, 0.5, 0.1), warmup=1, n_samples=100, n_val=200,
                      n_test=100)
    assert view.P.shape == (3, 200) and view.val_labels.shape == (200,)
    assert np.all((view.P >= 0) & (view.P <= 1))
    np.testing.assert_allclose(view.weights, sample_weights(view.P))
    np.testing.assert_allclose(view.weighted, contributions(view.P))
    np.testing.assert_allclose(view.equal, contributions(view.P, weighted=False))
    assert view.local_acc.shape == (3,) and view.warmup == 1
    if case == 2:
        np.testing.assert_array_equal(view.dacc, [1.0, 1.0, 1.0])
    again = warm_round("mnist", case, (1.0, 0.5, 0.1), warmup=1, n_samples=100, n_val=200,
                       n_test=100)
    assert again is view  # cached


def test_warm_round_is_reproducible_and_rejects_bad_case(data_root) -> None:
    a = warm_round.__wrapped__("mnist", 1, (1.0, 0.1), warmup=0, n_samples=50, n_val=50,
                               n_test=50, seed=3)
    b = warm_round.__wrapped__("mnist", 1, (1.0, 0.1), warmup=0, n_samples=50, n_val=50,
                               n_test=50, seed=3)
    np.testing.assert_array_equal(a.P, b.P)
    with pytest.raises(ValueError, match="case"):
        warm_round("mnist", 3, (1.0, 0.1))


def test_quality_example_on_real_models(data_root) -> None:
    ex = quality_example(daccs=(1.0, 1.0, 0.1), rounds=2, n=200, n_val=500, n_test=200)
    assert ex.delta_l.shape == ex.passed.shape == ex.omega.shape == (3,)
    assert ex.round == 1
    np.testing.assert_array_equal(ex.passed, ex.delta_l >= -0.005)
    assert ex.omega.sum() == pytest.approx(1.0) and ex.omega_printed.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(ex.omega_printed, aggregation_weights(
        ex.contrib, ex.delta_l, ex.passed, denominator="printed"))
    np.testing.assert_array_equal(ex.omega[~ex.passed], 0.0)
