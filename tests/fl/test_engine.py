"""The batched engine against the per-worker reference loop, plus models, devices and input checks.

All data are small synthetic tensors, so these tests need no dataset files.
"""

from __future__ import annotations

import pytest
import torch
from torch.nn import functional as F

from fedlib.fl import reference
from fedlib.fl.batched import Params, Stacked
from fedlib.fl.device import resolve_device
from fedlib.fl.engine import BatchedEngine, batch_orders
from fedlib.fl.models import MODEL_FOR_DATASET, PIXEL_MEAN, PIXEL_STD, make_model, preprocess

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
#: (model, dtype, relative tolerance): LeNet-5 is compared in float64 because in float32 a
#: rounding difference can flip a max-pool or ReLU decision and leave a legitimate 1e-4 gap.
CASES = [("mlp", torch.float32, 1e-5), ("lenet", torch.float64, 1e-10)]
K, N, M, EPOCHS, BATCH, CHUNK = 3, 200, 150, 2, 64, 64


@pytest.fixture(scope="module", autouse=True)
def _one_thread():
    """One intra-op thread: these small ops gain nothing from two, and a loaded machine can
    stall every parallel region of a multi-threaded run."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _data(k: int, n: int, m: int, dtype: torch.dtype, seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    images = torch.randn(k, n, 28, 28, generator=gen, dtype=dtype)
    labels = torch.randint(0, 10, (k, n), generator=gen)
    val_images = torch.randn(m, 28, 28, generator=gen, dtype=dtype)
    val_labels = torch.randint(0, 10, (m,), generator=gen)
    return images, labels, val_images, val_labels, batch_orders(k, n, EPOCHS, gen)


def _rel(a: torch.Tensor, b: torch.Tensor) -> float:
    a, b = a.cpu().double(), b.cpu().double()
    return float((a - b).norm() / b.norm())


def _max_rel(a: Params, b: Params) -> float:
    return max(_rel(a[key], b[key]) for key in b)


# ---------------------------------------------------------------------- models and devices


def test_parameter_counts_match_the_architectures() -> None:
    mlp = (784 * 200 + 200) + (200 * 200 + 200) + (200 * 10 + 10)
    lenet = (
        (6 * 1 * 5 * 5 + 6)  # conv1
        + (16 * 6 * 5 * 5 + 16)  # conv2
        + (16 * 5 * 5 * 120 + 120)  # fc1
        + (120 * 84 + 84)  # fc2
        + (84 * 10 + 10)  # fc3
    )
    assert (mlp, lenet) == (199_210, 61_706)
    for name, expected in (("mlp", mlp), ("lenet", lenet)):
        model = make_model(name)
        assert sum(p.numel() for p in model.parameters()) == expected
        assert model(torch.zeros(2, 28, 28)).shape == (2, 10)
    assert MODEL_FOR_DATASET == {"mnist": "mlp", "fashion": "lenet"}


def test_unknown_model_is_rejected() -> None:
    with pytest.raises(ValueError, match="model"):
        make_model("resnet")
    with pytest.raises(ValueError, match="model"):
        BatchedEngine("resnet", device="cpu")


def test_preprocess_scales_and_standardises() -> None:
    images = torch.tensor([[[0, 255] * 14] * 28], dtype=torch.uint8)
    out = preprocess(images, "cpu", torch.float64)
    assert out.shape == (1, 28, 28) and out.dtype == torch.float64
    assert out[0, 0, 0] == pytest.approx(-PIXEL_MEAN / PIXEL_STD)
    assert out[0, 0, 1] == pytest.approx((1 - PIXEL_MEAN) / PIXEL_STD)
    with pytest.raises(ValueError, match="images_uint8"):
        preprocess(images.float())
    with pytest.raises(ValueError, match="images_uint8"):
        preprocess(torch.zeros(2, 27, 28, dtype=torch.uint8))


def test_resolve_device(monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device(torch.device("cpu")) == torch.device("cpu")
    with pytest.raises(ValueError, match="device"):
        resolve_device("tpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert resolve_device("auto") == torch.device("cpu")
    with pytest.raises(ValueError, match="no CUDA device"):
        resolve_device("cuda")


# ---------------------------------------------------------------------- randomness


def test_init_params_reproducible_and_default_distribution() -> None:
    engine = BatchedEngine("lenet", device="cpu")
    first = engine.init_params(torch.Generator().manual_seed(7))
    again = engine.init_params(torch.Generator().manual_seed(7))
    other = engine.init_params(torch.Generator().manual_seed(8))
    assert all(torch.equal(first[key], again[key]) for key in first)
    assert not torch.equal(first["fc1.weight"], other["fc1.weight"])
    # PyTorch's default for Linear and Conv2d: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for both.
    for key, fan_in in (("conv1.weight", 25), ("conv2.bias", 150), ("fc1.weight", 400)):
        bound = fan_in**-0.5
        value = first[key]
        assert value.abs().max() <= bound
        if value.numel() > 1000:
            assert value.std().item() == pytest.approx(bound / 3**0.5, rel=0.05)
    assert set(first) == set(make_model("lenet").state_dict())


def test_batch_orders_are_independent_permutations() -> None:
    orders = batch_orders(4, 50, 3, torch.Generator().manual_seed(1))
    assert orders.shape == (4, 3, 50) and orders.dtype == torch.int64
    assert torch.equal(orders.sort(-1).values, torch.arange(50).expand(4, 3, 50))
    assert len({tuple(row.tolist()) for row in orders.reshape(12, 50)}) == 12
    assert torch.equal(orders, batch_orders(4, 50, 3, torch.Generator().manual_seed(1)))
    with pytest.raises(ValueError, match="k"):
        batch_orders(0, 50, 1, torch.Generator())


# ---------------------------------------------------------------------- equivalence


@pytest.fixture(
    scope="module",
    params=[(c, d) for c in CASES for d in DEVICES],
    ids=lambda p: f"{p[0][0]}-{p[1]}",
)
def trained(request: pytest.FixtureRequest):
    """Engine and loop trained from the same weights and batch orders on small random data."""
    (model, dtype, tol), device = request.param
    engine = BatchedEngine(model, device=device, dtype=dtype, eval_chunk=CHUNK)
    theta = engine.init_params(torch.Generator().manual_seed(0))
    images, labels, val_images, val_labels, orders = (t.to(device) for t in _data(K, N, M, dtype))
    batched = engine.train_local(theta, images, labels, orders, batch_size=BATCH)
    looped = reference.train_local(model, theta, images, labels, orders, batch_size=BATCH)
    return engine, tol, theta, batched, looped, val_images, val_labels


def test_training_matches_the_reference_loop(trained) -> None:
    engine, tol, theta, batched, looped, _, _ = trained
    assert _max_rel(batched, looped) < tol
    moved = min(_rel(batched[key][i], theta[key]) for key in theta for i in range(K))
    assert moved > 100 * tol  # every tensor of every worker really trained


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("model", "dtype", "tol"), CASES, ids=[c[0] for c in CASES])
def test_momentum_training_matches_torch_sgd(model, dtype, tol, device) -> None:
    """With momentum the engine steps as ``torch.optim.SGD(momentum=...)`` does, from a zero
    buffer each call; momentum moves the weights elsewhere than plain SGD."""
    engine = BatchedEngine(model, device=device, dtype=dtype, eval_chunk=CHUNK)
    theta = engine.init_params(torch.Generator().manual_seed(0))
    images, labels, _, _, orders = (t.to(device) for t in _data(K, N, M, dtype))
    batched = engine.train_local(theta, images, labels, orders, batch_size=BATCH, momentum=0.9)
    looped = reference.train_local(model, theta, images, labels, orders, batch_size=BATCH,
                                   momentum=0.9)
    plain = engine.train_local(theta, images, labels, orders, batch_size=BATCH)
    assert _max_rel(batched, looped) < tol
    assert _max_rel(batched, plain) > 100 * tol


def test_probabilities_match_the_reference_loop(trained) -> None:
    engine, tol, _, batched, _, val_images, val_labels = trained
    probs = engine.true_class_probs(batched, val_images, val_labels)
    expected = reference.true_class_probs(engine.model, batched, val_images, val_labels)
    assert probs.shape == (K, M)
    assert _rel(probs, expected) < tol


def test_loo_losses_match_the_reference_loop(trained) -> None:
    engine, tol, _, batched, _, val_images, val_labels = trained
    probs, full, loo = engine.probs_and_loo_losses(batched, val_images, val_labels)
    full_ref, loo_ref = reference.loo_losses(engine.model, batched, val_images, val_labels)
    assert full == pytest.approx(full_ref, rel=tol)
    assert loo.shape == (K,) and _rel(loo, loo_ref) < tol
    assert _rel(probs, engine.true_class_probs(batched, val_images, val_labels)) < tol


def test_loo_losses_equal_explicit_averages(trained) -> None:
    engine, tol, _, batched, _, val_images, val_labels = trained
    _, full, loo = engine.probs_and_loo_losses(batched, val_images, val_labels)
    for i in range(K):
        rest = [j for j in range(K) if j != i]
        average = {key: value[rest].mean(0) for key, value in batched.items()}
        loss, _ = engine.evaluate(average, val_images, val_labels)
        assert loo[i].item() == pytest.approx(loss, rel=tol)
    average = {key: value.mean(0) for key, value in batched.items()}
    assert full == pytest.approx(engine.evaluate(average, val_images, val_labels)[0], rel=tol)


def test_aggregate_and_evaluate(trained) -> None:
    engine, tol, _, batched, _, val_images, val_labels = trained
    weights = torch.tensor([0.5, 0.2, 0.3])
    merged = engine.aggregate(batched, weights)
    expected = {
        key: sum(w * value[i] for i, w in enumerate(weights.tolist()))
        for key, value in batched.items()
    }
    assert _max_rel(merged, expected) < tol
    module = make_model(engine.model).to(device=val_images.device, dtype=engine.dtype)
    module.load_state_dict(merged)
    with torch.no_grad():
        logits = module(val_images)
    loss, accuracy = engine.evaluate(merged, val_images, val_labels)
    assert loss == pytest.approx(float(F.cross_entropy(logits, val_labels)), rel=tol)
    # approx: CUDA divides by a scalar through its reciprocal, which can cost the last bit
    assert accuracy == pytest.approx(int((logits.argmax(1) == val_labels).sum()) / M, rel=1e-12)
    losses, accuracies = engine.evaluate_each(batched, val_images, val_labels)
    for i in range(K):
        one = engine.evaluate(
            {key: value[i] for key, value in batched.items()}, val_images, val_labels
        )
        assert (losses[i].item(), accuracies[i].item()) == pytest.approx(one, rel=tol)


def test_single_worker_has_no_leave_one_out_average() -> None:
    engine = BatchedEngine("mlp", device="cpu", dtype=torch.float64)
    theta = engine.init_params(torch.Generator().manual_seed(0))
    one: Stacked = {key: value.unsqueeze(0) for key, value in theta.items()}
    _, _, images, labels, _ = _data(1, 10, 40, torch.float64)
    _, full, loo = engine.probs_and_loo_losses(one, images, labels)
    assert loo.shape == (1,) and torch.isnan(loo).all()
    assert full == pytest.approx(engine.evaluate(theta, images, labels)[0], rel=1e-12)


def test_cpu_training_is_bit_reproducible() -> None:
    engine = BatchedEngine("lenet", device="cpu")
    theta = engine.init_params(torch.Generator().manual_seed(3))
    images, labels, _, _, orders = _data(2, 100, 1, torch.float32, seed=3)
    first = engine.train_local(theta, images, labels, orders)
    second = engine.train_local(theta, images, labels, orders)
    assert all(torch.equal(first[key], second[key]) for key in first)


# ---------------------------------------------------------------------- bad input


@pytest.fixture(scope="module")
def small():
    engine = BatchedEngine("mlp", device="cpu")
    theta = engine.init_params(torch.Generator().manual_seed(0))
    images, labels, val_images, val_labels, orders = _data(2, 20, 10, torch.float32)
    stacked = {key: value.expand(2, *value.shape) for key, value in theta.items()}
    return engine, theta, stacked, images, labels, val_images, val_labels, orders


@pytest.mark.parametrize(
    ("case", "match"),
    [
        ("labels shape", "labels"),
        ("labels dtype", "labels"),
        ("labels range", "labels"),
        ("images dtype", "images"),
        ("images shape", "images"),
        ("no workers", "images"),
        ("unequal n", "images and labels"),
        ("orders shape", "orders"),
        ("orders dtype", "orders"),
        ("params dtype", "global_params"),
        ("params keys", "global_params"),
        ("lr", "lr"),
        ("momentum", "momentum"),
    ],
)
def test_train_local_rejects_bad_input(small, case: str, match: str) -> None:
    engine, theta, _, images, labels, _, _, orders = small
    args = {"global_params": theta, "images": images, "labels": labels, "orders": orders}
    bad = {
        "labels shape": {"labels": labels[:, :10]},
        "labels dtype": {"labels": labels.int()},
        "labels range": {"labels": labels + 10},
        "images dtype": {"images": images.double()},
        "images shape": {"images": images[:, :, :27]},
        "no workers": {"images": images[:0], "labels": labels[:0], "orders": orders[:0]},
        "unequal n": {"images": [images[0], images[1, :19]], "labels": [labels[0], labels[1]]},
        "orders shape": {"orders": orders[:, :, :10]},
        "orders dtype": {"orders": orders.int()},
        "params dtype": {"global_params": {k: v.double() for k, v in theta.items()}},
        "params keys": {"global_params": {"fc1.weight": theta["fc1.weight"]}},
        "lr": {"lr": -1.0},
        "momentum": {"momentum": 1.0},
    }[case]
    args.update(bad)
    with pytest.raises(ValueError, match=match):
        engine.train_local(**args)


def test_evaluation_rejects_bad_input(small) -> None:
    engine, theta, stacked, _, _, val_images, val_labels, _ = small
    with pytest.raises(ValueError, match="stacked"):
        engine.true_class_probs({k: v[:0] for k, v in stacked.items()}, val_images, val_labels)
    with pytest.raises(ValueError, match="stacked"):
        engine.probs_and_loo_losses({**stacked, "fc3.bias": stacked["fc3.bias"][:1]}, val_images,
                                    val_labels)
    with pytest.raises(ValueError, match="labels"):
        engine.probs_and_loo_losses(stacked, val_images, val_labels[:5])
    with pytest.raises(ValueError, match="images"):
        engine.true_class_probs(stacked, val_images.double(), val_labels)
    with pytest.raises(ValueError, match="weights"):
        engine.aggregate(stacked, torch.ones(3))
    with pytest.raises(ValueError, match="params"):
        engine.evaluate(stacked, val_images, val_labels)
    with pytest.raises(ValueError, match="eval_chunk"):
        BatchedEngine("mlp", device="cpu", eval_chunk=0)
    with pytest.raises(ValueError, match="dtype"):
        BatchedEngine("mlp", device="cpu", dtype=torch.int64)
