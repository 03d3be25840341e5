"""Plot (CR 702.170): the special action, and what "plotted" means.

Plotted status is a designation of the exiled object with the turn it happened
(``State.plotted``): a new object after any zone change loses it (CR 400.7; :mod:`.zones`).
Casting a plotted card is in :mod:`.casting` (CR 702.170d).
"""

from __future__ import annotations

from typing import Any, Iterable

from .card_rules import card_rules
from .vocabulary import Action, Cond, Transition
from .common import acting, is_main_phase
from .cards import CardDef
from .config import Config
from .payment import Cost, cost_conds, pay, spends
from .logic import And, If, put
from .state import BATTLEFIELD, EXILE, HAND, LIBRARY, State
from .turns import after_action
from .zones import move_one


def plot_timing(cfg: Config, p: int) -> list[Cond]:
    """CR 702.170a: "any time you have priority during your main phase while the stack is
    empty".  The 116.2k variant reads "during their own turn while the stack is empty"."""
    cr = "116.2k" if cfg.variant == "116.2k" else "702.170a"  # the rule the refusal cites
    conds = [Cond("plot.own-turn", cr, "plot only during your own turn", lambda s: s.active == p)]
    if cfg.variant != "116.2k":
        conds.append(Cond("plot.main-phase", "702.170a", "plot only during your main phase",
                          lambda s: is_main_phase(s)))
    conds.append(Cond("plot.stack-empty", cr, "plot only while the stack is empty",
                      lambda s: s.stack_size == 0))
    return conds


def make_plotted(s: State, j: int, when: Any = True) -> State:
    """The card in slot ``j`` (now in exile) becomes plotted this turn (CR 702.170a, c), if
    ``when``: written once for the special action and every effect that plots a card."""
    if when is False:
        return s
    return s.replace(plotted=put(s.plotted, j, If(when, s.turn, s.plotted[j])))


def fblthp_plot_cost(cfg: Config, j: int) -> Cost:
    """Fblthp: the top card of your library has plot with plot cost equal to its mana cost
    (CR 709.4b: a split card's is both halves combined); a card that has its own plot may
    use the cheaper of the two plot abilities (CR 702.170f lets them work from there)."""
    card = cfg.slots[j].card
    mana_cost = Cost(sum(f.cost.generic for f in card.faces), "".join(f.cost.coloured for f in card.faces))
    own = plot_cost(card)
    return mana_cost if own is None or mana_cost.amount < own.amount else own


def plot_cost(card: CardDef) -> Cost | None:
    """The card's own plot cost (CR 702.170a), None if it has no plot."""
    m = card.plot_mana
    return None if m is None else Cost(m.generic, m.coloured)


def transitions(cfg: Config) -> Iterable[Transition]:
    # CR 702.170f: permanents that let their owner plot from the top of the library (Fblthp).
    fblthps = [k for k, sl in enumerate(cfg.slots) if card_rules(sl.card.name).plots_top_of_library]
    for j, sl in enumerate(cfg.slots):
        p, card = sl.owner, sl.card
        own = plot_cost(card)
        if own is not None:
            # CR 702.170a: plot works while the card is in its owner's hand.
            where = Cond("plot.in-hand", "702.170a", "the card is not in its owner's hand",
                         lambda s, j=j: s.zone[j] == HAND)
            yield from _plots(cfg, j, p, own, "hand", "702.170b", (where,))
        if fblthps and not card.is_("Land"):
            owned = tuple(k for k in fblthps if cfg.slots[k].owner == p)
            where_top = (
                # CR 702.170f: an effect lets plot work from the top of the library.
                Cond("plot.fblthp", "702.170f", "no Fblthp, Lost on the Range lets you plot from your library",
                     lambda s, owned=owned: _any_on_battlefield(s, owned)),
                Cond("plot.library-top", "702.170f", "the card is not the top card of your library",
                     lambda s, j=j: And(s.zone[j] == LIBRARY, s.pos[j] == 0)),
            )
            yield from _plots(cfg, j, p, fblthp_plot_cost(cfg, j), "library", "702.170f", where_top)


def _plots(cfg: Config, j: int, p: int, cost: Cost, source: str, cr: str,
           where: tuple[Cond, ...]) -> Iterable[Transition]:
    """The plot special action of card ``j`` from ``source``: one transition per way to pay."""
    amount = cost.amount
    enough = Cond("plot.cost", "702.170a", f"not enough mana to pay the plot cost ({amount})",
                  lambda s: s.mana[p] >= amount)
    for spend in spends(cfg, p, cost.generic):
        conds = (*acting(cfg, p), *where, *plot_timing(cfg, p),
                 *cost_conds(cfg, p, lambda s: cost, spend, enough))
        yield Transition(Action("plot", p, card=j, source=source, spend=spend), f"plot.{source}", cr, conds,
                         lambda s, spend=spend: _plot(cfg, s, j, p, cost, spend))


def _any_on_battlefield(s: State, slots: tuple[int, ...]) -> Any:
    from .logic import Or

    return Or(*[s.zone[k] == BATTLEFIELD for k in slots]) if slots else False


def _plot(cfg: Config, s: State, j: int, p: int, cost: Cost, spend: tuple[int, ...]) -> State:
    # CR 702.170b / 116.1: a special action; it doesn't use the stack.
    s = pay(cfg, s, p, cost, spend)
    s = move_one(cfg, s, j, EXILE)
    s = make_plotted(s, j)
    # CR 116.3: the player who took a special action receives priority again.
    return after_action(cfg, s, p)
