"""Lands, with mana as real engines have it (``Config.lands``): playing a land (CR 305) and
tapping it for mana (CR 605).  What a new turn does to them (CR 502.3, 305.2) and the pools'
emptying (CR 500.4) are in :mod:`.turns`.

Without lands (the built-ins' abstract mana) there is nothing here: land cards stay where
they are, as before, and no transition of this module exists.
"""

from __future__ import annotations

from typing import Iterable

from .common import acting, sorcery_timing
from .config import Config
from .logic import put
from .payment import add_mana
from .state import BATTLEFIELD, HAND, State
from .turns import after_action
from .vocabulary import Action, Cond, Transition
from .zones import move_one


def transitions(cfg: Config) -> Iterable[Transition]:
    if not cfg.lands:
        return
    for j, sl in enumerate(cfg.slots):
        if not sl.card.is_("Land"):
            continue
        p, colour = sl.owner, sl.card.produces
        yield Transition(Action("play", p, card=j), "play.land", "305.1", (
            *acting(cfg, p),
            Cond("land.in-hand", "305.1", "the land is not in your hand", lambda s, j=j: s.zone[j] == HAND),
            # CR 305.1 / 505.6b: in a main phase of your own turn, with an empty stack.
            *sorcery_timing(cfg, p, "305.1", "play a land"),
            # CR 305.2: normally one land a turn.
            Cond("land.one-per-turn", "305.2", "you have already played a land this turn",
                 lambda s: s.land_played < 1),
        ), lambda s, j=j, p=p: _play(cfg, s, j, p))
        yield Transition(Action("tap", p, card=j), "tap.mana", "605.3a", (
            # CR 605.3a: a mana ability may be activated whenever its controller has priority.
            *acting(cfg, p),
            Cond("tap.on-battlefield", "605.1a", "the land is not on the battlefield",
                 lambda s, j=j: s.zone[j] == BATTLEFIELD),
            # CR 107.5: a permanent that is already tapped can't be tapped to pay a cost.
            Cond("tap.untapped", "107.5", "the land is already tapped", lambda s, j=j: s.tapped[j] == 0),
        ), lambda s, j=j, p=p, colour=colour: _tap(cfg, s, j, p, colour))


def _play(cfg: Config, s: State, j: int, p: int) -> State:
    # CR 305.1 / 116.2a: playing a land is a special action; the land enters the battlefield
    # (untapped, CR 110.5b) and doesn't use the stack.
    s = move_one(cfg, s, j, BATTLEFIELD).replace(land_played=s.land_played + 1)
    # CR 116.3: the player receives priority again.
    return after_action(cfg, s, p)


def _tap(cfg: Config, s: State, j: int, p: int, colour: str) -> State:
    # CR 605.3b: a mana ability doesn't use the stack; it resolves at once.
    s = add_mana(cfg, s.replace(tapped=put(s.tapped, j, 1)), p, colour)
    # CR 117.3c (605.3a): the player who activated it still has priority; an action between
    # passes means they no longer pass in succession (CR 117.4).
    return after_action(cfg, s, p)


__all__ = ["transitions"]
