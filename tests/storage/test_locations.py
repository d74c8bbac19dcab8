"""fedlib finds the book's checkout from the working folder, never from where it is installed:
outside a checkout it reads no results folder and no lock file of the repository."""

from __future__ import annotations

import hashlib
from importlib import metadata

import pytest
from book import ROOT

from fedlib.storage import environment, stored
from fedlib.storage.locations import book_root


def fake_checkout(folder):
    """A folder with the markers of a checkout (a table of contents and a fedlib package)."""
    (folder / "_toc.yml").write_text("root: intro\n")
    (folder / "fedlib").mkdir()
    return folder


def test_the_checkout_is_found_from_any_folder_inside_it(tmp_path):
    assert book_root(ROOT / "chapters") == ROOT
    assert book_root(ROOT) == ROOT
    assert book_root(tmp_path) is None
    inner = fake_checkout(tmp_path) / "a" / "b"
    inner.mkdir(parents=True)
    assert book_root(inner) == tmp_path.resolve()


def test_a_folder_with_a_table_of_contents_alone_is_no_checkout(tmp_path):
    (tmp_path / "_toc.yml").write_text("root: intro\n")  # another jupyter-book
    assert book_root(tmp_path) is None


def test_the_results_folder_is_the_checkouts_or_the_variables(tmp_path, monkeypatch):
    monkeypatch.delenv("FEDLIB_RESULTS", raising=False)
    monkeypatch.chdir(ROOT / "chapters")
    assert stored.results_dir() == ROOT / "results"
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError, match="FEDLIB_RESULTS"):
        stored.results_dir()
    monkeypatch.setenv("FEDLIB_RESULTS", str(tmp_path / "mine"))
    assert stored.results_dir() == tmp_path / "mine"


def test_the_lock_hash_is_the_checkouts_lock_where_its_pins_are_installed(tmp_path,
                                                                          monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert environment.lock_hash() is None  # outside a checkout: no lock
    checkout = fake_checkout(tmp_path)
    lock = checkout / environment.LOCK_NAME
    pins = "".join(f"{name}=={metadata.version(name)} \\\n    --hash=sha256:00\n"
                   for name in environment.NUMERIC_PACKAGES)
    lock.write_text(pins)
    assert environment.lock_hash() == hashlib.sha256(lock.read_bytes()).hexdigest()
    lock.write_text(pins.replace(metadata.version("numpy"), "0.0.1"))
    assert environment.lock_hash() is None  # pins that are not the versions installed
