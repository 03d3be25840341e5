"""The built-in configurations that ``mtgcheck check`` runs with no arguments.

Each is a starting position plus bounds: the graph search explores every state reachable
within ``max_turn``; BMC and Hypothesis go ``depth`` actions deep.  The positions are small
on purpose (the state space grows quickly with cards), yet each property's antecedent is
reachable in at least one of them: the checkers report a property whose antecedent never
fired as vacuous rather than as holding.
"""

from __future__ import annotations

from dataclasses import dataclass

from mtgcheck.model.setup import CardPlacement as C, PlanarSetup, Position


@dataclass(frozen=True)
class CheckConfig:
    name: str
    position: Position
    max_turn: int = 2
    depth: int = 8
    hypothesis_examples: int = 200
    hypothesis_steps: int = 40


def _lib(owner: int, n: int, name: str = "Island") -> tuple[C, ...]:
    return tuple(C(f"lib{owner}{chr(97 + i)}", name, owner, "library") for i in range(n))


BUILTIN: tuple[CheckConfig, ...] = (
    CheckConfig(
        "plot",
        Position(players=2, turn=1, active=0, step="main1", life=(20, 20), mana=(2, 2),
                 cards=(C("show", "Slickshot Show-Off", 0, "hand"),
                        C("shock", "Test Plotted Shock", 0, "hand"),
                        C("fireball", "Test Plotted Fireball", 1, "exile", plotted_turn=1),
                        C("bolt", "Lightning Bolt", 1, "hand"),
                        *_lib(0, 2), *_lib(1, 2))),
        max_turn=3, depth=10),
    CheckConfig(
        "flashback",
        Position(players=2, turn=1, active=0, step="main1", life=(20, 20), mana=(3, 2),
                 cards=(C("twice", "Think Twice", 0, "graveyard"),
                        C("looting", "Faithless Looting", 0, "graveyard"),
                        C("counter", "Counterspell", 1, "hand"),
                        C("remand", "Remand", 1, "graveyard"),
                        *_lib(0, 3), *_lib(1, 2))),
        max_turn=2, depth=10),
    CheckConfig(
        "costs",
        Position(players=2, turn=1, active=0, step="main1", life=(20, 20), mana=(6, 1),
                 cards=(C("luck", "Make Your Own Luck", 0, "hand"),
                        C("rites", "Village Rites", 0, "hand"),
                        C("thopter", "Ornithopter", 0, "battlefield"),
                        C("top", "Lightning Bolt", 0, "library"),
                        C("mid", "Forest", 0, "library"),
                        C("low", "Think Twice", 0, "library"),
                        *_lib(1, 1))),
        max_turn=1, depth=8),
    CheckConfig(
        "planechase",
        Position(players=3, turn=1, active=0, step="main1", life=(20, 20, 20), mana=(1, 1, 1),
                 cards=(*_lib(0, 2), *_lib(1, 2), *_lib(2, 2)),
                 planechase=PlanarSetup(decks=(("Test Plane Tally Grounds",), (), ()), plane="Otaria",
                                        plane_owner=1, plane_counters=0, controller=0)),
        max_turn=2, depth=10),
)
