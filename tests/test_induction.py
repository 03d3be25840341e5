"""k-induction in the Z3 checker: the smallest k that works is reported, k never exceeds the
depth BMC checked (the base case), and a property that is false in a reachable state is
never proved, at any k."""

from __future__ import annotations

import time
from typing import Any

import z3

from mtgcheck.checkers import z3bmc
from mtgcheck.checkers.result import HOLDS, PROVED, UNKNOWN
from mtgcheck.configs import SMALL
from mtgcheck.model.mutants import BY_ID as MUTANTS
from mtgcheck.model.setup import build
from mtgcheck.properties.catalogue import BY_ID

RITES = SMALL["break-rites"]
MANDATORY = BY_ID["mandatory-additional-costs-paid"]
# The k = 1 proof below takes about a million (k >= 1 attempts get 1/STEP_SHARE of the
# limit); a limit below the default keeps the failing k = 0 attempt short.
SMALL_RLIMIT = 6_000_000


def test_a_proof_that_needs_k_1() -> None:
    """From an arbitrary state, casting Village Rites can make a player at 0 life lose (the
    sacrificed creature then leaves the game instead of reaching the graveyard), so k = 0
    fails; after any step, state-based actions have removed such a player, so k = 1 works."""
    (v,) = z3bmc.check(RITES, [MANDATORY], depth=1, timeout=300, rlimit=SMALL_RLIMIT, invariants=False)
    assert v.status == PROVED, v.summary()
    assert v.k == 1
    assert "CR 118.8 (cost.sacrifice)" in v.detail
    assert [q.split(":")[0] for q in v.stats["induction_queries"]] == [f"k=0 {MANDATORY.id}", f"k=1 {MANDATORY.id}"]


def test_k_never_exceeds_the_bmc_depth() -> None:
    """With no BMC step checked, only k = 0 may be tried: the k = 1 proof above is not made."""
    (v,) = z3bmc.check(RITES, [MANDATORY], depth=0, timeout=300, rlimit=SMALL_RLIMIT, invariants=False)
    assert v.status == HOLDS and v.depth == 0
    assert len(v.stats["induction_queries"]) == 1


def test_a_property_false_in_a_reachable_state_is_never_proved() -> None:
    """The mutant where every roll of the planar die is free breaks planar-die-cost-rises at
    depth 2 (roll, roll).  Pretending BMC had passed depth 2, the step case must still find a
    counterexample to induction at k = 0, 1 and 2 (sat, not merely out of budget); and
    through the checker, with the invariants found on the position, nothing is proved."""
    mutant = MUTANTS["roll-cost-never-rises"]
    prop = BY_ID["planar-die-cost-rises"]
    cfg, s0 = build(SMALL[mutant.position].position, disabled=mutant.disabled)
    enc = z3bmc.Encoding.build(cfg, s0)
    # k >= 1 attempts get 1/STEP_SHARE of the limit: give them the full default.
    budget = z3bmc.Budget(z3bmc.STEP_SHARE * z3bmc.RLIMIT, time.monotonic() + 300)
    assert z3bmc.prove_by_induction(enc, [prop], {prop.id: 2}, budget, max_k=2)[0] == {}
    assert [(what, res) for what, res, *_ in budget.queries] == [(f"k={k} {prop.id}", str(z3.sat)) for k in range(3)]
    # Through the checker: BMC to depth 1 passes, and induction (k <= 1) proves nothing.
    (v,) = z3bmc.check(SMALL[mutant.position], [prop], depth=1, timeout=300, disabled=mutant.disabled)
    assert v.status == HOLDS and v.depth == 1


def test_out_of_resources_is_holds_out_of_time_is_unknown() -> None:
    """A query that spends its resource limit proves nothing, and BMC's bound still stands
    (deterministic); the wall-clock safety net running out makes the verdict unknown."""
    (v,) = z3bmc.check(RITES, [MANDATORY], depth=1, timeout=300, rlimit=1)
    assert v.status == HOLDS and v.depth == 1
    assert all(": unknown" in q for q in v.stats["induction_queries"])
    (v,) = z3bmc.check(RITES, [MANDATORY], depth=1, timeout=0.5)
    assert v.status == UNKNOWN


def test_a_step_case_too_big_whole_is_split_by_transition(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A step case that runs out of its limit as one query over the whole relation is asked
    again one transition at a time, and every transition's query being unsat proves it.  Here
    each query of one-alternative-cost's step case on ``costs`` (at any k) that is not one
    transition's gets a limit of one unit, so it runs out (whether a real one does depends on the limit and
    on the order Z3 meets the terms in); the split proves the property at k = 0.  With no room
    for a split (of the whole query, or of the first try on the closed set), the same run
    proves nothing."""
    from mtgcheck.configs import BUILTIN

    costs = next(c for c in BUILTIN if c.name == "costs")
    prop = BY_ID["one-alternative-cost"]
    real = z3bmc.Budget.check

    def whole_runs_out(self, sol, *assumptions, what="", share=1):  # type: ignore[no-untyped-def]
        whole = what.split(" ")[1:2] == [prop.id] and what.startswith("k=") and " [" not in what
        return real(self, sol, *assumptions, what=what, share=self.rlimit if whole else share)

    monkeypatch.setattr(z3bmc.Budget, "check", whole_runs_out)
    (v,) = z3bmc.check(costs, [prop], depth=1, timeout=300)
    assert v.status == PROVED and v.k == 0, v.summary()
    mine = [q for q in v.stats["induction_queries"] if q.startswith(f"k=0 {prop.id}")]
    whole, split = [q for q in mine if " [" not in q], [q for q in mine if " [" in q]
    assert whole and all(": unknown" in q for q in whole)
    assert len(split) > 10 and all(": unsat" in q for q in split)
    assert any("(closed) [" in q for q in split)  # the first try, on the closed set, split too
    monkeypatch.setattr(z3bmc.path, "SPLIT_RLIMITS", 0)
    monkeypatch.setattr(z3bmc.path, "CLOSED_SPLIT", 0)  # nor the first try's, on the closed set
    (again,) = z3bmc.check(costs, [prop], depth=1, timeout=300)
    assert again.status == HOLDS, again.summary()


def test_a_split_asks_the_transitions_of_one_verb_together_first(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A split asks up to ``SPLIT_GROUP`` transitions of one verb in one query, and one at a
    time only those of a group that runs out; the first try's split, on the closed set, gives
    up there instead (the query with every candidate follows).  Here, on ``costs``, the whole
    queries of one-alternative-cost's step case run out (as in the test above), then every
    group's too: the property is still proved, by single transitions."""
    from mtgcheck.configs import BUILTIN

    costs = next(c for c in BUILTIN if c.name == "costs")
    prop = BY_ID["one-alternative-cost"]
    real = z3bmc.Budget.check
    groups_run_out = False

    def runs_out(self, sol, *assumptions, what="", share=1):  # type: ignore[no-untyped-def]
        mine = what.split(" ")[1:2] == [prop.id] and what.startswith("k=")
        out = mine and (" [" not in what or (groups_run_out and ".." in what))
        return real(self, sol, *assumptions, what=what, share=self.rlimit if out else share)

    monkeypatch.setattr(z3bmc.Budget, "check", runs_out)
    (v,) = z3bmc.check(costs, [prop], depth=1, timeout=300)
    assert v.status == PROVED and v.k == 0, v.summary()
    split = [q for q in v.stats["induction_queries"] if q.startswith(f"k=0 {prop.id}") and " [" in q]
    groups = [q for q in split if ".." in q]
    assert groups and all(": unsat" in q for q in split)
    cfg, s0 = build(costs.position)
    assert len(split) < len(z3bmc.Encoding.build(cfg, s0).actions)  # fewer queries than transitions
    groups_run_out = True
    (again,) = z3bmc.check(costs, [prop], depth=1, timeout=300)
    assert again.status == PROVED, again.summary()
    split = [q for q in again.stats["induction_queries"] if q.startswith(f"k=0 {prop.id}") and " [" in q]
    closed_singles = [q for q in split if "(closed) [" in q and ".." not in q]
    singles = [q for q in split if ".." not in q and "(closed)" not in q]
    assert any(".." in q and ": unknown" in q for q in split) and not closed_singles and singles


def test_a_property_of_every_slot_is_asked_one_conjunct_at_a_time(monkeypatch: Any) -> None:
    """``object-ids-fresh`` is a conjunction, one conjunct per card slot: its step case is
    one query per conjunct (``Path.conjuncts``), and the proof stands on all of them being
    unsat.  Under the mutant that keeps a moved card's object id, a conjunct's query has a
    counterexample to induction, at every k: nothing is proved.  (The step pass, which shows
    every conjunct of it without a query, is off here: ``tests/test_step_pass.py``.)"""
    monkeypatch.setattr(z3bmc.closure, "STEP_PASS", False)
    prop = BY_ID["object-ids-fresh"]
    conf = SMALL["break-bolt"]
    cfg, _ = build(conf.position)
    (v,) = z3bmc.check(conf, [prop], depth=1, timeout=300)
    assert v.status == PROVED and v.k == 0, v.summary()
    asked = [q for q in v.stats["induction_queries"] if q.startswith(f"k=0 {prop.id} (conjunct ")]
    unsat = {int(q.split("(conjunct ")[1].split(")")[0]) for q in asked if ": unsat" in q}
    assert unsat == set(range(cfg.n)), asked

    mutant = MUTANTS["object-id-kept"]
    cfg, s0 = build(SMALL[mutant.position].position, disabled=mutant.disabled)
    enc = z3bmc.Encoding.build(cfg, s0)
    budget = z3bmc.Budget(z3bmc.STEP_SHARE * z3bmc.RLIMIT, time.monotonic() + 300)
    assert z3bmc.prove_by_induction(enc, [prop], {prop.id: 1}, budget, max_k=1)[0] == {}
    sat = [what for what, res, *_ in budget.queries if res == str(z3.sat)]
    assert [w.split(" ")[0] for w in sat] == ["k=0", "k=1"] and all("(conjunct " in w for w in sat), budget.queries
