"""The initial states: every placement of a configuration's cards, symbolic and concrete."""

from __future__ import annotations

import random
from typing import Any

from mtgcheck.model.config import Config
from mtgcheck.model.logic import And, Implies, Or
from mtgcheck.model.state import BY_PLANE, FIELDS, LAYOUT, State, bounds

from .relation import If_


def well_formed(cfg: Config, s: State) -> Any:
    """Domains of the state vector's fields, read from the layout (model/state.py, LAYOUT).
    Works on concrete states too: ``tests/test_state_layout.py`` checks the states of
    random games against it.  The proofs do not assume it: the same bounds are mined as
    ``range`` candidates (:mod:`.invariants`) and kept only once closed like any other."""
    c = []
    for d in LAYOUT:
        if d.index == BY_PLANE and not cfg.planechase or d.name == "planar_ctrl" and not cfg.planechase:
            continue
        lo, hi = bounds(cfg, d, s)
        v = getattr(s, d.name)
        for x in (v if isinstance(v, tuple) else (v,)):
            if lo is not None:
                c.append(x >= lo)
            if hi is not None:
                c.append(x <= hi)
    return And(*c)


def initial_placements(cfg: Config, s0: State, s: State) -> Any:
    """The symbolic initial states: every placement of the configuration's cards.

    Each card may start in any zone it can be in at a moment with an empty stack (library,
    hand, graveyard, exile; the battlefield for permanent cards), libraries in any order,
    an exiled card plotted on any turn so far or not at all; everything else (turn, step,
    life, mana, Planechase) is the configuration's.  BMC from here covers every such
    position at once, not one hand-picked setup.
    """
    from mtgcheck.model.state import EXILE, LIBRARY

    c = []
    n = cfg.n
    card_fields = {"zone", "pos", "plotted"}
    for f in FIELDS:
        if f in card_fields:
            continue
        x, y = getattr(s, f), getattr(s0, f)
        if isinstance(x, tuple):
            c.extend(a == b for a, b in zip(x, y, strict=True))
        else:
            c.append(x == y)
    for j, sl in enumerate(cfg.slots):
        c.append(Or(*[s.zone[j] == z for z in placement_zones(sl)]))
        lib_mates = [k for k in range(n) if cfg.slots[k].owner == sl.owner]
        size = sum(If_(s.zone[k] == LIBRARY) for k in lib_mates)
        c.append(Implies(s.zone[j] == LIBRARY, And(s.pos[j] >= 0, s.pos[j] < size)))
        c.append(Implies(s.zone[j] != LIBRARY, s.pos[j] == 0))
        for k in lib_mates:
            if k > j:
                c.append(Implies(And(s.zone[j] == LIBRARY, s.zone[k] == LIBRARY), s.pos[j] != s.pos[k]))
        c.append(Implies(s.zone[j] == EXILE, And(s.plotted[j] >= 0, s.plotted[j] <= s0.turn)))
        c.append(Implies(s.zone[j] != EXILE, s.plotted[j] == 0))
    return And(*c)


def placement_zones(sl: Any) -> list[int]:
    """The zones a card may start in: any it can be in at a moment with an empty stack."""
    from mtgcheck.model.state import BATTLEFIELD, EXILE, GRAVEYARD, HAND, LIBRARY

    return [LIBRARY, HAND, GRAVEYARD, EXILE] + ([BATTLEFIELD] if sl.card.permanent else [])


def placements(cfg: Config, s0: State, n: int, seed: int = 0) -> list[State]:
    """Up to ``n`` concrete initial placements other than ``s0`` (distinct zones), drawn
    with a seeded generator: each card in a zone :func:`placement_zones` allows, libraries
    shuffled, an exiled card plotted on a turn so far or not.

    Not from Z3's models: which model a solver returns depends on what the process asked Z3
    before (term ids), so the invariants mined from these states, and so the proofs, would
    depend on the order a worker ran its units in."""
    from mtgcheck.model.state import EXILE, LIBRARY

    rng = random.Random(seed)
    seen = {tuple(s0.zone)}
    out: list[State] = []
    for _ in range(50 * n):
        if len(out) >= n:
            break
        zone = tuple(rng.choice(placement_zones(sl)) for sl in cfg.slots)
        if zone in seen:
            continue
        seen.add(zone)
        pos = [0] * cfg.n
        for owner in range(cfg.players):
            lib = [j for j, sl in enumerate(cfg.slots) if sl.owner == owner and zone[j] == LIBRARY]
            rng.shuffle(lib)
            for i, j in enumerate(lib):
                pos[j] = i
        plotted = tuple(rng.randint(0, s0.turn) if z == EXILE else 0 for z in zone)
        out.append(s0.replace(zone=zone, pos=tuple(pos), plotted=plotted))
    return out
