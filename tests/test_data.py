"""The dataset loader: real files, checksums, missing files and the FEDLIB_DATA variable."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import torch

from fedlib.cli import main
from fedlib.fl import data

# Known facts about the canonical files (not computed by fedlib).
FIRST_LABELS = {
    ("mnist", "train"): [5, 0, 4, 1, 9],
    ("mnist", "test"): [7, 2, 1, 0, 4],
    ("fashion", "train"): [9, 0, 0, 3, 0],
    ("fashion", "test"): [9, 2, 1, 1, 6],
}
MNIST_TEST_COUNTS = [980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009]


@pytest.mark.parametrize("dataset,split", sorted(FIRST_LABELS))
def test_real_files_load(data_root, dataset, split):
    loaded = data.load(dataset, split, data_root)
    n = {"train": 60_000, "test": 10_000}[split]
    assert loaded.images.shape == (n, 28, 28)
    assert loaded.images.dtype == torch.uint8
    assert loaded.labels.shape == (n,)
    assert loaded.labels[:5].tolist() == FIRST_LABELS[(dataset, split)]
    counts = torch.bincount(loaded.labels, minlength=10).tolist()
    if dataset == "fashion":
        assert counts == [n // 10] * 10
    elif split == "test":
        assert counts == MNIST_TEST_COUNTS


def test_loads_are_cached(data_root):
    first = data.load("mnist", "test", data_root)
    assert data.load("mnist", "test", data_root) is first


def _copy_split(data_root: Path, tmp_path: Path, dataset: str = "mnist") -> Path:
    folder = tmp_path / data.FOLDER[dataset] / "raw"
    folder.mkdir(parents=True)
    for name in data.MD5[dataset]:
        source = data_root / data.FOLDER[dataset] / "raw" / name
        if name.startswith("t10k"):
            shutil.copy(source, folder / name)
        else:
            (folder / name).symlink_to(source.resolve())
    return folder


def test_flipped_byte_is_rejected_naming_the_file(data_root, tmp_path):
    folder = _copy_split(data_root, tmp_path)
    target = folder / "t10k-images-idx3-ubyte"
    raw = bytearray(target.read_bytes())
    raw[5000] ^= 0xFF
    target.write_bytes(bytes(raw))
    with pytest.raises(data.DataError, match="t10k-images-idx3-ubyte.*corrupted"):
        data.load("mnist", "test", tmp_path)


def test_truncated_file_is_rejected(data_root, tmp_path):
    folder = _copy_split(data_root, tmp_path)
    target = folder / "t10k-labels-idx1-ubyte"
    target.write_bytes(target.read_bytes()[:-10])
    with pytest.raises(data.DataError, match="t10k-labels-idx1-ubyte"):
        data.load("mnist", "test", tmp_path)


def test_missing_folder_gives_the_helpful_message(tmp_path):
    with pytest.raises(data.DataError) as err:
        data.load("fashion", "train", tmp_path / "nowhere")
    message = str(err.value)
    assert "train-images-idx3-ubyte" in message and "train-labels-idx1-ubyte" in message
    assert str(tmp_path / "nowhere") in message
    assert "python -m fedlib data download" in message and "FEDLIB_DATA" in message


def test_fedlib_data_variable_is_honoured(data_root, tmp_path, monkeypatch):
    _copy_split(data_root, tmp_path)
    monkeypatch.setenv("FEDLIB_DATA", str(tmp_path))
    loaded = data.load("mnist", "test")
    assert loaded.folder == (tmp_path / "MNIST" / "raw").resolve()
    monkeypatch.setenv("FEDLIB_DATA", str(tmp_path / "empty"))
    with pytest.raises(data.DataError, match="FEDLIB_DATA"):
        data.load("mnist", "test")


def test_unknown_names_raise_value_error(data_root):
    with pytest.raises(ValueError, match="dataset"):
        data.load("cifar", "train", data_root)
    with pytest.raises(ValueError, match="split"):
        data.load("mnist", "validation", data_root)


def test_cli_check_passes_on_real_data_and_fails_on_missing(data_root, tmp_path, capsys):
    assert main(["data", "check", "--root", str(data_root)]) == 0
    out = capsys.readouterr().out
    assert out.count(" ok ") == 4 and "60000" in out and "10000" in out
    assert main(["data", "check", "--root", str(tmp_path)]) == 1
    assert "PROBLEM" in capsys.readouterr().out
