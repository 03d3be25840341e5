"""Minimize a counterexample before it is stored: fewer actions, cards and players.

The checkers already give a shortest trace (BFS, iterative-deepening BMC) or a shrunk one
(Hypothesis); this pass then removes what the violation does not need, by delta debugging
over the scenario (actions, then cards, then trailing players nothing refers to), replaying each candidate on
the same rule set and keeping it only if it still violates the same property.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from mtgcheck.errors import MtgcheckError
from mtgcheck.model import cards as pool
from mtgcheck.model.config import VARIANTS
from mtgcheck.replay import Counterexample, replay, rules_of
from mtgcheck.scenario_format import parse_scenario


def _violates(doc: dict[str, Any]) -> bool:
    try:
        sc = parse_scenario(doc["scenario"], source="(minimizing)", known_cards=pool.card_names(),
                            known_planes=pool.plane_names(), known_variants=tuple(VARIANTS))
    except MtgcheckError:
        return False
    cx = Counterexample("(minimizing)", doc["violates"], doc["found_by"], doc["target"], doc.get("seed"), sc, doc)
    variant, disabled = rules_of(doc["target"])
    try:
        return replay(cx, variant=variant, disabled=disabled).reproduces
    except (MtgcheckError, KeyError, IndexError):
        return False


def _ddmin(doc: dict[str, Any], items: list[Any], rebuild) -> list[Any]:  # type: ignore[no-untyped-def]
    """Classic ddmin over a list: the smallest sublist (1-minimal) that still violates."""
    n = 2
    while len(items) >= 2:
        chunk = max(1, len(items) // n)
        reduced = False
        for start in range(0, len(items), chunk):
            candidate = items[:start] + items[start + chunk:]
            if _violates(rebuild(candidate)):
                items, n, reduced = candidate, max(n - 1, 2), True
                break
        if not reduced:
            if chunk == 1:
                break
            n = min(len(items), n * 2)
    return items


def minimize(doc: dict[str, Any]) -> dict[str, Any]:
    """The smallest scenario found that still violates ``doc['violates']`` on its target."""
    if not _violates(doc):
        return doc
    before = (len(doc["scenario"]["actions"]), len(doc["scenario"]["setup"]["cards"]))
    doc = copy.deepcopy(doc)

    def with_actions(acts: list[Any]) -> dict[str, Any]:
        d = copy.deepcopy(doc)
        d["scenario"]["actions"] = acts
        return d

    doc = with_actions(_ddmin(doc, list(doc["scenario"]["actions"]), with_actions))

    def with_cards(cs: list[Any]) -> dict[str, Any]:
        d = copy.deepcopy(doc)
        d["scenario"]["setup"]["cards"] = cs
        return d

    doc = with_cards(_ddmin(doc, list(doc["scenario"]["setup"]["cards"]), with_cards))
    players_before = doc["scenario"]["setup"]["players"]
    while doc["scenario"]["setup"]["players"] > 2:
        candidate = _without_last_player(doc)
        if candidate is None or not _violates(candidate):
            break
        doc = candidate
    after = (len(doc["scenario"]["actions"]), len(doc["scenario"]["setup"]["cards"]))
    doc["trace_length"] = after[0]
    doc["minimized_from"] = {"actions": before[0], "cards": before[1], "players": players_before}
    return doc


def _without_last_player(doc: dict[str, Any]) -> dict[str, Any] | None:
    """The scenario with its last player (and that player's own actions) removed, if no card,
    target or setup key refers to that player."""
    d = copy.deepcopy(doc)
    setup = d["scenario"]["setup"]
    p = setup["players"] - 1
    d["scenario"]["actions"] = [a for a in d["scenario"]["actions"] if a["player"] != p]
    text = json.dumps(d["scenario"]["actions"])
    if (any(c["owner"] == p for c in setup["cards"]) or setup["active"] == p or p in setup.get("left", [])
            or p in setup.get("extra_turns", []) or f'"player:{p}"' in text
            or setup.get("planechase") is not None):
        return None
    setup["players"] = p
    for key in ("life", "mana"):
        if key in setup:
            setup[key] = setup[key][:p]
    return d
