"""The relation's shared renumbering reaches the model only through the hook the model
declares (``model.zones.SHARED_COMPACT``), only while the relation is built, and only for
the configuration it was built for: no module of the model is patched, and nothing of it
outlives the build (a concrete run or another configuration's build never sees it).  The
one final renumbering shared by the effects that end with one is each one's own, and so is
the shared part of a family of choices."""

from __future__ import annotations

import pytest
import z3

from mtgcheck.checkers import z3bmc
from mtgcheck.configs import BUILTIN, SMALL
from mtgcheck.model import zones
from mtgcheck.model.logic import symbolic
from mtgcheck.model.setup import build
from mtgcheck.model.state import equal_states, flat


def test_the_shared_renumbering_is_the_models_own_and_lives_only_while_the_relation_is_built() -> None:
    (plot, costs) = [next(c for c in BUILTIN if c.name == n) for n in ("plot", "costs")]
    cfg, s0 = build(plot.position)
    other, _ = build(costs.position)
    assert zones.SHARED_COMPACT[0] is None
    with z3bmc.fresh_context():
        z3bmc.Encoding.build(cfg, s0)
        assert zones.SHARED_COMPACT[0] is None  # cleared on exit
        shared = z3bmc.SharedCompaction(cfg)
        with symbolic(), shared:
            hook = zones.SHARED_COMPACT[0]
            assert hook is not None
            assert hook(other, z3bmc.symbolic_state(other, "o")) is None  # another configuration: the model's own
            s = z3bmc.symbolic_state(cfg, "s")
            fast = zones.compact(cfg, s)
        assert zones.SHARED_COMPACT[0] is None
        with symbolic():
            own = zones.compact(cfg, s)  # built by the model alone, the hook cleared
            sol = z3.Solver()
            sol.add(z3.Not(equal_states(fast, own)))
        assert sol.check() == z3.unsat  # the same terms, whichever way they were built


@pytest.mark.parametrize(("relation", "conf"), [("step_rel", "break-rites"), ("step_rel_each", "break-rites"),
                                               ("step_rel", "break-flashback"), ("step_rel", "break-hand-size")])
def test_the_one_final_renumbering_is_each_transitions_own_in_every_state(relation: str, conf: str) -> None:
    """Proved for every state, not sampled: the relation's ``m`` (after the action, before
    the state-based actions), with ``act == i``, is transition i's own effect, for every i.
    Most effects end with a renumbering of the positions, built once for all of them
    (``relation.factored_compaction``); ``settle`` renumbers again after it, so a wrong
    renumbering there would seldom show in a successor state of random play.  Each entry
    of ``m`` is its equation's right side with ``act`` set to i and ``m``'s own entries
    replaced by theirs (``P`` reads ``m``'s zones), and Z3 shows it equal to the effect's.
    BMC's relation, each transition's renumbering its own (``step_rel_each``), likewise.
    And the families of choices whose shared part is built once over their merged first
    parts (``relation.staged_effects``): Faithless Looting's discards, the discards to
    hand size."""
    cfg, s0 = build(SMALL[conf].position)
    with z3bmc.fresh_context():
        enc = z3bmc.Encoding.build(cfg, s0)
        split = enc.m is not None  # (a state in an assertion would be printed whole)
        assert split
        factored, staged, n = enc.factored, enc.staged, len(enc.actions)
        # what is checked is there: the effects that still end with a renumbering (a plot, a
        # permanent spell's resolution, leaving the game: a cast, a draw and most resolutions
        # leave theirs to settle's) share one, and the families of choices are staged exactly
        # where the position has some
        assert factored >= 2, (factored, n)
        assert (staged >= 4) == (conf != "break-rites"), staged
        fm = flat(enc.m)
        index = {x.get_id(): j for j, x in enumerate(fm)}
        rhs = {index[c.arg(0).get_id()]: c.arg(1) for c in getattr(enc, relation).children()
               if z3.is_eq(c) and c.arg(0).get_id() in index}
        assert len(rhs) == len(fm)  # one equation per entry of ``m``: the frame form
        differ = []
        # every transition of break-rites; on the others, their choices (the families)
        for i in (range(n) if conf == "break-rites" else [i for i in range(n) if enc.actions[i].verb == "choose"]):
            at_i = {j: z3.substitute(r, (enc.act, z3.IntVal(i))) for j, r in rhs.items()}
            pairs = [(fm[j], v) for j, v in at_i.items()]
            effect = flat(enc.raw[i])
            diffs = [z3.substitute(v, *pairs) != z3bmc.relation.as_term(effect[j]) for j, v in at_i.items()]
            sol = z3.Solver()
            sol.set("timeout", 10_000)
            if sol.check(z3.Or(diffs)) != z3.unsat:
                differ.append(f"{i} {enc.actions[i].verb}")
        assert not differ, differ


def test_a_predicate_that_reads_no_transition_is_built_once_and_the_others_per_transition() -> None:
    """``Encoding.prop_terms`` builds a transition property once when its predicate read
    nothing of the transition it was given, and per transition otherwise: each term is the
    very one the predicate builds with the real transition."""
    from mtgcheck.model.actions import catalogue
    from mtgcheck.properties.catalogue import BY_ID

    plot = next(c for c in BUILTIN if c.name == "plot")
    cfg, s0 = build(plot.position)
    with z3bmc.fresh_context():
        enc = z3bmc.Encoding.build(cfg, s0)
        ts = catalogue(cfg).transitions
        for pid, alike in (("object-ids-fresh", True), ("flashback-spell-always-ends-in-exile", True),
                           ("left-player-begins-no-turn", True), ("plot-uses-no-stack", False),
                           ("plotted-never-cast-same-turn", False)):
            p = BY_ID[pid]
            terms = enc.prop_terms(p)
            assert len(terms) == len(ts)
            with symbolic():
                own = [p.pred(cfg, enc.a, t, enc.b) for t in ts]
            own = [z3.BoolVal(x) if isinstance(x, bool) else x for x in own]
            assert all(x.eq(y) for x, y in zip(terms, own, strict=True)), pid
            assert (len({x.get_id() for x in terms}) == 1) == alike, pid


def test_a_state_property_over_an_unrolled_state_is_the_term_its_predicate_builds_there() -> None:
    """``Encoding.state_term`` over a state of variables substitutes them into the term over
    ``b``: the very term the predicate builds over that state, for every state property
    (``no-deadlock``'s every guard included); over the concrete position, the predicate's value."""
    from mtgcheck.properties.catalogue import PROPERTIES

    plot = next(c for c in BUILTIN if c.name == "plot")
    cfg, s0 = build(plot.position)
    with z3bmc.fresh_context():
        enc = z3bmc.Encoding.build(cfg, s0)
        s = z3bmc.symbolic_state(cfg, "st")
        for p in [p for p in PROPERTIES if p.kind == "state"]:
            with symbolic():
                own = p.pred(cfg, s)
            own = z3.BoolVal(own) if isinstance(own, bool) else own
            assert enc.state_term(p, s).eq(own), p.id
            assert enc.state_term(p, s).eq(own), p.id  # the substitution kept for that state
            assert z3.is_true(z3.simplify(enc.state_term(p, s0))) == bool(p.pred(cfg, s0)), p.id


def test_constants_are_the_variables_a_term_reads_each_once() -> None:
    """``relation.constants`` (read through Z3's C API): every uninterpreted constant, of
    either sort, once however often it is shared; no numeral, no operator.  ``fields_read``
    names a state's fields by them."""
    from mtgcheck.checkers.z3bmc.relation import constants, fields_read
    from mtgcheck.model.state import symbolic_state

    x, y, b = z3.Int("x"), z3.Int("y"), z3.Bool("b")
    shared = x + 1
    term = z3.And(z3.If(b, shared, y * 2) > shared, shared != 3)
    found = constants([term, y == 7])
    assert sorted(str(c) for c in found) == ["b", "x", "y"]
    assert {type(c) for c in found} == {z3.BoolRef, z3.ArithRef}
    assert constants([z3.IntVal(4) + 1]) == [] and constants([]) == []
    cfg, _ = build(SMALL["break-bolt"].position)
    with symbolic():
        t = symbolic_state(cfg, "t")
    assert fields_read(z3.And(t.zone[0] == 2, t.stack_size > x), [t]) == frozenset({"zone", "stack_size"})
