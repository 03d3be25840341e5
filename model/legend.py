"""The legend rule (CR 704.5j): two legendary permanents of one name under one controller.

CR 704.5j: if a player controls two or more legendary permanents with the same name, that
player chooses one of them, and the rest are put into their owners' graveyards.  The choice
is the player's, so the state-based action asks for it as a pending choice (like a
resolving spell's choice) and the player answers with ``choose`` naming the one that stays.
Control never changes in the pool, so a permanent's controller is its owner.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterable

from .vocabulary import Action, Cond, Transition
from .common import ask_choice, clear_choice, game_on, pending_cond
from .config import Config
from .logic import And, Count, Or, first
from .state import BATTLEFIELD, GRAVEYARD, P_LEGEND, P_NONE, State
from .zones import move


@lru_cache(maxsize=64)
def legend_groups(cfg: Config) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """(owner, card slots) for each legendary name that one player owns two or more of
    (worked out once per configuration: the state-based actions ask after every action)."""
    groups: dict[tuple[int, str], list[int]] = {}
    for j, sl in enumerate(cfg.slots):
        if sl.card.legendary:
            groups.setdefault((sl.owner, sl.card.name), []).append(j)
    return tuple((p, tuple(js)) for (p, _), js in groups.items() if len(js) >= 2)


def _clash(s: State, group: tuple[int, ...]) -> Any:
    return Count(s.zone[j] == BATTLEFIELD for j in group) >= 2


def ask_legend_choice(cfg: Config, s: State) -> State:
    """CR 704.5j: if a player's legendary permanents clash and no other choice is pending,
    ask that player to choose.

    CR 101.4: when several players choose, the active player chooses first, then the others
    in turn order; a player with several clashing names answers them one ``choose`` at a time,
    in any order (the choice names the card that stays).  After each choice the state-based
    actions are checked again (CR 704.3), so the next clash is asked for then.  Nothing here
    depends on the order of card slots (a metamorphic test permutes them).
    """
    P = cfg.players
    groups = legend_groups(cfg)
    if not groups:
        return s
    clash = [And(s.in_game[q] == 1, Or(*[_clash(s, g) for p, g in groups if p == q])) for q in range(P)]
    conds, players = [], []
    for d in range(P):  # APNAP: the active player, then the others in turn order
        for q in range(P):
            conds.append(And(s.active == (q - d) % P, clash[q]))
            players.append(q)
    chooser = first(conds, players, -1)
    ask = And(s.pending == P_NONE, Or(*clash))
    return ask_choice(s, ask, P_LEGEND, chooser, -1)


def _keep(cfg: Config, s: State, group: tuple[int, ...], k: int) -> State:
    # CR 704.5j: the rest are put into their owners' graveyards.
    s = move(cfg, s, [And(j != k, s.zone[j] == BATTLEFIELD) if j in group else False
                      for j in range(cfg.n)], GRAVEYARD)
    return clear_choice(s)


def transitions(cfg: Config) -> Iterable[Transition]:
    for p, group in legend_groups(cfg):
        for k in group:
            conds = (game_on(cfg),
                     pending_cond(P_LEGEND, p, cr="704.5j"),
                     Cond("legend.clash", "704.5j", "you control no two legendary permanents of that name",
                          lambda s, group=group: _clash(s, group)),
                     Cond("legend.on-battlefield", "704.5j",
                          "the permanent that stays must be one of the legendary permanents of that name",
                          lambda s, k=k: s.zone[k] == BATTLEFIELD))
            yield Transition(Action("choose", p, cards=(k,)), "choose.legend", "704.5j", conds,
                             lambda s, group=group, k=k: _keep(cfg, s, group, k))


__all__ = ["transitions", "ask_legend_choice", "legend_groups"]
