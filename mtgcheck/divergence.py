"""What a divergence between an engine and the rules is: its kinds and its record.

Kept apart from :mod:`mtgcheck.validate` (which finds divergences) so that replay and
minimization, which validate uses, can read stored divergences without importing it back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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
