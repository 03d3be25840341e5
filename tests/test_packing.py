"""A packed state is the state: every reachable value fits its entry, and unpacks to itself.

:mod:`mtgcheck.checkers.packing` derives the width of every entry of the flat vector from the
layout's declared ranges; a wrong width or a wrong place would lose or mix values, and these
tests would see the unpacked state differ.
"""

from __future__ import annotations

import random

import pytest

from mtgcheck.checkers.packing import MAX_ID, OutOfRange, pack, packing, unpack
from mtgcheck.configs import SMALL, CheckConfig
from mtgcheck.model.actions import legal_actions, step
from mtgcheck.model.setup import build
from mtgcheck.model.state import LAYOUT, flat, length, SCALAR


@pytest.mark.parametrize("conf", list(SMALL.values()), ids=lambda c: c.name)
def test_every_state_of_random_games_packs_and_unpacks_to_itself(conf: CheckConfig) -> None:
    cfg, s0 = build(conf.position)
    p = packing(cfg)
    assert len(p.entries) == len(flat(s0)) == sum(1 if d.index == SCALAR else length(cfg, d.index) for d in LAYOUT)
    assert all(e.shift + e.bits <= 64 and e.word < p.words for e in p.entries)
    rng, s, seen = random.Random(7), s0, 0
    for _ in range(300):
        v = flat(s)
        assert unpack(p, pack(p, v)) == v
        seen += 1
        acts = legal_actions(cfg, s)
        s = s0 if not acts or s.game_over else step(cfg, s, rng.choice(acts))
    assert seen == 300


def test_entries_are_as_wide_as_their_declared_range_and_no_wider() -> None:
    cfg, _ = build(next(iter(SMALL.values())).position)
    p = packing(cfg)
    by_field = {e.field: e for e in p.entries}
    assert by_field["game_over"].bits == 2 and by_field["game_over"].lo == -1  # a BOOL and its spare bit
    assert by_field["oid"].hi >= MAX_ID and by_field["oid"].bits == MAX_ID.bit_length()
    assert by_field["stack_size"].hi == by_field["stack_size"].lo + (1 << by_field["stack_size"].bits) - 1
    size = cfg.n + cfg.ability_slots + 1  # stack_size: 0..n + ability slots, and as many spare values
    assert 2 * size <= 1 << by_field["stack_size"].bits < 4 * size
    assert by_field["stack_size"].lo < 0 < size - 1 < by_field["stack_size"].hi
    assert p.bytes < 4 * len(p.entries) / 2  # under half the C ints it replaces


def test_a_value_outside_its_range_is_refused_not_truncated() -> None:
    cfg, s0 = build(next(iter(SMALL.values())).position)
    p = packing(cfg)
    v = flat(s0)
    k = [e.field for e in p.entries].index("game_over")
    v[k] = 3
    with pytest.raises(OutOfRange, match="game_over = 3"):
        pack(p, v)


def test_a_broken_rule_sets_values_past_the_declared_ends_still_fit() -> None:
    """A mutant that skips compacting a zone leaves the rules' temporary positions (up to twice
    model/zones.py's _FAR) in the state; a zone of -1 is one past its end.  Both are packed."""
    cfg, s0 = build(next(iter(SMALL.values())).position)
    p = packing(cfg)
    v = flat(s0)
    fields = [e.field for e in p.entries]
    v[fields.index("pos")] = 20_000 + cfg.n
    v[fields.index("zone")] = -1
    assert unpack(p, pack(p, v)) == v
