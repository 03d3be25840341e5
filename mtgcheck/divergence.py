"""What a divergence between an engine and the rules is: its kinds and its record.

Kept apart from :mod:`mtgcheck.validate` (which finds divergences) so that replay and
minimization, which validate uses, can read stored divergences without importing it back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mtgcheck.model.card_rules import face_rules
from mtgcheck.model.state import LEFT, PLANE_SOURCED

if TYPE_CHECKING:
    from mtgcheck.model.config import Config
    from mtgcheck.model.state import State


#: What the engine got wrong, in words (the report's first column).
KINDS = {
    "legal-refused": "refused an action the rules allow",
    "illegal-accepted": "accepted an action the rules forbid",
    "missing-action": "did not list an action the rules allow",
    "extra-action": "listed an action the rules forbid",
    "bad-action": "listed an action that is not well-formed",
    "observation": "reached a different position",
    "crash": "crashed",
    "hang": "hung",
    "garbage": "answered something that is not JSON",
    "protocol": "broke the protocol",
}
FAULTS = ("crash", "hang", "garbage", "protocol")
#: The keys of a scenario action that are the expected verdict, not part of the action.
VERDICT_KEYS = ("expect", "rule")


#: Fields a card's effect changes (where it put cards, whom it hurt): a divergence in one of
#: them after a card's effect names the card; turn structure and priority are the game's.
_CARD_FIELDS = ("zones", "plotted", "life", "stack", "pending")


def card_of_step(cfg: Config, s: State, t: Any, fld: str) -> str:
    """The card whose own effect the step ``t`` from ``s`` was, for a divergence in ``fld``
    ("" if none): the card asking a choice, the resolving spell's face, the card whose
    triggered ability resolves."""
    if fld.partition(".")[0] not in _CARD_FIELDS:
        return ""
    if t.card:
        return str(t.card)
    if t.rule.startswith("pass.resolve.card"):
        j = int(t.rule[len("pass.resolve.card"):])
        card = cfg.slots[j].card
        face = card.faces[1] if card.is_split and s.half[j] != LEFT else card.faces[0]
        return face.name if face_rules(face.name).resolve is not None else ""
    if t.rule.startswith("pass.resolve.ability"):
        a = int(t.rule[len("pass.resolve.ability"):])
        src = s.ab_src[a]
        return cfg.slots[src].card.name if s.ab_kind[a] and 0 <= src < cfg.n and s.ab_kind[a] not in PLANE_SOURCED else ""
    return ""


def wire(action: dict[str, Any]) -> dict[str, Any]:
    """A scenario action as an engine is sent it: without the verdict the file expects."""
    return {k: v for k, v in action.items() if k not in VERDICT_KEYS}


@dataclass(frozen=True)
class Divergence:
    """The first point where the engine and the rules part, with the rule at stake."""

    kind: str
    step: int  # index of the last action played when it showed (-1: at the setup, before any action)
    field: str  # "legality", "actions", "zones.show", ... or the fault kind
    rule: str  # the CR rule at stake ("" for engine faults)
    rules_say: Any
    engine_says: Any
    why: str
    #: The other fields that differ at the same point, each {field, rule, rules_say, engine_says},
    #: in the order of :data:`mtgcheck.validate.FIELD_ORDER` (the first differing field is this divergence's own).
    also: tuple[dict[str, Any], ...] = ()
    #: The card whose own effect the rule is ("" for a rule of the game): the report names it
    #: beside the CR number (``Make Your Own Luck, CR 702.170c``).
    card: str = ""

    def key(self) -> tuple[str, str, str]:
        """Two divergences with the same key are the same bug for reporting and storing."""
        return self.kind, self.field.split(".")[0], self.rule

    def to_json(self) -> dict[str, Any]:
        out = {"kind": self.kind, "step": self.step, "field": self.field, "rule": self.rule,
               "rules_say": self.rules_say, "engine_says": self.engine_says, "why": self.why}
        if self.also:
            out["also"] = [dict(d) for d in self.also]
        if self.card:
            out["card"] = self.card
        return out


@dataclass
class Trace:
    setup: dict[str, Any]
    actions: list[dict[str, Any]] = field(default_factory=list)
    divergence: Divergence | None = None
    source: str = ""
