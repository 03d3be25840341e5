"""Turn structure, priority and passing (CR 500, 117), the cleanup step (CR 514) and extra
turns (CR 500.7).

``pass`` is one user action with three mutually exclusive transitions: hand priority to
the next player; resolve the top of the stack (in :mod:`.resolution`); or, with an empty
stack, end the step (after the end step, the cleanup step, then the next turn).

The cleanup step has no step of its own in the state: its discard to maximum hand size
(CR 514.1) is a pending choice asked as the end step ends (the observed step stays
``end``), and its other effects (CR 514.2) happen as the next turn begins.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, Iterable

from .vocabulary import Action, Cond, Transition, staged
from .common import acting, ask_choice, clear_choice, discarded_from_hand, game_on, n_in_game, next_in_game, pending_cond, receiver_of_priority
from .config import Config
from .logic import And, Count, If, Not, Or, at, put
from .payment import empty_pools
from .state import BEGINNING, END, GRAVEYARD, P_HAND_SIZE, State, branch
from .zones import compact, draw, hand_count, move

# CR 402.2: a player's maximum hand size is seven (no card of the pool changes it).
MAX_HAND_SIZE = 7


def all_others_passed(cfg: Config) -> Cond:
    return Cond("priority.all-passed", "117.4", "not every other player has passed in succession",
                lambda s: s.passes + 1 >= n_in_game(s))


def others_still_to_pass(cfg: Config) -> Cond:
    return Cond("priority.others-to-pass", "117.3d", "every other player has passed",
                lambda s: s.passes + 1 < n_in_game(s))


def after_action(cfg: Config, s: State, p: int) -> State:
    """CR 117.3c / 116.3: after casting a spell or taking a special action, the same player
    receives priority, and the count of passes in succession starts again."""
    return s.replace(priority=p, passes=0)


def give_priority_to_active(cfg: Config, s: State) -> State:
    """CR 117.3b: after a spell or ability resolves, the active player receives priority."""
    return s.replace(priority=receiver_of_priority(cfg, s), passes=0)


def transitions(cfg: Config) -> Iterable[Transition]:
    for p in range(cfg.players):
        act = Action("pass", p)
        # CR 117.3d: passing gives priority to the next player in turn order.
        yield Transition(act, "pass.priority", "117.3d", (*acting(cfg, p), others_still_to_pass(cfg)),
                         lambda s, p=p: s.replace(priority=next_in_game(cfg, s, p), passes=s.passes + 1))
        # CR 117.4: all players pass in succession with an empty stack: the step ends.
        yield Transition(act, "pass.end-step", "117.4",
                         (*acting(cfg, p), all_others_passed(cfg),
                          Cond("stack.empty", "117.4", "the stack is not empty", lambda s: s.stack_size == 0)),
                         lambda s: end_step(cfg, s))
    yield from discard_choices(cfg)


def end_step(cfg: Config, s: State) -> State:
    """CR 500.2: the step ends; the next begins. After the end step, the next turn."""
    s = empty_pools(cfg, s)  # CR 500.4: unused mana empties (with lands)
    return branch(s.step == END, lambda: end_turn(cfg, s),
                    lambda: give_priority_to_active(cfg, s.replace(step=s.step + 1)))


# --- the cleanup step's discard (CR 514.1) ---------------------------------------------------

@lru_cache(maxsize=64)
def discarders(cfg: Config) -> tuple[int, ...]:
    """The players who own more card slots than the maximum hand size.  Only they can ever
    hold more cards than that (cards go to their owner's hand), so only they get the discard's
    guard and its ``choose`` transitions: a position of fewer cards keeps the very relation
    it had without the rule (the same states, the same Z3 terms)."""
    return tuple(p for p in range(cfg.players) if sum(sl.owner == p for sl in cfg.slots) > MAX_HAND_SIZE)


def over_hand_size(cfg: Config, s: State, p: Any) -> Any:
    return hand_count(cfg, s, p) > MAX_HAND_SIZE


def end_turn(cfg: Config, s: State) -> State:
    """The end step has ended: the cleanup step, then the next turn.

    CR 514.1: first, if the active player's hand holds more cards than their maximum hand
    size, they discard enough cards to reduce it to that number (a turn-based action: no
    stack, no priority).  Which cards is their choice, asked as a pending choice and answered
    one card per ``choose`` (:func:`discard_choices`); the turn goes on once the hand is down
    to size.  Mutant clause "turns.discard-to-hand-size": no discard, the turn goes on.
    """
    # The draw's renumbering is settle's: nothing after it in the step reads a position
    # (zones: "Deferred renumbering").  Renumbered here, it was a set of counting terms of
    # the pass's own in the Z3 relation (the branch below is no compaction's output, so the
    # relation's shared one could not serve it).
    ds = discarders(cfg)
    if not ds or not cfg.on("turns.discard-to-hand-size"):
        return next_turn(cfg, s, renumber=False)
    over = Or(*[And(s.active == p, over_hand_size(cfg, s, p)) for p in ds])
    return branch(over, lambda: ask_choice(s, True, P_HAND_SIZE, s.active, -1),
                  lambda: next_turn(cfg, s, renumber=False))


def discard_choices(cfg: Config) -> Iterable[Transition]:
    """CR 514.1: the active player discards one card of their hand at a time, while it holds
    more than their maximum hand size; the last discard lets the turn go on.

    One card per ``choose`` rather than all of them at once: the sets of cards that can end in
    the graveyard are the same (no card of the pool triggers on a discard, so nothing happens
    between two discards), and a hand of ``h`` cards asks ``h`` transitions instead of one per
    subset of every size."""
    for p in discarders(cfg):
        then = _after_discard(cfg, p)  # one object for all of the player's choices (``staged``)
        for k in cfg.slots_where(lambda sl, p=p: sl.owner == p):
            conds = (game_on(cfg), pending_cond(P_HAND_SIZE, p, cr="514.1"), discarded_from_hand((k,)))
            yield staged(Transition(Action("choose", p, cards=(k,)), "choose.hand-size", "514.1", conds,
                                    lambda s, k=k: _discard(cfg, s, k)), then)


def _discard(cfg: Config, s: State, k: int) -> State:
    """Card ``k`` from the hand to the graveyard, the positions renumbered first.

    First, not after the discard: a card leaving a hand for a graveyard changes no library
    or stack, so the positions are the same either way (:func:`.zones.compact` gives a card
    outside them position 0, as the move does), and the guard puts card ``k`` in the hand.
    Why: every such discard then renumbers the same state (in the Z3 relation, one set of
    O(n^2) counting terms for all of them, not one after each discard)."""
    return move(cfg, compact(cfg, s), [j == k for j in range(cfg.n)], GRAVEYARD, renumber=False)


def _after_discard(cfg: Config, p: int) -> Callable[[State], State]:
    """What follows a discard of ``p``'s: the next turn once the hand is down to size.

    The next turn's draw reads the top of the library (the discard left the positions
    renumbered); its own renumbering is left to the one this ends with (the note "Deferred
    renumbering" in ``zones.py``: nothing in between reads a position), which the Z3
    relation shares with the other effects that end with one (``factored_compaction``)."""
    def then(s: State) -> State:
        return compact(cfg, branch(over_hand_size(cfg, s, p), lambda: s,
                                   lambda: next_turn(cfg, clear_choice(s), renumber=False)))
    return then


def cleanup(cfg: Config, s: State) -> State:
    """CR 514.2: damage wears off and "until end of turn" effects end (the +2/+0 of
    Slickshot Show-Off and prowess's +1/+1, flashback granted by Past in Flames or Snapcaster Mage)."""
    n = cfg.n
    return s.replace(damage=(0,) * n, power_bonus=(0,) * n, toughness_bonus=(0,) * n, granted_fb=(0,) * n, chaos_extra=0)


def untap_step(cfg: Config, s: State, active: Any) -> State:
    """With lands: CR 502.3, the active player untaps their permanents (their lands: no other
    permanent of the model taps); CR 305.2, they have played no land yet this turn."""
    if not cfg.lands:
        return s
    lands = cfg.slots_where(lambda sl: sl.card.is_("Land"))
    tapped = tuple(If(active == cfg.slots[j].owner, 0, t) if j in lands else t for j, t in enumerate(s.tapped))
    return s.replace(tapped=tapped, land_played=0)


def next_turn(cfg: Config, s: State, renumber: bool = True) -> State:
    """Begin the next turn (CR 500.7, 800.4k, 901.6, 504.1); ``renumber=False``: the draw's
    renumbering is left to the caller's (:func:`.zones.draw`)."""
    s = cleanup(cfg, s)
    E = cfg.extra_slots
    # CR 800.4k: a queued extra turn of a player who has left the game doesn't begin (mutant
    # clause "turns.skip-left-player": it is taken all the same).
    for _ in range(E if cfg.on("turns.skip-left-player") else 0):
        cnt = Count(e != -1 for e in s.extra)
        top = at(s.extra, If(cnt > 0, cnt - 1, 0))
        drop = And(cnt > 0, at(s.in_game, If(top >= 0, top, 0)) == 0)
        s = s.replace(extra=put(s.extra, If(cnt > 0, cnt - 1, 0), If(drop, -1, top)))
    cnt = Count(e != -1 for e in s.extra)
    has_extra = cnt > 0
    top = at(s.extra, If(has_extra, cnt - 1, 0))
    # CR 500.7: the most recently created extra turn is taken first.
    # CR 500.7 / 101.4: after extra turns, turn order resumes after the player whose last
    # normal (not extra) turn it was.
    nxt = If(has_extra, top, next_in_game(cfg, s, s.normal_turn))
    s = s.replace(extra=put(s.extra, If(has_extra, cnt - 1, 0), If(has_extra, -1, top)))
    s = s.replace(
        turn=s.turn + 1, active=nxt, normal_turn=If(has_extra, s.normal_turn, nxt), step=BEGINNING, rolls=0, passes=0, priority=nxt,
        mana=tuple(If(nxt == p, cfg.mana_per_turn[p], s.mana[p]) for p in range(cfg.players)),
    )
    s = untap_step(cfg, s, nxt)
    if cfg.planechase and cfg.on("turns.planar-control-follows-turn"):
        # CR 901.6: the planar controller is normally the active player (mutant clause
        # "turns.planar-control-follows-turn": the planar controller stays who it was).
        s = s.replace(planar_ctrl=nxt)
    # CR 504.1: the active player draws a card in the draw step (of the beginning phase).
    return draw(cfg, s, nxt, renumber=renumber)


__all__ = ["transitions", "after_action", "give_priority_to_active", "next_turn", "discard_choices", "discarders",
           "MAX_HAND_SIZE", "Not"]
