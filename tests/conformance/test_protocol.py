"""The protocol of a mechanism of one's own: what fits, what is refused and why, loading one
from a file or a module, and playing one that misbehaves."""

from __future__ import annotations

import numpy as np
import pytest

from fedlib.conformance.protocol import (
    PROPERTIES,
    Player,
    claimed,
    conform,
    load,
)
from fedlib.mechanism import MECHANISMS, RRAFL, Instance, MechanismBase, select

THEOREM4 = Instance([4.0, 4.5, 100.0], [1.0, 1.0, 1.0], 10.0, [0.5, 1.0, 1.0])


class DuckTyped:
    """Fits without deriving from anything: Algorithm 1, paid ex ante."""

    name, label, knows = "duck", "Duck", "bids"
    claims = frozenset({"truthful"})

    def select(self, bids, Re, budget, *, costs=None, rng=None):
        return MECHANISMS["rrafl"].select(bids, Re, budget)

    def pay(self, allocation, re):
        return allocation.upper.copy()


def test_claims_bring_what_they_imply_and_unknown_ones_are_named():
    assert claimed(["truthful"]) == {"truthful", "truthful_honest", "well_defined"}
    assert claimed([]) == {"well_defined"}
    with pytest.raises(ValueError, match=r"^unknown claims \['fast'\]: a mechanism may claim"):
        claimed(["fast", "ir"])


def test_any_object_with_the_members_fits_and_a_class_is_created():
    duck = DuckTyped()
    assert conform(duck) is duck
    assert isinstance(conform(DuckTyped), DuckTyped)
    assert conform(MECHANISMS["ours"]) is MECHANISMS["ours"]
    assert conform(RRAFL()) == MECHANISMS["rrafl"]  # an equal built-in may come again


class NoPay:
    name, label, knows, claims = "no_pay", "No pay", "bids", frozenset()

    def select(self, bids, Re, budget, *, costs=None, rng=None): ...


class OldSelect(DuckTyped):
    def select(self, bids, Re, budget): ...


@pytest.mark.parametrize("obj, message", [
    (NoPay, r"^NoPay does not fit the mechanism protocol: it lacks pay\(allocation, re\) "
            r"\(see fedlib.conformance.MechanismBase\)$"),
    (OldSelect, r"it lacks select\(bids, Re, budget, \*, costs=None, rng=None\) \(it takes "
                r"select\(self, bids, Re, budget\)\)"),
    (object(), r"^object does not fit the mechanism protocol: it lacks select\(bids, Re, "
               r"budget, \*, costs=None, rng=None\); pay\(allocation, re\); name \(a str\); "
               r"label \(a str\); claims .*; knows \('bids' or 'costs'\)"),
    (type("Selectless", (MechanismBase,), {"name": "selectless"}),
     r"^Selectless does not fit the mechanism protocol: it lacks select\(bids, Re, budget, "
     r"\*, costs=None, rng=None\) \(see"),
    (type("Unnamed", (MechanismBase,), {"select": DuckTyped.select}),
     r"^Unnamed does not fit the mechanism protocol: it lacks name \(a str\)"),
    (type("Bad", (DuckTyped,), {"name": "a b"}), r"^Bad.name must be letters, digits"),
    (type("Taken", (DuckTyped,), {"name": "ours"}), r"^Taken.name 'ours' is a built-in"),
    (type("Boasts", (DuckTyped,), {"claims": {"optimal"}}),
     r"^Boasts.claims: unknown claims \['optimal'\]"),
    (type("Knows", (DuckTyped,), {"knows": "all"}), r"it lacks knows \('bids' or 'costs'\)"),
    (type("Needs", (DuckTyped,), {"__init__": lambda self, x: None}),
     r"^Needs cannot be created without arguments"),
])
def test_what_does_not_fit_is_refused_in_one_line_naming_it(obj, message):
    with pytest.raises(ValueError, match=message) as error:
        conform(obj)
    assert "\n" not in str(error.value)


def test_the_base_builds_allocations_and_pays_ex_ante():
    class Half(MechanismBase):
        name = "half"

        def select(self, bids, Re, budget, *, costs=None, rng=None):
            return self.allocation([2, 0], len(bids), np.full(len(bids), 0.5))

    m = conform(Half)
    a = m.select([1, 1, 1], [1, 1, 1], 3)
    assert a.mechanism == "half" and a.winners.tolist() == [2, 0]
    assert a.selected.tolist() == [True, False, True] and not a.selected.flags.writeable
    assert m.pay(a, [1, 1, 1]).tolist() == [0.5, 0.0, 0.5]  # losers' upper payment is 0
    assert m.label == "half" and m.knows == "bids" and m.claims == frozenset()
    with pytest.raises(ValueError, match="^allocation was made by 'rrafl', not 'half'$"):
        m.pay(MECHANISMS["rrafl"].select([1, 1, 1], [1, 1, 1], 3), [1, 1, 1])
    assert all(isinstance(m, MechanismBase) for m in MECHANISMS.values())  # the one base
    assert next(iter(PROPERTIES)) == "well_defined"


MECHANISM_FILE = '''
from fedlib.conformance import MechanismBase
from fedlib.mechanism import select


class ExAnte(MechanismBase):
    name, claims = "ex_ante_file", frozenset({"truthful"})

    def select(self, bids, Re, budget, *, costs=None, rng=None):
        a = select(bids, Re, budget)
        return self.allocation(a.winners, len(bids), a.upper)


INSTANCE = ExAnte()
'''


def test_load_reads_a_file_anywhere_or_a_module(tmp_path):
    path = tmp_path / "my mechanisms.py"
    path.write_text(MECHANISM_FILE)
    from_class, from_object = load(f"{path}:ExAnte"), load(f"{path}:INSTANCE")
    assert from_class.name == from_object.name == "ex_ante_file"
    assert type(from_class).__module__ == "fedlib_user_my_mechanisms"
    assert load("fedlib.mechanism:RRAFL") == MECHANISMS["rrafl"]


@pytest.mark.parametrize("spec, message", [
    ("mechanism.py", r"^expected PATH.py:CLASS or MODULE:CLASS, got 'mechanism.py'$"),
    ("missing.py:X", r"^no file 'missing.py'$"),
    ("no_such_module_x:X", r"^no module 'no_such_module_x' \(a file needs the .py suffix\)$"),
    ("fedlib.mechanism:Nothing", r"^'fedlib.mechanism' has no 'Nothing'$"),
    ("fedlib.mechanism:select", r"^function does not fit"),
])
def test_load_says_in_one_line_what_is_wrong(spec, message):
    with pytest.raises(ValueError, match=message):
        load(spec)


def test_a_file_that_fails_to_import_is_reported_with_its_error(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("import numpy\nraise RuntimeError('no GPU here')\n")
    with pytest.raises(ValueError, match=r"^importing '.*broken.py' raised RuntimeError: no GPU "
                                         r"here$"):
        load(f"{path}:X")


class Misbehaves(DuckTyped):
    """Ex ante on Algorithm 1, except that ``how`` goes wrong."""

    def __init__(self, how: str) -> None:
        self.how = how

    def select(self, bids, Re, budget, *, costs=None, rng=None):
        a = MECHANISMS["rrafl"].select(bids, Re, budget)
        if self.how == "raises":
            raise ZeroDivisionError("oops")
        if self.how == "mask":
            return type("A", (), {"selected": a.selected[:-1], "winners": a.winners})()
        if self.how == "winners":
            return type("A", (), {"selected": a.selected, "winners": np.array([2])})()
        if self.how == "nothing":
            return None
        return a

    def pay(self, allocation, re):
        p = allocation.upper.copy()
        if self.how == "nan":
            p[0] = np.nan
        elif self.how == "negative":
            p[1] = -0.5
        elif self.how == "loser":
            p[2] = 0.25
        elif self.how == "shape":
            p = p[:2]
        return p


@pytest.mark.parametrize("how, fault", [
    ("raises", "select raised ZeroDivisionError: oops"),
    ("mask", "select's selected is bool of shape (2,), expected bool of shape (3,)"),
    ("winners", "select's winners [2] disagree with its selected mask [0, 1]"),
    ("nothing", "select returned a NoneType without selected and winners (return an "
                "Allocation)"),
    ("nan", "pay returned nan to worker 0"),
    ("negative", "pay returned a negative payment -0.5 to worker 1"),
    ("loser", "pay paid 0.25 to worker 2, who was not selected (losers are paid 0)"),
    ("shape", "pay returned shape (2,), expected (3,)"),
])
def test_a_misbehaving_mechanism_is_a_fault_in_one_line_not_a_traceback(how, fault):
    play = Player(Misbehaves(how)).play(THEOREM4)
    assert play.fault == fault
    assert play.payments is None


def test_a_well_behaved_play_and_its_utilities():
    play = Player(MECHANISMS["ours"]).play(THEOREM4)
    assert play.fault is None and play.selected.tolist() == [True, True, False]
    # rho* = 5; worker 0 (re 0.5 of Re 1) is paid min(5, max(10 * 0.5 / 1.5, 2.5)) = 10/3.
    assert play.payments == pytest.approx([10 / 3, 5.0, 0.0])
    assert play.utility(0, 4.0) == pytest.approx(-2 / 3) and play.utility(2, 100.0) == 0.0
    assert select(THEOREM4.bids, THEOREM4.Re, THEOREM4.budget).rho_star == 5.0
