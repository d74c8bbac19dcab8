"""check_mechanism end to end: the certificate, its JSON and HTML, the comparison with the
seven, and the registration it relies on."""

from __future__ import annotations

import gc
import json

import pytest
from broken_mechanisms import ExAnte, Overspends, RaisesOnTies

import fedlib
import fedlib.conformance
from fedlib.conformance import Certificate, check_mechanism
from fedlib.conformance.report import save
from fedlib.experiments.auction_sweeps import SEVEN
from fedlib.mechanism import MECHANISMS, RRAFL, MechanismBase
from fedlib.mechanism.mechanisms import _REGISTRY, registered


@pytest.fixture(scope="module")
def overspends() -> Certificate:
    return check_mechanism(Overspends(), instances=10, trials=3, seed=1)


def test_the_certificate_names_what_failed_against_the_claims(overspends):
    assert not overspends.passed and overspends.refuted == ("budget_feasible",)
    assert overspends.claims == {"well_defined", "budget_feasible", "ir", "ir_honest",
                                 "truthful", "truthful_honest", "monotone"}
    table = overspends.table()
    verdicts = dict(zip(table.column("property"), table.column("verdict"), strict=True))
    assert verdicts["budget_feasible"] == "REFUTED" and verdicts["truthful"] == "no counterexample"
    assert verdicts["efficient"] == "no counterexample (not claimed)"
    assert overspends.source == "broken_mechanisms:Overspends"
    assert overspends.summary().startswith(
        "overspends (broken_mechanisms:Overspends): REFUTED: budget_feasible\noverspends: ")
    assert overspends.environment["numpy"] and overspends.fedlib_version == fedlib.__version__
    assert overspends.environment["device"] == "cpu"  # no federated run
    assert repr(overspends) == overspends.summary()
    page = overspends._repr_html_()
    assert '<b style="color:#b2182b">REFUTED</b>' in page and "meaning" not in page


def test_claims_can_be_overridden_and_what_is_claimed_decides():
    cert = check_mechanism(Overspends(), claims=["truthful", "monotone"], instances=5, trials=0)
    assert cert.passed and cert.comparison is None and cert.federated is None


def test_the_comparison_puts_it_beside_the_seven(overspends):
    comparison = overspends.comparison
    assert comparison.budget.mechanisms == (*SEVEN, "overspends")
    rows = {row[0]: row for row in comparison.table().rows}
    assert rows["overspends"][3] > rows["RRAFL"][3]  # it pays more of B: it selects on 2B
    assert len(comparison.figures()) == 4
    assert "overspends" not in MECHANISMS  # registered only while it runs


def test_json_and_html_are_written_and_say_the_same(overspends, tmp_path):
    json_path, html_path = save(overspends, tmp_path / "out")
    saved = json.loads(json_path.read_text(), parse_constant=pytest.fail)  # strict: no NaN
    assert saved["passed"] is False and saved["refuted"] == ["budget_feasible"]
    budget = next(p for p in saved["properties"] if p["property"] == "budget_feasible")
    assert budget["status"] == "REFUTED" and budget["violations"] > 0
    cex = budget["counterexample"]
    assert sum(cex["plays"][0]["payments"]) > cex["instance"]["budget"]
    assert saved["search"]["seed"] == 1 and saved["environment"]["lock_sha256"]
    efficient = next(p for p in saved["properties"] if p["property"] == "efficient")
    assert f"time ~ n^{efficient['exponent']:.2f} " in efficient["measured"]
    page = html_path.read_text()
    assert "Refuted: budget_feasible." in page and page.count("data:image/png;base64") == 5
    assert "<h2>Measures</h2>" in page and "against its number of workers" in page
    assert saved["search"]["measures"]["budget overrun"]["max"] == pytest.approx(
        budget["measure"]["max"]) and budget["measure"]["max"] > 0
    assert saved["theorem4"]["origin"] == "the paper's Theorem 4 counterexample"
    assert budget["finding"].startswith(f"{budget['violations']} of {budget['checks']} checks")
    assert "Counterexample to budget_feasible" in page


def test_a_mechanism_that_is_not_well_defined_is_not_compared():
    cert = check_mechanism(RaisesOnTies(), instances=3, trials=2)
    assert cert.refuted == ("well_defined",) and cert.comparison is None
    assert cert.skipped == {"comparison": "the mechanism is not well defined",
                            "federated": "the mechanism is not well defined"}


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="^federated must be one of"):
        check_mechanism(ExAnte(), federated="cifar")
    with pytest.raises(ValueError, match="^trials must be"):
        check_mechanism(ExAnte(), trials=-1)
    with pytest.raises(ValueError, match=r"^unknown claims \['fair'\]"):
        check_mechanism(ExAnte(), claims=["fair"])


def test_registration_lasts_the_block_and_refuses_a_taken_name():
    with registered(ExAnte()) as mechanism:
        assert MECHANISMS["ex_ante"] is mechanism
    assert "ex_ante" not in MECHANISMS
    with registered(RRAFL()):  # an equal built-in: nothing changes, nothing is removed
        pass
    assert MECHANISMS["rrafl"] == RRAFL()
    registered(ExAnte()).__enter__()  # for good, as a worker process does: only an exit ends it
    gc.collect()
    assert "ex_ante" in MECHANISMS
    _REGISTRY.pop("ex_ante")
    impostor = type("Impostor", (ExAnte,), {"name": "ours"})()
    with pytest.raises(ValueError, match="^the name 'ours' is taken by"), registered(impostor):
        pass
    assert MECHANISMS["ours"] != impostor


def test_the_kit_exports_the_built_ins_base():
    assert fedlib.conformance.MechanismBase is MechanismBase
    assert isinstance(MECHANISMS["rrafl"], fedlib.conformance.MechanismBase)
