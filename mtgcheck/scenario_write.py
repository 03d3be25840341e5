"""Turn a trace (a starting position and actions) into a scenario file that replays it.

Every counterexample a checker finds becomes a file a user can run with ``mtgcheck
scenario``: the setup is the configuration's position, the actions are the trace, each
marked ``"expect": "legal"`` (they were legal under the rules that produced them; run the
file under the default rules to see which one the rules refuse).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from mtgcheck.model.actions import Action
from mtgcheck.model.config import Config
from mtgcheck.model.setup import Position
from mtgcheck.model.state import FLASHBACKS, HALVES, HOWS
from mtgcheck.scenario_format import FORMAT as SCENARIO_FORMAT


def setup_of(pos: Position) -> dict[str, Any]:
    cards = []
    for c in pos.cards:
        d: dict[str, Any] = {"id": c.id, "card": c.card, "owner": c.owner, "zone": c.zone}
        if c.plotted_turn:
            d["plotted_turn"] = c.plotted_turn
        cards.append(d)
    out: dict[str, Any] = {"players": pos.players, "turn": pos.turn, "active": pos.active, "step": pos.step,
                           "life": list(pos.life), "mana": list(pos.mana), "cards": cards}
    if pos.lands:
        out["mana_rules"] = "lands"
    pc = pos.planechase
    out["planechase"] = None if pc is None else {
        "decks": [list(d) for d in pc.decks],
        "plane": {"name": pc.plane, **({} if pc.communal else {"owner": pc.plane_owner}), "counters": pc.plane_counters},
        "controller": pc.controller, **({"communal": True} if pc.communal else {})}
    if pos.left:
        out["left"] = list(pos.left)
    if pos.extra_turns:
        out["extra_turns"] = list(pos.extra_turns)
    return out


def action_doc(cfg: Config, a: Action, *, verdict: str = "legal",
               after: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The scenario action of ``a`` expecting ``verdict``; with ``after`` (expectation keys,
    e.g. ``{"priority": 1, "pending": None}``), ``expect`` is the object form: those
    expectations on the position after the action, the verdict as its ``verdict`` key."""
    ids = [sl.id for sl in cfg.slots]
    d: dict[str, Any] = {"player": a.player, "do": a.verb}
    if a.verb == "plot":
        d["card"] = ids[a.card]
        d["from"] = a.source or "hand"
    elif a.verb == "cast":
        d["card"] = ids[a.card]
        d["how"] = HOWS[a.how]
        if a.x:
            d["x"] = a.x
        if a.kicker:
            d["kicker"] = True
        if a.half:
            d["half"] = HALVES[a.half]
        if a.target >= 0:
            d["targets"] = [f"player:{a.target}" if a.target < cfg.players else ids[a.target - cfg.players]]
        if a.sacrifice >= 0:
            d["sacrifice"] = [ids[a.sacrifice]]
        if a.flashback:
            d["flashback"] = FLASHBACKS[a.flashback]
    elif a.verb == "choose":
        d["cards"] = [ids[k] for k in a.cards]
    elif a.verb == "roll":
        d["result"] = a.result
    elif a.verb in ("play", "tap"):
        d["card"] = ids[a.card]
    if any(a.spend):
        d["spend"] = {c: n for c, n in zip(cfg.pool_colours, a.spend, strict=True) if n}
    d["expect"] = verdict if after is None else {"verdict": verdict, **after}
    return d


def scenario_from_trace(name: str, rules: Sequence[str], pos: Position, cfg: Config, trace: Sequence[Action],
                        *, variant: str | None = None, description: str | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = {"format": SCENARIO_FORMAT, "name": name, "rules": list(rules)}
    if description:
        doc["description"] = description
    if variant:
        doc["variant"] = variant
    doc["setup"] = setup_of(pos)
    doc["actions"] = [action_doc(cfg, a) for a in trace]
    return doc
