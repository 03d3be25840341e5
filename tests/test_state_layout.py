"""The state layout (model/state.py, LAYOUT) declares every field once, and its users agree."""

from __future__ import annotations

import random

import pytest

from mtgcheck.checkers import graph
from mtgcheck.checkers.symmetry import canonical
from mtgcheck.checkers.z3bmc import well_formed
from mtgcheck.configs import BUILTIN
from mtgcheck.model.actions import legal_actions, step
from mtgcheck.model.setup import build
from mtgcheck.model.state import (CARD_FIELDS, DECL, FIELDS, HOLDS, INDEXES, LAYOUT, State, sizes,
                                  symbolic_state)


def test_every_field_is_declared_once_in_order() -> None:
    names = [d.name for d in LAYOUT]
    assert len(names) == len(set(names))
    missing = [f for f in State.__annotations__ if f not in DECL]
    assert not missing, f"State fields without a declaration in LAYOUT: {missing}"
    assert tuple(names) == FIELDS, "LAYOUT lists the fields in State's order"
    for d in LAYOUT:
        assert d.index in INDEXES and d.holds in HOLDS, d
        assert (d.holds == "enum") == bool(d.names), d


def test_a_field_without_declaration_is_refused() -> None:
    import pytest

    from mtgcheck.model.state import _declare, decl

    class Bad(tuple):
        __slots__ = ()
        turn: int = decl("scalar", "turn")
        forgotten: int

    with pytest.raises(TypeError, match="forgotten"):
        _declare(Bad)


def test_states_copy_compare_and_pickle_as_values() -> None:
    import pickle

    cfg, s = build(BUILTIN[0].position)
    t = s.replace(turn=5, mana=(0, 0))
    assert (t.turn, t.mana, s.turn) == (5, (0, 0), 1) and t != s and t.replace(turn=1, mana=s.mana) == s
    assert pickle.loads(pickle.dumps(t)) == t and type(pickle.loads(pickle.dumps(t))) is State
    assert hash(t.replace()) == hash(t) and repr(t).startswith("State(turn=5, ")
    import pytest

    with pytest.raises(TypeError):
        s.replace(nonsense=1)
    with pytest.raises(TypeError):
        State(turn=1)


def test_sizes_and_symbolic_variables_follow_the_layout() -> None:
    for conf in BUILTIN:
        cfg, s0 = build(conf.position)
        lens = sizes(cfg)
        for f in FIELDS:
            v = getattr(s0, f)
            assert (len(v) if isinstance(v, tuple) else None) == lens.get(f), f
        sym = symbolic_state(cfg, "t")
        assert all(len(getattr(sym, f)) == n for f, n in lens.items())
    assert "last_cast" in CARD_FIELDS and "zone" in CARD_FIELDS


def test_reachable_states_are_within_the_declared_ranges() -> None:
    """The well-formedness bounds come from the layout's ranges (the invariant miner's
    ``range`` template reads the same ones); on concrete states they evaluate to a bool, and
    every state of a random game meets them."""
    for conf in BUILTIN:
        cfg, s0 = build(conf.position)
        rng = random.Random(3)
        for _ in range(20):
            s = s0
            for _ in range(40):
                assert well_formed(cfg, s), (conf.name, s)
                acts = legal_actions(cfg, s)
                if not acts:
                    break
                s = step(cfg, s, rng.choice(acts))


def test_a_zone_change_resets_what_the_layout_says() -> None:
    from mtgcheck.model.state import CARD_RESET, GRAVEYARD
    from mtgcheck.model.zones import move

    conf = next(c for c in BUILTIN if c.name == "plot")
    cfg, s = build(conf.position)
    dirty = s.replace(**{f: tuple(7 for _ in getattr(s, f)) for f in CARD_RESET})
    moved = move(cfg, dirty, [j == 0 for j in range(cfg.n)], GRAVEYARD)
    for f, v in CARD_RESET.items():
        assert getattr(moved, f)[0] == v and getattr(moved, f)[1] == 7, f


def test_cards_moved_together_get_fresh_distinct_ids_each_its_own_whoever_moves() -> None:
    """CR 400.7 as model/zones.py's ``new_objects`` numbers it: every moved card gets an id
    above every id in use, distinct from the others moved with it and in slot order, and a
    card's new id is the same whether the other cards move with it or not (concretely and
    symbolically alike: the solver sees no running count)."""
    import z3

    from mtgcheck.model.logic import symbolic
    from mtgcheck.model.state import GRAVEYARD
    from mtgcheck.model.zones import move

    conf = next(c for c in BUILTIN if c.name == "plot")
    cfg, s = build(conf.position)
    in_use = set(s.oid) | set(s.pl_oid)
    alone = move(cfg, s, [j == 2 for j in range(cfg.n)], GRAVEYARD)
    together = move(cfg, s, [j in (0, 2, 5) for j in range(cfg.n)], GRAVEYARD)
    assert alone.oid[2] == together.oid[2]
    new = [together.oid[j] for j in (0, 2, 5)]
    assert new == sorted(set(new)) and min(new) >= s.next_oid and not in_use & set(new)
    assert together.next_oid > max(new) and alone.next_oid > alone.oid[2]
    assert [together.oid[j] for j in range(cfg.n) if j not in (0, 2, 5)] == \
        [s.oid[j] for j in range(cfg.n) if j not in (0, 2, 5)]
    with symbolic():
        st = symbolic_state(cfg, "t")
        moving = [z3.Bool(f"m{j}") for j in range(cfg.n)]
        after = move(cfg, st, moving, GRAVEYARD)
    # The new id of card 2 is next_oid + 2, whatever the others do: one addition, no sum.
    sol = z3.Solver()
    sol.add(moving[2], after.oid[2] != st.next_oid + 2)
    assert sol.check() == z3.unsat

def test_state_counts_unchanged_by_the_derived_symmetry() -> None:
    """The renaming read from the layout keys states as it did when it was derived (costs: 535
    then; 523 since object ids are renumbered by equality, not order)."""
    counts = {"flashback": 385, "costs": 523}
    for conf in BUILTIN:
        if conf.name in counts:
            _, ex = graph.check(conf, [])
            assert len(ex.states) == counts[conf.name]
            assert all(canonical(cfg := ex.cfg, canonical(cfg, s)) == canonical(cfg, s) for s in ex.states[:200])


def test_every_ability_kind_is_allocated_once_and_resolves() -> None:
    """The ability kinds are the card registry's (the game's own two, then each card's, as
    their entries allocate them): each has a name on the stack and an effect, and the state's
    ``ab_kind`` field ranges over exactly them."""
    from mtgcheck.model.card_rules import registry
    from mtgcheck.model.state import ABILITIES, AB_CHAOS, AB_PLANESWALK, LAYOUT

    assert ABILITIES[0] == "-" and len(set(ABILITIES)) == len(ABILITIES)
    assert (ABILITIES[AB_CHAOS], ABILITIES[AB_PLANESWALK]) == ("chaos", "planeswalk")
    assert sorted(registry().abilities) == list(range(1, len(ABILITIES)))
    (field,) = [d for d in LAYOUT if d.name == "ab_kind"]
    assert len(field.names) == len(ABILITIES)


def test_a_kind_allocated_in_a_scratch_registry_is_forgotten_after() -> None:
    from mtgcheck.model import card_rules
    from mtgcheck.model.state import ABILITIES

    before = list(ABILITIES)
    with card_rules.scratch():
        kind = card_rules.ability_kind("test-kind")
        assert ABILITIES[kind] == "test-kind" and kind == len(before)
        with pytest.raises(ValueError, match="allocated twice"):
            card_rules.ability_kind("prowess")
    assert list(ABILITIES) == before


def test_a_game_resolves_only_the_ability_kinds_its_cards_and_planes_declare() -> None:
    """``game_ability_kinds``: what the cards of a position (their entries' ``triggers``, the
    cast triggers they have) and its planes put on the stack; putting any other kind there
    is refused as the rules run, so the set cannot leave out a kind a game reaches."""
    from mtgcheck.configs import SMALL
    from mtgcheck.model.card_rules import game_ability_kinds
    from mtgcheck.model.state import ABILITIES, AB_NONE
    from mtgcheck.model.zones import push_ability

    def names(conf) -> set[str]:  # type: ignore[no-untyped-def]
        return {ABILITIES[k] for k in game_ability_kinds(build(conf.position)[0])}

    by_name = {c.name: c for c in BUILTIN}
    assert names(by_name["plot"]) == {"show-off-pump"}
    assert names(SMALL["break-aven"]) == {"aven-exile"}
    assert {"chaos", "planeswalk"} <= names(by_name["planechase"])
    assert not {"chaos", "planeswalk"} & names(by_name["plot"])
    # every kind on the stack in the states the search reaches is one of them
    for conf in (by_name["plot"], SMALL["break-aven"]):
        _, ex = graph.check(conf, [])
        seen = {k for s in ex.states for k in s.ab_kind} - {AB_NONE}
        assert seen and seen <= game_ability_kinds(ex.cfg)
    cfg, s0 = build(by_name["plot"].position)
    aven = ABILITIES.index("aven-exile")
    with pytest.raises(ValueError, match="aven-exile"):
        push_ability(cfg, s0, aven, 0, 0)
