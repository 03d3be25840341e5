"""Resolving the top of the stack (CR 608), card effects, and the choices they ask for.

When all players pass in succession with a non-empty stack, the top object resolves
(CR 117.4): one ``pass.resolve`` transition per stack entry.  A spell whose effect asks a
player to choose (Make Your Own Luck, Faithless Looting's discard) stays on the stack with a
pending choice until that player's ``choose``; an entering creature whose triggered ability
needs a target (Aven Interrupter, Snapcaster Mage) asks for it the same way (CR 603.3d).
"""

from __future__ import annotations

from itertools import combinations
from typing import Any, Iterable

from .vocabulary import Action, Cond, Transition
from .common import acting, game_on
from .config import Config
from .logic import And, Count, If, Not, Or, lazy_if
from .planechase import resolve_chaos, resolve_planeswalk
from .plot import make_plotted
from .state import (AB_AVEN, AB_CHAOS, AB_LILAH_PLOT, AB_PLANESWALK, AB_PROWESS, AB_SHOWOFF, AB_SNAP,
                    BATTLEFIELD, EXILE, GRAVEYARD, HAND, LEFT, LIBRARY, P_AVEN_TARGET, P_LOOT, P_LUCK,
                    P_NONE, P_SNAP_TARGET, STACK, State, ite_state)
from .targets import FACE_TARGETS, deal_damage, still_legal
from .turns import all_others_passed, give_priority_to_active
from .zones import draw, hand_count, move, push_ability, remove_ability, top_is_ability, top_is_card


def _branch(c: Any, then, other) -> State:  # type: ignore[no-untyped-def]
    return lazy_if(c, then, other, ite_state)


# --- leaving the stack -------------------------------------------------------------------

def finish_spell(cfg: Config, s: State, j: int) -> State:
    """The spell in slot ``j`` has resolved: CR 608.2n puts an instant or sorcery into its
    owner's graveyard (or exile: CR 702.34a flashback, in :func:`zones.move`; Lilah's
    replacement, then plotted); CR 608.3 puts a permanent spell onto the battlefield."""
    card = cfg.slots[j].card
    s = s.replace(pending=P_NONE, pending_player=-1, pending_src=-1)
    if card.permanent:
        s = move(cfg, s, [k == j for k in range(cfg.n)], BATTLEFIELD, resolving=True)
        s = enters(cfg, s, j)
    else:
        # Lilah's replacement applies to a spell the flashback replacement doesn't exile.
        fb = And(s.fb_exile[j] == 1, cfg.on("flashback.exile-on-resolve"))
        lilah = And(Not(fb), s.plot_on_resolve[j] == 1)
        s = move(cfg, s, [k == j for k in range(cfg.n)], If(lilah, EXILE, GRAVEYARD), resolving=True)
        s = make_plotted(s, j, when=lilah)
    return give_priority_to_active(cfg, s)


def fizzle(cfg: Config, s: State, j: int) -> State:
    """CR 608.2b: every target is illegal; the spell doesn't resolve and leaves the stack
    (to its owner's graveyard, or exile by CR 702.34a in :func:`zones.move`)."""
    s = move(cfg, s, [k == j for k in range(cfg.n)], GRAVEYARD)
    return give_priority_to_active(cfg, s)


def enters(cfg: Config, s: State, j: int) -> State:
    """Enters-the-battlefield triggers whose target is chosen as they go on the stack."""
    name, p = cfg.slots[j].card.name, cfg.slots[j].owner
    if name == "Aven Interrupter":
        any_spell = Or(*[s.zone[k] == STACK for k in range(cfg.n)])
        # CR 603.3d: with no legal target, the ability is removed from the stack.
        return s.replace(pending=If(any_spell, P_AVEN_TARGET, s.pending),
                         pending_player=If(any_spell, p, s.pending_player),
                         pending_src=If(any_spell, j, s.pending_src))
    if name == "Snapcaster Mage":
        mine = [k for k, sl in enumerate(cfg.slots) if sl.owner == p and sl.card.instant_or_sorcery]
        any_card = Or(*[s.zone[k] == GRAVEYARD for k in mine]) if mine else False
        return s.replace(pending=If(any_card, P_SNAP_TARGET, s.pending),
                         pending_player=If(any_card, p, s.pending_player),
                         pending_src=If(any_card, j, s.pending_src))
    return s


# --- card effects -------------------------------------------------------------------------

def resolve_card(cfg: Config, s: State, j: int) -> State:
    card = cfg.slots[j].card
    if card.is_split:
        return _branch(s.half[j] == LEFT, lambda: resolve_face(cfg, s, j, card.faces[0].name),
                       lambda: resolve_face(cfg, s, j, card.faces[1].name))
    return resolve_face(cfg, s, j, card.faces[0].name)


def resolve_face(cfg: Config, s: State, j: int, face: str) -> State:
    kind = FACE_TARGETS.get(face)
    if kind is None:
        return effect(cfg, s, j, face)
    ok = still_legal(cfg, s, kind, s.target[j], s.target_oid[j])
    return _branch(ok, lambda: effect(cfg, s, j, face), lambda: fizzle(cfg, s, j))


def effect(cfg: Config, s: State, j: int, face: str) -> State:
    """The effect of one face, then the spell leaves the stack (unless a choice is pending)."""
    p, P, t = cfg.slots[j].owner, cfg.players, s.target[j]
    damage = {"Lightning Bolt": 3, "Fire": 2, "Test Plotted Shock": 2}
    if face in damage:
        s = deal_damage(cfg, s, t, damage[face])
    elif face == "Burst Lightning":
        s = deal_damage(cfg, s, t, If(s.kicked[j] == 1, 4, 2))
    elif face in ("Blaze", "Test Plotted Fireball"):
        s = deal_damage(cfg, s, t, s.x[j])
    elif face in ("Counterspell", "Remand"):
        # CR 701.6a: counter = put into its owner's graveyard; Remand: into its owner's hand.
        # Either way a flashback spell is exiled instead (CR 702.34a).
        s = move(cfg, s, [t == P + k for k in range(cfg.n)], GRAVEYARD if face == "Counterspell" else HAND)
        if face == "Remand":
            s = draw(cfg, s, p)
    elif face in ("Bone Splinters", "Ancient Grudge"):
        s = move(cfg, s, [t == P + k for k in range(cfg.n)], GRAVEYARD)  # CR 701.8a: destroy
    elif face == "Deep Analysis":
        for q in range(P):
            s = _branch(t == q, lambda s=s, q=q: draw(cfg, s, q, 2), lambda s=s: s)
    elif face in ("Think Twice", "Ice"):
        s = draw(cfg, s, p)  # Ice: tapping is not modelled (no rule in scope reads it)
    elif face in ("Village Rites", "Memory Deluge"):
        s = draw(cfg, s, p, 2)  # Memory Deluge: simplified to "draw two" (see docs)
    elif face == "Test Kicked Rites":
        s = draw(cfg, s, p)
        s = _branch(s.kicked[j] == 1, lambda s=s: draw(cfg, s, p), lambda s=s: s)
    elif face == "Past in Flames":
        mine = [k for k, sl in enumerate(cfg.slots) if sl.owner == p and sl.card.instant_or_sorcery]
        s = s.replace(granted_fb=tuple(If(s.zone[k] == GRAVEYARD, 1, s.granted_fb[k]) if k in mine else s.granted_fb[k]
                                       for k in range(cfg.n)))
    elif face == "Make Your Own Luck":
        return _luck_starts(cfg, s, j)
    elif face == "Faithless Looting":
        s = draw(cfg, s, p, 2)
        return _branch(hand_count(cfg, s, p) > 0,
                       lambda s=s: s.replace(pending=P_LOOT, pending_player=p, pending_src=j),
                       lambda s=s: finish_spell(cfg, s, j))
    return finish_spell(cfg, s, j)


def _looked_at(cfg: Config, s: State, p: int) -> list[Any]:
    """Make Your Own Luck looks at the top three cards (all of them if fewer: ruling 1)."""
    return [And(sl.owner == p, s.zone[k] == LIBRARY, s.pos[k] < 3) if sl.owner == p else False
            for k, sl in enumerate(cfg.slots)]


def _luck_starts(cfg: Config, s: State, j: int) -> State:
    p = cfg.slots[j].owner
    looked = _looked_at(cfg, s, p)
    nonland = Or(*[And(looked[k], True) for k, sl in enumerate(cfg.slots) if not sl.card.is_("Land") and looked[k] is not False])
    # No nonland card among them: nothing to choose (a choice is asked only when one exists).
    return _branch(nonland, lambda: s.replace(pending=P_LUCK, pending_player=p, pending_src=j),
                   lambda: finish_spell(cfg, move(cfg, s, looked, HAND), j))


# --- abilities ---------------------------------------------------------------------------

def resolve_ability(cfg: Config, s: State, a: int) -> State:
    kind, src, P = s.ab_kind[a], s.ab_src[a], cfg.players
    n = cfg.n

    def pump(power: int, toughness: int) -> State:
        # CR 613.4c: +N/+N effects; power and toughness are raised apart (CR 702.108a prowess
        # is +1/+1, Slickshot Show-Off's trigger +2/+0), so lethal damage reads the raised
        # toughness (CR 704.5g).
        here = [And(src == k, s.zone[k] == BATTLEFIELD) for k in range(n)]
        return s.replace(power_bonus=tuple(If(here[k], s.power_bonus[k] + power, s.power_bonus[k]) for k in range(n)),
                         toughness_bonus=tuple(If(here[k], s.toughness_bonus[k] + toughness, s.toughness_bonus[k])
                                               for k in range(n)))

    def lilah() -> State:
        ok = still_legal(cfg, s, "spell", s.ab_target[a], s.ab_target_oid[a])
        return s.replace(plot_on_resolve=tuple(If(And(ok, s.ab_target[a] == P + k), 1, s.plot_on_resolve[k])
                                               for k in range(n)))

    def aven() -> State:
        # Aven Interrupter: exile target spell; it becomes plotted (CR 702.170c).
        ok = still_legal(cfg, s, "spell", s.ab_target[a], s.ab_target_oid[a])
        hit = [And(ok, s.ab_target[a] == P + k) for k in range(n)]
        s2 = move(cfg, s, hit, EXILE)
        for k in range(n):
            s2 = make_plotted(s2, k, when=hit[k])
        return s2

    def snap() -> State:
        t, toid = s.ab_target[a], s.ab_target_oid[a]
        return s.replace(granted_fb=tuple(
            If(And(t == P + k, s.zone[k] == GRAVEYARD, s.oid[k] == toid), 1, s.granted_fb[k]) for k in range(n)))

    table = [(AB_SHOWOFF, lambda: pump(2, 0)), (AB_PROWESS, lambda: pump(1, 1)), (AB_LILAH_PLOT, lilah),
             (AB_AVEN, aven), (AB_SNAP, snap)]
    if cfg.planechase:
        table += [(AB_CHAOS, lambda: resolve_chaos(cfg, s, a)), (AB_PLANESWALK, lambda: resolve_planeswalk(cfg, s, a))]
    out = s
    for code, fn in reversed(table):
        out = _branch(kind == code, fn, lambda out=out: out)
    out = remove_ability(cfg, out, a)
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
    yield from _choices(cfg)


def _pending(kind: int, p: int, src: int) -> list[Cond]:
    return [Cond("choose.pending", "608.2c", "no such choice is being asked of this player",
                 lambda s: And(s.pending == kind, s.pending_player == p, s.pending_src == src))]


def _choices(cfg: Config) -> Iterable[Transition]:
    for m, sl in enumerate(cfg.slots):
        p, name = sl.owner, sl.card.name
        mine = [k for k, o in enumerate(cfg.slots) if o.owner == p]
        if name == "Make Your Own Luck":
            picks: list[tuple[int, ...]] = [(), *[(k,) for k in mine if k != m]]
            for pick in picks:
                conds = [game_on(cfg), *_pending(P_LUCK, p, m)]
                if pick:
                    k = pick[0]
                    if cfg.slots[k].card.is_("Land"):
                        # Make Your Own Luck exiles only a nonland card (a land stays for the hand).
                        conds.append(Cond("luck.nonland", "702.170c", "only a nonland card can be exiled and plotted",
                                          lambda s: False))
                    conds.append(Cond("luck.among-top-three", "702.170c",
                                      "the card is not among the top three cards of your library",
                                      lambda s, k=k: And(s.zone[k] == LIBRARY, s.pos[k] < 3)))
                yield Transition(Action("choose", p, cards=pick), "choose.luck", "702.170c", tuple(conds),
                                 lambda s, m=m, pick=pick: _luck_done(cfg, s, m, pick))
        elif name == "Faithless Looting":
            others = [k for k in mine if k != m]
            for size in (1, 2):
                for pick in combinations(others, size):
                    conds = [game_on(cfg), *_pending(P_LOOT, p, m),
                             Cond("discard.in-hand", "701.9a", "a discarded card must be in your hand",
                                  lambda s, pick=pick: And(*[s.zone[k] == HAND for k in pick])),
                             # CR 701.9a: the hand counted is the discarding player's own (p
                             # bound here: a late-bound loop variable read another player's hand).
                             Cond("discard.count", "701.9a", "discard two cards (all of them if you have fewer)",
                                  lambda s, pick=pick, p=p: hand_count(cfg, s, p) == len(pick) if len(pick) < 2
                                  else hand_count(cfg, s, p) >= 2)]
                    yield Transition(Action("choose", p, cards=pick), "choose.discard", "701.9a", tuple(conds),
                                     lambda s, m=m, pick=pick: _loot_done(cfg, s, m, pick))
        elif name in ("Aven Interrupter", "Snapcaster Mage"):
            aven = name == "Aven Interrupter"
            cands = [k for k, o in enumerate(cfg.slots) if k != m and not o.card.is_("Land")] if aven else \
                [k for k in mine if cfg.slots[k].card.instant_or_sorcery]
            for k in cands:
                conds = [game_on(cfg), *_pending(P_AVEN_TARGET if aven else P_SNAP_TARGET, p, m),
                         Cond("trigger.target", "603.3d", "not a legal target for the triggered ability",
                              (lambda s, k=k: s.zone[k] == STACK) if aven else
                              (lambda s, k=k: s.zone[k] == GRAVEYARD))]
                yield Transition(Action("choose", p, cards=(k,)), "choose.target", "603.3d", tuple(conds),
                                 lambda s, m=m, k=k, aven=aven: _target_done(cfg, s, m, k, aven))


def _luck_done(cfg: Config, s: State, m: int, pick: tuple[int, ...]) -> State:
    p = cfg.slots[m].owner
    looked = _looked_at(cfg, s, p)
    s = move(cfg, s, [k in pick for k in range(cfg.n)], EXILE)
    for k in pick:
        s = make_plotted(s, k)  # CR 702.170c: an effect makes the exiled card plotted
    s = move(cfg, s, [False if k in pick else looked[k] for k in range(cfg.n)], HAND)
    return finish_spell(cfg, s, m)


def _loot_done(cfg: Config, s: State, m: int, pick: tuple[int, ...]) -> State:
    s = move(cfg, s, [k in pick for k in range(cfg.n)], GRAVEYARD)  # CR 701.9a: discard
    return finish_spell(cfg, s, m)


def _target_done(cfg: Config, s: State, m: int, k: int, aven: bool) -> State:
    p = cfg.slots[m].owner
    s = s.replace(pending=P_NONE, pending_player=-1, pending_src=-1)
    s = push_ability(cfg, s, AB_AVEN if aven else AB_SNAP, p, m, target=cfg.players + k, target_oid=s.oid[k])
    return give_priority_to_active(cfg, s)


__all__ = ["transitions", "finish_spell", "Count"]
