"""The bridge between an engine's words (scenario JSON) and the model's (``Action``, ``State``).

Everything an engine says is checked with the scenario loader itself, so an engine that
lists a malformed action or names a card that is not in the game gets the same one-line
error a scenario file would, naming the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from mtgcheck.model import cards as pool
from mtgcheck.model.actions import Action
from mtgcheck.model.config import VARIANTS, Config
from mtgcheck.model.setup import Position, build
from mtgcheck.model.state import State
from mtgcheck.scenario_format import FORMAT as SCENARIO_FORMAT, Scenario, parse_scenario
from mtgcheck.scenario_run import to_action
from mtgcheck.scenario_write import action_doc


def wire_action(cfg: Config, a: Action) -> dict[str, Any]:
    """A model action as the engine protocol spells it (a scenario action without ``expect``)."""
    d = action_doc(cfg, a)
    del d["expect"]
    return d


def scenario_doc(setup: dict[str, Any], actions: Sequence[dict[str, Any]], variant: str | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = {"format": SCENARIO_FORMAT, "name": "engine session", "rules": [],
                           "setup": setup, "actions": list(actions)}
    if variant:
        doc["variant"] = variant
    return doc


def parse(setup: dict[str, Any], actions: Sequence[dict[str, Any]], *, source: str,
          variant: str | None = None) -> Scenario:
    """Check a setup and actions as a scenario (raises FormatError naming ``source`` and the field)."""
    return parse_scenario(scenario_doc(setup, actions, variant), source=source, known_cards=pool.card_names(),
                          known_planes=pool.plane_names(), known_variants=tuple(VARIANTS))


@dataclass
class Session:
    """A position being played: its scenario form (for translation) and the model's config."""

    setup: dict[str, Any]
    scenario: Scenario
    cfg: Config
    start: State

    @classmethod
    def begin(cls, setup: dict[str, Any], *, source: str, max_x: int = 3, variant: str | None = None,
              disabled: frozenset[str] = frozenset()) -> "Session":
        sc = parse(setup, [], source=source, variant=variant)
        cfg, s = build(sc.setup, max_x=max_x, variant=variant, disabled=disabled)
        return cls(setup, sc, cfg, s)

    @property
    def position(self) -> Position:
        return self.scenario.setup

    def to_model(self, docs: Sequence[dict[str, Any]], s: State, *, source: str, field: str) -> list[Action]:
        """Translate action objects (raises FormatError naming ``field[i]`` for a bad one)."""
        if not docs:
            return []
        from mtgcheck.errors import FormatError

        try:
            sc = parse(self.setup, [dict(d) for d in docs], source=source)
        except FormatError as exc:
            raise FormatError(source, exc.field.replace("actions", field, 1), exc.expected, exc.got) from None
        return [to_action(self.cfg, sc, spec, s) for spec in sc.actions]

