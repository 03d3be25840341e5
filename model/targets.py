"""Targets (CR 115, 601.2c): the encoding, what each kind of target can name, and whether a
target is still legal (608.2b).  Which kind each face targets is its registry entry
(:mod:`.card_texts`).

Targets are encoded in one integer: ``0..P-1`` a player, ``P + j`` the card in slot ``j``.
"""

from __future__ import annotations

from typing import Any

from .config import Config
from .logic import And, If, Or, at
from .state import BATTLEFIELD, STACK, State

def target_domain(cfg: Config, kind: str | None, me: int) -> tuple[int, ...]:
    """Every encoded target a face of this kind could ever name in this configuration."""
    P = cfg.players
    if kind is None:
        return (-1,)
    players = tuple(range(P))
    def cards(pred) -> tuple[int, ...]:  # type: ignore[no-untyped-def]
        return tuple(P + j for j, sl in enumerate(cfg.slots) if j != me and pred(sl.card))
    if kind == "any":
        return players + cards(lambda c: c.is_("Creature"))
    if kind == "player":
        return players
    if kind == "spell":
        return cards(lambda c: not c.is_("Land"))
    if kind == "creature":
        return cards(lambda c: c.is_("Creature"))
    if kind == "permanent":
        return cards(lambda c: c.permanent)
    if kind == "artifact":
        return cards(lambda c: c.is_("Artifact"))
    raise ValueError(kind)


def target_zone(kind: str) -> int:
    return STACK if kind == "spell" else BATTLEFIELD


def legal_now(cfg: Config, s: State, kind: str, t: int) -> Any:
    """CR 601.2c: the target (a concrete encoded target) can be chosen now."""
    P = cfg.players
    if t < P:
        return s.in_game[t] == 1
    return s.zone[t - P] == target_zone(kind)


def still_legal(cfg: Config, s: State, kind: str, t: Any, t_oid: Any) -> Any:
    """CR 608.2b: on resolution, the target (possibly symbolic) is still the same object in
    a zone where it can be targeted, or the same player still in the game."""
    P = cfg.players
    opts = [t == p for p in range(P)]
    vals = [at(s.in_game, p) == 1 for p in range(P)]
    for j in range(cfg.n):
        opts.append(t == P + j)
        vals.append(And(s.zone[j] == target_zone(kind), s.oid[j] == t_oid))
    return Or(*[And(o, v) for o, v in zip(opts, vals, strict=True)])


def deal_damage(cfg: Config, s: State, t: Any, amount: Any, when: Any = True) -> State:
    """Damage to a player (loses life, CR 120.3a) or to a creature (marked, CR 120.3e)."""
    P = cfg.players
    life = tuple(If(And(when, t == p), s.life[p] - amount, s.life[p]) for p in range(P))
    dmg = tuple(If(And(when, t == P + j), s.damage[j] + amount, s.damage[j]) for j in range(cfg.n))
    return s.replace(life=life, damage=dmg)
