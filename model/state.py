"""The bounded state vector (DESIGN.md, "The state vector").

A state is a frozen, slotted value made of ints and tuples of ints, so it is hashable (a
graph node as it is) and maps one-to-one onto Z3 integer terms.  Booleans are 0/1.  The
same class holds concrete values (the interpreter) and Z3 terms (the symbolic encoding).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable

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
PL_ZONES = ("deck", "face-up", "out")

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


# --- the layout: every field once, with what it is indexed by and what it holds ---------
#
# Everything that walks the state vector by field (sizes, the fields a zone change or a
# removal from the stack resets, the symmetry reduction's renaming of card slots, object ids
# and turns, Z3's variables and the well-formedness bounds) reads this table; adding a field
# to ``State`` is one more line here (tests/test_state_layout.py fails until there is one).

# What a field is indexed by.
SCALAR, BY_PLAYER, BY_CARD, BY_ABILITY, BY_PLANE, BY_EXTRA = "scalar", "player", "card", "ability", "plane", "extra"
INDEXES = (SCALAR, BY_PLAYER, BY_CARD, BY_ABILITY, BY_PLANE, BY_EXTRA)

# What a field holds.
NUM = "number"  # a plain number (a count, an amount, a position)
TURN = "turn"  # a turn number; 0 = never (only order and equality matter)
OID = "oid"  # an object id (CR 400.7); 0 = none (only order and equality matter)
REF = "ref"  # -1 none; 0..P-1 a player; P+j card slot j (the encoding of ``target``)
SLOT = "slot"  # a card slot; -1 none
SOURCE = "source"  # an ability's source: a plane slot for the kinds in PLANE_SOURCED, else a card slot
PLAYER = "player"  # a player index; -1 none where the declaration allows it
BOOL = "bool"  # 0 or 1
ENUM = "enum"  # an index into the declaration's ``names``
HOLDS = (NUM, TURN, OID, REF, SLOT, SOURCE, PLAYER, BOOL, ENUM)

#: Ability kinds whose ``ab_src`` is a plane slot, not a card slot.
PLANE_SOURCED = (AB_CHAOS, AB_PLANESWALK)


@dataclass(frozen=True, slots=True)
class Decl:
    """One field of the state vector.

    ``lo``/``hi`` bound a NUM (``hi`` a function of the configuration, or None); ``none``
    says that the no-value of a PLAYER, SLOT or OID (-1, -1, 0) may occur; ``reset`` is the
    value a zone change (card fields, CR 400.7) or a removal from the stack (ability fields)
    puts back, None when the field is kept or handled apart.
    """

    name: str
    index: str
    holds: str
    names: tuple[str, ...] = ()
    lo: int | None = 0
    hi: Callable[[Config], int] | None = None
    none: bool = False
    reset: int | None = None


_C, _A = BY_CARD, BY_ABILITY
LAYOUT: tuple[Decl, ...] = (
    Decl("turn", SCALAR, TURN, lo=1),
    Decl("active", SCALAR, PLAYER),
    Decl("normal_turn", SCALAR, PLAYER),
    Decl("step", SCALAR, ENUM, STEPS),
    Decl("priority", SCALAR, PLAYER),
    Decl("passes", SCALAR, NUM, hi=lambda c: c.players - 1),
    Decl("game_over", SCALAR, BOOL),
    Decl("next_oid", SCALAR, OID, lo=1),
    Decl("stack_size", SCALAR, NUM, hi=lambda c: c.n + c.ability_slots),
    Decl("pending", SCALAR, ENUM, PENDINGS),
    Decl("pending_player", SCALAR, PLAYER, none=True),
    Decl("pending_src", SCALAR, SLOT, none=True),
    Decl("overflow", SCALAR, BOOL),
    Decl("in_game", BY_PLAYER, BOOL),
    Decl("life", BY_PLAYER, NUM, lo=None),
    Decl("mana", BY_PLAYER, NUM),
    Decl("drew_empty", BY_PLAYER, BOOL),
    Decl("zone", _C, ENUM, ZONES),
    Decl("pos", _C, NUM),
    Decl("oid", _C, OID, lo=1),
    Decl("plotted", _C, TURN, reset=0),
    Decl("how", _C, ENUM, HOWS, reset=0),
    Decl("cast_from", _C, ENUM, ZONES, reset=0),
    Decl("x", _C, NUM, hi=lambda c: c.max_x, reset=0),
    Decl("kicked", _C, BOOL, reset=0),
    Decl("half", _C, ENUM, HALVES, reset=0),
    Decl("fb_exile", _C, BOOL, reset=0),
    Decl("plot_on_resolve", _C, BOOL, reset=0),
    Decl("target", _C, REF, reset=NO_TARGET),
    Decl("target_oid", _C, OID, none=True, reset=0),
    Decl("granted_fb", _C, BOOL, reset=0),
    Decl("damage", _C, NUM, reset=0),
    Decl("power_bonus", _C, NUM, reset=0),
    Decl("toughness_bonus", _C, NUM, reset=0),
    Decl("last_cast", _C, TURN),
    Decl("ab_kind", _A, ENUM, ABILITIES, reset=AB_NONE),
    Decl("ab_ctrl", _A, PLAYER, reset=0),
    Decl("ab_src", _A, SOURCE, reset=0),
    Decl("ab_target", _A, REF, reset=NO_TARGET),
    Decl("ab_target_oid", _A, OID, none=True, reset=0),
    Decl("ab_pos", _A, NUM),
    Decl("pl_zone", BY_PLANE, ENUM, PL_ZONES),
    Decl("pl_pos", BY_PLANE, NUM),
    Decl("pl_counters", BY_PLANE, NUM),
    Decl("pl_oid", BY_PLANE, OID, none=True),
    Decl("planar_ctrl", SCALAR, PLAYER, none=True),
    Decl("rolls", SCALAR, NUM),
    Decl("extra", BY_EXTRA, PLAYER, none=True),
    Decl("chaos_extra", SCALAR, NUM),
)
DECL = {d.name: d for d in LAYOUT}

FIELDS = tuple(f.name for f in dataclasses.fields(State))

#: The fields indexed by card slot, by ability slot; the ones holding object ids, turns.
CARD_FIELDS = tuple(d.name for d in LAYOUT if d.index == BY_CARD)
ABILITY_FIELDS = tuple(d.name for d in LAYOUT if d.index == BY_ABILITY)
OID_FIELDS = tuple(d.name for d in LAYOUT if d.holds == OID)
TURN_FIELDS = tuple(d.name for d in LAYOUT if d.holds == TURN)
#: What a zone change resets on the moved card (CR 400.7), and a removal from the stack on
#: the ability slot: field -> value put back.
CARD_RESET = {d.name: d.reset for d in LAYOUT if d.index == BY_CARD and d.reset is not None}
ABILITY_RESET = {d.name: d.reset for d in LAYOUT if d.index == BY_ABILITY and d.reset is not None}


def length(cfg: Config, index: str) -> int:
    """How many entries a field indexed by ``index`` has in a configuration (1 for scalars)."""
    return {SCALAR: 1, BY_PLAYER: cfg.players, BY_CARD: cfg.n, BY_ABILITY: cfg.ability_slots,
            BY_PLANE: len(cfg.planes), BY_EXTRA: cfg.extra_slots}[index]


def sizes(cfg: Config) -> dict[str, int]:
    """Length of each tuple field for a configuration (scalars are absent)."""
    return {d.name: length(cfg, d.index) for d in LAYOUT if d.index != SCALAR}


def bounds(cfg: Config, d: Decl, s: State) -> tuple[Any, Any]:
    """The range of one entry of field ``d`` in state ``s`` (either end may be None):
    concrete or symbolic, as ``s`` is."""
    P = cfg.players
    if d.holds == BOOL:
        return 0, 1
    if d.holds == ENUM:
        return 0, len(d.names) - 1
    if d.holds == PLAYER:
        return (-1 if d.none else 0), P - 1
    if d.holds == REF:
        return -1, P + cfg.n - 1
    if d.holds == SLOT:
        return (-1 if d.none else 0), cfg.n - 1
    if d.holds == SOURCE:
        return 0, max(cfg.n, len(cfg.planes), 1) - 1
    if d.holds == TURN:
        return d.lo, (None if d.name == "turn" else s.turn)
    if d.holds == OID:
        return (0 if d.none else d.lo), (None if d.name == "next_oid" else s.next_oid - 1)
    return d.lo, (d.hi(cfg) if d.hi else None)


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
