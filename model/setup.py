"""From a scenario's setup to a configuration and a starting state.

A setup is the moment the active player has priority in the named step (the beginning
step's draw already done).  Object ids are numbered in the order the setup lists things.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from .cards import card as card_def, plane as plane_def
from .config import Config, PlaneSlot, Slot
from .state import (EXILE, LIBRARY, OUTSIDE, PL_DECK, PL_FACEUP, STEPS, ZONES, State, sizes)


@dataclass(frozen=True, slots=True)
class CardPlacement:
    id: str
    card: str
    owner: int
    zone: str
    plotted_turn: int | None = None


@dataclass(frozen=True, slots=True)
class PlanarSetup:
    decks: tuple[tuple[str, ...], ...]
    plane: str
    plane_owner: int
    plane_counters: int
    controller: int
    communal: bool = False


@dataclass(frozen=True, slots=True)
class Position:
    """Everything a setup says, independent of the file format that carried it."""

    players: int
    turn: int
    active: int
    step: str
    life: tuple[int, ...]
    mana: tuple[int, ...]
    cards: tuple[CardPlacement, ...]
    planechase: PlanarSetup | None = None
    left: tuple[int, ...] = ()
    extra_turns: tuple[int, ...] = ()  # next one first
    #: Mana from lands (``Config.lands``) instead of the abstract amount ``mana`` each turn.
    lands: bool = False

    def card(self, card_id: str) -> CardPlacement:
        """The card slot with this id (ids are unique: the scenario loader checks it)."""
        for spec in self.cards:
            if spec.id == card_id:
                return spec
        raise KeyError(card_id)


def build(pos: Position, *, max_x: int = 3, variant: str | None = None,
          disabled: frozenset[str] = frozenset(), ability_slots: int = 4, extra_slots: int = 4) -> tuple[Config, State]:
    slots = tuple(Slot(c.id, card_def(c.card), c.owner) for c in pos.cards)
    planes: list[PlaneSlot] = []
    pc = pos.planechase
    if pc is not None:
        # CR 901.15b: the planes of a communal deck are no player's (owner -1): none leaves
        # the game with a player (CR 800.4a, 901.10).
        planes.append(PlaneSlot("plane:face-up", plane_def(pc.plane), -1 if pc.communal else pc.plane_owner))
        for d, deck in enumerate(pc.decks):
            for i, name in enumerate(deck):
                planes.append(PlaneSlot(f"plane:{d}:{i}", plane_def(name), -1 if pc.communal else d))
    cfg = Config(players=pos.players, slots=slots, mana_per_turn=pos.mana, planes=tuple(planes),
                 communal=bool(pc and pc.communal), max_x=max_x, ability_slots=ability_slots,
                 extra_slots=max(extra_slots, len(pos.extra_turns) + 2), variant=variant, disabled=disabled,
                 lands=pos.lands)
    return cfg, initial_state(cfg, pos)


def initial_state(cfg: Config, pos: Position) -> State:
    lens = sizes(cfg)
    zeros = {f: (0,) * n for f, n in lens.items()}
    oid = 1
    zone, lpos, oids, plotted = [], [], [], []
    lib_seen = [0] * cfg.players
    for c in pos.cards:
        z = ZONES.index(c.zone)
        if c.owner in pos.left:
            z = OUTSIDE  # CR 800.4a: a player who left took their cards along
        zone.append(z)
        if z == LIBRARY:
            lpos.append(lib_seen[c.owner])
            lib_seen[c.owner] += 1
        else:
            lpos.append(0)
        oids.append(oid)
        oid += 1
        plotted.append(c.plotted_turn if (z == EXILE and c.plotted_turn) else 0)
    K = len(cfg.planes)
    pl_zone, pl_pos, pl_counters, pl_oid = [0] * K, [0] * K, [0] * K, [0] * K
    planar_ctrl = -1
    pc = pos.planechase
    if pc is not None:
        pl_zone[0], pl_counters[0], pl_oid[0] = PL_FACEUP, pc.plane_counters, oid
        oid += 1
        k = 1
        for deck in pc.decks:
            for i, _ in enumerate(deck):
                pl_zone[k], pl_pos[k], pl_oid[k] = PL_DECK, i, oid
                oid += 1
                k += 1
        planar_ctrl = pc.controller
    in_game = tuple(0 if p in pos.left else 1 for p in range(cfg.players))
    extra = [-1] * cfg.extra_slots
    for i, p in enumerate(reversed(pos.extra_turns)):
        extra[i] = p
    vals: dict[str, Any] = dict(zeros)
    vals.update(
        turn=pos.turn, active=pos.active, normal_turn=pos.active, step=STEPS.index(pos.step), priority=pos.active, passes=0,
        game_over=1 if sum(in_game) <= 1 else 0, next_oid=oid, stack_size=0, pending=0,
        pending_player=-1, pending_src=-1, overflow=0, land_played=0,
        in_game=in_game, life=tuple(pos.life), mana=tuple(pos.mana),
        zone=tuple(zone), pos=tuple(lpos), oid=tuple(oids), plotted=tuple(plotted),
        target=(-1,) * cfg.n, ab_target=(-1,) * cfg.ability_slots,
        pl_zone=tuple(pl_zone), pl_pos=tuple(pl_pos), pl_counters=tuple(pl_counters), pl_oid=tuple(pl_oid),
        planar_ctrl=planar_ctrl, rolls=0, extra=tuple(extra), chaos_extra=0,
    )
    return State(**vals)


def ids(cfg: Config) -> Sequence[str]:
    return [sl.id for sl in cfg.slots]


def position_of_state(cfg: Config, base: Position, s: State) -> Position:
    """A position whose setup yields ``s``'s placement of cards (zones, library order,
    plotted turns), everything else taken from ``base``.  Used to turn a symbolic initial
    state chosen by Z3 into a scenario file.  Only states with an empty stack qualify."""
    by_slot = {c.id: c for c in base.cards}
    order = sorted(range(cfg.n), key=lambda j: (s.zone[j] != LIBRARY, s.pos[j] if s.zone[j] == LIBRARY else 0, j))
    cards = []
    for j in order:
        c = by_slot[cfg.slots[j].id]
        z = ZONES[s.zone[j]]
        cards.append(CardPlacement(c.id, c.card, c.owner, z, s.plotted[j] if z == "exile" and s.plotted[j] else None))
    return Position(players=base.players, turn=base.turn, active=base.active, step=base.step, life=base.life,
                    mana=base.mana, cards=tuple(cards), planechase=base.planechase, left=base.left,
                    extra_turns=base.extra_turns, lands=base.lands)
