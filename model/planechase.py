"""Planechase (CR 901, 311, 701.31): the planar die, planeswalking, chaos, the planar controller.

Planes live in plane slots of the configuration; each is in a planar deck (its owner's, or
the single communal deck of CR 901.15), face up, or out of the game.
"""

from __future__ import annotations

from itertools import product
from typing import Any, Iterable

from .card_rules import plane_rules, register_ability
from .vocabulary import ROLL_RESULTS, Action, Cond, Transition
from .common import acting, is_main_phase
from .config import Config
from .logic import And, Count, If, Not, Or, first, is_sym
from .payment import Cost, cost_conds, lands_of, pay, spends
from .state import AB_CHAOS, AB_PLANESWALK, PL_DECK, PL_FACEUP, PL_OUT, State
from .turns import after_action
from .zones import new_objects, push_ability

_FAR = 10_000


def deck_of(cfg: Config, k: int) -> int:
    """The planar deck a plane card belongs in: its owner's, or the communal one (CR 901.15)."""
    return 0 if cfg.communal else cfg.planes[k].owner


def deck_of_player(cfg: Config, p: Any) -> Any:
    return 0 if cfg.communal else p


def faceup_index(cfg: Config, s: State) -> Any:
    K = len(cfg.planes)
    return first([s.pl_zone[k] == PL_FACEUP for k in range(K)], list(range(K)), -1)


def compact_decks(cfg: Config, s: State) -> State:
    K = len(cfg.planes)
    pos = tuple(
        If(s.pl_zone[k] == PL_DECK,
           Count(And(s.pl_zone[i] == PL_DECK, Or(s.pl_pos[i] < s.pl_pos[k], And(s.pl_pos[i] == s.pl_pos[k], i < k)))
                 for i in range(K) if i != k and deck_of(cfg, i) == deck_of(cfg, k)), 0)
        for k in range(K))
    return s.replace(pl_pos=pos)


def turn_top_face_up(cfg: Config, s: State, walker: Any, when: Any = True) -> State:
    """Move the top card of ``walker``'s planar deck off it and turn it face up (a new object)."""
    if not is_sym(when) and not when:
        return s  # a concrete shortcut: nothing turns, and every caller's decks are compact
    K = len(cfg.planes)
    deck = deck_of_player(cfg, walker)
    up = [And(when, s.pl_zone[k] == PL_DECK, deck_of(cfg, k) == deck, s.pl_pos[k] == 0) for k in range(K)]
    new_oids, next_oid = new_objects(s.next_oid, up)
    s = s.replace(pl_zone=tuple(If(up[k], PL_FACEUP, s.pl_zone[k]) for k in range(K)),
                  pl_counters=tuple(If(up[k], 0, s.pl_counters[k]) for k in range(K)),
                  pl_oid=tuple(If(up[k], new_oids[k], s.pl_oid[k]) for k in range(K)), next_oid=next_oid)
    return compact_decks(cfg, s)


def planeswalk(cfg: Config, s: State, walker: Any, when: Any = True) -> State:
    """CR 701.31 / 901.11: the face-up plane goes face down to the bottom of its owner's
    planar deck (a new object, its counters gone: CR 901.7a, 400.9), then the top card of
    the planeswalker's planar deck turns face up.

    CR 609.3: each instruction is carried out as far as it can be.  With the planeswalker's
    planar deck empty, the plane still goes face down; if it went into that very deck (its
    owner is the planeswalker, or the deck is communal) it is then the top card and turns
    face up again as a new object without its counters (CR 701.31, 901.7a); otherwise no
    plane is face up until the planar die's planeswalker symbol turns one up (CR 901.9,
    701.31b: see :func:`_roll`) or a player leaving makes the planar controller planeswalk.
    """
    K = len(cfg.planes)
    # CR 701.31: the face-up plane goes to the bottom of its owner's planar deck first, so
    # when that is the planeswalker's deck, there is a top card to turn face up.
    down = [And(when, s.pl_zone[k] == PL_FACEUP) for k in range(K)]
    new_oids, next_oid = new_objects(s.next_oid, down)
    s = s.replace(
        pl_zone=tuple(If(down[k], PL_DECK, s.pl_zone[k]) for k in range(K)),
        pl_pos=tuple(If(down[k], _FAR + k, s.pl_pos[k]) for k in range(K)),
        # CR 901.7a: a plane turned face down is a new object and loses its counters (mutant
        # clause "planechase.face-down-loses-counters": it keeps them).
        pl_counters=tuple(If(down[k], 0, s.pl_counters[k]) for k in range(K))
        if cfg.on("planechase.face-down-loses-counters") else s.pl_counters,
        pl_oid=tuple(If(down[k], new_oids[k], s.pl_oid[k]) for k in range(K)),
        next_oid=next_oid,
    )
    s = compact_decks(cfg, s)
    return turn_top_face_up(cfg, s, walker, when)


def roll_cost(s: State) -> Any:
    """CR 116.2i / 901.9: {N}, where N is how many times this player rolled this turn."""
    return s.rolls


def transitions(cfg: Config) -> Iterable[Transition]:
    if not cfg.planechase:
        return
    for p in range(cfg.players):
        for res, spend in product(ROLL_RESULTS, spends(cfg, p, lands_of(cfg, p))):
            conds = (
                *acting(cfg, p),
                Cond("roll.active-player", "901.9", "only the active player may roll the planar die",
                     lambda s, p=p: s.active == p),
                Cond("roll.main-phase", "901.9", "the planar die is rolled only in a main phase",
                     lambda s: is_main_phase(s)),
                Cond("roll.stack-empty", "901.9", "the planar die is rolled only while the stack is empty",
                     lambda s: s.stack_size == 0),
                *cost_conds(cfg, p, lambda s: Cost(roll_cost(s)), spend,
                            Cond("roll.cost", "116.2i", "not enough mana to pay {N} for the N-th extra roll this turn",
                                 lambda s, p=p: s.mana[p] >= roll_cost(s))),
            )
            yield Transition(Action("roll", p, result=res, spend=spend), f"roll.{res}", "901.9", conds,
                             lambda s, p=p, res=res, spend=spend: _roll(cfg, s, p, res, spend))


def _roll(cfg: Config, s: State, p: int, res: str, spend: tuple[int, ...]) -> State:
    # CR 116.2i: pay {N} for the N-th extra roll (mutant clause "planechase.roll-cost-rises":
    # every roll is free).
    cost = roll_cost(s) if cfg.on("planechase.roll-cost-rises") else 0
    s = pay(cfg, s, p, Cost(cost), spend if cfg.on("planechase.roll-cost-rises") else (0,) * len(spend))
    s = s.replace(rolls=s.rolls + 1)
    fu = faceup_index(cfg, s)
    oid = first([fu == k for k in range(len(cfg.planes))], [s.pl_oid[k] for k in range(len(cfg.planes))], 0)
    # CR 901.9 names no face-up plane among the conditions of the roll: with none (CR
    # 901.10 and 609.3 can leave the game so), the roll is still legal.
    up = fu >= 0
    if res == "chaos":
        # CR 311.7 / 901.9b: chaos makes the face-up plane's chaos ability trigger; with no
        # face-up plane nothing triggers.
        s = push_ability(cfg, s, AB_CHAOS, s.planar_ctrl, fu, when=up, target_oid=oid)
    elif res == "planeswalk":
        # CR 901.8 / 901.9c: the face-up plane's planeswalking ability triggers and uses the
        # stack.  CR 701.31b: with no face-up plane, the planar controller planeswalks at
        # once: the top card of their planar deck turns face up (nothing, if it is empty).
        s = push_ability(cfg, s, AB_PLANESWALK, s.planar_ctrl, fu, when=up, target_oid=oid)
        s = turn_top_face_up(cfg, s, s.planar_ctrl, Not(up))
    # CR 116.3: after a special action, the same player receives priority.
    return after_action(cfg, s, p)


def resolve_chaos(cfg: Config, s: State, a: int) -> State:
    """The chaos ability of the plane that triggered: its registry entry (:mod:`.card_texts`),
    with "you" the ability's controller, the planar controller when it triggered (CR 311.5)."""
    src = s.ab_src[a]
    for k, ps in enumerate(cfg.planes):
        chaos = plane_rules(ps.plane.name).chaos
        if chaos is not None:
            s = chaos(cfg, s, k, a, src == k)
    return s


def resolve_planeswalk(cfg: Config, s: State, a: int) -> State:
    return planeswalk(cfg, s, s.ab_ctrl[a])


# The two triggered abilities every plane has in a Planechase game (CR 311.7, 901.8).
register_ability(AB_CHAOS, resolve_chaos)
register_ability(AB_PLANESWALK, resolve_planeswalk)


def remove_planes_of(cfg: Config, s: State, p: int) -> tuple[State, Any]:
    """CR 800.4a: the plane cards a leaving player owns leave the game. Returns whether the
    face-up plane was among them (then CR 901.10 applies)."""
    K = len(cfg.planes)
    owned = [cfg.planes[k].owner == p for k in range(K)]
    was_up = Or(*[And(owned[k], s.pl_zone[k] == PL_FACEUP) for k in range(K)]) if K else False
    s = s.replace(pl_zone=tuple(PL_OUT if owned[k] else s.pl_zone[k] for k in range(K)),
                  pl_counters=tuple(0 if owned[k] else s.pl_counters[k] for k in range(K)))
    return compact_decks(cfg, s), was_up


__all__ = ["transitions", "planeswalk", "turn_top_face_up", "faceup_index", "resolve_chaos",
           "resolve_planeswalk", "remove_planes_of", "deck_of", "PL_OUT"]
