"""State-based actions (CR 704), checked after every action, and the end of the game."""

from __future__ import annotations

from functools import lru_cache

from .config import Config
from .logic import And, If, Or
from .state import BATTLEFIELD, GRAVEYARD, State, branch
from .legend import ask_legend_choice
from .zones import move


def settle(cfg: Config, s: State) -> State:
    """Apply the state-based actions the pool needs, then end the game if one player is left."""
    # CR 704.5g: a creature with lethal damage marked on it is destroyed.
    # Toughness is the printed one raised by "until end of turn" bonuses (CR 613.4c: prowess).
    creatures = _creatures(cfg)
    if creatures:
        lethal = [And(s.zone[j] == BATTLEFIELD, s.damage[j] >= toughness + s.toughness_bonus[j])
                  if toughness is not None else False for j, toughness in enumerate(creatures)]
        if any(x is not False for x in lethal):
            s = move(cfg, s, lethal, GRAVEYARD)
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
    # CR 104.2a: a player still in the game when all opponents have left wins; nothing more happens.
    from .common import n_in_game

    return s.replace(game_over=If(n_in_game(s) <= 1, 1, s.game_over))


@lru_cache(maxsize=64)
def _creatures(cfg: Config) -> tuple[int | None, ...]:
    """Per card slot, its printed toughness if it is a creature, else None; empty when the
    pool has no creature (worked out once per configuration)."""
    out = tuple(sl.card.toughness if sl.card.is_("Creature") else None for sl in cfg.slots)
    return out if any(t is not None for t in out) else ()
