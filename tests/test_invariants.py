"""Invariants found, not hand-written (mtgcheck/checkers/invariants.py), and the lean relation.

The templates are instantiated over the declared layout and filtered by reachable states;
nothing mined is trusted: a candidate false in some initial state is dropped, and a proof
may rest on candidates only once they are closed into an inductive set (a candidate whose
consecution has a counterexample is dropped and the proof redone without it)."""

from __future__ import annotations

import dataclasses
import random
import time
from typing import Any

import pytest
import z3

from mtgcheck.checkers import invariants as inv, z3bmc
from mtgcheck.configs import BUILTIN, SMALL
from mtgcheck.model.actions import catalogue, legal_actions, step
from mtgcheck.model.logic import symbolic
from mtgcheck.model.setup import build
from mtgcheck.model.state import STACK, equal_states, flat

RITES = SMALL["break-rites"]


def _setup():  # type: ignore[no-untyped-def]
    cfg, s0 = build(RITES.position)
    return cfg, s0, z3bmc.Encoding.build(cfg, s0)


@pytest.mark.parametrize("conf", [RITES, next(c for c in BUILTIN if c.name == "plot")], ids=lambda c: c.name)
def test_relation_agrees_with_the_interpreter(conf: Any) -> None:
    """One action variable, the frame (an entry changes only under a transition that writes
    it), the final renumbering of the effects that end with one built once
    (``relation.factored_compaction``) and the state-based actions built once: for states
    of random play, transition i is possible exactly when it is enabled, and its successor
    is the interpreter's."""
    cfg, s0 = build(conf.position)
    enc = z3bmc.Encoding.build(cfg, s0)
    # the effects that still end with a renumbering (a plot, a permanent spell's resolution,
    # leaving the game; casts and draws leave theirs to settle's) share one
    factored = enc.factored  # (not ``enc`` in the assertion: its terms would be printed whole)
    assert factored >= 2, factored
    ts = catalogue(cfg).transitions
    # ``m``, the state after the action and before the state-based actions, is the effect's:
    # checked too, since ``settle`` renumbers again, and a wrong renumbering of ``m`` would
    # mostly not show in ``b``.
    raw = [effect for _, effect in z3bmc.relation.raw_transitions(cfg)]
    assert enc.m is not None and len(raw) == len(ts)
    rng = random.Random(3)
    sol = z3.Solver()
    sol.add(enc.step_rel)
    s, checked, stacked = s0, 0, 0
    for _ in range(24):
        stacked += sum(z == STACK for z in s.zone) >= 1 and any(t.enabled(s) and t.action.verb == "cast" for t in ts)
        sol.push()
        with symbolic():
            sol.add(equal_states(enc.a, s))
        for i, t in enumerate(ts):
            ok = t.enabled(s)
            assert (sol.check(*enc.en.values(), enc.act == i) == z3.sat) == ok, t.rule
            if ok:
                with symbolic():
                    other = z3.Not(equal_states(enc.b, t.effect(s)))
                    other_m = z3.Not(equal_states(enc.m, raw[i](s)))
                assert sol.check(*enc.en.values(), enc.act == i, other) == z3.unsat, t.rule
                assert sol.check(*enc.en.values(), enc.act == i, other_m) == z3.unsat, t.rule
                checked += 1
        sol.pop()
        # casts first and no one leaving, so that spells go on a stack holding others (where
        # the renumbering of positions decides their order)
        acts = [x for x in legal_actions(cfg, s) if x.verb != "leave"]
        if not acts:
            break
        casts = [x for x in acts if x.verb == "cast"]
        s = step(cfg, s, rng.choice(casts if casts and rng.random() < 0.8 else acts))
    assert checked >= 6
    assert conf is RITES or stacked >= 1  # on ``plot``: a cast onto a stack holding a spell


def test_a_violation_is_one_disjunct_per_distinct_predicate_and_says_the_same() -> None:
    """A transition property's violation groups the transitions that share its predicate
    (``object-ids-fresh`` reads only the states: one negation for all); under the relation's
    range of ``act`` it is the per-transition disjunction, for every property."""
    from mtgcheck.properties.catalogue import PROPERTIES

    _, _, enc = _setup()
    n = len(enc.actions)
    grouped = 0
    for p in PROPERTIES:
        if p.kind != "transition":
            continue
        terms = enc.prop_terms(p)
        plain = z3.Or([z3.And(enc.act == i, z3.Not(t)) for i, t in enumerate(terms)] or [z3.BoolVal(False)])
        mine = enc.violation_term(p)
        sol = z3.Solver()
        sol.add(enc.act >= 0, enc.act < n, mine != plain)
        assert sol.check() == z3.unsat, p.id
        grouped += len({t.get_id() for t in terms if not z3.is_true(t)}) < sum(not z3.is_true(t) for t in terms)
    assert grouped >= 3  # the grouping is used, not only correct


def test_mined_candidates_hold_on_the_sample() -> None:
    cfg, s0, _ = _setup()
    states = inv.sample(cfg, [s0], cap=300, max_turn=RITES.max_turn)
    cands = inv.mine(cfg, states)
    assert {c.template for c in cands} >= {"range", "cond", "order"}
    for s in states[::10]:
        f = inv.flat(s)
        assert all(c.build(f) for c in cands)


def _oid_bounds(cfg: Any) -> list[inv.Candidate]:
    """``oid[j] < next_oid`` for every card slot: inductive, and what ``object-ids-fresh``
    needs (a card that moves gets an id no object has)."""
    nxt = next(e.col for e in inv.entries(cfg) if e.label == "next_oid")
    return [inv.Candidate(f"{e.label} < next_oid", "order", (lambda f, c=e.col: f[c] < f[nxt]))
            for e in inv.entries(cfg) if e.decl.name == "oid"]


def _whole_share_at_once(monkeypatch: Any) -> None:
    """Every consecution with the whole share from the first query: what these tests decide
    is whether a candidate is inductive, not whether it fits the smaller first limit
    (``turn == 1``'s counterexample takes Z3 more than that; out of it, it is only set aside)."""
    from mtgcheck.checkers.z3bmc import closure as closure_mod

    monkeypatch.setattr(closure_mod, "FIRST_CANDIDATE_SHARE", closure_mod.CANDIDATE_SHARE)


def test_initiation_reads_the_candidates_on_the_models_state() -> None:
    """Initiation evaluates the candidates in Python on the state a model of the initial
    states gives (as mining does on sampled states): on such states, every mined candidate
    of the position evaluates as the model evaluates its term."""
    cfg, s0, enc = _setup()
    cands = inv.mine(cfg, inv.sample(cfg, [s0], cap=400))
    sol = z3.Solver()
    st = z3bmc.symbolic_state(cfg, "t")
    with symbolic():
        sol.add(z3bmc.initial_placements(cfg, s0, st))
    f = flat(st)
    terms = [c.build(f) for c in cands]
    seen = 0
    for _ in range(5):
        assert sol.check() == z3.sat
        m = sol.model()
        values = [m.eval(x, model_completion=True).as_long() for x in f]
        for c, t in zip(cands, terms, strict=True):
            assert c.build(values) == z3.is_true(m.eval(t, model_completion=True)), c.name
            seen += 1
        sol.add(z3.Or([x != v for x, v in zip(f, values, strict=True)]))  # another initial state
    assert seen >= 5 * 100


def test_a_candidate_that_is_not_inductive_is_dropped(monkeypatch: Any) -> None:
    """``turn == 1`` holds in every initial placement but not after the turn ends; the
    object ids' bound holds and is inductive.  The closure keeps the second only."""
    _whole_share_at_once(monkeypatch)
    cfg, s0, enc = _setup()
    turn = next(e.col for e in inv.entries(cfg) if e.label == "turn")
    bad = inv.Candidate("turn == 1", "range", lambda f: f[turn] == 1)
    good = _oid_bounds(cfg)
    budget = z3bmc.Budget(z3bmc.RLIMIT, time.monotonic() + 300)

    def init(st):  # type: ignore[no-untyped-def]
        with symbolic():
            return z3bmc.initial_placements(cfg, s0, st)

    live, complete = inv.initially_true([bad, *good], init,
                                        lambda tag: z3bmc.symbolic_state(cfg, tag),
                                        lambda sol, *a, what="": budget.check(sol, *a, what=what))
    assert complete and {c.name for c in live} == {c.name for c in [bad, *good]}
    closure = z3bmc.Closure(enc, live, budget)
    assert not closure.close([bad.name]) and bad.name not in closure.live
    assert closure.close([good[0].name]) and good[0].name in closure.proven
    assert closure.proven <= {c.name for c in good}
    assert not closure.set_aside  # refuted, not out of a limit


def test_proofs_name_the_invariants_they_rest_on() -> None:
    """With the invariants found on the position, both properties are proved (object-ids-fresh
    at k = 0: it needs the object ids' bounds), and a proof names the invariants in its core."""
    from mtgcheck.checkers.result import PROVED
    from mtgcheck.properties.catalogue import BY_ID

    props = [BY_ID["mandatory-additional-costs-paid"], BY_ID["object-ids-fresh"]]
    vs = z3bmc.check(RITES, props, depth=1, timeout=600)
    assert [v.status for v in vs] == [PROVED, PROVED], [v.summary() for v in vs]
    assert vs[1].k == 0
    assert any("invariant " in v.detail for v in vs)
    st = vs[0].stats["invariants"]
    assert st["proven"] >= 1 and st["mined"] >= st["initially_true"] >= st["live"]


def _planechase():  # type: ignore[no-untyped-def]
    from mtgcheck.configs import BUILTIN

    conf = next(c for c in BUILTIN if c.name == "planechase")
    cfg, s0 = build(conf.position)
    return conf, cfg, s0


def test_templates_for_owners_unseen_values_and_stack_shapes() -> None:
    """Three templates the planechase proofs rest on: a card's entries against its owner's
    (a player out of the game owns nothing in it), each value an entry never takes (a land
    never on the stack, though it visits more zones than the value-set template lists), and
    the shape of a slot stack even where the next slot stayed empty in the sample."""
    conf, cfg, s0 = _planechase()
    states = inv.sample(cfg, [s0], cap=1500, max_turn=conf.max_turn)
    names = {c.name for c in inv.mine(cfg, states)}
    owner = {sl.id: sl.owner for sl in cfg.slots}
    assert any(n == f"in_game[{p}] == 0 -> zone[{j}] == 6" for j, p in owner.items() for n in names), \
        sorted(n for n in names if n.startswith("in_game"))[:20]
    assert any(n == f"zone[{j}] != 2" for j in owner for n in names)
    extra = [e.label for e in inv.entries(cfg) if e.decl.name == "extra"]
    assert all(f"{a} == -1 -> {b} == -1" in names for a, b in zip(extra, extra[1:], strict=False))


def test_planechase_leaving_properties_are_proved() -> None:
    """A player who left begins no turn and is never planar controller: proved at k = 0 on
    the planechase position, resting on found invariants (the queue of extra turns filled as
    a stack, the leaving player's cards outside the game)."""
    from mtgcheck.checkers.result import PROVED
    from mtgcheck.properties.catalogue import BY_ID

    conf, _, _ = _planechase()
    props = [BY_ID["planar-controller-in-game"], BY_ID["left-player-begins-no-turn"]]
    vs = z3bmc.check(conf, props, depth=1, timeout=600)
    assert [v.status for v in vs] == [PROVED, PROVED], [v.summary() for v in vs]
    assert all(v.k == 0 and "invariant " in v.detail for v in vs)


def test_a_candidate_out_of_its_first_limit_is_set_aside_then_given_back(monkeypatch: Any) -> None:
    """A candidate's consecution first gets a small limit; out of it, the candidate is set
    aside (not live, not refuted).  ``object-ids-fresh`` needs the object ids' bounds: with a
    first limit of one unit, every bound is set aside, the step case without them has a
    counterexample, and the bounds it breaks are given back with the whole share, which
    closes them.  Those the counterexample does not break stay aside."""
    from mtgcheck.checkers.z3bmc import closure as closure_mod
    from mtgcheck.checkers.z3bmc.induction import prove_each
    from mtgcheck.properties.catalogue import BY_ID

    cfg, s0, enc = _setup()
    budget = z3bmc.Budget(z3bmc.RLIMIT, time.monotonic() + 300)
    bounds = _oid_bounds(cfg)
    p = BY_ID["object-ids-fresh"]

    monkeypatch.setattr(closure_mod, "FIRST_CANDIDATE_SHARE", z3bmc.RLIMIT)  # a limit of 1
    closure = z3bmc.Closure(enc, bounds, budget, [p])
    proved: dict[str, Any] = {}
    prove_each(closure.path, [p], budget, proved, [], closure)
    assert p.id in proved, closure.summary()
    assert closure.whole_share and closure.whole_share <= closure.proven
    assert not closure.whole_share & closure.set_aside
    assert all(n in closure.whole_share or n in closure.set_aside or n not in closure.visited
               for n in closure.cands), closure.summary()

    # the same with the usual first limit: proved, and whatever was given back is closed
    monkeypatch.undo()
    plain = z3bmc.Closure(enc, bounds, budget, [p])
    proved = {}
    prove_each(plain.path, [p], budget, proved, [], plain)
    assert p.id in proved and plain.whole_share <= plain.proven, plain.summary()


def test_a_bound_the_layout_declares_gets_the_whole_limit_at_once(monkeypatch: Any) -> None:
    """The layout's bounds against another entry (``oid[x] <= next_oid-1``) are mined marked
    ``declared``, constant bounds and the order template's ``<`` are not.  With a first limit
    of one unit, every other candidate is set aside, while a declared bound is asked with the
    whole share at once and proved: ``object-ids-fresh`` is proved on the declared bounds
    without any counterexample giving them back."""
    from mtgcheck.checkers.z3bmc import closure as closure_mod
    from mtgcheck.checkers.z3bmc.induction import prove_each
    from mtgcheck.properties.catalogue import BY_ID

    cfg, s0, enc = _setup()
    mined = inv.mine(cfg, inv.sample(cfg, [s0], cap=300))
    declared = [c for c in mined if c.declared]
    oid = {c.name for c in declared if c.name.startswith("oid[")}
    assert len(oid) == cfg.n and all(n.endswith(" <= next_oid-1") for n in oid), oid
    assert not any(c.declared for c in mined if c.bound is not None or c.template != "range")

    budget = z3bmc.Budget(z3bmc.RLIMIT, time.monotonic() + 300)
    monkeypatch.setattr(closure_mod, "FIRST_CANDIDATE_SHARE", z3bmc.RLIMIT)  # a limit of 1
    bounds = [c for c in declared if c.name in oid]
    strict = _oid_bounds(cfg)  # the same bounds, but not declared: the first limit applies
    p = BY_ID["object-ids-fresh"]
    closure = z3bmc.Closure(enc, [*bounds, *strict], budget, [p])
    proved: dict[str, Any] = {}
    prove_each(closure.path, [p], budget, proved, [], closure)
    assert p.id in proved, closure.summary()
    assert oid <= closure.proven and not oid & closure.set_aside and not closure.whole_share
    assert {c.name for c in strict} & closure.visited <= closure.set_aside


def test_a_step_case_out_of_its_limit_gets_back_what_is_set_aside_over_its_own_fields() -> None:
    """A step case that runs out of its limit shows no counterexample to give candidates
    back by (:meth:`Closure.reinstate`); those set aside that read only fields the property
    reads are given back instead, with the whole share.  For ``object-ids-fresh`` (zones,
    object ids, the next id): the object ids' bounds come back, a candidate over the stack's
    positions stays aside; with nothing of its fields left aside, nothing is given back."""
    from mtgcheck.properties.catalogue import BY_ID

    cfg, s0, enc = _setup()
    budget = z3bmc.Budget(z3bmc.RLIMIT, time.monotonic() + 300)
    bounds = _oid_bounds(cfg)
    pos = next(e.col for e in inv.entries(cfg) if e.decl.name == "pos")
    other = inv.Candidate("pos[0] >= 0", "range", lambda f: f[pos] >= 0)
    closure = z3bmc.Closure(enc, [*bounds, other], budget, [])
    aside = {c.name for c in [*bounds, other]}
    closure.set_aside |= aside
    closure.live -= aside
    fresh = BY_ID["object-ids-fresh"]
    assert closure.give_back_reading(fresh)
    assert closure.set_aside == {other.name}
    assert {c.name for c in bounds} <= closure.live & closure.whole_share
    assert other.name not in closure.live
    assert not closure.give_back_reading(fresh)  # nothing over its fields is left aside
    assert not closure.give_back_reading(BY_ID["one-land-per-turn"])  # reads no stack position either


def test_a_property_is_first_tried_on_what_is_closed_already() -> None:
    """Once ``object-ids-fresh`` is proved, its bounds closed, a property with the same step
    case is proved on the closed set alone: no consecution query, its core names no
    candidate outside the closed set.  A property that does not follow (``turn == 1``) is
    not proved so, and is not asked so again until more is closed."""
    from mtgcheck.checkers.z3bmc.induction import prove_each
    from mtgcheck.properties.catalogue import BY_ID, Property

    cfg, s0, enc = _setup()
    budget = z3bmc.Budget(z3bmc.RLIMIT, time.monotonic() + 300)
    bounds = _oid_bounds(cfg)
    fresh = BY_ID["object-ids-fresh"]
    again = dataclasses.replace(fresh, id="object-ids-fresh-again")
    closure = z3bmc.Closure(enc, bounds, budget, [fresh, again])
    proved: dict[str, Any] = {}
    prove_each(closure.path, [fresh], budget, proved, [], closure)
    assert fresh.id in proved and closure.proven
    asked = closure.queries
    prove_each(closure.path, [again], budget, proved, [], closure)
    assert again.id in proved and closure.queries == asked
    what, res, *_ = budget.queries[-1]  # one query, on the closed set alone
    assert what.endswith("(closed)") and res == "unsat", budget.queries[-3:]
    named = {n.removeprefix("invariant ") for n in proved[again.id].core if n.startswith("invariant ")}
    assert named <= closure.proven, named
    assert named <= closure.visited  # recorded as used: the next run's hints name them

    one = Property("turn-is-one", (), "", "state", lambda c, s: s.turn == 1)
    assert closure.on_closed(one) is None
    before = closure.path.queries
    assert closure.on_closed(one) is None and closure.path.queries == before


def test_a_candidate_may_rest_on_a_property_being_proved(monkeypatch: Any) -> None:
    """Joint induction: ``turn != 0`` is not inductive alone (from turn -1, the next turn is
    0), but it is together with the state property ``turn >= 1``, a member of the closure
    whose consecution is its own step case.  A property that is not inductive (``turn == 1``)
    rescues nothing: its step case fails, and the candidate resting on it is dropped."""
    from mtgcheck.properties.catalogue import Property

    _whole_share_at_once(monkeypatch)
    cfg, s0, enc = _setup()
    turn = next(e.col for e in inv.entries(cfg) if e.label == "turn")
    cand = inv.Candidate("turn != 0", "range", lambda f: f[turn] != 0)
    positive = Property("turn-positive", (), "", "state", lambda c, s: s.turn >= 1)
    first = Property("turn-is-one", (), "", "state", lambda c, s: s.turn == 1)
    budget = z3bmc.Budget(z3bmc.RLIMIT, time.monotonic() + 300)

    alone = z3bmc.Closure(enc, [cand], budget)
    assert not alone.close([cand.name]) and cand.name not in alone.live

    joint = z3bmc.Closure(enc, [cand], budget, [positive])
    assert joint.close([cand.name])
    assert "hyp:turn-positive" in joint.support[cand.name]
    assert {cand.name, "hyp:turn-positive"} <= joint.proven
    assert joint.proven_candidates() == [cand]  # what a k >= 1 path assumes: no property among them

    wrong = z3bmc.Closure(enc, [cand], budget, [first])
    assert not wrong.close([cand.name])  # it rested on turn == 1, whose step case fails
    assert "hyp:turn-is-one" not in wrong.path.hyp_live and cand.name in wrong.live
    assert not wrong.close([cand.name]) and cand.name not in wrong.live
    assert not alone.set_aside and not wrong.set_aside  # refuted, not out of a limit


def test_a_counterexample_that_breaks_a_candidate_set_aside_drops_nothing(monkeypatch: Any) -> None:
    """Houdini drops what a counterexample breaks because its first state satisfies every
    candidate not refuted.  ``turn != 0`` rests on ``turn >= 1``; with ``turn >= 1`` set aside
    (out of a first limit, not refuted), the consecution of ``turn != 0`` has a counterexample
    from turn -1, which breaks ``turn >= 1``: it is given back (whole share), nothing is
    dropped, and both close.  The same with ``turn >= 1`` refuted instead (not live, not
    aside): ``turn != 0`` is dropped."""
    _whole_share_at_once(monkeypatch)
    cfg, s0, enc = _setup()
    turn = next(e.col for e in inv.entries(cfg) if e.label == "turn")
    cand = inv.Candidate("turn != 0", "range", lambda f: f[turn] != 0)
    positive = inv.Candidate("turn >= 1", "range", lambda f: f[turn] >= 1)
    budget = z3bmc.Budget(z3bmc.RLIMIT, time.monotonic() + 300)

    closure = z3bmc.Closure(enc, [cand, positive], budget)
    closure.live.discard(positive.name)
    closure.set_aside.add(positive.name)
    assert closure.close([cand.name]), closure.summary()
    assert {cand.name, positive.name} <= closure.proven and closure.dropped == 0
    assert positive.name in closure.whole_share and not closure.set_aside

    refuted = z3bmc.Closure(enc, [cand, positive], budget)
    refuted.live.discard(positive.name)
    assert not refuted.close([cand.name]) and cand.name not in refuted.live


def _turn_not_zero():  # type: ignore[no-untyped-def]
    """A closure of the one candidate ``turn >= 1`` with the property ``turn != 0`` to prove:
    the closure, the property, the candidate and the budget."""
    from mtgcheck.properties.base import Property

    cfg, _, enc = _setup()
    turn = next(e.col for e in inv.entries(cfg) if e.label == "turn")
    positive = inv.Candidate("turn >= 1", "range", lambda f: f[turn] >= 1)
    p = Property("turn-not-zero", (), "The turn is never 0.", "state", lambda c, s: s.turn != 0)
    budget = z3bmc.Budget(z3bmc.RLIMIT, time.monotonic() + 300)
    return z3bmc.Closure(enc, [positive], budget, [p]), p, positive, budget


def test_a_step_case_among_the_proven_counts_only_a_counterexample_every_live_candidate_allows() -> None:
    """``Closure.step_case`` asks first among the members proven (none here) and the
    properties still to prove: ``turn != 0`` then has a counterexample from turn -1, which
    breaks ``turn >= 1``, live but not assumed, so it is no counterexample of the whole query.
    That is asked next: unsat, resting on ``turn >= 1``.  Once ``turn >= 1`` is proven, the
    step case needs no query: the core of its last proof is among what it assumes now
    (``Path.goal_cores``)."""
    closure, p, positive, budget = _turn_not_zero()

    res, _, _ = closure.step_case(p, member=True)
    asked = [(what, r) for what, r, *_ in budget.queries if p.id in what]
    assert [r for _, r in asked] == ["sat", "unsat"] and "among the proven" in asked[0][0], asked
    assert res == z3.unsat and positive.name in closure.path.last_support

    closure.proven.add(positive.name)
    res, _, _ = closure.step_case(p, member=True)
    again = [(what, r) for what, r, *_ in budget.queries if p.id in what][len(asked):]
    assert res == z3.unsat and again == [] and positive.name in closure.path.last_support, again
    closure.path.goal_cores.clear()  # asked again, it is one query, among the proven, unsat
    res, _, _ = closure.step_case(p, member=True)
    again = [(what, r) for what, r, *_ in budget.queries if p.id in what][len(asked):]
    assert res == z3.unsat and len(again) == 1 and "among the proven" in again[0][0], again


def test_a_step_case_among_the_proven_out_of_its_limit_is_asked_whole(monkeypatch: Any) -> None:
    """After a proof with every live candidate, the query among the proven gets a limit from
    that proof's rlimit (``closure.AMONG_FACTOR``, at least ``AMONG_FLOOR``); out of it, the
    whole query is asked again and proves the property.  Here the limit is one unit."""
    closure, p, _, budget = _turn_not_zero()
    res, _, _ = closure.step_case(p)  # with every live candidate: unsat, its rlimit recorded
    assert res == z3.unsat and "among the proven" not in budget.queries[-1][0]
    monkeypatch.setattr(z3bmc.closure, "AMONG_FLOOR", 1)
    monkeypatch.setattr(z3bmc.closure, "AMONG_FACTOR", 0)
    closure.path.goal_cores.clear()
    asked = len(budget.queries)
    res, _, _ = closure.step_case(p)
    again = [(what, r) for what, r, *_ in budget.queries[asked:]]
    assert res == z3.unsat and [r for _, r in again] == ["unknown", "unsat"], again
    assert "among the proven" in again[0][0] and "among the proven" not in again[1][0], again


def test_ability_slots_against_the_spells_below_them() -> None:
    """The ``between`` template on the plot position: a Slickshot Show-Off trigger is on the
    stack only above the one noncreature spell of its controller (what keeps a second
    trigger out of the step case of ``stack-ordered``)."""
    from mtgcheck.configs import BUILTIN
    from mtgcheck.model.state import ABILITIES, STACK

    conf = next(c for c in BUILTIN if c.name == "plot")
    cfg, s0 = build(conf.position)
    starts = [s0, *z3bmc.placements(cfg, s0, z3bmc.SAMPLE_STARTS)]
    names = {c.name for c in inv.mine(cfg, inv.sample(cfg, starts, cap=z3bmc.SAMPLE_CAP, max_turn=conf.max_turn))}
    pump = ABILITIES.index("show-off-pump")
    assert f"ab_kind[0] == {pump} -> zone[shock] in [{STACK}]" in names, sorted(n for n in names if "ab_" in n)[:30]
    assert f"ab_kind[0] == {pump} & zone[shock] == {STACK} -> pos[shock] < ab_pos[0]" in names


def test_sample_placements_are_initial_states_and_do_not_depend_on_z3() -> None:
    """The placements the invariant sample starts from are initial states of the symbolic
    encoding, distinct, and the same whatever the process asked Z3 before (a solver's
    model would not be: the mined invariants, and so the proofs, would depend on the order
    a worker ran its units in)."""
    from mtgcheck.configs import BUILTIN

    for conf in BUILTIN:
        cfg, s0 = build(conf.position)
        first = z3bmc.placements(cfg, s0, z3bmc.SAMPLE_STARTS)
        assert len({tuple(s.zone) for s in first} | {tuple(s0.zone)}) == len(first) + 1 == z3bmc.SAMPLE_STARTS + 1
        sol = z3.Solver()
        with symbolic():
            st = z3bmc.symbolic_state(cfg, "placed")
            sol.add(z3bmc.initial_placements(cfg, s0, st))
            for s in first:
                assert sol.check(equal_states(st, s)) == z3.sat, (conf.name, s)
        assert z3bmc.placements(cfg, s0, z3bmc.SAMPLE_STARTS) == first


#: One check, its result as JSON; run in this process and in a new one.
_SAME_CHECK = """
import json
from mtgcheck.checkers import z3bmc
from mtgcheck.configs import SMALL
from mtgcheck.properties.catalogue import BY_ID

def result():
    vs = z3bmc.check(SMALL["break-rites"], [BY_ID["object-ids-fresh"], BY_ID["stack-ordered"]], depth=1,
                     timeout=600)
    found = {k: x for k, x in vs[0].stats["invariants"].items() if not k.endswith("_seconds")}
    return json.dumps([[[v.status, v.detail] for v in vs], vs[0].stats["induction_rlimit"], found])
"""


def test_a_check_does_not_depend_on_what_the_process_asked_z3_before() -> None:
    """Each check runs in a fresh Z3 context with the garbage collector paused: the same
    resource use, invariants and cores in a new process as after other Z3 work in this one
    (a pool worker, a pytest worker).  Without the pause the two differed: Z3 recycles the
    ids of freed terms, and when cycles are freed depends on what the process did before."""
    import subprocess
    import sys

    from mtgcheck.properties.catalogue import BY_ID

    z3bmc.check(SMALL["break-plot"], [BY_ID["stack-ordered"]], depth=1, timeout=600)
    ns: dict[str, Any] = {}
    exec(compile(_SAME_CHECK, "<check>", "exec"), ns)
    here = ns["result"]()
    fresh = subprocess.run([sys.executable, "-c", _SAME_CHECK + "\nprint(result())"], capture_output=True, text=True,
                           timeout=600, check=True)
    assert here == fresh.stdout.strip()
    assert ns["result"]() == here


def test_no_base_case_no_proof(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A state property whose check on the initial states ends unknown has no base case: it
    is reported unknown, never proved at k = 0 (nor assumed by the closure as a member)."""
    from mtgcheck.checkers.result import PROVED, UNKNOWN
    from mtgcheck.properties.catalogue import BY_ID

    calls = {"n": 0}
    real = z3.Solver.check

    def check(self, *a):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        return z3.unknown if calls["n"] == 1 else real(self, *a)  # the first query: the initial states

    monkeypatch.setattr(z3.Solver, "check", check)
    props = [BY_ID["stack-ordered"], BY_ID["object-ids-fresh"]]
    vs = z3bmc.check(RITES, props, depth=1, timeout=600)
    assert [v.status for v in vs] == [UNKNOWN, PROVED], [v.summary() for v in vs]
    assert "initial states" in vs[0].detail


def test_hints_are_checked_not_trusted() -> None:
    """The candidates a run's proofs closed (the manifest's ``invariants``), given to the next
    run as hints: the same proofs with fewer consecution queries, since only the hinted
    candidates are live at first, and they are checked a chunk at a time.  Hints that name no mined candidate prove nothing by
    themselves: the run falls back to the whole search, with the same verdicts."""
    from mtgcheck.checkers.result import PROVED
    from mtgcheck.properties.catalogue import BY_ID

    props = [BY_ID["object-ids-fresh"], BY_ID["stack-ordered"], BY_ID["mandatory-additional-costs-paid"]]
    full = z3bmc.check(RITES, props, depth=1, timeout=600)
    names = full[0].stats["proof_invariants"]
    assert [v.status for v in full] == [PROVED] * 3 and names
    assert [v.depth for v in full] == [None] * 3  # proved at k = 0, before BMC: BMC never ran for them
    assert "names" not in full[0].stats["invariants"]  # shown once, not in every verdict's summary

    hinted = z3bmc.check(RITES, props, depth=1, timeout=600, hints=names)
    assert [v.status for v in hinted] == [PROVED] * 3
    used = hinted[0].stats["invariants"]
    assert used["hints_sufficed"] and used["live"] == len(names)
    assert used["hints_queries"] < full[0].stats["invariants"]["consecution_queries"]
    # a chunk per query (3 queries for the 75 hints here), not one query per hint
    assert used["hints_queries"] <= -(-(len(names) + len(props)) // z3bmc.CLOSE_CHUNK)
    assert set(hinted[0].stats["proof_invariants"]) <= set(names)

    stale = z3bmc.check(RITES, props, depth=1, timeout=600, hints=["zone[0] == 9"])
    assert [(v.status, v.k) for v in stale] == [(v.status, v.k) for v in full]
    assert stale[0].stats["invariants"]["hints_mined"] == 0 and not stale[0].stats["invariants"]["hints_sufficed"]


def test_bmc_runs_for_what_k0_leaves() -> None:
    """k = 0 comes first; BMC runs, to the depth asked, for the properties it leaves, and gives
    k = 1 its base case (here without the invariants, so that k = 0 leaves the first two;
    ``stack-ordered`` is the renumbering lemma's, which needs no invariant: no BMC for it)."""
    from mtgcheck.checkers.result import HOLDS, PROVED
    from mtgcheck.properties.catalogue import BY_ID

    props = [BY_ID["object-ids-fresh"], BY_ID["mandatory-additional-costs-paid"], BY_ID["stack-ordered"]]
    vs = z3bmc.check(RITES, props, depth=2, timeout=600, invariants=False)
    assert [(v.status, v.k, v.depth) for v in vs] == [(HOLDS, None, 2), (PROVED, 1, 2), (PROVED, 0, None)]


def test_a_chunk_out_of_its_limit_is_split_by_transition(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A chunk of the closure whose query runs out whole is asked one transition of the step
    at a time (:meth:`z3bmc.Path._split`), not member by member: every candidate mined on
    ``break-rites`` is live (no hints, so that chunks hold junk that counterexamples drop),
    and each chunk's whole query is made to run out.  What the closure keeps is inductive, checked here
    from scratch in a solver of its own (with the properties proved otherwise, which its
    queries assume as facts: ``stack-ordered``, the renumbering lemma's); and it took one query per chunk, no member alone."""
    from mtgcheck.checkers.invariants import flat
    from mtgcheck.properties.catalogue import BY_ID

    real = z3bmc.Budget.check

    def check(self, sol, *assumptions, what="", share=1):  # type: ignore[no-untyped-def]
        if "at once" in what and "#" not in what:  # a chunk's whole query: out of its limit
            return z3.unknown
        return real(self, sol, *assumptions, what=what, share=share)

    monkeypatch.setattr(z3bmc.Budget, "check", check)
    props = [BY_ID["stack-ordered"], BY_ID["every-card-in-one-zone"]]
    with z3bmc.fresh_context():
        cfg, s0, enc = _setup()
        init_of = (lambda st: z3bmc.initial_placements(cfg, s0, st))
        budget = z3bmc.Budget(z3bmc.RLIMIT, time.monotonic() + 600)
        closure = z3bmc.closed_invariants(enc, RITES, props, init_of, budget, (), z3bmc.SAMPLE_CAP)
        assert closure is not None and not budget.cut
        assert closure.dropped > 0 and closure.proven_candidates()  # junk dropped, some kept
        split = [w for w, *_ in budget.queries if "#" in w]
        assert split and not any(w.startswith("invariant ") for w, *_ in budget.queries)
        # Every chunk was split, so each kept candidate is one the next run is told to split
        # (but the bounds interval arithmetic proved, which no query asked).
        assert closure.by_intervals
        assert {c.name for c in closure.proven_candidates()} - closure.by_intervals <= set(closure.summary()["split"])

        kept = closure.proven_candidates()
        hyps = [p for p in props if f"hyp:{p.id}" in closure.proven]
        path = z3bmc.Path(enc, 0)
        path.add_invariants(kept, {c.name for c in kept})
        path.add_hypotheses(hyps)
        for p in closure.proved_outside:  # proved otherwise (stack-ordered: the renumbering lemma), facts
            path.assume(p)
        after = path.un.states[1]
        broken = z3.Or([z3.Not(c.build(flat(after))) for c in kept] +
                       [z3.Not(enc.state_term(p, after)) for p in hyps])
        assert path.sol.check(*enc.en.values(), *path.facts.values(), *path.live_lits(), broken) == z3.unsat


def test_a_chunk_an_earlier_run_split_is_split_at_once() -> None:
    """``split_first`` (the manifest's ``split``): a chunk holding such a candidate is asked
    one transition at a time at once, never whole first; the closure keeps the same set as
    when each chunk was asked whole, and names every member of a chunk it split."""
    from mtgcheck.properties.catalogue import BY_ID

    props = [BY_ID["every-card-in-one-zone"]]
    with z3bmc.fresh_context():
        cfg, s0, enc = _setup()
        init_of = (lambda st: z3bmc.initial_placements(cfg, s0, st))
        whole = z3bmc.Budget(z3bmc.RLIMIT, time.monotonic() + 600)
        first = z3bmc.closed_invariants(enc, RITES, props, init_of, whole, (), z3bmc.SAMPLE_CAP)
        assert first is not None and first.proven_candidates()
        kept = [c.name for c in first.proven_candidates()]
        hints = z3bmc.Budget(z3bmc.RLIMIT, time.monotonic() + 600)
        told = kept[len(kept) // 2:]  # half of them: only the chunks holding one are split at once
        again = z3bmc.closed_invariants(enc, RITES, props, init_of, hints, kept, z3bmc.SAMPLE_CAP, told)
        assert again is not None and [c.name for c in again.proven_candidates()] == kept
    chunks = [w for w, *_ in hints.queries if "at once" in w]
    whole_asked = [w for w in chunks if "#" not in w]
    split_asked = {w.split(" [")[0] for w in chunks if "#" in w}
    assert split_asked and whole_asked  # told chunks split at once, the others asked whole
    assert not split_asked & set(whole_asked)  # a split chunk was never asked whole first
    assert set(told) <= set(again.summary()["split"]) < set(kept)  # only the told chunks were split


def test_a_step_case_assumes_the_closed_candidates_after_the_step_too() -> None:
    """The candidates closed into an inductive set hold after a step from any state where
    they and the facts hold, so a step case may assume them on its last state too
    (``Path.posts``).  On ``break-rites``, the zone bounds the interval pass proves make
    ``every-card-in-one-zone`` (each ``zone`` between 0 and 6) follow on the last state: the
    proof names them there.  Only closed candidates get such a literal."""
    from mtgcheck.checkers.z3bmc.induction import prove_each
    from mtgcheck.properties.catalogue import BY_ID

    cfg, s0, enc = _setup()
    mined = inv.mine(cfg, inv.sample(cfg, [s0], cap=300))
    budget = z3bmc.Budget(z3bmc.RLIMIT, time.monotonic() + 300)
    p = BY_ID["every-card-in-one-zone"]
    closure = z3bmc.Closure(enc, mined, budget, [p], intervals=True)
    zone_bounds = {n for n in closure.by_intervals if n.startswith("zone[")}
    assert zone_bounds
    res, _, _ = closure.path.attempt([p], budget, closed=closure.proven, proven=closure.proven)
    assert res == z3.unsat
    assert set(closure.path.last_support) & zone_bounds
    assert any(lit.startswith("post:zone[") for lit in map(str, closure.path.sol.unsat_core()))
    # through the induction: proved, and every candidate asserted after the step is closed
    proved: dict[str, Any] = {}
    again = z3bmc.Closure(enc, mined, budget, [p, BY_ID["object-ids-fresh"]], intervals=True)
    prove_each(again.path, [p, BY_ID["object-ids-fresh"]], budget, proved, [], again)
    assert p.id in proved and again.path.post_lits
    assert set(again.path.post_lits) <= again.proven
