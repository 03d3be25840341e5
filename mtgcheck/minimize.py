"""Minimize a counterexample before it is stored: fewer actions, cards and players.

The checkers already give a shortest trace (BFS, iterative-deepening BMC) or a shrunk one
(Hypothesis); this pass then removes what the violation does not need, by delta debugging
over the scenario (actions, then cards, then trailing players nothing refers to), replaying each candidate on
the same rule set and keeping it only if it still violates the same property.
"""

from __future__ import annotations

import copy
import json
from typing import Any, Callable

from mtgcheck.errors import MtgcheckError
from mtgcheck.model import cards as pool
from mtgcheck.model.config import VARIANTS
from mtgcheck.replay import Counterexample, replay
from mtgcheck.scenario_format import parse_scenario


def _violates(doc: dict[str, Any]) -> bool:
    try:
        sc = parse_scenario(doc["scenario"], source="(minimizing)", known_cards=pool.card_names(),
                            known_planes=pool.plane_names(), known_variants=tuple(VARIANTS))
    except MtgcheckError:
        return False
    cx = Counterexample("(minimizing)", doc["violates"], doc["found_by"], doc["target"], doc.get("seed"), sc, doc)
    try:
        return replay(cx, cx.rules).reproduces
    except (MtgcheckError, KeyError, IndexError):
        return False


def ddmin(items: list[Any], still_fails: Callable[[list[Any]], bool]) -> list[Any]:
    """Classic ddmin over a list: a 1-minimal sublist on which ``still_fails`` holds.

    Shared by counterexample minimization (replaying on a rule set) and differential
    testing (replaying on an engine): only the test differs.
    """
    n = 2
    while len(items) >= 2:
        chunk = max(1, len(items) // n)
        reduced = False
        for start in range(0, len(items), chunk):
            candidate = items[:start] + items[start + chunk:]
            if still_fails(candidate):
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

    doc = with_actions(ddmin(list(doc["scenario"]["actions"]), lambda c: _violates(with_actions(c))))

    def with_cards(cs: list[Any]) -> dict[str, Any]:
        d = copy.deepcopy(doc)
        d["scenario"]["setup"]["cards"] = cs
        return d

    doc = with_cards(ddmin(list(doc["scenario"]["setup"]["cards"]), lambda c: _violates(with_cards(c))))
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
