"""``BatchedEngine.evaluate_averages`` against explicitly averaged models evaluated one by one."""

from __future__ import annotations

import pytest
import torch

from fedlib.fl import engine as engine_module
from fedlib.fl.engine import BatchedEngine

K, M = 3, 50


@pytest.fixture(scope="module", autouse=True)
def _one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _setup(model: str):
    engine = BatchedEngine(model, device="cpu", dtype=torch.float64, eval_chunk=16)
    models = [engine.init_params(torch.Generator().manual_seed(i)) for i in range(K)]
    stacked = {key: torch.stack([m[key] for m in models]) for key in models[0]}
    gen = torch.Generator().manual_seed(K)
    images = torch.randn(M, 28, 28, generator=gen, dtype=torch.float64)
    labels = torch.randint(0, 10, (M,), generator=gen)
    return engine, stacked, images, labels


#: Every non-empty coalition's plain average, a weighted average and one local model.
WEIGHTS = torch.tensor([[1, 0, 0], [1 / 2, 1 / 2, 0], [0, 0, 1], [1 / 2, 0, 1 / 2],
                        [0, 1 / 2, 1 / 2], [1 / 3, 1 / 3, 1 / 3], [0.2, 0.5, 0.3],
                        [0, 1, 0]], dtype=torch.float64)


@pytest.mark.parametrize("model", ["mlp", "lenet"])
def test_averages_match_explicit_models(model: str, monkeypatch: pytest.MonkeyPatch) -> None:
    engine, stacked, images, labels = _setup(model)
    # A budget of about three models' parameters forces several blocks of averages.
    monkeypatch.setitem(engine_module.EVAL_CHUNK_BYTES, "cpu", 3 * 62_000 * 8)
    losses, accuracies = engine.evaluate_averages(stacked, WEIGHTS, images, labels)
    assert losses.shape == accuracies.shape == (len(WEIGHTS),)
    for row, loss, accuracy in zip(WEIGHTS, losses, accuracies, strict=True):
        average = engine.aggregate(stacked, row)
        expected_loss, expected_accuracy = engine.evaluate(average, images, labels)
        assert loss.item() == pytest.approx(expected_loss, rel=1e-12)
        assert accuracy.item() == expected_accuracy
    # Averages really differ from each other (the check above is not vacuous).
    assert len(set(losses.tolist())) == len(WEIGHTS)


def test_averages_reject_bad_weights() -> None:
    engine, stacked, images, labels = _setup("mlp")
    for bad, match in [(torch.ones(3, dtype=torch.float64), "shape"),
                       (torch.ones(2, 2, dtype=torch.float64) / 2, "shape"),
                       (torch.zeros(0, 3, dtype=torch.float64), "shape"),
                       (torch.ones(1, 3, dtype=torch.int64), "float"),
                       (torch.ones(1, 3, dtype=torch.float64), "sum to 1"),
                       (torch.tensor([[float("nan"), 0.5, 0.5]]), "finite")]:
        with pytest.raises(ValueError, match=match):
            engine.evaluate_averages(stacked, bad, images, labels)
    with pytest.raises(ValueError, match="labels"):
        engine.evaluate_averages(stacked, WEIGHTS, images, labels[:5])
