"""State-based actions (CR 704), checked after every action, and the end of the game."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from .card_rules import ON_CHANGE
from .config import Config
from .common import clear_choice
from .logic import And, If, Not, Or, is_sym
from .state import BATTLEFIELD, GRAVEYARD, P_NONE, State, branch
from .legend import ask_legend_choice
from .vocabulary import Cond
from .zones import compact, move


def settle(cfg: Config, s: State) -> State:
    """After every action: drop a pending choice no answer can satisfy any more, apply the
    state-based actions the pool needs (unless a resolving spell waits for a choice), end
    the game if one player is left, and number the stack and the libraries afresh."""
    return settle_parts(cfg, s)[1]


def settle_parts(cfg: Config, s: State) -> tuple[State, State]:
    """:func:`settle` in two parts: the state after the rules, and that state renumbered.

    Why the renumbering at the end of every step, when every move already renumbers: the
    state after a step is then, syntactically, the output of ``compact``, whatever the
    action did.  CR 405.2's order of the stack (``stack-ordered``) then follows from one
    lemma about ``compact`` (its ranks are 0..size-1, each once, for *any* input), proved
    once for a configuration (``mtgcheck/checkers/z3bmc/renumbering.py``), where k-induction
    split the step case by transition at a cost that grew with the slots.  On a reachable
    state the renumbering changes nothing (the stack and the libraries are already
    numbered so: ``stack-ordered`` and the conformance tests check it)."""
    from .common import n_in_game, resolution_waits

    # CR 603.3d: a choice that has no legal answer left (the only spell a trigger could target
    # has left the game, CR 800.4a) is not made: the trigger is removed, and play goes on.
    # Mutant clause "settle.unanswerable-choice-removed": the choice stays, and the game is stuck.
    # (On a concrete state with no choice pending there is nothing to drop: the answers are
    # not even read, the interpreter's hot path.)
    if cfg.on("settle.unanswerable-choice-removed") and (is_sym(s.pending) or s.pending != P_NONE):
        s = branch(And(s.pending != P_NONE, Not(answerable(cfg, s))), lambda s=s: clear_choice(s), lambda s=s: s)
    # CR 704.3 / 117.5: state-based actions are checked only when a player would receive
    # priority, never in the middle of a resolution (CR 608.2c: a spell waiting for its
    # player's choice, after a draw from an empty library say, goes on resolving first).
    s = branch(resolution_waits(cfg, s), lambda s=s: s, lambda s=s: state_based_actions(cfg, s))
    # CR 104.2a: a player still in the game when all opponents have left wins; nothing more happens.
    s = s.replace(game_over=If(n_in_game(s) <= 1, 1, s.game_over))
    return s, compact(cfg, s)


def answerable(cfg: Config, s: State) -> Any:
    """Some ``choose`` is enabled: the pending choice has a legal answer (what ``choose``
    accepts, read from the very guards of the catalogue's ``choose`` transitions)."""
    if not is_sym(s.pending):  # concrete: the first answer found, each guard's conditions in order
        return any(all(c.test(s) for c in conds) for conds in choose_guards(cfg))
    return Or(*[And(*[c.test(s) for c in conds]) for conds in choose_guards(cfg)])


@lru_cache(maxsize=64)
def choose_guards(cfg: Config) -> tuple[tuple[Cond, ...], ...]:
    """The guards of every ``choose`` transition, with the conditions the rule set switches off
    dropped as the catalogue drops them: the choices a card's effect asks (its registry entry),
    the legend rule's and the cleanup discard's.  Built from those modules rather than from the
    catalogue, which wraps every effect in :func:`settle` (``tests/test_rules_machine.py``
    checks that they are the catalogue's ``choose`` guards, all of them)."""
    from .legend import transitions as legend_choices
    from .resolution import choice_transitions
    from .turns import discard_choices

    return tuple(tuple(c for c in t.conds if c.id not in cfg.disabled)
                 for t in (*choice_transitions(cfg), *legend_choices(cfg), *discard_choices(cfg))
                 if t.action.verb == "choose")


ON_CHANGE.append(choose_guards.cache_clear)  # a scratch copy of the card registry changes the choices


def state_based_actions(cfg: Config, s: State) -> State:
    """The state-based actions of the pool (CR 704.5), checked all at once (CR 704.3)."""
    # CR 704.5g: a creature with lethal damage marked on it is destroyed.
    # Toughness is the printed one raised by "until end of turn" bonuses (CR 613.4c: prowess).
    creatures = _creatures(cfg)
    if creatures:
        lethal = [And(s.zone[j] == BATTLEFIELD, s.damage[j] >= toughness + s.toughness_bonus[j])
                  if toughness is not None else False for j, toughness in enumerate(creatures)]
        if any(x is not False for x in lethal):
            # Renumbered at the end: the legend rule and the losses read no position, and a
            # player who leaves renumbers first (zones: "Deferred renumbering").
            s = move(cfg, s, lethal, GRAVEYARD, renumber=False)
    # CR 704.5j: the legend rule (its owner chooses which one stays).
    s = ask_legend_choice(cfg, s)
    from .leaving import leave_game

    # CR 704.5a: 0 or less life loses; CR 704.5b: drew from an empty library loses.
    # CR 704.3: these are checked all at once, so every loser is known before anyone leaves.
    loses = [And(s.in_game[p] == 1, Or(s.life[p] <= 0, s.drew_empty[p] == 1)) for p in range(cfg.players)]
    for p in range(cfg.players):
        # CR 800.4a: in multiplayer, a player who loses leaves the game (CR 901.6: the planar
        # controller's successor is a player who doesn't leave with them).
        s = branch(loses[p], lambda s=s, p=p: leave_game(cfg, s, p, loses), lambda s=s: s)
    return s


@lru_cache(maxsize=64)
def _creatures(cfg: Config) -> tuple[int | None, ...]:
    """Per card slot, its printed toughness if it is a creature, else None; empty when the
    pool has no creature (worked out once per configuration)."""
    out = tuple(sl.card.toughness if sl.card.is_("Creature") else None for sl in cfg.slots)
    return out if any(t is not None for t in out) else ()
