"""CONTRIBUTING.md's recipes, carried out on throwaway pieces: a keyword, a property and an
engine adapter (the card's recipe is in test_card_registry.py, the checker's in
test_registry.py).  Each works in temporary copies, so nothing leaks into other tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mtgcheck.checkers import graph
from mtgcheck.checkers.result import HOLDS, PROVED, VIOLATED
from mtgcheck.configs import SMALL
from mtgcheck.model import card_rules, cards
from mtgcheck.model.card_rules import CastTrigger
from mtgcheck.model.state import AB_PROWESS
from mtgcheck.properties.base import Property
from mtgcheck.scenario_format import parse_scenario
from mtgcheck.scenario_run import run
from mtgcheck.validate import run as validate


def _scenario(cards_: list[dict[str, Any]], actions: list[dict[str, Any]], expect: dict[str, Any]) -> Any:
    doc = {"format": "mtgcheck.scenario/1", "name": "recipe", "rules": ["702.108a"],
           "setup": {"players": 2, "turn": 1, "active": 0, "step": "main1", "mana": [1, 0], "cards": cards_,
                     "planechase": None},
           "actions": actions, "expect": expect}
    return run(parse_scenario(doc, source="recipe.json", known_cards=cards.card_names(),
                              known_planes=cards.plane_names()))


def test_adding_a_keyword(monkeypatch: pytest.MonkeyPatch) -> None:
    """"Add a keyword", a triggered one: the keyword's name, a card that has it, its cast
    trigger registered once.  (The throwaway keyword borrows prowess's ability kind, so no
    state enum changes.)"""
    monkeypatch.setattr(cards, "KEYWORDS", cards.KEYWORDS | {"Test Surge"})
    bear = {"name": "Test Surging Bear", "isTest": True, "manaCost": "{1}{G}", "type": "Creature — Bear",
            "types": ["Creature"], "keywords": ["Test Surge"], "power": "2", "toughness": "2"}
    setup = [{"id": "bear", "card": "Test Surging Bear", "owner": 0, "zone": "battlefield"},
             {"id": "bolt", "card": "Lightning Bolt", "owner": 0, "zone": "hand"},
             {"id": "lib0", "card": "Island", "owner": 0, "zone": "library"},
             {"id": "lib1", "card": "Island", "owner": 1, "zone": "library"}]
    cast = [{"player": 0, "do": "cast", "card": "bolt", "how": "normal", "targets": ["player:1"]}]
    with cards.scratch([bear]), card_rules.scratch() as reg:
        # The card alone: nothing triggers.
        assert _scenario(setup, cast, {"stack": ["bolt"]}).passed
        reg.cast_triggers[:] = [t for t in reg.cast_triggers if t.kind != AB_PROWESS]
        card_rules.register_cast_trigger(CastTrigger(
            AB_PROWESS, lambda c: "Test Surge" in c.keywords, lambda card, face, how: not card.is_("Creature")))
        # Registered: every card with the keyword triggers on a noncreature spell.
        assert _scenario(setup, cast, {"stack": ["bolt", "ability:prowess"]}).passed
    assert "Test Surging Bear" not in cards.card_names()


def test_adding_a_property() -> None:
    """"Add a property": a predicate with its witness, read by the checkers as it is."""
    conf = SMALL["break-bolt"]

    def opponent_alive(cfg: Any, s: Any) -> Any:
        return s.life[1] > 0

    def bolt_hurts_little(cfg: Any, s: Any) -> Any:
        return s.life[1] >= 18  # false: the Bolt deals 3

    def opponent_hit(cfg: Any, s: Any) -> Any:
        return s.life[1] < 20

    alive = Property("test-opponent-survives-one-bolt", ("704.5a",), "One Bolt does not kill.", "state",
                     opponent_alive, opponent_hit)
    little = Property("test-bolt-hurts-little", ("120.3",), "A Bolt takes at most 2 life.", "state",
                      bolt_hurts_little, opponent_hit)
    verdicts, _ = graph.check(conf, [alive, little])
    by_id = {v.property: v for v in verdicts}
    assert by_id[alive.id].status in (HOLDS, PROVED)
    assert by_id[little.id].status == VIOLATED and by_id[little.id].trace


ADAPTER = '''
from mtgcheck.engines.model_engine import ModelEngine


class Adapter(ModelEngine):
    """A throwaway in-process adapter: the model, under another name."""

    def hello(self):
        info = super().hello()
        return type(info)("throwaway", "0", info.support)
'''


def test_adding_an_engine_adapter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """"Add an engine adapter", in process: a class with the Engine methods, run by
    ``--engine python:MODULE:CLASS``; a faithful one diverges nowhere."""
    (tmp_path / "throwaway_adapter.py").write_text(ADAPTER)
    monkeypatch.syspath_prepend(str(tmp_path))
    rep = validate("python:throwaway_adapter:Adapter", budget=3, seed=0, store_dir=None, scenario_files=[])
    assert rep.engine == "throwaway" and rep.traces > 0 and rep.steps > 0
    assert not rep.found
