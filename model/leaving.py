"""Leaving the game (CR 800.4, 104.3a) and the planar controller's successor (CR 800.4p).

A player may concede at any time (CR 104.3a); a player who loses leaves too (CR 800.4a).
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from .vocabulary import Action, Cond, Transition
from .common import ask_choice, game_on, n_in_game, next_in_game, player_in_game, receiver_of_priority, resolution_waits
from .config import Config
from .logic import And, If, Not, Or, Sum, is_sym, put
from .state import ABILITY_RESET, AB_NONE, AB_PLANESWALK, OUTSIDE, P_HAND_SIZE, P_NONE, State, branch
from .turns import discarders, next_turn
from .zones import compact, move


def leave_game(cfg: Config, s: State, p: int, leaving: Sequence[Any] = ()) -> State:
    """Player ``p`` leaves the game, with everything CR 800.4 and 901.10 make happen.

    ``leaving`` (one condition per player, or empty) names the players who leave at the same
    time as ``p`` (players who lose together by state-based actions, CR 704.3).
    """
    passes = passes_after_leaving(cfg, s, p)
    # A choice the leaving player had to make is gone with them.  If it was asked by a spell
    # still resolving (theirs: it ceases to exist with them), that resolution is over:
    # CR 117.3b / 800.4j, the active player (or, if they have left, the next player in turn
    # order) gets priority, after a new round of passes.  A choice asked by a state-based action
    # (the legend rule) or by a trigger waiting for its target comes before a player receives
    # priority: CR 117.5, that player still gets it (or the next one, below, if they leave).
    mine = s.pending_player == p
    ended = And(mine, resolution_waits(cfg, s))
    # CR 514.1 / 514.3: a discard to hand size the leaving (active) player owed goes with them;
    # the cleanup step then ends as it would have, and the next turn begins (below).
    cleanup_over = And(mine, s.pending == P_HAND_SIZE) if discarders(cfg) else False
    if cfg.planechase:
        # CR 800.4p / 901.6: if the planar controller would leave, the next player in turn
        # order who wouldn't leave (neither ``p`` nor a player leaving with them) becomes
        # planar controller first.
        staying = s.replace(in_game=tuple(If(And(s.in_game[q] == 1, Not(leaving[q]) if leaving else True), 1, 0)
                                          for q in range(cfg.players)))
        s = s.replace(planar_ctrl=If(s.planar_ctrl == p, next_in_game(cfg, staying, p), s.planar_ctrl))
    s = s.replace(in_game=put(s.in_game, p, 0))
    # CR 800.4a: all objects the player owns leave the game (spells they own on the stack
    # cease to exist); abilities they control on the stack cease to exist.  Mutant clause
    # "leaving.owned-cards-kept-outside": the cards are dropped from every zone (zone -1).
    gone_to = OUTSIDE if cfg.on("leaving.owned-cards-kept-outside") else -1
    # Renumbered with the abilities dropped next (zones: "Deferred renumbering").
    s = move(cfg, s, [And(sl.owner == p, s.zone[j] != OUTSIDE) if sl.owner == p else False
                      for j, sl in enumerate(cfg.slots)], gone_to, renumber=False)
    A = cfg.ability_slots
    gone = [And(s.ab_kind[k] != AB_NONE, s.ab_ctrl[k] == p) for k in range(A)]
    s = _drop_abilities(cfg, s, gone)
    passes = If(ended, 0, passes)
    priority = If(ended, receiver_of_priority(cfg, s), s.priority)
    s = ask_choice(s, mine, P_NONE, -1, -1).replace(priority=priority)
    if cfg.planechase:
        from .planechase import remove_planes_of, turn_top_face_up

        s, was_up = remove_planes_of(cfg, s, p)
        # CR 901.10: if the face-up plane left, the planar controller planeswalks (turns the
        # top card of their planar deck face up); CR 901.10a: a planeswalking ability on the
        # stack then ceases to exist.
        s = turn_top_face_up(cfg, s, s.planar_ctrl, was_up)
        s = _drop_abilities(cfg, s, [And(was_up, s.ab_kind[k] == AB_PLANESWALK) for k in range(A)])
    # CR 800.4a: if the leaving player had priority, the next player in turn order still in
    # the game gets it.
    s = s.replace(priority=If(s.priority == p, next_in_game(cfg, s, p), s.priority), passes=passes)
    if cleanup_over is not False:
        # The draw's renumbering is settle's: nothing after it reads a position (zones:
        # "Deferred renumbering").
        s = branch(And(cleanup_over, n_in_game(s) > 1), lambda s=s: next_turn(cfg, s, renumber=False), lambda s=s: s)
    return s


def passes_after_leaving(cfg: Config, s: State, p: int) -> Any:
    """The passes in succession that still count once ``p`` has left.

    CR 117.4: the round ends when all players pass in succession, with no action in
    between; leaving the game is not such an action, so the remaining players' passes
    stand, and only ``p``'s own pass (if ``p`` is among the last ``passes`` players before
    the priority holder) no longer counts.
    """
    P = cfg.players
    was_passer = []
    for h in range(P):
        if h == p:
            continue
        # in-game players from p (inclusive) up to h (exclusive), in turn order: p's
        # distance back from the priority holder h.
        span = [(p + k) % P for k in range((h - p) % P)]
        was_passer.append(And(s.priority == h, Sum(s.in_game[q] for q in span) <= s.passes))
    return s.passes - If(Or(*was_passer), 1, 0)


def _drop_abilities(cfg: Config, s: State, gone: list[Any]) -> State:
    """The abilities in the slots ``gone`` cease to exist (the layout's ability resets), and
    the stack and the libraries are renumbered (the move of the leaving player's cards left
    it to here)."""
    A = cfg.ability_slots
    if not any(is_sym(g) or g for g in gone):
        return compact(cfg, s)  # a concrete shortcut: nothing ceases to exist
    s = s.replace(**{f: tuple(If(gone[k], v, getattr(s, f)[k]) for k in range(A))
                     for f, v in ABILITY_RESET.items()})
    return compact(cfg, s)


def transitions(cfg: Config) -> Iterable[Transition]:
    for p in range(cfg.players):
        # CR 104.3a: a player can concede at any time; no priority needed.
        yield Transition(Action("leave", p), "leave", "104.3a", (game_on(cfg), player_in_game(cfg, p)),
                         lambda s, p=p: leave_game(cfg, s, p))


__all__ = ["transitions", "leave_game", "Cond", "Or"]
