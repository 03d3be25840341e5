"""The bounded configuration: what is fixed for a whole run, apart from the rules.

A configuration fixes the players, the card slots (each a card of the pool with an owner),
the plane cards, the mana each player gets each turn, and which rule variant is in force.
Rules may branch on it with plain Python: it is the same for the interpreter and for Z3.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from .cards import CardDef, PlaneDef
from .mana import COLOURS

# Named rule variants. A variant swaps one reading of a rule for another; the default is
# the reading the model follows (RULES.md, "Special actions").
VARIANTS = {
    "116.2k": "plot timing read from CR 116.2k: any time during your own turn while the "
    "stack is empty (instead of CR 702.170a: during your main phase)",
}


@dataclass(frozen=True, slots=True)
class Slot:
    """One card slot: a card of the pool, its owner, and the name the scenario gives it."""

    id: str
    card: CardDef
    owner: int


@dataclass(frozen=True, slots=True)
class PlaneSlot:
    id: str
    plane: PlaneDef
    owner: int


#: Every effect clause a rule set may switch off (``Config.on``), with the rule it carries:
#: ``mutant-ID`` names these or guard conditions (``Cond.id``), and a name that is neither
#: is refused (:func:`.actions.unknown_conditions`), not silently ignored.
EFFECT_CLAUSES: dict[str, str] = {
    "casting.exile-mark-only-flashback": "702.34a",  # only a flashback cast is marked for exile
    "casting.x-zero-when-free": "107.3b",  # X is 0 when cast without paying the mana cost
    "flashback.exile-on-leave": "702.34a",  # a flashback spell leaving the stack is exiled
    "flashback.exile-on-resolve": "702.34a",  # ... also when it resolves
    "leaving.owned-cards-kept-outside": "800.4a",  # a leaving player's cards leave the game
    "planechase.face-down-loses-counters": "901.7a",
    "planechase.one-extra-turn-per-chaos": "500.7",  # Otaria's chaos: one extra turn each
    "planechase.roll-cost-rises": "116.2i",  # the N-th extra roll in a turn costs N
    "settle.unanswerable-choice-removed": "603.3d",  # a choice with no legal answer left is removed
    "turns.discard-to-hand-size": "514.1",  # the cleanup step's discard to maximum hand size
    "turns.planar-control-follows-turn": "901.6",
    "turns.pool-empties": "500.4",  # with lands, unused mana empties when a step ends
    "turns.skip-left-player": "800.4p",  # a player who left takes no turn
    "zones.fresh-oid": "400.7",  # a new object on every zone change
    "zones.plotted-ends-on-move": "400.7",  # a plotted card that leaves exile is no longer plotted
    "zones.stack-renumbered": "405.2",  # the stack's positions stay 0..size-1
}


@dataclass(frozen=True, slots=True)
class Config:
    """A bounded configuration of the rules model.

    ``disabled`` names guard conditions or effect clauses switched off (mutants, issue
    "Mutants are data"); ``variant`` names at most one reading from :data:`VARIANTS`.
    """

    players: int
    slots: tuple[Slot, ...]
    mana_per_turn: tuple[int, ...]
    planes: tuple[PlaneSlot, ...] = ()
    communal: bool = False
    max_x: int = 3
    ability_slots: int = 4
    extra_slots: int = 4
    variant: str | None = None
    disabled: frozenset[str] = field(default_factory=frozenset)
    #: Mana as real engines have it (:mod:`.payment`): lands are played (CR 305) and tapped
    #: for coloured mana (CR 605, 106), costs check their colours (CR 601.2g-h) and pools
    #: empty between steps (CR 500.4).  False: the abstract amount each player gets each turn.
    lands: bool = False
    # The hash, worked out once: every per-configuration cache (``lru_cache`` on the
    # configuration) hashes it on every call, and hashing the card pool field by field cost
    # a quarter of the graph search's time.
    _hash: int = field(init=False, repr=False, compare=False, default=0)

    def __post_init__(self) -> None:
        if not 2 <= self.players <= 4:
            raise ValueError("a configuration has 2 to 4 players")
        if self.lands and any(self.mana_per_turn):
            raise ValueError("with lands, mana comes from tapping them: no mana per turn")
        if self.variant is not None and self.variant not in VARIANTS:
            raise ValueError(f"unknown rule variant {self.variant!r}")
        object.__setattr__(self, "_hash", hash(self._values()))

    def _values(self) -> tuple:
        """The declared fields' values, in order (what equality compares)."""
        return tuple(getattr(self, f.name) for f in fields(self) if f.init)

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[type, tuple]:
        # Rebuilt from its fields, so that another process (another string hash seed) works
        # its hash out again rather than keeping this one's.
        return (Config, self._values())

    @property
    def n(self) -> int:
        return len(self.slots)

    def pool_bound(self, colour: str) -> int | None:
        """The declared bound of a pool of ``colour``: 0 when no land of the configuration adds
        it (or without lands), else none (open: a broken rule set may let it grow or go below
        0, and the search must hold what it writes)."""
        return None if colour in self.pool_colours else 0

    @property
    def pool_colours(self) -> str:
        """The colours some land of the configuration adds (WUBRG order); "" without lands."""
        made = {sl.card.produces for sl in self.slots} if self.lands else set()
        return "".join(c for c in COLOURS if c in made)

    @property
    def planechase(self) -> bool:
        return bool(self.planes)

    def on(self, clause: str) -> bool:
        """Whether an effect clause is in force (a mutant may switch one off)."""
        if clause not in EFFECT_CLAUSES:  # a clause the registry lacks could not be switched off by name
            raise KeyError(f"effect clause {clause!r} is not declared in EFFECT_CLAUSES")
        return clause not in self.disabled

    def slots_where(self, pred) -> tuple[int, ...]:  # type: ignore[no-untyped-def]
        return tuple(i for i, sl in enumerate(self.slots) if pred(sl))
