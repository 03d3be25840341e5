"""The bridge between an engine's words (scenario JSON) and the model's (``Action``, ``State``).

Everything an engine says is checked with the scenario loader itself, so an engine that
lists a malformed action or names a card that is not in the game gets the same one-line
error a scenario file would, naming the field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field as dc_field, replace
from typing import Any, Sequence

from mtgcheck.model import cards as pool
from mtgcheck.model.actions import Action, legal_actions
from mtgcheck.model.config import VARIANTS, Config
from mtgcheck.model.setup import Position, build
from mtgcheck.model.state import State
from mtgcheck.scenario_format import FORMAT as SCENARIO_FORMAT, ActionSpec, Scenario, parse_scenario
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
    #: The setup as canonical JSON: with an action's, the key of :data:`_CHECKED`.
    key: str = dc_field(default="", repr=False, compare=False)

    def __post_init__(self) -> None:
        self.key = self.key or json.dumps(self.setup, sort_keys=True)

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

        keys = [(self.key, json.dumps(d, sort_keys=True)) for d in docs]
        if any(k not in _CHECKED for k in keys):
            try:
                sc = parse(self.setup, [dict(d) for d in docs], source=source)
            except FormatError as exc:
                raise FormatError(source, exc.field.replace("actions", field, 1), exc.expected, exc.got) from None
            if len(_CHECKED) > _CHECKED_MAX:
                _CHECKED.clear()
            _CHECKED.update(zip(keys, sc.actions, strict=True))
        sc = replace(self.scenario, path=source)
        return [to_action(self.cfg, sc, replace(_CHECKED[k], index=i), s) for i, k in enumerate(keys)]


#: (setup, action) as JSON -> the action as the scenario loader checked it with that setup.
#: An engine lists the same actions step after step (every pass, every land) and each check
#: is a schema validation of the whole scenario (measured on phase.rs, budget 100: 3.7 of 32 s,
#: 0.4 s with this); an action's check reads only itself and the setup, so its result is kept.
_CHECKED: dict[tuple[str, str], ActionSpec] = {}
_CHECKED_MAX = 100_000



def without_spend(a: Action) -> Action:
    """The action as an engine that chooses its own payment sees it (``supports.lacks``: ``spend``)."""
    return replace(a, spend=())


def legal_with_another_spend(cfg: Config, s: State, a: Action) -> bool:
    """Is ``a`` legal once the pool mana that pays its generic part is chosen otherwise?

    The model lists one cast per ``spend`` (which colours pay the generic part, CR 601.2h);
    an engine such as Forge takes no such choice with the cast and pays from the pool as it
    likes.  For such an engine (``supports.lacks`` ``spend``) the harness compares projected
    sets: casts that differ only in ``spend`` are one action, legal if any of them is.  The
    projection lives here, in the bridge between the engine's words and the model's, not in
    the model: the rules keep the choice (mtgcheck.validate uses it for probes and lists).
    """
    return bool(a.spend) and any(without_spend(b) == without_spend(a) for b in legal_actions(cfg, s))


def another_spend_was_legal(a: Action, legal: Sequence[Action]) -> bool:
    """Could the pool have paid ``a`` otherwise (another legal action differing only in ``spend``)?

    Then an engine that pays as it likes may have left other colours in its pool than the
    model's ``spend`` did, and the pool is observed as an amount only: until the pool empties
    (CR 500.4, when the step ends) its colours are the engine's choice, not known to the harness.
    """
    return bool(a.spend) and any(b != a and without_spend(b) == without_spend(a) for b in legal)

