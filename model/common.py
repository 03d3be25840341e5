"""Conditions and small computations that several rule modules share (priority, timing)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from .vocabulary import Cond
from .config import Config
from .logic import And, Count, If, Or, at, first
from .state import HAND, MAIN1, MAIN2, P_NONE, STACK, State


def n_in_game(s: State) -> Any:
    return Count(g == 1 for g in s.in_game)


def next_in_game(cfg: Config, s: State, p: Any, include_self: bool = False) -> Any:
    """The next player in turn order after ``p`` (or ``p`` itself) who is still in the game.

    CR 101.4 / 800.4j: turn order skips players who have left.  Returns ``p`` when no one
    else is left (the game is then over).
    """
    P = cfg.players
    offsets = range(0 if include_self else 1, P)
    cands = [(p + k) % P for k in offsets]
    return first([at(s.in_game, c) == 1 for c in cands], cands, p)


def receiver_of_priority(cfg: Config, s: State) -> Any:
    """CR 117.3b / 800.4j: the active player receives priority; if they have left the game,
    the next player in turn order does."""
    return next_in_game(cfg, s, s.active, include_self=True)


@lru_cache(maxsize=1024)
def game_on(cfg: Config) -> Cond:
    return Cond("game.on", "104.3a", "the game is over", lambda s: s.game_over == 0)


@lru_cache(maxsize=1024)
def no_choice_pending(cfg: Config) -> Cond:
    return Cond("game.no-pending-choice", "608.2c", "a player must first make the choice the game waits for",
                lambda s: s.pending == P_NONE)


# --- pending choices: asked by an effect (or a state-based action), answered by ``choose`` ---

def pending_cond(kind: int, p: int, src: int | None = None, cr: str = "608.2c") -> Cond:
    """The choice ``kind`` is being asked of player ``p`` (by the object in slot ``src``, when
    the choice belongs to one); ``cr`` is the rule that asks it."""
    return Cond("choose.pending", cr, "no such choice is being asked of this player",
                lambda s: And(s.pending == kind, s.pending_player == p, True if src is None else s.pending_src == src))


def discarded_from_hand(pick: tuple[int, ...]) -> Cond:
    """CR 701.9a: a discarded card is one of its player's hand (every discard's condition:
    Faithless Looting's, the cleanup step's)."""
    return Cond("discard.in-hand", "701.9a", "a discarded card must be in your hand",
                lambda s: And(*[s.zone[k] == HAND for k in pick]))


def ask_choice(s: State, when: Any, kind: int, p: Any, src: Any) -> State:
    """If ``when``, player ``p`` is asked the choice ``kind`` for the object in slot ``src``."""
    return s.replace(pending=If(when, kind, s.pending), pending_player=If(when, p, s.pending_player),
                     pending_src=If(when, src, s.pending_src))


def resolution_waits(cfg: Config, s: State) -> Any:
    """A spell on the stack is resolving and waits for the choice its effect asks (the pending
    choice's source is on the stack): CR 608.2c, its instructions are followed in order, and no
    player receives priority, so no state-based action is checked (CR 704.3, 117.5) until the
    choice is made.  A choice asked by a permanent's trigger or by the legend rule is not one."""
    return And(s.pending != P_NONE, Or(*[And(s.pending_src == j, s.zone[j] == STACK) for j in range(cfg.n)]))


def clear_choice(s: State) -> State:
    """The choice has been made (or its object is gone): nothing is pending."""
    return s.replace(pending=P_NONE, pending_player=-1, pending_src=-1)


@lru_cache(maxsize=1024)
def has_priority(cfg: Config, p: int) -> Cond:
    return Cond("priority.has", "117.1", f"player {p} does not have priority", lambda s: s.priority == p)


@lru_cache(maxsize=1024)
def player_in_game(cfg: Config, p: int) -> Cond:
    return Cond("game.player-in", "800.4a", f"player {p} has left the game", lambda s: s.in_game[p] == 1)


def acting(cfg: Config, p: int) -> list[Cond]:
    """The conditions every priority action of player ``p`` starts with (CR 117.1).

    These constructors, like :func:`sorcery_timing`'s, return one object per argument (a
    cache): the transitions that start with the same conditions then share them, and the
    catalogue tests a shared condition once per state (:func:`.actions.compile_enabled`).
    """
    return [game_on(cfg), player_in_game(cfg, p), no_choice_pending(cfg), has_priority(cfg, p)]


def is_main_phase(s: State) -> Any:
    return Or(s.step == MAIN1, s.step == MAIN2)


def sorcery_timing(cfg: Config, p: int, cr: str = "307.1", what: str = "") -> list[Cond]:
    """CR 307.1 (and 117.1a): own main phase, empty stack (priority is in :func:`acting`)."""
    return list(_sorcery_timing(p, cr, what))


@lru_cache(maxsize=1024)
def _sorcery_timing(p: int, cr: str, what: str) -> tuple[Cond, ...]:
    pre = f"{what} " if what else ""
    return (
        Cond("timing.own-turn", cr, f"{pre}only during your own turn", lambda s: s.active == p),
        Cond("timing.main-phase", cr, f"{pre}only during your main phase", lambda s: is_main_phase(s)),
        Cond("timing.stack-empty", cr, f"{pre}only while the stack is empty", lambda s: s.stack_size == 0),
    )


__all__ = ["n_in_game", "next_in_game", "receiver_of_priority", "acting", "sorcery_timing", "is_main_phase",
           "game_on", "no_choice_pending", "discarded_from_hand", "has_priority", "player_in_game", "pending_cond", "ask_choice",
           "clear_choice", "resolution_waits", "And", "If"]
