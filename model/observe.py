"""A state in the scenario's vocabulary: what expectations, engines and reports compare."""

from __future__ import annotations

from typing import Any

from .config import Config
from .state import ABILITIES, PENDINGS, PL_FACEUP, STACK, STEPS, ZONES, State


#: The observation keys, declared once: what scenario expectations, engines (their
#: ``supports.observe``) and reports compare.  ``observe`` also says ``bound_hit`` (a bound
#: of the configuration was hit), the model's own, which nothing compares.
OBSERVATION_KEYS = ("zones", "plotted", "turn", "active", "step", "life", "mana", "planar_controller", "plane",
                    "plane_counters", "extra_turns", "stack", "in_game", "game_over", "priority", "pending")
#: The keys of a scenario's ``expect``: the observation keys, and ``not_plotted`` (cards
#: that must not be among the plotted ones).
EXPECTATION_KEYS = (*OBSERVATION_KEYS[:2], "not_plotted", *OBSERVATION_KEYS[2:])


def observe(cfg: Config, s: State) -> dict[str, Any]:
    """The observable position (zones of the cards by id, plotted cards, stack, turn, ...)."""
    stack: list[tuple[int, str]] = []
    for j, sl in enumerate(cfg.slots):
        if s.zone[j] == STACK:
            stack.append((s.pos[j], sl.id))
    for a in range(cfg.ability_slots):
        if s.ab_kind[a]:
            stack.append((s.ab_pos[a], f"ability:{ABILITIES[s.ab_kind[a]]}"))
    plane = None
    counters = None
    for k, ps in enumerate(cfg.planes):
        if s.pl_zone[k] == PL_FACEUP:
            plane, counters = ps.plane.name, s.pl_counters[k]
    queue = [p for p in s.extra if p != -1]
    return {
        "zones": {sl.id: ZONES[s.zone[j]] for j, sl in enumerate(cfg.slots)},
        "plotted": sorted(sl.id for j, sl in enumerate(cfg.slots) if s.plotted[j]),
        "turn": s.turn,
        "active": s.active,
        "step": STEPS[s.step],
        "priority": s.priority,
        "life": list(s.life),
        "mana": list(s.mana),
        "in_game": [p for p in range(cfg.players) if s.in_game[p]],
        "game_over": bool(s.game_over),
        "stack": [name for _, name in sorted(stack)],
        "planar_controller": s.planar_ctrl if cfg.planechase else None,
        "plane": plane,
        "plane_counters": counters,
        "extra_turns": list(reversed(queue)),
        "pending": pending(cfg, s),
        "bound_hit": bool(s.overflow),
    }


def pending(cfg: Config, s: State) -> dict[str, Any] | None:
    """The choice the game waits for (CR 608.2d, 704.5j: a player must choose before anyone
    gets priority again), or None: ``choice`` (its kind), ``player`` (who must make it) and
    ``source`` (the id of the card whose effect asks, None for a state-based choice)."""
    if not s.pending:
        return None
    source = cfg.slots[s.pending_src].id if 0 <= s.pending_src < cfg.n else None
    return {"choice": PENDINGS[s.pending], "player": s.pending_player, "source": source}
