"""The card registry: every card's rules in one place, and the recipe of CONTRIBUTING.md
("Add a card") carried out on a throwaway card in temporary copies of the pool and registry.

These are also the tests that tell a contributor what they forgot: a spell with no effect,
an entry for a card the pool lacks, a card no scenario plays.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from mtgcheck.model import cards, card_rules
from mtgcheck.model.card_rules import FaceRules, face_rules, registry
from mtgcheck.model.targets import deal_damage
from mtgcheck.scenario_format import parse_scenario
from mtgcheck.scenario_run import run

from .conftest import ROOT


def spells_without_effect() -> list[str]:
    """Faces of instants and sorceries the registry gives no effect (a forgotten entry)."""
    return sorted(f.name for n in cards.card_names() for c in (cards.card(n),) if c.instant_or_sorcery
                  for f in c.faces if face_rules(f.name).resolve is None)


def entries_for_no_card() -> list[str]:
    """Registry entries whose name is no card, face or plane of the pool (a misspelt name)."""
    faces = {f.name for n in cards.card_names() for f in cards.card(n).faces}
    reg = registry()
    return sorted({*(set(reg.faces) - faces), *(set(reg.cards) - cards.card_names()),
                   *(set(reg.planes) - cards.plane_names())})


def cards_no_scenario_plays() -> list[str]:
    used: set[str] = set()
    for path in (ROOT / "tests" / "scenarios").glob("*.json"):
        setup = json.loads(path.read_text(encoding="utf-8"))["setup"]
        used |= {c["card"] for c in setup["cards"]}
    basic = {"Forest", "Island", "Mountain", "Plains", "Swamp"}  # lands do nothing to test
    return sorted(cards.card_names() - used - basic)


def test_every_spell_has_an_effect() -> None:
    assert spells_without_effect() == []


def test_every_entry_names_a_card_of_the_pool() -> None:
    assert entries_for_no_card() == []


def test_every_card_is_played_by_a_scenario() -> None:
    assert cards_no_scenario_plays() == []


def test_no_rule_module_tests_card_names() -> None:
    """A card's behaviour is its registry entry: the rule modules never test a card's name."""
    names = sorted(cards.card_names() | cards.plane_names(), key=len, reverse=True)
    for path in (ROOT / "model").glob("*.py"):
        if path.name in ("card_texts.py", "cards.py"):
            continue
        text = path.read_text(encoding="utf-8")
        named = [n for n in names if f'"{n}"' in text]
        assert not named, f"{path.name} names {named}: give the card a registry entry instead"


SPARK = {"name": "Test Throwaway Spark", "isTest": True, "manaCost": "{R}", "type": "Instant",
         "types": ["Instant"], "keywords": [], "text": "Test Throwaway Spark deals 1 damage to any target."}


def _spark_scenario() -> dict[str, Any]:
    return {"format": "mtgcheck.scenario/1", "name": "throwaway spark", "rules": ["601.2"],
            "setup": {"players": 2, "turn": 1, "active": 0, "step": "main1", "mana": [1, 0],
                      "cards": [{"id": "spark", "card": "Test Throwaway Spark", "owner": 0, "zone": "hand"},
                                {"id": "lib0", "card": "Island", "owner": 0, "zone": "library"},
                                {"id": "lib1", "card": "Island", "owner": 1, "zone": "library"}],
                      "planechase": None},
            "actions": [{"player": 0, "do": "cast", "card": "spark", "how": "normal", "targets": ["player:1"],
                         "expect": "legal"},
                        {"player": 0, "do": "pass"}, {"player": 1, "do": "pass"}],
            "expect": {"life": [20, 19], "zones": {"spark": "graveyard"}}}


def test_adding_a_card_as_contributing_says() -> None:
    """CONTRIBUTING.md, "Add a card": the record, then the entry; the checks above see each step."""
    doc = _spark_scenario()
    with cards.scratch([SPARK]), card_rules.scratch():
        # Step 1, the record only: the card is known, but a spell without an effect is caught.
        assert "Test Throwaway Spark" in cards.card_names()
        assert spells_without_effect() == ["Test Throwaway Spark"]
        # Step 2, its entry: one registration.
        card_rules.register_face("Test Throwaway Spark", FaceRules(
            target="any", resolve=lambda cfg, s, j: deal_damage(cfg, s, s.target[j], 1)))
        assert spells_without_effect() == []
        # Step 3, a scenario: it plays as written, on the real interpreter.
        report = run(parse_scenario(doc, source="spark.json", known_cards=cards.card_names(),
                                    known_planes=cards.plane_names()))
        assert report.passed, report.mismatches
    # Nothing leaks: the pool and the registry are as they were.
    assert "Test Throwaway Spark" not in cards.card_names()
    assert "Test Throwaway Spark" not in registry().faces
    with pytest.raises(Exception, match="Test Throwaway Spark"):
        parse_scenario(doc, source="spark.json", known_cards=cards.card_names(), known_planes=cards.plane_names())


def test_a_card_registered_twice_is_refused() -> None:
    with card_rules.scratch(), pytest.raises(ValueError, match="registered twice"):
        card_rules.register_face("Lightning Bolt", FaceRules(target="any"))
