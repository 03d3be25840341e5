"""Paying a mana cost (CR 601.2g-h, 106, 107.4): the one place every cost is checked and paid.

A configuration has one of two kinds of mana (``Config.lands``):

- **abstract** (the built-ins): ``State.mana`` is an amount that refills each turn and pays
  any cost, whatever its colours;
- **lands** (mana as real engines have it): mana comes from tapping lands (:mod:`.lands`),
  ``State.mana`` is the amount in the pool and ``pool_w`` ... ``pool_g`` how much of it is of
  each colour (the rest is colourless), and the pool empties between steps (CR 500.4).

Why the generic part is a choice of the action (``Action.spend``): CR 107.4b lets any mana
pay generic mana, so after ``{1}{R}`` is paid from a pool of {R}{R}{U} the player may keep
{R} or {U}, and a later spell in the same step may depend on which.  A checker that picked
one way would miss the other's states, so each way is its own transition: ``spend`` says how
much generic mana each of the configuration's pool colours pays (the rest is colourless).
Without lands there is one way, ``()``.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Any, Callable

from .config import Config
from .logic import And, Sum, put
from .mana import COLOURS
from .state import State
from .vocabulary import Cond

#: The state field of each colour's pool (CR 106.1b), in WUBRG order (``mana.COLOURS``).
POOL_FIELDS = {c: f"pool_{c.lower()}" for c in COLOURS}


@dataclass(frozen=True, slots=True)
class Cost:
    """What one payment asks: a generic amount (CR 107.4b; it may be a term of the state: X,
    a cost increase, the planar die's N) and the coloured symbols (CR 107.4a, e.g. "RU")."""

    generic: Any
    coloured: str = ""

    @property
    def amount(self) -> Any:
        return self.generic + len(self.coloured)


def lands_of(cfg: Config, p: int) -> int:
    """How many lands player ``p`` owns: the most mana their pool can hold in a step."""
    return sum(1 for sl in cfg.slots if sl.owner == p and sl.card.produces)


def spends(cfg: Config, p: int, most: int) -> tuple[tuple[int, ...], ...]:
    """Every ``spend`` of player ``p`` for a generic amount of at most ``most``: how much of it
    each pool colour pays (CR 107.4b), summing to at most the amount and to what the player's
    lands can make.  One way, ``()``, without lands."""
    if not cfg.lands:
        return ((),)
    most = min(most, lands_of(cfg, p))
    return tuple(v for v in product(range(most + 1), repeat=len(cfg.pool_colours)) if sum(v) <= most)


def cost_conds(cfg: Config, p: int, cost: Callable[[State], Cost], spend: tuple[int, ...],
               amount: Cond) -> list[Cond]:
    """The conditions of paying ``cost`` (of a state) with ``spend``: ``amount``, the rule's own
    "enough mana" condition, and with lands, "the right colours" (CR 107.4a-b, 601.2h)."""
    if not cfg.lands:
        return [amount]
    return [amount, Cond("cost.colours", "601.2h", "the mana pool lacks the colours this payment needs "
                         "(a coloured symbol is paid with mana of its colour, CR 107.4a)",
                         lambda s: colours_suffice(cfg, s, p, cost(s), spend))]


def colours_suffice(cfg: Config, s: State, p: int, cost: Cost, spend: tuple[int, ...]) -> Any:
    """With lands: each colour's pool pays that colour's symbols and its share of the generic
    (``spend``), and colourless mana pays the rest of the generic (CR 107.4a-b)."""
    colours = cfg.pool_colours
    if any(c not in colours for c in cost.coloured):
        return False  # no land of the configuration adds that colour
    pools = [getattr(s, POOL_FIELDS[c])[p] for c in colours]
    rest = cost.generic - sum(spend)
    colourless = s.mana[p] - Sum(pools)
    return And(rest >= 0, rest <= colourless,
               *[pool >= cost.coloured.count(c) + n for c, pool, n in zip(colours, pools, spend, strict=True)])


def pay(cfg: Config, s: State, p: int, cost: Cost, spend: tuple[int, ...]) -> State:
    """CR 601.2h: the cost is paid; with lands, each colour's pool gives its symbols and its
    share of the generic (``spend``)."""
    s = s.replace(mana=put(s.mana, p, s.mana[p] - cost.amount))
    for c, n in zip(cfg.pool_colours, spend, strict=True):
        f = POOL_FIELDS[c]
        pool = getattr(s, f)
        s = s.replace(**{f: put(pool, p, pool[p] - cost.coloured.count(c) - n)})
    return s


def add_mana(cfg: Config, s: State, p: int, colour: str) -> State:
    """CR 106.4 / 605.1a: one mana of ``colour`` ("C": colourless) goes into ``p``'s pool."""
    s = s.replace(mana=put(s.mana, p, s.mana[p] + 1))
    if colour in POOL_FIELDS:
        f = POOL_FIELDS[colour]
        s = s.replace(**{f: put(getattr(s, f), p, getattr(s, f)[p] + 1)})
    return s


def empty_pools(cfg: Config, s: State) -> State:
    """CR 500.4: when a step or phase ends, unused mana empties from every pool (with lands;
    abstract mana stays until the next turn's refill; mutant clause "turns.pool-empties": the
    pools are kept)."""
    if not cfg.lands or not cfg.on("turns.pool-empties"):
        return s
    zero = (0,) * cfg.players
    return s.replace(mana=zero, **{f: zero for f in POOL_FIELDS.values()})


def pool_text(cfg: Config, s: State, p: int) -> str:
    """Player ``p``'s pool in mana symbols (``{U}{U}{R}``, colourless as ``{C}``), "" when
    empty or without lands: what a person reads where the model keeps counts."""
    if not cfg.lands:
        return ""
    coloured = {c: getattr(s, f)[p] for c, f in POOL_FIELDS.items()}
    colourless = s.mana[p] - sum(coloured.values())
    return "".join(f"{{{c}}}" * n for c, n in coloured.items()) + "{C}" * colourless


__all__ = ["pool_text", "Cost", "POOL_FIELDS", "spends", "cost_conds", "colours_suffice", "pay", "add_mana", "empty_pools",
           "lands_of"]
