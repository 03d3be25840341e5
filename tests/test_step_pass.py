"""Transition properties shown per transition by the step pass (mtgcheck/checkers/z3bmc/step_pass.py).

The pass claims, without a query, that a part of a transition property holds on every step
that takes a given transition from a state where the interval and difference passes' kept
bounds hold.  These tests check its claims against Z3 on a position, in both directions:
what it shows on the rules is unsat for Z3 under those bounds alone, and under the mutant
that keeps a moved card's id it shows nothing Z3 can break."""

from __future__ import annotations

import time
from typing import Iterator

import pytest
import z3

from mtgcheck.checkers import z3bmc
from mtgcheck.checkers.result import PROVED
from mtgcheck.checkers.z3bmc.budget import RLIMIT, Budget
from mtgcheck.checkers.z3bmc.closure import Closure, find_invariants
from mtgcheck.checkers.z3bmc.initial import initial_placements
from mtgcheck.checkers.z3bmc.path import Path
from mtgcheck.configs import SMALL
from mtgcheck.model.mutants import BY_ID as MUTANTS
from mtgcheck.model.setup import build
from mtgcheck.properties.base import Property
from mtgcheck.properties.catalogue import BY_ID, PROPERTIES

FRESH = BY_ID["object-ids-fresh"]


@pytest.fixture(autouse=True)
def own_context() -> Iterator[None]:
    """Each test in a Z3 context of its own, as a check runs (``z3bmc.fresh_context``): what the
    pass shows reads terms ``simplify`` normalizes, whose form follows the ids of the terms the
    context already holds, so a test after others in one worker could see other forms."""
    with z3bmc.fresh_context():
        yield


def _closure(disabled: frozenset[str] = frozenset(), name: str = "break-bolt") -> tuple[z3bmc.Encoding, Closure]:
    conf = SMALL[name]
    cfg, s0 = build(conf.position, disabled=disabled)
    enc = z3bmc.Encoding.build(cfg, s0)
    budget = Budget(RLIMIT, time.monotonic() + 300)
    found = find_invariants(enc, conf, lambda st: initial_placements(cfg, s0, st), budget)
    return enc, Closure(enc, found.live, budget, intervals=True)


def _z3_violates(enc: z3bmc.Encoding, closure: Closure, transitions: list[int], conjunct: int | None,
                 prop: Property = FRESH) -> z3.CheckSatResult:
    """Z3: from a state where the passes' kept bounds hold (nothing else), does a step by one
    of ``transitions`` break ``prop``'s conjunct (None: the whole predicate)?"""
    kept = [closure.cands[n] for n in sorted(closure.by_intervals)]
    path = Path(enc, 0)
    path.add_invariants(kept, set(closure.by_intervals))
    if conjunct is None:
        broken = path.un.violation(prop, 0)
    else:
        parts = path.conjuncts(prop)
        assert parts is not None
        broken = parts[conjunct]
    goal = z3.Bool("goal")
    path.sol.add(z3.Implies(goal, z3.And(broken, z3.Or([path.un.acts[0] == i for i in transitions]))))
    return path.sol.check(*enc.en.values(), *path.live_lits(), goal)


def test_the_pass_shows_fresh_ids_on_every_transition_and_z3_agrees() -> None:
    """On the rules every conjunct of ``object-ids-fresh`` is shown on every transition, and
    Z3 finds no step that breaks one from a state where only the bounds the pass assumed
    hold."""
    enc, closure = _closure()
    assert closure.path.step_pass is not None
    left = closure.path.step_pass.open_transitions(FRESH, True)
    cfg_n = len(enc.cfg.slots)
    assert len(left) == cfg_n and all(not ts for ts in left), left
    assert closure.path.step_pass.stats["step_pass_parts"] == cfg_n
    everything = list(range(len(enc.actions)))
    for j in range(cfg_n):
        assert _z3_violates(enc, closure, everything, j) == z3.unsat, j


def test_under_the_mutant_the_pass_leaves_the_moves_and_z3_breaks_them() -> None:
    """Under ``object-id-kept`` (a moved card keeps its id) the pass leaves open the
    transitions that move a card, and Z3 breaks the property on them: every (transition,
    conjunct) it shows is one Z3 cannot break."""
    mutant = MUTANTS["object-id-kept"]
    enc, closure = _closure(mutant.disabled)
    assert closure.path.step_pass is not None
    left = closure.path.step_pass.open_transitions(FRESH, True)
    assert any(left), left
    everything = set(range(len(enc.actions)))
    broken = 0
    for j, open_ in enumerate(left):
        shown = sorted(everything - set(open_))
        if shown:
            assert _z3_violates(enc, closure, shown, j) == z3.unsat, j
        if open_:
            broken += _z3_violates(enc, closure, open_, j) == z3.sat
    assert broken > 0
    verbs = {enc.actions[i].verb for open_ in left for i in open_}
    assert "pass" in verbs or "cast" in verbs, verbs


def test_the_step_case_asks_only_what_the_pass_leaves() -> None:
    """``object-ids-fresh`` is proved at k = 0 with no step-case query of its own, and its
    proof names the pass; with the pass off it takes one query per conjunct."""
    conf = SMALL["break-bolt"]
    (v,) = z3bmc.check(conf, [FRESH], depth=1, timeout=300)
    assert v.status == PROVED and v.k == 0, v.summary()
    asked = [q for q in v.stats["induction_queries"] if q.startswith(f"k=0 {FRESH.id}")]
    assert asked == [] and "step pass" in v.detail, (asked, v.detail)
    cfg, _ = build(conf.position)
    assert v.stats["invariants"]["step_pass_parts"] >= cfg.n  # (every conjunct, whole)


def test_read_under_their_guards_more_steps_are_shown_and_z3_agrees(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Each transition's part is read under its guard (``If(guard, part, True)``): a property
    that restates a guard (``plot-only-main-phase-empty-stack``: a card is plotted only in its
    owner's main phase with an empty stack) is shown on every transition, where without the
    guards the plot transitions are left.  Every (transition, whole predicate) the pass shows,
    for every transition property, is one Z3 cannot break from a state where only the kept
    bounds hold."""
    from mtgcheck.checkers.z3bmc import step_pass

    enc, closure = _closure(name="break-aven")
    sp = closure.path.step_pass
    assert sp is not None
    props = [p for p in PROPERTIES if p.kind == "transition"]
    left = {p.id: (sp.open_transitions(p, False) or [[]])[0] for p in props}
    monkeypatch.setattr(step_pass, "GUARDS", False)
    blind = step_pass.StepPass(enc, [closure.cands[n] for n in sorted(closure.by_intervals)])
    left_blind = {p.id: (blind.open_transitions(p, False) or [[]])[0] for p in props}
    plot = "plot-only-main-phase-empty-stack"
    assert not left[plot] and {enc.actions[i].verb for i in left_blind[plot]} == {"plot"}
    assert all(set(left[p]) <= set(left_blind[p]) for p in left)
    everything = set(range(len(enc.actions)))
    for p in props:
        shown = sorted(everything - set(left[p.id]))
        if shown:
            assert _z3_violates(enc, closure, shown, None, p) == z3.unsat, p.id


def test_frame_parts_show_what_each_transition_shows_and_z3_agrees(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A conjunct read once over its frame state (``StepPass._frame_parts``) stands for every
    transition that leaves its card's entries as they were: on ``break-flashback`` most (transition,
    conjunct) pairs of ``object-ids-fresh`` and ``flashback-spell-always-ends-in-exile`` are
    shown so, the pass leaves no pair it left without the frame parts, and Z3 cannot break a
    pair shown from a state where only the kept bounds hold."""
    from mtgcheck.checkers.z3bmc import step_pass

    enc, closure = _closure(name="break-flashback")
    sp = closure.path.step_pass
    assert sp is not None
    props = [FRESH, BY_ID["flashback-spell-always-ends-in-exile"]]
    left = {p.id: sp.open_transitions(p, True) for p in props}
    assert sp.stats["step_pass_framed"] > len(enc.actions), sp.stats
    monkeypatch.setattr(step_pass, "FRAMES", False)
    plain = step_pass.StepPass(enc, [closure.cands[n] for n in sorted(closure.by_intervals)])
    for p in props:
        without = plain.open_transitions(p, True)
        assert all(set(a) <= set(b) for a, b in zip(left[p.id], without, strict=True)), p.id
    assert plain.stats["step_pass_framed"] == 0
    everything = set(range(len(enc.actions)))
    for p in props:
        for j, open_ in enumerate(left[p.id]):
            shown = sorted(everything - set(open_))
            if shown:
                assert _z3_violates(enc, closure, shown, j, p) == z3.unsat, (p.id, j)
