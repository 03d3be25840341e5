"""BMC constrained by proved invariants, and the interpreter's runs as hints for BMC.

Both only make BMC cheaper: a constraint must be a fact of every reachable state (closed
into an inductive set on the relation being checked, never taken from a hint or another
relation on trust), and a run the interpreter plays is a question to the solver, never an
answer.  Each test below would fail if one of them were trusted."""

from __future__ import annotations

import dataclasses
from functools import cache
from typing import Any

import pytest
import z3

from mtgcheck.checkers import invariants as inv, z3bmc
from mtgcheck.checkers.result import PROVED, VACUOUS, VIOLATED, Verdict
from mtgcheck.configs import SMALL
from mtgcheck.model.actions import catalogue, enabled_transition
from mtgcheck.model.mutants import MUTANTS, Mutant
from mtgcheck.model.setup import build
from mtgcheck.properties.catalogue import BY_ID, PROPERTIES

LEAVER = next(x for x in MUTANTS if x.id == "leaver-cards-stay")  # breaks CR 800.4a at depth 1
OID_KEPT = next(x for x in MUTANTS if x.id == "object-id-kept")  # breaks a transition property, same position


@cache
def _intact_hints(position: str) -> tuple[str, ...]:
    vs = z3bmc.check(SMALL[position], PROPERTIES, depth=1, timeout=600)
    assert all(v.status == PROVED for v in vs), [v.summary() for v in vs if v.status != PROVED]
    return tuple(vs[0].stats["proof_invariants"])


def _kills(vs: list) -> list[tuple[int | None, str]]:  # type: ignore[type-arg]
    return sorted((v.depth, v.property) for v in vs if v.status == VIOLATED)


def _bmc(m: Mutant, **kw: Any) -> list[Verdict]:
    return z3bmc.check(SMALL[m.position], PROPERTIES, depth=6, timeout=300, induction=False, disabled=m.disabled,
                       variant=m.variant, first_violation=True, **kw)


def test_the_intact_rules_invariants_are_found_again_on_the_broken_rules() -> None:
    """The intact rules' invariants given as hints to BMC of a mutant: only those found
    (mined and initially true) on the mutant's rules and closed on its relation constrain
    BMC, which kills it at the same depth, with the same properties, as plain BMC (all 23
    mutants agree; one runs here)."""
    hints = _intact_hints(LEAVER.position)
    constrained = _bmc(LEAVER, bmc_invariants=True, hints=hints)
    assert _kills(constrained) == _kills(_bmc(LEAVER)) != []
    # the candidates among BMC's constraints (the rest are the state properties closed with them)
    stats = constrained[0].stats
    assert 0 < stats["bmc_constrained_by"] - len(stats["bmc_closed_properties"]) < len(hints)


@pytest.mark.parametrize("m", [LEAVER, OID_KEPT], ids=lambda m: m.id)
def test_the_properties_closed_with_the_invariants_constrain_bmc_a_broken_one_never(m: Mutant) -> None:
    """The properties the closing for BMC proves with the candidates constrain BMC (as the
    induction's proofs do after k = 0): the state properties closed with them constrain its
    states, the transition properties every step from them keeps constrain its steps.  On
    the intact rules every property is among them and BMC still reaches its depth for every
    property; on the broken rules the property the mutant breaks is not (its step fails),
    so it constrains nothing and BMC kills the mutant with it, as plain BMC does.  Trusted
    unchecked, it would hide the kill.  One mutant breaks a state property (CR 800.4a),
    the other a transition property (CR 400.7)."""
    hints = _intact_hints(m.position)
    every = sorted(p.id for p in PROPERTIES)
    intact = z3bmc.check(SMALL[m.position], PROPERTIES, depth=6, timeout=300, induction=False,
                         bmc_invariants=True, hints=hints)
    assert intact[0].stats["bmc_closed_properties"] == every
    assert {(v.status, v.depth) for v in intact} == {("holds", 6)}
    broken = _bmc(m, bmc_invariants=True, hints=hints)
    killed = {pid for _, pid in _kills(broken)}
    assert [BY_ID[pid].kind for pid in killed] == ["state" if m is LEAVER else "transition"]
    closed = set(broken[0].stats["bmc_closed_properties"])
    assert not killed & closed
    # The intact rules' hints need not close every other property on the broken rules: they
    # are what the intact proofs used, and a mutant's relation may need more (on
    # ``leaver-cards-stay``, ``flashback-spell-always-ends-in-exile``'s consecution has a
    # counterexample with the hints the intact run now names); most are closed.
    assert closed <= set(every) - killed and len(closed) >= len(every) - 2
    assert _kills(broken) == _kills(_bmc(m))


def test_a_candidate_that_hides_the_violation_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    """A candidate true initially that would hide the violation if it were trusted ("no
    player ever leaves") is given as a hint with the others: the closure finds a step that
    breaks it and drops it, and BMC still kills the mutant as plain BMC does."""
    real = z3bmc.find_invariants
    cfg, _ = build(SMALL[LEAVER.position].position)
    cols = [e.col for e in inv.entries(cfg) if e.decl.name == "in_game"]
    stay = inv.Candidate("everyone stays", "test", lambda f: z3.And([f[c] == 1 for c in cols]))

    def found_and_stay(*a: Any, **kw: Any) -> Any:
        found = real(*a, **kw)
        return dataclasses.replace(found, live=[*found.live, stay])

    monkeypatch.setattr(z3bmc.closure, "find_invariants", found_and_stay)
    constrained = _bmc(LEAVER, bmc_invariants=True, hints=(*_intact_hints(LEAVER.position), stay.name))
    assert _kills(constrained) == _kills(_bmc(LEAVER)) != []


def test_after_k0_bmc_is_constrained_by_what_the_closure_proved() -> None:
    """With induction, BMC runs after k = 0 for what it left, its states constrained by the
    closure's candidates and the proved state properties: a broken rule is still caught."""
    m = LEAVER
    props = [BY_ID["every-card-in-one-zone"], BY_ID["object-ids-fresh"], BY_ID["stack-ordered"]]
    vs = z3bmc.check(SMALL[m.position], props, depth=2, timeout=600, disabled=m.disabled, variant=m.variant)
    assert [v.status for v in vs] == [VIOLATED, PROVED, PROVED], [v.summary() for v in vs]
    assert vs[0].depth == 1 and vs[0].stats["bmc_constrained_by"] > 0


def test_the_interpreters_run_is_a_real_run() -> None:
    """``witness`` gives the catalogue's indices of a run of exactly the length asked, each
    transition enabled where it is taken."""
    cfg, s0 = build(SMALL["break-rites"].position)
    ts = catalogue(cfg).transitions
    for n in (1, 4, 9):
        run = z3bmc.witness(cfg, s0, n)
        assert run is not None and len(run) == n
        s = s0
        for i in run:
            t = enabled_transition(cfg, s, ts[i].action)
            assert t is ts[i]
            s = t.effect(s)
    assert z3bmc.witness(cfg, s0, 9, cap=3) is None  # out of its cap: no answer, not a wrong one


def test_a_run_the_solver_rejects_is_not_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    """A played run the relation does not allow (here: the first transition, over and over)
    is rejected by the solver, which is then asked whether any run exists: the verdicts and
    depths are those of a check without hints, and so is the vacuity of a relation with no
    run at all (every transition's guard disabled by forcing the action out of range)."""
    props = [BY_ID["object-ids-fresh"], BY_ID["mandatory-additional-costs-paid"]]
    conf = SMALL["break-rites"]
    honest = z3bmc.check(conf, props, depth=3, timeout=600, induction=False)
    monkeypatch.setattr(z3bmc.bmc, "witness", lambda cfg, s0, steps, cap=0: [0] * steps)
    lied = z3bmc.check(conf, props, depth=3, timeout=600, induction=False)
    assert [(v.status, v.depth) for v in lied] == [(v.status, v.depth) for v in honest]

    real_extend = z3bmc.Unroller.extend

    def no_step(self: z3bmc.Unroller) -> int:  # no transition may be taken: no run at all
        k = real_extend(self)
        self.solver.add(self.acts[k] < 0)
        return k

    monkeypatch.setattr(z3bmc.Unroller, "extend", no_step)
    (v,) = z3bmc.check(conf, props[:1], depth=3, timeout=600, induction=False)
    assert v.status == VACUOUS, v.summary()


def test_a_closing_out_of_its_share_leaves_bmc_plain(monkeypatch: pytest.MonkeyPatch) -> None:
    """The closing for BMC alone gets a share of the time (:data:`z3bmc.CLOSING_SHARE`): one
    that does not end in it constrains nothing (a set half closed is no invariant), and BMC
    runs plain with the time left, to the depth plain BMC reaches, instead of being starved."""
    monkeypatch.setattr(z3bmc.run, "CLOSING_SHARE", 0.0)
    conf = SMALL[LEAVER.position]
    props = [BY_ID["stack-ordered"], BY_ID["object-ids-fresh"]]
    vs = z3bmc.check(conf, props, depth=2, timeout=300, induction=False, bmc_invariants=True,
                     hints=_intact_hints(LEAVER.position))
    plain = z3bmc.check(conf, props, depth=2, timeout=300, induction=False)
    assert vs[0].stats["bmc_constrained_by"] == 0
    assert [(v.status, v.depth) for v in vs] == [(v.status, v.depth) for v in plain] == [("holds", 2)] * 2
