"""The renumbering lemma (``mtgcheck/checkers/z3bmc/renumbering.py``): ``stack-ordered`` proved
after every step from one lemma about ``compact``, and nothing proved when the lemma is false."""

from __future__ import annotations

import time
from typing import Any
from pathlib import Path

import pytest
import z3

from mtgcheck.checkers import z3bmc
from mtgcheck.checkers.result import PROVED
from mtgcheck.checkers.z3bmc.budget import RLIMIT, Budget
from mtgcheck.checkers.z3bmc.relation import Encoding
from mtgcheck.checkers.z3bmc.renumbering import STACK_TOP, Renumbering, after_every_step
from mtgcheck.configs import SMALL, load_config
from mtgcheck.model import zones
from mtgcheck.model.logic import Count, And, Or, symbolic
from mtgcheck.model.settle import settle, settle_parts
from mtgcheck.model.setup import build
from mtgcheck.properties.catalogue import BY_ID

ROOT = Path(__file__).resolve().parent.parent


def _budget() -> Budget:
    return Budget(RLIMIT, time.monotonic() + 600)


def _enc(disabled: frozenset[str] = frozenset()) -> Encoding:
    cfg, init = build(SMALL["break-bolt"].position, disabled=disabled)
    return Encoding.build(cfg, init)


def test_stack_ordered_is_proved_after_every_step_and_nothing_else_is() -> None:
    """The lemma's facts are proved, ``stack-ordered`` follows for the state after any step;
    ``every-card-in-one-zone`` reads only the zones, which ``compact`` leaves as they were, so
    it is not tried (the lemma would not prove it: a state may hold a card in no zone at
    all), and the query it was is not asked."""
    enc = _enc()
    props = [BY_ID["stack-ordered"], BY_ID["every-card-in-one-zone"]]
    proved, facts, lemma = after_every_step(enc.cfg, _budget(), props, enc.settled, enc.renumbered_from, enc.b)
    assert [p.id for p in proved] == ["stack-ordered"] and len(facts) == 1
    assert lemma.ready is True
    cards = len(zones.stack_slots(enc.cfg))  # (the cards that can be on the stack: no land)
    L = cards + enc.cfg.ability_slots
    # the queries: link and bound per entry; total per pair; the size; the greatest entry of
    # each prefix after the first; one for the property tried and one for the top of the stack;
    # range, top and distinct on one entry or pair each, the others renamed from it
    # (renumbering.Symmetric); order's asymmetry per pair and transitivity per triple, one
    # for each kind of tuple (the entries' kinds, card or ability, and their slots' order),
    # the others renamed from it (renumbering.Renamed)
    pairs = L * (L - 1) // 2
    n = cards
    tuples = [(e, g) for e in range(L) for g in range(L) if e != g]
    tuples += [(f, e, g) for e, g in tuples[:] for f in range(L) if f not in (e, g)]
    kinds = {(tuple(x >= n for x in t), tuple(sorted(range(len(t)), key=t.__getitem__))) for t in tuples}
    assert lemma.queries == 2 * L + pairs + 1 + (L - 1) + 1 + 1 + 3 + len(kinds)
    assert lemma.renamed == (pairs - 1) + 2 * (L - 1) + len(tuples) - len(kinds)


def test_a_statement_not_the_renaming_of_the_one_proved_gets_its_own_query() -> None:
    """Renaming proves only what is the renamed proved implication: a pair whose
    hypotheses differ (one left out) is asked of Z3, and without transitivity's facts its
    ranks need not differ; the same pair with its hypotheses whole is renamed, no query."""
    from mtgcheck.checkers.z3bmc.renumbering import Symmetric

    enc = _enc()
    lemma = Renumbering(enc.cfg, _budget())
    L = 3
    on = [z3.Bool(f"t.O{x}") for x in range(L)]
    B = [[z3.Bool(f"t.B{f}_{x}") for x in range(L)] for f in range(L)]
    R = [z3.Int(f"t.R{x}") for x in range(L)]
    link = [z3.Implies(on[x], R[x] == z3.Sum([z3.If(B[f][x], 1, 0) for f in range(L) if f != x])) for x in range(L)]

    def order(e: int, g: int) -> z3.BoolRef:
        return z3.Implies(z3.And(on[e], B[e][g]), z3.And(
            *[z3.Implies(B[f][e], B[f][g]) for f in range(L) if f not in (e, g)], z3.Not(B[g][e])))

    def hyps(e: int, g: int) -> list[z3.BoolRef]:
        return [link[e], link[g], order(e, g), order(g, e), z3.Implies(z3.And(on[e], on[g]), z3.Or(B[e][g], B[g][e]))]

    def distinct(e: int, g: int) -> z3.BoolRef:
        return z3.Implies(z3.And(on[e], on[g]), R[e] != R[g])

    sym = Symmetric(lemma, on, B, R)
    assert sym.prove((0, 1), distinct(0, 1), hyps(0, 1), "distinct") and lemma.queries == 1
    assert sym.prove((1, 2), distinct(1, 2), hyps(1, 2), "distinct") and lemma.queries == 1 and sym.renamed == 1
    partial = hyps(0, 2)[:2] + hyps(0, 2)[4:]  # no order facts: B may be a cycle
    assert not sym.prove((0, 2), distinct(0, 2), partial, "distinct")
    assert lemma.queries == 2 and sym.renamed == 1


def _renamed() -> tuple[Renumbering, Any]:
    """A lemma on ``break-bolt`` and its ``Renamed`` over the stack entries' variables, as
    the lemma's facts build it."""
    from mtgcheck.checkers.z3bmc.renumbering import Renamed, entry_vars

    lemma = Renumbering(_enc().cfg, _budget())
    return lemma, Renamed(lemma, [entry_vars(lemma.cfg, lemma.t, x) for x in range(len(zones.stack_slots(lemma.cfg)) + lemma.cfg.ability_slots)])


def test_a_fact_of_the_model_is_renamed_only_when_it_is_the_renaming() -> None:
    """``Renamed`` (step 1's order facts): a fact of the same kind of tuple that is the
    renaming of one proved costs no query; a false one of that kind is not taken for its
    renaming (asked, and refuted); one that reads a variable of another entry is asked."""
    lemma, renamed = _renamed()
    t, n = lemma.t, len(zones.stack_slots(lemma.cfg))  # (entries: the cards that can be on the stack, then abilities)
    pos = [*(t.pos[j] for j in zones.stack_slots(lemma.cfg)), *t.ab_pos]

    def fact(f: int, e: int, g: int) -> z3.BoolRef:  # transitivity of "lower position"
        return z3.Implies(z3.And(pos[f] < pos[e], pos[e] < pos[g]), pos[f] < pos[g])

    a, b, c, d = n, n + 1, n + 2, n + 3  # four ability slots
    assert renamed.prove((a, b, c), fact(a, b, c), "order") and lemma.queries == 1
    assert renamed.prove((b, c, d), fact(b, c, d), "order") and lemma.queries == 1 and renamed.renamed == 1
    wrong = z3.Implies(z3.And(pos[b] < pos[c], pos[c] < pos[d]), pos[d] < pos[b])
    assert not renamed.prove((b, c, d), wrong, "order") and lemma.queries == 2
    outside = z3.Implies(z3.And(fact(a, c, d), t.stack_size >= 0), pos[a] == pos[a])
    assert renamed.prove((a, c, d), outside, "order") and lemma.queries == 3 and renamed.renamed == 1


def test_a_fact_built_of_parts_is_renamed_only_when_every_part_is_a_renaming() -> None:
    """``Renamed.prove_by_parts`` (transitivity, a fact per triple): a triple whose parts
    are each the renaming of their kind's first part is proved with no query and no term
    built; a part that is not (another term, or one reading a third entry's variable)
    sends its triple to a query of its own, and a false fact so asked is refuted."""
    lemma, renamed = _renamed()
    t, n = lemma.t, len(zones.stack_slots(lemma.cfg))  # (entries: the cards that can be on the stack, then abilities)
    pos = [*(t.pos[j] for j in zones.stack_slots(lemma.cfg)), *t.ab_pos]
    built: list[tuple[int, ...]] = []

    def lower(x: int, y: int) -> z3.BoolRef:
        return pos[x] < pos[y]

    def prove(key: tuple[int, int, int], below: object = lower, conclusion: object = None) -> bool:
        f, e, g = key
        parts = (("below", below(e, g), (e, g)), ("below", below(f, e), (f, e)), ("below", below(f, g), (f, g)))

        def build() -> z3.BoolRef:
            built.append(key)
            return z3.Implies(z3.And(parts[0][1], parts[1][1]), conclusion if conclusion is not None else parts[2][1])
        return renamed.prove_by_parts(key, "order", parts, build)

    a, b, c, d = n, n + 1, n + 2, n + 3  # four ability slots
    assert prove((a, b, c)) and lemma.queries == 1 and built == [(a, b, c)]
    assert prove((b, c, d)) and lemma.queries == 1 and renamed.renamed == 1 and built == [(a, b, c)]
    # a part of the same label that is another term: the triple is built and asked
    assert prove((a, c, d), lambda x, y: pos[x] <= pos[y] - 1 if (x, y) == (a, d) else lower(x, y))
    assert lemma.queries == 2 and built[-1] == (a, c, d)
    # a part reading a variable of an entry not its own: asked, and this false fact refuted
    assert not prove((a, b, d), lambda x, y: z3.And(lower(x, y), pos[c] == pos[c]) if (x, y) == (a, b) else lower(x, y),
                     conclusion=lower(d, a))
    assert lemma.queries == 3 and built[-1] == (a, b, d)
    # the same triple with its own parts: renamed, no query
    assert prove((a, b, d)) and lemma.queries == 3 and renamed.renamed == 2


def test_settle_ends_with_the_renumbering_the_proof_rests_on() -> None:
    """``settle`` is ``compact`` of the rules' state, on concrete states too, and the state
    after a step in the relation is that term."""
    cfg, init = build(SMALL["break-bolt"].position)
    pre, after = settle_parts(cfg, init)
    assert after == zones.compact(cfg, pre) == settle(cfg, init)
    enc = Encoding.build(cfg, init)
    with symbolic():
        again = zones.compact(cfg, enc.renumbered_from)
    assert enc.settled is not None
    assert all(z3.simplify(x == y).eq(z3.BoolVal(True)) or x.eq(y) for x, y in
               zip(again.pos + again.ab_pos, enc.settled.pos + enc.settled.ab_pos, strict=True))


def test_a_stack_left_unnumbered_is_not_proved_by_the_lemma() -> None:
    """Mutant clause ``zones.stack-renumbered`` off: positions stay as the move set them, the
    ranks are no counts, the lemma is not claimed, and Z3 finds the violation."""
    enc = _enc(frozenset({"zones.stack-renumbered"}))
    proved, facts, lemma = after_every_step(enc.cfg, _budget(), [BY_ID["stack-ordered"]], enc.settled,
                                            enc.renumbered_from, enc.b)
    assert proved == [] and facts == [] and lemma.ready is False and "not counts" in lemma.why
    (v,) = z3bmc.check(SMALL["break-bolt"], [BY_ID["stack-ordered"]], depth=2, timeout=300,
                       disabled=frozenset({"zones.stack-renumbered"}))
    assert v.status == "violated"


def test_an_order_that_is_not_strict_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``compact`` that ranks ties both ways (``<=`` for ``<``) gives two entries on one
    position: the facts' ``order`` query fails, and nothing is proved."""

    def below(cfg, s, p, me, is_card):  # type: ignore[no-untyped-def]
        cards = [And(s.zone[k] == zones.STACK, Or(s.pos[k] <= p, False)) for k in zones.stack_slots(cfg)
                 if not (is_card and k == me)]
        abil = [And(s.ab_kind[k] != zones.AB_NONE, Or(s.ab_pos[k] <= p, False))
                for k in range(cfg.ability_slots) if not ((not is_card) and k == me)]
        return Count(cards + abil)

    monkeypatch.setattr(zones, "_stack_below", below)
    cfg, _ = build(SMALL["break-bolt"].position)
    lemma = Renumbering(cfg, _budget())
    assert lemma.prove_facts() is False
    assert lemma.why.startswith("order") or lemma.why.startswith("total")


def test_the_lemma_is_proved_on_a_fourteen_slot_position() -> None:
    """The facts of ``04-plot-14`` (12 stack entries: its 8 cards that are no land, and 4
    ability slots): 137 queries of a few terms each, where one query of the whole lemma on
    12 entries is out of a 200M limit."""
    cfg, _ = build(load_config(ROOT / "examples" / "scale" / "04-plot-14.json").position)
    lemma = Renumbering(cfg, _budget())
    assert lemma.prove_facts(), lemma.why
    assert lemma.rlimit < 100_000_000


def test_z3_proves_stack_ordered_by_the_lemma() -> None:
    (v,) = z3bmc.check(SMALL["break-bolt"], [BY_ID["stack-ordered"]], depth=1, timeout=300)
    assert v.status == PROVED and v.detail.endswith("renumbering lemma")


def test_the_top_of_the_stack_is_a_fact_of_every_step_and_only_a_true_one() -> None:
    """The stack's top (``STACK_TOP``) follows from the ranks; a claim the ranks do not give
    (a non-empty stack has an entry at position 1) is not proved from the same facts."""
    from mtgcheck.model.logic import Implies
    from mtgcheck.properties.base import Property

    enc = _enc()
    lemma = Renumbering(enc.cfg, _budget())
    assert lemma.prove(STACK_TOP, enc.settled, enc.renumbered_from)

    def second(cfg, s):  # type: ignore[no-untyped-def]
        return Implies(s.stack_size > 0, Or(*[And(on, p == 1) for on, p in zones.stack_entries(cfg, s)]))

    assert not lemma.prove(Property("second", (), "", "state", second), enc.settled, enc.renumbered_from)
    assert lemma.why.startswith("second from the ranks: sat")


@pytest.mark.deep
def test_no_deadlock_is_proved_on_a_twelve_slot_position_with_the_top_of_the_stack() -> None:
    """On ``03-plot-12`` the step case of ``no-deadlock`` ran out of its limit, split by
    transition or not, until the top of the stack was a fact of every step."""
    conf = load_config(ROOT / "examples" / "scale" / "03-plot-12.json")
    vs = z3bmc.check(conf, [BY_ID["stack-ordered"], BY_ID["no-deadlock"]], depth=3, timeout=600)
    assert [v.status for v in vs] == [PROVED, PROVED]


def test_the_closing_for_bmc_alone_takes_the_lemmas_properties_unclosed() -> None:
    """The closure for BMC alone (``closed_invariants``, hints from a manifest) assumes what
    the lemma proves after every step instead of closing it: ``stack-ordered`` is among the
    properties that constrain BMC with no candidate at all (a hint that names none), and it
    is a fact of the closure's path, not a member whose step case must close."""
    from mtgcheck.checkers.z3bmc.closure import closed_invariants

    enc = _enc()
    conf = SMALL["break-bolt"]
    closed = closed_invariants(enc, conf, [BY_ID["stack-ordered"]], None, _budget(), ("no such candidate",), 300)
    assert closed is not None and not closed.proven_candidates()
    assert [p.id for p in closed.proven_properties()] == ["stack-ordered"]
    assert "fact:stack-ordered" in closed.path.facts and "hyp:stack-ordered" not in closed.props


def test_canonical_numbers_are_equal_exactly_up_to_the_order_of_and_or_and_plus() -> None:
    """One memo for many terms: equal numbers for terms equal up to the order of the
    arguments of And, Or and +, other numbers otherwise, also once many terms were walked
    and freed (the memo keeps what it walked, so no id is reused under it)."""
    from mtgcheck.checkers.z3bmc.renumbering import Canonical

    canon = Canonical()
    x, y, z = (z3.Int(f"can.{v}") for v in "xyz")
    p, q = z3.Bool("can.p"), z3.Bool("can.q")
    first = canon(z3.Implies(z3.And(p, q), z3.Sum(x, y, z) >= 1))
    for k in range(200):  # terms built and dropped between the two calls
        canon(z3.Or(p, x + k > y))
    assert canon(z3.Implies(z3.And(q, p), z3.Sum(z, x, y) >= 1)) == first
    assert canon(z3.Implies(z3.And(p, q), z3.Sum(x, y, z) >= 2)) != first
    assert canon(z3.Implies(z3.And(p, q), z3.Sum(x, -y, z) >= 1)) != first
    assert canon(z3.Implies(z3.Or(p, q), z3.Sum(x, y, z) >= 1)) != first
    assert canon(z3.Implies(z3.And(p, q), (x + y) + z >= 1)) != first  # only the order: not nesting


@pytest.mark.parametrize("path", ["01-plot-08.json", "05-planechase-3p.json"])
def test_only_the_slots_counted_on_the_stack_reach_it(path: str) -> None:
    """``zones.stack_slots`` (the stack's order is counted over them only) holds every card a
    cast names, no land, and every card found on the stack in reachable states: the states
    of the search the invariants are mined from, on positions with lands."""
    from mtgcheck.checkers.invariants import sample
    from mtgcheck.model.actions import catalogue
    from mtgcheck.model.state import STACK

    cfg, s0 = build(load_config(ROOT / "examples" / "scale" / path).position)
    stacked = set(zones.stack_slots(cfg))
    lands = {j for j, sl in enumerate(cfg.slots) if sl.card.is_("Land")}
    assert lands and not lands & stacked and stacked | lands == set(range(cfg.n))
    casts = {t.action.card for t in catalogue(cfg).transitions if t.action.verb == "cast"}
    assert casts and casts <= stacked
    states = sample(cfg, [s0], cap=2000)
    on_stack = {j for s in states for j in range(cfg.n) if s.zone[j] == STACK}
    assert on_stack and on_stack <= stacked
