"""Resolving the top of the stack (CR 608), card effects, and the choices they ask for.

When all players pass in succession with a non-empty stack, the top object resolves
(CR 117.4): one ``pass.resolve`` transition per stack entry.  What each card does is its
entry in the card registry (:mod:`.card_rules`, written in :mod:`.card_texts`); this module
is the procedure around it.  A spell whose effect asks a player to choose (Make Your Own
Luck, Faithless Looting's discard) stays on the stack with a pending choice until that
player's ``choose``; an entering creature whose triggered ability needs a target (Aven
Interrupter, Snapcaster Mage) asks for it the same way (CR 603.3d).
"""

from __future__ import annotations

from typing import Callable, Iterable

from .card_rules import card_rules, face_rules, game_ability_kinds, registry
from .common import acting, clear_choice
from .config import Config
from .logic import And, If, Not
from .plot import make_plotted
from .state import BATTLEFIELD, EXILE, GRAVEYARD, LEFT, P_NONE, State, branch
from .targets import still_legal
from .turns import all_others_passed, give_priority_to_active
from .vocabulary import Action, Cond, Transition, staged
from .zones import flashback_exiles, move, remove_ability, top_is_ability, top_is_card


# --- leaving the stack -------------------------------------------------------------------

def finish_spell(cfg: Config, s: State, j: int) -> State:
    """The spell in slot ``j`` has resolved: CR 608.2n puts an instant or sorcery into its
    owner's graveyard (or exile: CR 702.34a flashback, in :func:`zones.move`; Lilah's
    replacement, then plotted); CR 608.3 puts a permanent spell onto the battlefield."""
    card = cfg.slots[j].card
    s = clear_choice(s)
    if card.permanent:
        s = move(cfg, s, [k == j for k in range(cfg.n)], BATTLEFIELD, resolving=True)
        s = enters(cfg, s, j)
    else:
        # Lilah's replacement applies to a spell the flashback replacement doesn't exile.
        fb = flashback_exiles(cfg, s, j, resolving=True)
        lilah = And(Not(fb), s.plot_on_resolve[j] == 1)
        # Renumbered by settle: what follows up to it is blind to positions (zones: "Deferred
        # renumbering").  Not so for a permanent, whose entering may put a trigger on the stack.
        s = move(cfg, s, [k == j for k in range(cfg.n)], If(lilah, EXILE, GRAVEYARD), resolving=True, renumber=False)
        s = make_plotted(s, j, when=lilah)
    return give_priority_to_active(cfg, s)


def fizzle(cfg: Config, s: State, j: int) -> State:
    """CR 608.2b: every target is illegal; the spell doesn't resolve and leaves the stack
    (to its owner's graveyard, or exile by CR 702.34a in :func:`zones.move`)."""
    s = move(cfg, s, [k == j for k in range(cfg.n)], GRAVEYARD, renumber=False)  # renumbered by settle, as above
    return give_priority_to_active(cfg, s)


def enters(cfg: Config, s: State, j: int) -> State:
    """Enters-the-battlefield triggers whose target is chosen as they go on the stack (the
    card's entry in the registry, :mod:`.card_texts`)."""
    rules = card_rules(cfg.slots[j].card.name)
    return rules.enters(cfg, s, j) if rules.enters else s


# --- card effects -------------------------------------------------------------------------

def resolve_card(cfg: Config, s: State, j: int) -> State:
    card = cfg.slots[j].card
    if card.is_split:
        return branch(s.half[j] == LEFT, lambda: resolve_face(cfg, s, j, card.faces[0].name),
                       lambda: resolve_face(cfg, s, j, card.faces[1].name))
    return resolve_face(cfg, s, j, card.faces[0].name)


def resolve_face(cfg: Config, s: State, j: int, face: str) -> State:
    kind = face_rules(face).target
    if kind is None:
        return effect(cfg, s, j, face)
    # CR 608.2b: a spell whose targets are all illegal doesn't resolve.
    ok = still_legal(cfg, s, kind, s.target[j], s.target_oid[j])
    return branch(ok, lambda: effect(cfg, s, j, face), lambda: fizzle(cfg, s, j))


def effect(cfg: Config, s: State, j: int, face: str) -> State:
    """The effect of one face (its registry entry), then the spell leaves the stack, unless
    the effect asked a player to choose: then the choice finishes it."""
    rules = face_rules(face)
    if rules.resolve is not None:
        s = rules.resolve(cfg, s, j)
    if not rules.asks:
        return finish_spell(cfg, s, j)
    asked = And(s.pending != P_NONE, s.pending_src == j)
    return branch(asked, lambda s=s: s, lambda s=s: finish_spell(cfg, s, j))


# --- abilities ---------------------------------------------------------------------------

def resolve_ability(cfg: Config, s: State, a: int) -> State:
    """The triggered ability in slot ``a`` resolves (each kind's effect is registered by the
    card or the rule it belongs to), leaves the stack, and the active player gets priority."""
    kind = s.ab_kind[a]
    kinds = game_ability_kinds(cfg)  # only those the game's cards and planes have
    table = [(code, fn) for code, fn in sorted(registry().abilities.items()) if code in kinds]
    out = s
    for code, fn in reversed(table):
        out = branch(kind == code, lambda fn=fn: fn(cfg, s, a), lambda out=out: out)
    out = remove_ability(cfg, out, a, renumber=False)  # renumbered by settle, as for finish_spell
    return give_priority_to_active(cfg, out)


# --- transitions ---------------------------------------------------------------------------

def transitions(cfg: Config) -> Iterable[Transition]:
    for p in range(cfg.players):
        act = Action("pass", p)
        for j, sl in enumerate(cfg.slots):
            if sl.card.is_("Land"):
                continue
            yield Transition(act, f"pass.resolve.card{j}", "608.2",
                             (*acting(cfg, p), all_others_passed(cfg),
                              Cond("stack.top-card", "608.2", "not the top of the stack", lambda s, j=j: top_is_card(cfg, s, j))),
                             lambda s, j=j: resolve_card(cfg, s, j))
        for a in range(cfg.ability_slots):
            yield Transition(act, f"pass.resolve.ability{a}", "608.2",
                             (*acting(cfg, p), all_others_passed(cfg),
                              Cond("stack.top-ability", "608.2", "not the top of the stack", lambda s, a=a: top_is_ability(s, a))),
                             lambda s, a=a: resolve_ability(cfg, s, a))
    yield from choice_transitions(cfg)


def choice_transitions(cfg: Config) -> Iterable[Transition]:
    """The ``choose`` transitions each card's effects ask for (its registry entry); when the
    card says so, the choice ends the resolving spell (CR 608.2n)."""
    for m, sl in enumerate(cfg.slots):
        rules = card_rules(sl.card.name)
        if rules.choices is None:
            continue
        # one object for all of the card's choices (``staged``): the spell finishes the same way
        finish = _finishing(cfg, m) if rules.finishes else None
        for t in rules.choices(cfg, m):
            yield t if finish is None else staged(t, finish)


def _finishing(cfg: Config, m: int) -> Callable[[State], State]:
    """The end of the spell in slot ``m`` after its choice (CR 608.2n), one function object
    for all of its choices: the family the Z3 relation builds once (``staged``)."""
    def finish(s: State) -> State:
        return finish_spell(cfg, s, m)
    return finish


__all__ = ["transitions", "choice_transitions", "finish_spell", "enters", "resolve_card", "resolve_ability"]
