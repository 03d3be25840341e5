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


ROOT = Path(__file__).resolve().parent.parent


def _recipe(title: str) -> str:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    return text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_the_keyword_recipe_touches_at_most_three_files() -> None:
    """A triggered keyword: its name (model/cards.py), its ability kind, trigger and effect
    (model/card_texts.py), nothing else: no state enum, no schema, no observation code."""
    import re

    # Its numbered steps (the note after them names the test that carries them out).
    triggered = _recipe("Add a keyword").split("- **A way to cast**", 1)[0].split("\n\n", 1)[0]
    files = set(re.findall(r"`((?:model|mtgcheck|tests|docs)/[\w/.-]+)`", triggered))
    assert files and len(files) <= 3, sorted(files)
    assert all((ROOT / f).exists() for f in files), sorted(files)
    assert not any(f.endswith(".schema.json") or f == "model/state.py" for f in files), sorted(files)


def test_adding_a_keyword(monkeypatch: pytest.MonkeyPatch) -> None:
    """"Add a keyword", a triggered one, as CONTRIBUTING.md says: the keyword's name, a card
    that has it, its ability kind allocated by the registry, its cast trigger and its effect
    registered once.  The new kind shows on the stack and a scenario expects it there, with no
    other file changed (the scenario loader reads the registry's kinds)."""
    from mtgcheck.model.card_rules import ability_kind, register_ability
    from mtgcheck.model.state import ABILITIES

    kinds = len(ABILITIES)
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
        surge = ability_kind("test-surge")
        card_rules.register_cast_trigger(CastTrigger(
            surge, lambda c: "Test Surge" in c.keywords, lambda card, face, how: not card.is_("Creature")))
        register_ability(surge, lambda cfg, s, a: s)
        assert surge == kinds and reg.abilities[surge] is not None
        # Registered: every card with the keyword triggers on a noncreature spell.
        assert _scenario(setup, cast, {"stack": ["bolt", "ability:test-surge"]}).passed
        # ... and resolves: both pass, the trigger leaves the stack first (CR 608.2n).
        passes = [{"player": 0, "do": "pass"}, {"player": 1, "do": "pass", "expect": {"stack": ["bolt"]}}]
        assert _scenario(setup, cast + passes, {"stack": ["bolt"]}).passed
    assert "Test Surging Bear" not in cards.card_names() and len(ABILITIES) == kinds


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
