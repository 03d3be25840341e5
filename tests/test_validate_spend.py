"""Projected sets for an engine that pays from the pool as it likes (``supports.lacks``: ``spend``).

The model lists one cast per ``spend`` (which pool mana pays the generic part, CR 601.2h);
Forge takes no such choice.  A cast illegal only by its ``spend`` is legal to such an engine.
"""

from __future__ import annotations

from typing import Any

from mtgcheck.engines.vocab import Session, legal_with_another_spend, without_spend
from mtgcheck.model.actions import enabled_transition, legal_actions
from mtgcheck.model.state import State

SETUP = {"players": 2, "turn": 2, "active": 0, "step": "main1", "mana_rules": "lands",
         "cards": [{"id": "m", "card": "Mountain", "owner": 0, "zone": "battlefield"},
                   {"id": "i", "card": "Island", "owner": 0, "zone": "battlefield"},
                   {"id": "tt", "card": "Think Twice", "owner": 0, "zone": "hand"},
                   {"id": "lib0", "card": "Island", "owner": 0, "zone": "library"},
                   {"id": "lib1", "card": "Island", "owner": 1, "zone": "library"}]}


def _after(docs: list[dict[str, Any]]) -> tuple[Session, State]:
    se = Session.begin(SETUP, source="(test)")
    s = se.start
    for k, d in enumerate(docs):
        t = enabled_transition(se.cfg, s, se.to_model([d], s, source="(test)", field=f"actions[{k}]")[0])
        assert t is not None
        s = t.effect(s)
    return se, s


def test_a_cast_illegal_only_by_its_spend_is_legal_with_another() -> None:
    se, s = _after([{"player": 0, "do": "tap", "card": "m"}, {"player": 0, "do": "tap", "card": "i"}])
    blue = se.to_model([{"player": 0, "do": "cast", "card": "tt", "how": "normal", "spend": {"U": 1}}], s,
                       source="(test)", field="a")[0]
    red = se.to_model([{"player": 0, "do": "cast", "card": "tt", "how": "normal", "spend": {"R": 1}}], s,
                      source="(test)", field="a")[0]
    assert enabled_transition(se.cfg, s, blue) is None  # {U} must be paid by the Island's U
    assert enabled_transition(se.cfg, s, red) is not None
    assert legal_with_another_spend(se.cfg, s, blue)
    assert without_spend(blue) == without_spend(red) and without_spend(red) in {without_spend(a) for a in
                                                                                 legal_actions(se.cfg, s)}


def test_a_cast_no_spend_can_pay_stays_illegal() -> None:
    se, s = _after([{"player": 0, "do": "tap", "card": "m"}])  # one mana: Think Twice costs two
    one = se.to_model([{"player": 0, "do": "cast", "card": "tt", "how": "normal", "spend": {"R": 1}}], s,
                      source="(test)", field="a")[0]
    assert enabled_transition(se.cfg, s, one) is None
    assert not legal_with_another_spend(se.cfg, s, one)
