"""MNIST and Fashion-MNIST from a local folder in torchvision's raw layout, verified by md5.

The root folder holds ``MNIST/raw/`` and ``FashionMNIST/raw/`` with the four uncompressed IDX
files of each dataset. It is taken from the ``root`` argument, else the ``FEDLIB_DATA``
environment variable, else the user cache folder ``~/.cache/fedlib/data``. The root may be
read-only: nothing is written there except by :func:`download`.

torchvision reads the files but does not verify them, so :func:`load` checks the md5 of every
uncompressed file first and refuses a missing, truncated or corrupted one with an error that
names it. Loaded splits are cached for the life of the process.
"""

from __future__ import annotations

import functools
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import torch

DATASETS = ("mnist", "fashion")

#: torchvision's class (and folder) name for each dataset.
FOLDER = {"mnist": "MNIST", "fashion": "FashionMNIST"}

#: md5 of the uncompressed IDX files (the standard distributions; see shared/data/README.md).
MD5 = {
    "mnist": {
        "train-images-idx3-ubyte": "6bbc9ace898e44ae57da46a324031adb",
        "train-labels-idx1-ubyte": "a25bea736e30d166cdddb491f175f624",
        "t10k-images-idx3-ubyte": "2646ac647ad5339dbf082846283269ea",
        "t10k-labels-idx1-ubyte": "27ae3e4e09519cfbb04c329615203637",
    },
    "fashion": {
        "train-images-idx3-ubyte": "f4a8712d7a061bf5bd6d2ca38dc4d50a",
        "train-labels-idx1-ubyte": "9018921c3c673c538a1fc5bad174d6f9",
        "t10k-images-idx3-ubyte": "8181f5470baa50b63fa0f6fddb340f0a",
        "t10k-labels-idx1-ubyte": "15d484375f8d13e6eb1aabb0c3f46965",
    },
}

SPLIT_PREFIX = {"train": "train", "test": "t10k"}


class DataError(ValueError):
    """A dataset file is missing, truncated or corrupted."""


@dataclass(frozen=True)
class Split:
    """One split of a dataset: uint8 images (n, 28, 28) and int64 labels (n,)."""

    dataset: str
    split: str
    images: torch.Tensor
    labels: torch.Tensor
    folder: Path

    def __len__(self) -> int:
        return int(self.labels.shape[0])


def data_root(root: str | os.PathLike[str] | None = None) -> tuple[Path, str]:
    """The data folder and where it came from (argument, ``FEDLIB_DATA`` or the cache)."""
    if root is not None:
        return Path(root).expanduser(), "the root argument"
    if os.environ.get("FEDLIB_DATA"):
        return Path(os.environ["FEDLIB_DATA"]).expanduser(), "the FEDLIB_DATA variable"
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return cache / "fedlib" / "data", "the default cache folder"


def _check_name(dataset: str, split: str) -> None:
    if dataset not in DATASETS:
        raise ValueError(f"dataset must be one of {DATASETS}, got {dataset!r}")
    if split not in SPLIT_PREFIX:
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")


def dataset_files(dataset: str, root: Path) -> dict[Path, str]:
    """The four IDX files of a dataset (torchvision needs both splits), each with its md5."""
    folder = root / FOLDER[dataset] / "raw"
    return {folder / name: md5 for name, md5 in MD5[dataset].items()}


def md5_of(path: Path) -> str:
    """The md5 hex digest of a file, read in 1 MiB blocks."""
    digest = hashlib.md5()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _missing_message(missing: list[Path], root: Path, origin: str) -> str:
    names = "\n".join(f"  - {p}" for p in missing)
    return (
        f"Dataset files not found:\n{names}\n"
        f"Looked in {root} (from {origin}). To fix it, either\n"
        f"  1. run `python -m fedlib data download --root {root}` where the internet is "
        "reachable (it uses torchvision's downloader), or\n"
        "  2. set FEDLIB_DATA to a folder that already holds <root>/MNIST/raw/ and "
        "<root>/FashionMNIST/raw/ (for this project: FEDLIB_DATA=../shared/data)."
    )


@functools.lru_cache(maxsize=8)
def _verify_cached(dataset: str, base: Path, origin: str) -> Path:
    files = dataset_files(dataset, base)
    missing = [path for path in files if not path.is_file()]
    if missing:
        raise DataError(_missing_message(missing, base, origin))
    for path, expected in files.items():
        actual = md5_of(path)
        if actual != expected:
            raise DataError(
                f"{path} is corrupted or truncated: md5 {actual}, expected {expected}. "
                "Replace it with the original file (see `python -m fedlib data check`)."
            )
    return next(iter(files)).parent


def verify(dataset: str, root: str | os.PathLike[str] | None = None) -> Path:
    """Check that the four files of a dataset exist and carry the expected md5.

    Returns the raw folder. Raises :class:`DataError` naming each missing file (with where it
    looked and how to get the files) or the first file whose checksum does not match.
    """
    _check_name(dataset, "train")
    base, origin = data_root(root)
    return _verify_cached(dataset, base.resolve(), origin)


@functools.lru_cache(maxsize=8)
def _load_cached(dataset: str, split: str, base: Path, origin: str) -> Split:
    folder = _verify_cached(dataset, base, origin)
    from torchvision import datasets

    cls = datasets.MNIST if dataset == "mnist" else datasets.FashionMNIST
    ds = cls(str(base), train=(split == "train"), download=False)
    images, labels = ds.data, ds.targets
    if images.dtype != torch.uint8 or images.shape[1:] != (28, 28):
        raise DataError(f"{folder}: unexpected image tensor {images.dtype} {tuple(images.shape)}")
    return Split(dataset, split, images, labels, folder)


def load(dataset: str, split: str, root: str | os.PathLike[str] | None = None) -> Split:
    """Load one verified split as uint8 images and int64 labels, cached for the process.

    Parameters
    ----------
    dataset : {"mnist", "fashion"}
    split : {"train", "test"}
    root : folder in torchvision's layout; default ``FEDLIB_DATA``, else the user cache.

    Raises
    ------
    DataError
        For a missing, truncated or corrupted file (the message names it).

    Examples
    --------
    >>> train = load("mnist", "train")
    >>> train.images.shape, train.labels[:3].tolist()
    (torch.Size([60000, 28, 28]), [5, 0, 4])
    """
    _check_name(dataset, split)
    base, origin = data_root(root)
    return _load_cached(dataset, split, base.resolve(), origin)


def check(root: str | os.PathLike[str] | None = None) -> list[dict[str, object]]:
    """A report row per dataset and split: path, sample count (or None) and status."""
    rows: list[dict[str, object]] = []
    for dataset in DATASETS:
        for split in SPLIT_PREFIX:
            row: dict[str, object] = {"dataset": dataset, "split": split}
            try:
                loaded = load(dataset, split, root)
                row.update(path=str(loaded.folder), samples=len(loaded), ok=True, problem="")
            except DataError as err:
                base, _ = data_root(root)
                folder = base / FOLDER[dataset] / "raw"
                row.update(path=str(folder), samples=None, ok=False, problem=str(err))
            rows.append(row)
    return rows


def download(root: str | os.PathLike[str] | None = None) -> Path:
    """Fetch both datasets with torchvision's downloader into ``root`` (needs the internet)."""
    from torchvision import datasets

    base, _ = data_root(root)
    base.mkdir(parents=True, exist_ok=True)
    for cls in (datasets.MNIST, datasets.FashionMNIST):
        for train in (True, False):
            cls(str(base), train=train, download=True)
    return base
