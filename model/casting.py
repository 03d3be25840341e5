"""Casting spells (CR 601.2) and paying costs (CR 118, 107.3): from hand, graveyard and exile.

One transition per card slot and choice of how (mana cost, flashback, plotted, free), X,
kicker, split half, flashback ability, target and sacrifice.  The guard lists the rules in
the order a judge would check them; the effect moves the card to the stack (601.2a), pays
(601.2h), and puts cast triggers on the stack (603.2, 603.3).
"""

from __future__ import annotations

from dataclasses import replace
from itertools import product
from typing import Any, Iterable

from .card_rules import card_rules, face_rules, plane_rules, registry
from .cards import Face
from .common import acting, is_main_phase, sorcery_timing
from .config import Config, Slot
from .logic import Or, Sum, put
from .payment import Cost, cost_conds, lands_of, pay, spends
from .planechase import faceup_index
from .state import (BATTLEFIELD, EXILE, FB_MANA_COST, FB_NONE, FB_PRINTED, FLASHBACK, FREE, GRAVEYARD, HAND, LEFT,
                    NORMAL, PL_FACEUP, PLOTTED, RIGHT, STACK, WHOLE, State)
from .targets import legal_now, target_domain
from .turns import after_action
from .vocabulary import Action, Cond, Transition
from .zones import move, push_ability

FROM_ZONE = {NORMAL: HAND, FREE: HAND, FLASHBACK: GRAVEYARD, PLOTTED: EXILE}


def face_of(card_faces: tuple[Face, ...], half: int) -> Face:
    return card_faces[1] if half == RIGHT else card_faces[0]


def otaria_up(cfg: Config, s: State) -> Any:
    """A face-up plane gives instants and sorceries in graveyards flashback equal to their
    mana cost (Otaria: its registry entry's ``grants_flashback``)."""
    idx = [k for k, ps in enumerate(cfg.planes) if plane_rules(ps.plane.name).grants_flashback]
    return Or(*[s.pl_zone[k] == PL_FACEUP for k in idx]) if idx else False


def cost_increases(cfg: Config, s: State, p: int, how: int) -> Any:
    """CR 601.2f: what permanents on the battlefield add to the cost of player ``p``'s spell
    cast this way (Aven Interrupter's tax); increases add up."""
    return Sum(rules.cost_increase(cfg, s, k, p, how) for k, sl in enumerate(cfg.slots)
               for rules in (card_rules(sl.card.name),) if rules.cost_increase is not None)


def _instances(cfg: Config, j: int, sl: Slot) -> Iterable[Action]:
    card, p = sl.card, sl.owner
    halves = (LEFT, RIGHT) if card.is_split else (WHOLE,)
    hows = [NORMAL, FREE, PLOTTED] + ([FLASHBACK] if card.instant_or_sorcery else [])
    # A mandatory sacrifice (CR 118.8): one instance per creature of the caster's, plus one
    # without a sacrifice, so that leaving the cost unpaid is refused by the cost rule.
    sacs = (-1,) + tuple(k for k, o in enumerate(cfg.slots) if k != j and o.owner == p and o.card.is_("Creature")) \
        if card.sacrifice_creature else (-1,)
    for how, half in product(hows, halves):
        face = face_of(card.faces, half)
        xs = range(cfg.max_x + 1) if face.cost.x else (0,)
        kicks = (0, 1) if card.kicker_cost is not None else (0,)
        if how == FLASHBACK:
            fbs = ((FB_PRINTED,) if card.flashback_cost is not None else ()) + (FB_MANA_COST,)
        else:
            fbs = (FB_NONE,)
        tgts = target_domain(cfg, face_rules(face.name).target, j)
        for x, k, fb, t, sac in product(xs, kicks, fbs, tgts, sacs):
            a = Action("cast", p, card=j, how=how, x=x, kicker=k, half=half, flashback=fb, target=t, sacrifice=sac)
            for spend in spends(cfg, p, _most_generic(cfg, a)):
                yield replace(a, spend=spend)


def _most_generic(cfg: Config, a: Action) -> int:
    """The most generic mana the cast ``a`` can cost: its base and kicker's generic, and
    what every cost increase could add (at most all the caster's mana)."""
    raises = any(card_rules(sl.card.name).cost_increase is not None for sl in cfg.slots)
    return cast_cost(cfg, None, a, increases=False).generic + (lands_of(cfg, a.player) if raises else 0)


def cast_cost(cfg: Config, s: State | None, a: Action, increases: bool = True) -> Cost:
    """CR 601.2f: the mana cost or the alternative cost, plus additional costs and increases
    (``increases=False``: without the increases, which read the state)."""
    card = cfg.slots[a.card].card
    face = face_of(card.faces, a.half)
    if a.how == NORMAL or (a.how == FLASHBACK and a.flashback != FB_PRINTED):
        # CR 107.3a: X is chosen, and paid; Otaria ruling 8: with flashback equal to the mana
        # cost, that half's mana cost, X chosen and paid.
        base = Cost(face.cost.generic + a.x, face.cost.coloured)
    elif a.how == FLASHBACK:
        fb = card.flashback_mana
        assert fb is not None  # only a card with a printed flashback cost has the instance
        base = Cost(fb.generic, fb.coloured)
    else:
        base = Cost(0)  # CR 118.9: "without paying its mana cost"
    kick = card.kicker_mana if a.kicker else None  # CR 118.8: kicker may join any cost (ruling 5)
    if kick is not None:
        base = Cost(base.generic + kick.generic, base.coloured + kick.coloured)
    if increases:
        assert s is not None
        base = Cost(base.generic + cost_increases(cfg, s, a.player, a.how), base.coloured)
    return base


def total_cost(cfg: Config, s: State, a: Action) -> Any:
    """CR 601.2f: the amount of the total cost (:func:`cast_cost`)."""
    return cast_cost(cfg, s, a).amount


def _conds(cfg: Config, a: Action) -> list[Cond]:
    j, p, card = a.card, a.player, cfg.slots[a.card].card
    face = face_of(card.faces, a.half)
    conds = list(acting(cfg, p))
    if a.how in (NORMAL, FREE):
        conds.append(Cond("cast.from-hand", "601.2a", "the card is not in your hand", lambda s: s.zone[j] == HAND))
    elif a.how == FLASHBACK:
        conds.append(Cond("flashback.in-graveyard", "702.34a", "flashback casts a card only from your graveyard",
                          lambda s: s.zone[j] == GRAVEYARD))
    else:
        conds.append(Cond("plotted.in-exile", "702.170d", "the card is not in exile", lambda s: s.zone[j] == EXILE))
    if a.how == PLOTTED:
        conds += [
            Cond("plotted.is-plotted", "702.170d", "the card is not plotted", lambda s: s.plotted[j] != 0),
            # CR 702.170d: on any turn after the turn it became plotted.
            Cond("plotted.later-turn", "702.170d", "a plotted card can't be cast on the turn it became plotted",
                 lambda s: s.plotted[j] < s.turn),
            # CR 702.170d: during its owner's main phase while the stack is empty (ruling 6:
            # even an instant or a card with flash).
            Cond("plotted.own-turn", "702.170d", "a plotted card is cast only during its owner's own turn",
                 lambda s: s.active == p),
            Cond("plotted.main-phase", "702.170d", "a plotted card is cast only during its owner's main phase",
                 lambda s: is_main_phase(s)),
            Cond("plotted.stack-empty", "702.170d", "a plotted card is cast only while the stack is empty",
                 lambda s: s.stack_size == 0),
        ]
    elif a.how == FREE:
        omnis = tuple(k for k, sl in enumerate(cfg.slots) if sl.owner == p and card_rules(sl.card.name).lets_cast_free)
        conds.append(Cond("free.omniscience", "118.9", "nothing lets you cast this spell without paying its mana cost",
                          lambda s: Or(*[s.zone[k] == BATTLEFIELD for k in omnis]) if omnis else False))
    elif a.how == FLASHBACK and a.flashback == FB_MANA_COST:
        # Past in Flames / Snapcaster Mage (until end of turn), or Otaria face up.
        conds.append(Cond("flashback.granted", "702.34a", "the card has no flashback equal to its mana cost",
                          lambda s: Or(s.granted_fb[j] == 1, otaria_up(cfg, s))))
    if a.how != PLOTTED and not card.has_flash:
        # CR 307.1: sorcery timing (a creature or enchantment spell, too: CR 302.1, 303.1).
        # Flashback keeps the card's timing (702.34a, ruling 7).
        conds += sorcery_timing(cfg, p, "307.1")
    if a.x and a.how in (PLOTTED, FREE):
        conds.append(Cond("cost.x-zero", "107.3b", "X must be 0 when the spell is cast without paying its mana cost",
                          lambda s: False))
    kind = face_rules(face.name).target
    if kind is not None:
        t = a.target
        conds.append(Cond("cast.target", "601.2c", "the chosen target is not a legal target",
                          lambda s: legal_now(cfg, s, kind, t)))
    if card.sacrifice_creature:
        sac = a.sacrifice
        if sac < 0:
            # CR 118.8: a mandatory additional cost must be paid, even with an alternative cost.
            conds.append(Cond("cost.sacrifice", "118.8", "the mandatory additional cost (sacrifice a creature) "
                              "was not paid", lambda s: False))
        else:
            conds.append(Cond("cost.sacrifice", "118.8", "the mandatory additional cost (sacrifice a creature) "
                              "can't be paid", lambda s: s.zone[sac] == BATTLEFIELD))
    conds += cost_conds(cfg, p, lambda s: cast_cost(cfg, s, a), a.spend,
                        Cond("cost.mana", "601.2g", "not enough mana to pay the total cost",
                             lambda s: s.mana[p] >= total_cost(cfg, s, a)))
    if a.how == FLASHBACK and a.flashback == FB_PRINTED and card.flashback_life:
        life = card.flashback_life
        conds.append(Cond("cost.life", "119.4", f"not enough life to pay {life} life",
                          lambda s: s.life[p] >= life))
    return conds


def cast_effect(cfg: Config, s: State, a: Action) -> State:
    j, p, card = a.card, a.player, cfg.slots[a.card].card
    face = face_of(card.faces, a.half)
    cost = cast_cost(cfg, s, a)
    tgt_oid = s.oid[a.target - cfg.players] if a.target >= cfg.players else 0
    # CR 601.2a: the card moves to the stack (a new object: CR 400.7).  Renumbered by
    # settle: what follows reads no position, and the cast triggers go above it without
    # reading the stack's size (zones.push_ability, ``renumbered=False``; zones: "Deferred
    # renumbering").  Renumbered here, each card whose cast triggers had a set of counting
    # terms of its own in the Z3 relation.
    s = move(cfg, s, [k == j for k in range(cfg.n)], STACK, renumber=False)
    life = card.flashback_life if a.how == FLASHBACK and a.flashback == FB_PRINTED else 0
    # CR 107.3b: X is 0 when the spell is cast without paying its mana cost (mutant clause
    # "casting.x-zero-when-free": the chosen X is kept whatever the cost paid).
    x = a.x if a.how in (NORMAL, FLASHBACK) or not cfg.on("casting.x-zero-when-free") else 0
    # CR 702.34a: a spell cast with flashback is exiled whenever it leaves the stack (mutant
    # clause "casting.exile-mark-only-flashback": every card with flashback is marked).
    fb_mark = a.how == FLASHBACK or (not cfg.on("casting.exile-mark-only-flashback")
                                     and card.flashback_cost is not None)
    s = s.replace(
        how=put(s.how, j, a.how), cast_from=put(s.cast_from, j, FROM_ZONE[a.how]),
        x=put(s.x, j, x),
        kicked=put(s.kicked, j, a.kicker), half=put(s.half, j, a.half),
        fb_exile=put(s.fb_exile, j, 1 if fb_mark else 0),
        target=put(s.target, j, a.target), target_oid=put(s.target_oid, j, tgt_oid),
        # CR 601.2h: pay the total cost (mana, and life for Deep Analysis's flashback).
        life=put(s.life, p, s.life[p] - life), last_cast=put(s.last_cast, j, s.turn),
    )
    s = pay(cfg, s, p, cost, a.spend)
    if a.sacrifice >= 0:
        # CR 118.8 / 601.2h: the mandatory additional cost is paid with the rest (renumbered
        # by settle, as the cast's move).
        s = move(cfg, s, [k == a.sacrifice for k in range(cfg.n)], GRAVEYARD, renumber=False)
    return after_action(cfg, cast_triggers(cfg, s, j, p, face, a.how), p)


def cast_triggers(cfg: Config, s: State, j: int, p: int, face: Face, how: int) -> State:
    """CR 603.2 / 603.3b: abilities that trigger on casting go on the stack, in a fixed order:
    by ability kind, then by card slot (the registry's cast triggers: prowess, Slickshot
    Show-Off, Lilah)."""
    card = cfg.slots[j].card
    for trig in registry().cast_triggers:
        if not trig.triggers_on(card, face, how):
            continue
        for k, sl in enumerate(cfg.slots):
            if sl.owner != p or not trig.applies_to(sl.card):
                continue
            if trig.targets_spell:
                s = push_ability(cfg, s, trig.kind, p, k, when=s.zone[k] == BATTLEFIELD, target=cfg.players + j,
                                 target_oid=s.oid[j], renumbered=False)
            else:
                s = push_ability(cfg, s, trig.kind, p, k, when=s.zone[k] == BATTLEFIELD, renumbered=False)
    return s


def transitions(cfg: Config) -> Iterable[Transition]:
    for j, sl in enumerate(cfg.slots):
        if not sl.card.castable:
            continue  # CR 305.1: lands are played, not cast (playing lands is not modelled)
        for a in _instances(cfg, j, sl):
            yield Transition(a, "cast", "601.2", tuple(_conds(cfg, a)), lambda s, a=a: cast_effect(cfg, s, a))


__all__ = ["transitions", "total_cost", "cast_cost", "otaria_up", "cost_increases", "faceup_index", "FROM_ZONE"]
