"""``CITATION.cff``: valid against the Citation File Format 1.2.0 schema, and in step with the
package (version, licence) and the paper it reproduces.

The schema is ``tests/data/cff_schema_1.2.0.json``, the ``schema.json`` of CFF 1.2.0 as shipped
in the ``cffconvert`` 2.0.0 wheel (``cffconvert/schemas/1.2.0/schema.json``).
"""

from __future__ import annotations

import copy
import json
import tomllib
from pathlib import Path

import jsonschema
import pytest
import yaml

import fedlib

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = json.loads((ROOT / "tests" / "data" / "cff_schema_1.2.0.json").read_text())


@pytest.fixture(scope="module")
def citation() -> dict:
    # the CFF schema wants dates and versions as strings: load YAML without implicit dates
    return yaml.load((ROOT / "CITATION.cff").read_text(), Loader=yaml.BaseLoader)


def _valid(document: dict) -> bool:
    return jsonschema.Draft7Validator(SCHEMA).is_valid(document)


def test_citation_file_is_valid_cff(citation):
    jsonschema.Draft7Validator(SCHEMA).validate(citation)
    broken = copy.deepcopy(citation)
    del broken["authors"]
    assert not _valid(broken)  # the check can fail


def test_citation_file_agrees_with_the_package_and_the_paper(citation):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert citation["version"] == fedlib.__version__
    assert citation["license"] == project["license"]["text"] == "MIT"
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    paper = citation["references"][0]
    assert paper["title"].startswith("Auction-Based Ex-Post-Payment Incentive Mechanism")
    assert [a["family-names"] for a in paper["authors"]] == ["Zhang", "Wu", "Pan"]
    bib = (ROOT / "chapters" / "references.bib").read_text().split("@", 2)[1]
    assert "zhang2022auction" in bib and f"url          = {{{paper['url']}}}" in bib
    assert "CITATION.cff" in (ROOT / "README.md").read_text()
