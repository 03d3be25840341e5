"""Z3 never turns a timeout into a pass, and its relation is not vacuous on the built-ins."""

from __future__ import annotations

from mtgcheck.checkers import z3bmc
from mtgcheck.checkers.result import HOLDS, PROVED, UNKNOWN
from mtgcheck.configs import BUILTIN
from mtgcheck.properties.catalogue import BY_ID

COSTS = next(c for c in BUILTIN if c.name == "costs")


def test_timeout_is_unknown_never_holds() -> None:
    props = [BY_ID["stack-ordered"], BY_ID["object-ids-fresh"]]
    vs = z3bmc.check(COSTS, props, depth=6, timeout=1.0)
    assert {v.status for v in vs} == {UNKNOWN}


def test_bmc_and_induction_on_costs() -> None:
    vs = z3bmc.check(COSTS, [BY_ID["mandatory-additional-costs-paid"]], depth=2, timeout=120, induction=False)
    assert vs[0].status == HOLDS and vs[0].depth == 2
    proof = z3bmc.check(COSTS, [BY_ID["x-is-zero-when-cast-free"]], depth=1, timeout=120)[0]
    assert proof.status == PROVED and proof.k == 0
