"""The bounded state vector (DESIGN.md, "The state vector").

A state is an immutable tuple of ints and tuples of ints, with a named accessor per field,
so it is hashable (a graph node as it is), cheap to copy with changes (``replace``: the
interpreter's hottest operation) and maps one-to-one onto Z3 integer terms.  Booleans are
0/1.  The same class holds concrete values (the interpreter) and Z3 terms (the symbolic
encoding).  Its fields are declared once, in the class body (the layout, ``LAYOUT``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import z3

from .ability_kinds import ABILITY_KINDS
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
P_NONE, P_LUCK, P_LOOT, P_AVEN_TARGET, P_SNAP_TARGET, P_LEGEND, P_HAND_SIZE = range(7)
PENDINGS = ("-", "make-your-own-luck", "discard", "aven-target", "snapcaster-target", "legend-rule",
            "discard-to-hand-size")
#: The rule that asks a choice no resolving object asks (the others follow the object's
#: instructions, CR 608.2c): the legend rule's and the cleanup step's discard.
PENDING_RULES = {"legend-rule": "704.5j", "discard-to-hand-size": "514.1"}

# Triggered abilities on the stack (CR 603), by kind: the game's own here (a plane's chaos
# ability, CR 311.7; the planeswalker symbol's, CR 901.9c), a card's allocated by the card
# registry where its entry is written (card_rules.ability_kind); ABILITIES holds them all.
ABILITIES = ABILITY_KINDS
AB_NONE = 0
AB_CHAOS, AB_PLANESWALK = ABILITY_KINDS.allocate("chaos"), ABILITY_KINDS.allocate("planeswalk")

# Planar card locations (CR 901.3, 901.7).
PL_DECK, PL_FACEUP, PL_OUT = range(3)
PL_ZONES = ("deck", "face-up", "out")

NO_TARGET = -1


# --- the layout: every field once, with what it is indexed by and what it holds ---------
#
# Each field of ``State`` is one line: its name, its Python type (for mypy) and a
# declaration (``decl``): what it is indexed by, what it holds, its range and what a zone
# change or a removal from the stack resets it to.  Everything that walks the state vector
# by field (sizes, those resets, the symmetry reduction's renaming of card slots, object ids
# and turns, Z3's variables and the well-formedness bounds) reads the resulting LAYOUT.

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

    ``lo``/``hi`` bound a NUM (``hi`` a function of the configuration, or None; the function may
    say None too: open above in that configuration); ``none``
    says that the no-value of a PLAYER, SLOT or OID (-1, -1, 0) may occur; ``reset`` is the
    value a zone change (card fields, CR 400.7) or a removal from the stack (ability fields)
    puts back, None when the field is kept or handled apart.
    """

    index: str
    holds: str
    names: Sequence[str] = ()  # the ability kinds: the live set the card registry extends
    lo: int | None = 0
    hi: Callable[[Config], int | None] | None = None
    none: bool = False
    reset: int | None = None


    name: str = ""


def decl(index: str, holds: str, names: Sequence[str] = (), *, lo: int | None = 0,
         hi: Callable[[Config], int | None] | None = None, none: bool = False, reset: int | None = None) -> Any:
    """One field's declaration, written as the field's value in the body of ``State``."""
    return Decl(index, holds, names, lo, hi, none, reset)


_C, _A, _S, _P = BY_CARD, BY_ABILITY, SCALAR, BY_PLAYER
_tuple_new = tuple.__new__


class State(tuple):
    """One position: a tuple of the fields below, in this order (the layout), each a plain
    value or a tuple indexed by player, card slot, ability slot, plane slot or extra-turn
    slot.  Hashable (a graph node as it is); maps one-to-one onto Z3 integer terms; holds
    concrete values (the interpreter) or Z3 terms (the symbolic encoding).  Booleans are 0/1.
    Built with keywords, ``State(turn=1, ...)``, every field given; ``replace`` makes a copy
    with some fields changed.  Adding a field is one line here."""

    __slots__ = ()

    # turn structure (CR 500, 117)
    turn: Any = decl(_S, TURN, lo=1)
    active: Any = decl(_S, PLAYER)
    normal_turn: Any = decl(_S, PLAYER)  # whose last normal turn it is or was: turn order resumes after them (CR 500.7)
    step: Any = decl(_S, ENUM, STEPS)
    priority: Any = decl(_S, PLAYER)
    passes: Any = decl(_S, NUM, hi=lambda c: c.players - 1)
    game_over: Any = decl(_S, BOOL)
    next_oid: Any = decl(_S, OID, lo=1)
    stack_size: Any = decl(_S, NUM, hi=lambda c: c.n + c.ability_slots)
    pending: Any = decl(_S, ENUM, PENDINGS)
    pending_player: Any = decl(_S, PLAYER, none=True)
    pending_src: Any = decl(_S, SLOT, none=True)
    overflow: Any = decl(_S, BOOL)  # 1 when a bound of the configuration was hit (never silent)
    land_played: Any = decl(_S, NUM, hi=lambda c: None if c.lands else 0)  # lands the active player played this turn (CR 305.2)
    # players
    in_game: tuple = decl(_P, BOOL)
    life: tuple = decl(_P, NUM, lo=None)
    mana: tuple = decl(_P, NUM)  # the amount in the player's mana pool (CR 106.4); with lands, of any colour
    # With lands (``Config.lands``): how much of ``mana`` is of each colour (CR 106.1b); the
    # rest is colourless.  Without, 0: abstract mana pays any cost.
    # Open above where a land adds the colour (a broken rule set may keep a pool from step to
    # step, or spend what it lacks: the search must still hold the values), 0 where none does.
    pool_w: tuple = decl(_P, NUM, hi=lambda c: c.pool_bound("W"))
    pool_u: tuple = decl(_P, NUM, hi=lambda c: c.pool_bound("U"))
    pool_b: tuple = decl(_P, NUM, hi=lambda c: c.pool_bound("B"))
    pool_r: tuple = decl(_P, NUM, hi=lambda c: c.pool_bound("R"))
    pool_g: tuple = decl(_P, NUM, hi=lambda c: c.pool_bound("G"))
    drew_empty: tuple = decl(_P, BOOL)  # CR 704.5b
    # card slots; ``reset``: what a zone change puts back (CR 400.7: a new object)
    zone: tuple = decl(_C, ENUM, ZONES)
    pos: tuple = decl(_C, NUM)  # order in the library (0 = top) and on the stack (0 = bottom); 0 elsewhere
    oid: tuple = decl(_C, OID, lo=1)  # CR 400.7: a new object id on every zone change
    plotted: tuple = decl(_C, TURN, reset=0)  # turn it became plotted (CR 702.170d), 0 = not plotted
    how: tuple = decl(_C, ENUM, HOWS, reset=NOT_CAST)
    cast_from: tuple = decl(_C, ENUM, ZONES, reset=0)
    x: tuple = decl(_C, NUM, hi=lambda c: c.max_x, reset=0)
    kicked: tuple = decl(_C, BOOL, reset=0)
    half: tuple = decl(_C, ENUM, HALVES, reset=WHOLE)
    fb_exile: tuple = decl(_C, BOOL, reset=0)  # CR 702.34a: exiled instead of going anywhere else when it leaves the stack
    plot_on_resolve: tuple = decl(_C, BOOL, reset=0)  # Lilah: exiled and plotted as it resolves
    target: tuple = decl(_C, REF, reset=NO_TARGET)  # -1 none; 0..P-1 a player; P+j card slot j
    target_oid: tuple = decl(_C, OID, none=True, reset=0)
    granted_fb: tuple = decl(_C, BOOL, reset=0)  # flashback granted until end of turn (Past in Flames, Snapcaster Mage)
    damage: tuple = decl(_C, NUM, reset=0)
    power_bonus: tuple = decl(_C, NUM, reset=0)  # until end of turn: +N/+0 and +N/+N effects (CR 613.4c)
    toughness_bonus: tuple = decl(_C, NUM, reset=0)  # kept apart from power: prowess is +1/+1, Show-Off's pump +2/+0
    last_cast: tuple = decl(_C, TURN)  # history: the turn it was last cast (0 never)
    tapped: tuple = decl(_C, NUM, hi=lambda c: int(c.lands), reset=0)  # CR 110.5: a new object enters untapped (400.7)
    # triggered abilities on the stack; ``reset``: what a removal from the stack puts back
    ab_kind: tuple = decl(_A, ENUM, ABILITIES, reset=AB_NONE)
    ab_ctrl: tuple = decl(_A, PLAYER, reset=0)
    ab_src: tuple = decl(_A, SOURCE, reset=0)
    ab_target: tuple = decl(_A, REF, reset=NO_TARGET)
    ab_target_oid: tuple = decl(_A, OID, none=True, reset=0)
    ab_pos: tuple = decl(_A, NUM)
    # Planechase (CR 901)
    pl_zone: tuple = decl(BY_PLANE, ENUM, PL_ZONES)
    pl_pos: tuple = decl(BY_PLANE, NUM)
    pl_counters: tuple = decl(BY_PLANE, NUM)
    pl_oid: tuple = decl(BY_PLANE, OID, none=True)
    planar_ctrl: Any = decl(_S, PLAYER, none=True)  # -1 without Planechase
    rolls: Any = decl(_S, NUM)  # planar die rolls by the active player this turn (CR 901.9, 116.2i)
    extra: tuple = decl(BY_EXTRA, PLAYER, none=True)  # queued extra turns (CR 500.7): a stack, last taken first; -1 empty
    chaos_extra: Any = decl(_S, NUM)  # history: extra turns created by chaos this turn

    def __new__(cls, *values: Any, **fields: Any) -> "State":
        if values:  # State(tuple_of_all_fields): pickling and copying
            (vals,) = values
            return _tuple_new(cls, vals)
        try:
            vals = [fields.pop(f) for f in FIELDS]
        except KeyError as e:
            raise TypeError(f"State() missing field {e}") from None
        if fields:
            raise TypeError(f"State() got unknown fields {sorted(fields)}")
        return _tuple_new(cls, vals)

    def __getnewargs__(self) -> tuple[Any, ...]:
        return (tuple(self),)

    def replace(self, **changes: Any) -> "State":
        """A copy with the given fields changed."""
        vals = list(self)
        try:
            for f, v in changes.items():
                vals[_INDEX[f]] = v
        except KeyError as e:
            raise TypeError(f"State has no field {e}") from None
        return _tuple_new(State, vals)

    def __repr__(self) -> str:
        return "State(" + ", ".join(f"{f}={v!r}" for f, v in zip(FIELDS, self, strict=True)) + ")"


def _declare(cls: type) -> tuple[Decl, ...]:
    """Read the declarations in the class body (in order) and turn each field into an accessor."""
    from operator import itemgetter

    out = []
    for i, name in enumerate(cls.__annotations__):
        d = cls.__dict__.get(name)
        if not isinstance(d, Decl):
            raise TypeError(f"State field {name!r} has no declaration: write it as `{name}: ... = decl(...)`")
        out.append(Decl(d.index, d.holds, d.names, d.lo, d.hi, d.none, d.reset, name))
        setattr(cls, name, property(itemgetter(i)))
    return tuple(out)


#: The state layout: every field of ``State``, in order, with its declaration.
LAYOUT: tuple[Decl, ...] = _declare(State)
DECL = {d.name: d for d in LAYOUT}
FIELDS = tuple(d.name for d in LAYOUT)
_INDEX = {f: i for i, f in enumerate(FIELDS)}

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


def branch(c: Any, then: Callable[..., State], other: Callable[..., State]) -> State:
    """The state ``then()`` if ``c`` else ``other()``: concretely one branch runs, symbolically
    both, merged field by field (the one wrapper of :func:`logic.lazy_if` for states)."""
    from .logic import lazy_if

    return lazy_if(c, then, other, ite_state)


def flat(s: State) -> list[Any]:
    """The state vector's components in layout order (a tuple field's entries in index order):
    the one order every Z3 substitution and the invariant miner's columns use."""
    out: list[Any] = []
    for v in s:
        out.extend(v if isinstance(v, tuple) else (v,))
    return out


def unflat(shape: State, values: Sequence[Any]) -> State:
    """The state whose :func:`flat` vector is ``values``, its tuple fields as long as ``shape``'s
    (a state of the same configuration): how a search that keeps vectors hands states back."""
    out: list[Any] = []
    at = 0
    for v in shape:
        if isinstance(v, tuple):
            out.append(tuple(values[at:at + len(v)]))
            at += len(v)
        else:
            out.append(values[at])
            at += 1
    return tuple.__new__(State, out)


def ite_state(c: Any, a: State, b: State) -> State:
    """Field-wise choice between two states (used by :func:`logic.lazy_if`)."""
    from .logic import If

    vals = {}
    for f in FIELDS:
        x, y = getattr(a, f), getattr(b, f)
        vals[f] = tuple(If(c, p, q) for p, q in zip(x, y, strict=True)) if isinstance(x, tuple) else If(c, x, y)
    return State(**vals)


def equal_states(a: State, b: State) -> Any:
    """A Z3 (or Python) formula: the two states are equal component by component."""
    from .logic import And

    parts: list[Any] = []
    for f in FIELDS:
        x, y = getattr(a, f), getattr(b, f)
        if isinstance(x, tuple):
            parts.extend(p == q for p, q in zip(x, y, strict=True))
        else:
            parts.append(x == y)
    return And(*parts)
