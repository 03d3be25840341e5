"""Hidden draws as observations, for an engine that hides its libraries' order (Forge).

The harness knows the decks, so it knows which cards a library holds, not their order: the
order of a dealt setup is a guess, and "the model accepts any card the library could hold,
then follows the engine's" (docs/engine-deals.md).  Apart from mtgcheck.validate, which calls
it, so that the two do not import one another.
"""

from __future__ import annotations

from typing import Any, Protocol

from mtgcheck.divergence import Divergence
from mtgcheck.model.actions import Action, enabled_transition
from mtgcheck.model.config import Config
from mtgcheck.model.state import LIBRARY, State
from mtgcheck.scenario_run import describe


class Comparer(Protocol):
    """What follow_draws needs of mtgcheck.validate.Driver: its last observation and its comparison."""

    seen: dict[str, Any]

    def _compare(self, cfg: Config, s: State, i: int,
                 after: tuple[str, State, Any, Action] | None) -> Divergence | None: ...


def drawn_instead(cfg: Config, start: State, before: State, after: State,
                  engine_zones: dict[str, Any]) -> list[tuple[int, int]]:
    """The library cards the engine drew in a step where the rules drew others: pairs (the
    card the model drew, the card the engine shows drawn), both of one owner's library.

    Sound by construction: a pair is only made of two cards of the same owner, both in that
    library before the step (and since the deal: the same objects, CR 400.7), the first drawn
    under the rules and still in the library in the engine, the second still in the library
    under the rules and out of it in the engine.  Any other difference stays a divergence.
    """
    ids = [sl.id for sl in cfg.slots]
    pairs = []
    for p in range(cfg.players):
        mine = [j for j, sl in enumerate(cfg.slots) if sl.owner == p and before.zone[j] == LIBRARY
                and before.oid[j] == start.oid[j]]
        drew = [j for j in mine if after.zone[j] != LIBRARY and engine_zones.get(ids[j]) == "library"]
        shown = [k for k in mine if after.zone[k] == LIBRARY and engine_zones.get(ids[k]) not in (None, "library")]
        key = lambda j: before.pos[j]  # noqa: E731 - top first
        pairs += list(zip(sorted(drew, key=key), sorted(shown, key=key), strict=False))  # the fewer of the two
    return pairs


def shown_on_top(cfg: Config, start: State, before: State, shown: dict[str, Any]) -> list[tuple[int, int]]:
    """The swaps that put the cards an engine showed on top of a library (``library_top``:
    player -> card ids, the cards an effect looked at, Make Your Own Luck's three) on top of
    the model's before the step: pairs (a card on the model's top that the engine did not
    show, a shown card lower in the model's library).  Sound as :func:`drawn_instead`: both
    of one owner's library, both there since the deal; a shown card the model has elsewhere
    makes no pair (the step's comparison then says what differs)."""
    index = {sl.id: j for j, sl in enumerate(cfg.slots)}
    pairs = []
    for p_key, ids in shown.items():
        if not isinstance(ids, list) or not str(p_key).isdigit():
            continue
        p = int(p_key)
        lib = sorted((j for j, sl in enumerate(cfg.slots) if sl.owner == p and before.zone[j] == LIBRARY),
                     key=lambda j: before.pos[j])
        ks = [index.get(c) for c in ids]
        if any(k is None or k not in lib for k in ks) or any(before.oid[j] != start.oid[j] for j in lib):
            continue
        top = lib[:len(ks)]
        pairs += list(zip([j for j in top if j not in ks], [k for k in ks if k not in top], strict=True))
    return pairs


def follow_look(driver: Comparer, cfg: Config, start: State, before: State, after: State, a: Action, i: int,
                setup: dict[str, Any], div: Divergence | None) -> tuple[State, Divergence | None, dict[str, Any]]:
    """A look at a hidden library as an observation: when the engine says which cards an
    effect of the step ``a`` looked at (``library_top``) and the model's guessed order has
    others on top, those cards go on top of the model's library before the step, and the step
    is taken again under the rules and compared again (as :func:`follow_draws` does)."""
    pairs = shown_on_top(cfg, start, before, driver.seen.get("library_top") or {})
    again = _retaken(driver, cfg, before, pairs, a, i)
    if again is None:
        return after, div, setup
    return again[1], again[2], swap_setup(cfg, setup, pairs)


def follow_draws(driver: Comparer, cfg: Config, start: State, before: State, after: State, a: Action,
                 setup: dict[str, Any], div: Divergence) -> tuple[State, Divergence | None, dict[str, Any]]:
    """A hidden draw as an observation: "the model accepts any card the library could hold,
    then follows the engine's".  When the engine drew other cards of a library than the rules
    did in the step ``a`` that ended in ``div`` (:func:`drawn_instead`), the cards swap places
    in the model's library before the step, the step is taken again under the rules and
    compared again.  Returns the state after the step, the divergence left (None: none) and
    the setup with the swapped library order (the stored counterexample replays it)."""
    for _ in range(cfg.n):
        pairs = drawn_instead(cfg, start, before, after, driver.seen.get("zones") or {})
        again = _retaken(driver, cfg, before, pairs, a, div.step)
        if again is None:
            break
        (before, after, div_or_none), setup = again, swap_setup(cfg, setup, pairs)
        if div_or_none is None or div_or_none.kind != "observation":
            return after, div_or_none, setup
        div = div_or_none
    return after, div, setup


def _retaken(driver: Comparer, cfg: Config, before: State, pairs: list[tuple[int, int]], a: Action,
             i: int) -> tuple[State, State, Divergence | None] | None:
    """The step ``a`` (number ``i``) taken again under the rules with the library cards of
    ``pairs`` swapped before it, and compared again: (the state before, after, the divergence
    or None); None when there is nothing to swap or the step is not legal then."""
    moved = swap(before, pairs)
    t = enabled_transition(cfg, moved, a) if pairs else None
    if t is None:
        return None
    after = t.effect(moved)
    return moved, after, driver._compare(cfg, after, i, (describe(cfg, a), moved, t, a))


def swap(s: State, pairs: list[tuple[int, int]]) -> State:
    """The state with each pair's library positions exchanged."""
    pos = list(s.pos)
    for j, k in pairs:
        pos[j], pos[k] = pos[k], pos[j]
    return s.replace(pos=tuple(pos))


def swap_setup(cfg: Config, setup: dict[str, Any], pairs: list[tuple[int, int]]) -> dict[str, Any]:
    """The setup with each pair's entries exchanged: their library order, as :func:`swap` has it."""
    cards = list(setup["cards"])
    where = {c["id"]: n for n, c in enumerate(cards)}
    for j, k in pairs:
        a, b = where[cfg.slots[j].id], where[cfg.slots[k].id]
        cards[a], cards[b] = cards[b], cards[a]
    return {**setup, "cards": cards}


__all__ = ["LIBRARY", "Comparer", "drawn_instead", "follow_draws", "follow_look", "shown_on_top", "swap", "swap_setup"]
