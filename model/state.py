"""The bounded state vector (DESIGN.md, "The state vector").

A state is a frozen, slotted value made of ints and tuples of ints, so it is hashable (a
graph node as it is) and maps one-to-one onto Z3 integer terms.  Booleans are 0/1.  The
same class holds concrete values (the interpreter) and Z3 terms (the symbolic encoding).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import z3

from .config import Config

# Zones of a card slot (CR 400.1). OUTSIDE: left the game with its owner (CR 800.4a).
LIBRARY, HAND, STACK, GRAVEYARD, EXILE, BATTLEFIELD, OUTSIDE = range(7)
ZONES = ("library", "hand", "stack", "graveyard", "exile", "battlefield", "outside")

# Steps (CR 500.1, collapsed to the ones the rules in scope tell apart).
BEGINNING, MAIN1, COMBAT, MAIN2, END = range(5)
STEPS = ("beginning", "main1", "combat", "main2", "end")

# How a spell on the stack was cast (CR 601.2b, 118.9).
NOT_CAST, NORMAL, FLASHBACK, PLOTTED, FREE = range(5)
HOWS = ("-", "normal", "flashback", "plotted", "free")

# Split-card half cast (CR 709.3).
WHOLE, LEFT, RIGHT = range(3)
HALVES = ("-", "left", "right")

# Which flashback ability pays for a flashback cast (several may apply, Otaria ruling 9).
FB_NONE, FB_PRINTED, FB_MANA_COST = range(3)
FLASHBACKS = ("-", "printed", "mana_cost")

# Pending choices (a resolving object waits for a player's ``choose``).
P_NONE, P_LUCK, P_LOOT, P_AVEN_TARGET, P_SNAP_TARGET, P_LEGEND = range(6)
PENDINGS = ("-", "make-your-own-luck", "discard", "aven-target", "snapcaster-target", "legend-rule")

# Triggered abilities on the stack (CR 603).
AB_NONE, AB_SHOWOFF, AB_PROWESS, AB_LILAH_PLOT, AB_AVEN, AB_SNAP, AB_CHAOS, AB_PLANESWALK = range(8)
ABILITIES = ("-", "show-off-pump", "prowess", "lilah-plot", "aven-exile", "snapcaster-grant",
             "chaos", "planeswalk")

# Planar card locations (CR 901.3, 901.7).
PL_DECK, PL_FACEUP, PL_OUT = range(3)

NO_TARGET = -1


@dataclass(frozen=True, slots=True)
class State:
    """One position. Tuples are indexed by player, card slot, ability slot or plane slot."""

    # turn structure (CR 500, 117)
    turn: Any
    active: Any
    normal_turn: Any  # whose last normal turn it is or was: turn order resumes after them (CR 500.7)
    step: Any
    priority: Any
    passes: Any
    game_over: Any
    next_oid: Any
    stack_size: Any
    pending: Any
    pending_player: Any
    pending_src: Any
    overflow: Any  # 1 when a bound of the configuration was hit (never silent)
    # players
    in_game: tuple
    life: tuple
    mana: tuple
    drew_empty: tuple  # CR 704.5b
    # card slots
    zone: tuple
    pos: tuple  # order in the library (0 = top) and on the stack (0 = bottom); 0 elsewhere
    oid: tuple  # CR 400.7: a new object id on every zone change
    plotted: tuple  # turn it became plotted (CR 702.170d), 0 = not plotted
    how: tuple
    cast_from: tuple
    x: tuple
    kicked: tuple
    half: tuple
    fb_exile: tuple  # CR 702.34a: exiled instead of going anywhere else when it leaves the stack
    plot_on_resolve: tuple  # Lilah: exiled and plotted as it resolves
    target: tuple  # -1 none; 0..P-1 a player; P+j card slot j
    target_oid: tuple
    granted_fb: tuple  # flashback granted until end of turn (Past in Flames, Snapcaster Mage)
    damage: tuple
    power_bonus: tuple  # until end of turn: +N/+0 and +N/+N effects (CR 613.4c)
    toughness_bonus: tuple  # kept apart from power: prowess is +1/+1, Show-Off's pump +2/+0
    last_cast: tuple  # history: the turn it was last cast (0 never)
    # triggered abilities on the stack
    ab_kind: tuple
    ab_ctrl: tuple
    ab_src: tuple
    ab_target: tuple
    ab_target_oid: tuple
    ab_pos: tuple
    # Planechase (CR 901)
    pl_zone: tuple
    pl_pos: tuple
    pl_counters: tuple
    pl_oid: tuple
    planar_ctrl: Any  # -1 without Planechase
    rolls: Any  # planar die rolls by the active player this turn (CR 901.9, 116.2i)
    extra: tuple  # queued extra turns (CR 500.7): a stack, last element taken first; -1 empty
    chaos_extra: Any  # history: extra turns created by chaos this turn

    def replace(self, **changes: Any) -> "State":
        return dataclasses.replace(self, **changes)


FIELDS = tuple(f.name for f in dataclasses.fields(State))


# The fields indexed by card slot: one list, so that every user (sizes, the graph search's
# symmetry renaming) sees a new card field at once.
CARD_FIELDS = ("zone", "pos", "oid", "plotted", "how", "cast_from", "x", "kicked", "half", "fb_exile",
               "plot_on_resolve", "target", "target_oid", "granted_fb", "damage", "power_bonus",
               "toughness_bonus", "last_cast")


def sizes(cfg: Config) -> dict[str, int]:
    """Length of each tuple field for a configuration (scalars are absent)."""
    P, N, A, K, E = cfg.players, cfg.n, cfg.ability_slots, len(cfg.planes), cfg.extra_slots
    out = {f: P for f in ("in_game", "life", "mana", "drew_empty")}
    out.update({f: N for f in CARD_FIELDS})
    out.update({f: A for f in ("ab_kind", "ab_ctrl", "ab_src", "ab_target", "ab_target_oid", "ab_pos")})
    out.update({f: K for f in ("pl_zone", "pl_pos", "pl_counters", "pl_oid")})
    out["extra"] = E
    return out


def symbolic_state(cfg: Config, prefix: str) -> State:
    """A state whose every component is a fresh Z3 integer named ``prefix.field[i]``."""
    lens = sizes(cfg)
    vals: dict[str, Any] = {}
    for f in FIELDS:
        if f in lens:
            vals[f] = tuple(z3.Int(f"{prefix}.{f}[{i}]") for i in range(lens[f]))
        else:
            vals[f] = z3.Int(f"{prefix}.{f}")
    return State(**vals)


def ite_state(c: Any, a: State, b: State) -> State:
    """Field-wise choice between two states (used by :func:`logic.lazy_if`)."""
    from .logic import If

    vals = {}
    for f in FIELDS:
        x, y = getattr(a, f), getattr(b, f)
        vals[f] = tuple(If(c, p, q) for p, q in zip(x, y)) if isinstance(x, tuple) else If(c, x, y)
    return State(**vals)


def equal_states(a: State, b: State) -> Any:
    """A Z3 (or Python) formula: the two states are equal component by component."""
    from .logic import And

    parts = []
    for f in FIELDS:
        x, y = getattr(a, f), getattr(b, f)
        if isinstance(x, tuple):
            parts.extend(p == q for p, q in zip(x, y))
        else:
            parts.append(x == y)
    return And(*parts)
