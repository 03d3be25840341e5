"""``validate --engine-deals``: games the engine deals, for engines that cannot be set up (Forge).

The harness gives each player a deck drawn from the cards the engine declared; the engine
shuffles and deals and answers with the position it dealt, as a scenario ``setup``
(``{"op": "deal", "decks": [[name, ...], ...], "seed": N, "hand": H, "mana": [m, ...]}`` ->
``{"ok": true, "setup": SETUP}``, with ``"hidden_libraries": true`` when the engine does not
show its libraries' order: then the setup's order is a guess, and each draw an observation,
:func:`mtgcheck.hidden_draws.follow_draws`).  The model starts from that position and the game is
played as ``validate`` plays any other (:meth:`mtgcheck.validate.Driver.play`, without a
``setup`` request): legality, listed actions and positions are compared at every step.  A
divergence is stored with the deal as its setup, so that it replays on the rules with
``mtgcheck scenario``.  What this mode can and cannot find: docs/engine-deals.md.
"""

from __future__ import annotations

import random
import time
from typing import Any, Callable

from mtgcheck.engines.base import EngineError, EngineRefused
from mtgcheck.engines.pipe import PipeEngine
from mtgcheck.errors import MtgcheckError
from mtgcheck.model.actions import Action
from mtgcheck.model.config import Config
from mtgcheck.model.state import State
from mtgcheck.validate import Driver, Report

#: Cards per deck and dealt to each hand: small enough for the model's card slots.
DECK, HAND = 5, 2


def decks_for(cards: list[str], players: int, rnd: random.Random) -> list[list[str]]:
    """One deck per player, drawn with repetition from the engine's cards (each copy a card of its own)."""
    return [[rnd.choice(cards) for _ in range(DECK)] for _ in range(players)]


def ask_deal(driver: Driver, decks: list[list[str]], seed: int, mana: list[int]) -> tuple[dict[str, Any], bool]:
    """The engine's deal: the position it shows, as a setup, and whether its libraries' order
    is hidden (raises EngineError on a bad reply)."""
    engine = driver.engine
    if not isinstance(engine, PipeEngine):
        raise MtgcheckError(f"--engine-deals: expected an engine speaking JSON lines (cmd:... or forge), "
                            f"got --engine {driver.spec}")
    reply = engine.call({"op": "deal", "decks": decks, "seed": seed, "hand": HAND, "mana": mana})
    setup, hidden = reply.get("setup"), reply.get("hidden_libraries", False)
    if not isinstance(setup, dict) or not isinstance(setup.get("cards"), list):
        raise EngineError("protocol", f"deal reply: setup: expected a setup object, got {setup!r:.60}")
    if not isinstance(hidden, bool):
        raise EngineError("protocol", f"deal reply: hidden_libraries: expected a boolean, got {hidden!r:.60}")
    return setup, hidden


def run(spec: str, *, budget: int, seed: int, store_dir: str | None, call_timeout: float = 10.0,
        max_steps: int = 30, progress: Callable[[str], None] | None = None, follow: bool = True) -> Report:
    """``budget`` dealt games; each distinct divergence is reported (and stored) once, with its deal.
    ``follow``: follow the draws of an engine that hides its libraries (off only to show what
    comparing them against a guessed order would report)."""
    t0 = time.monotonic()
    driver = Driver(spec, call_timeout=call_timeout, max_steps=max_steps)
    rep = Report(driver.info.name, driver.info.version, seed, budget)
    rnd = random.Random(seed)
    cards = sorted(driver.support.cards)
    players = min(driver.support.players)
    first: dict[tuple[str, str, str], Any] = {}
    try:
        for g in range(budget):
            deal_seed = rnd.randrange(2**32)
            try:
                setup, hidden = ask_deal(driver, decks_for(cards, players, rnd), deal_seed, [3] * players)
            except EngineError as exc:
                rep.refused += 1
                driver.restart()
                if progress:
                    progress(f"deal {g}: the engine could not deal ({exc.kind}: {exc})")
                continue
            length = rnd.randint(max(1, max_steps // 2), max_steps)
            choices = random.Random(rnd.random())

            def choose(i: int, cfg: Config, s: State, legal: list[Action], choices: random.Random = choices,
                       length: int = length) -> Action | None:
                staying = [a for a in legal if a.verb != "leave"]
                if i >= length or not staying:
                    return None
                new = driver.unfired(cfg, s, staying) if choices.randrange(2) == 0 else []
                return choices.choice(new or staying)

            try:
                tr = driver.play(setup, choose, source=f"dealt (seed {seed}, deal seed {deal_seed})", dealt=True,
                                 follow_draws=hidden and follow, probe=random.Random(deal_seed))
            except EngineRefused:
                rep.refused += 1
                continue
            rep.traces += 1
            rep.sources["dealt"] = rep.sources.get("dealt", 0) + 1
            d = tr.divergence
            if d is None:
                continue
            rep.diverged += 1
            key = d.key()
            n, shortest = rep.seen.get(key, (0, len(tr.actions)))
            rep.seen[key] = (n + 1, min(shortest, len(tr.actions)))
            if key not in first or len(tr.actions) < len(first[key].actions):
                first[key] = tr
        for _key, tr in sorted(first.items()):
            rep.keep(driver.info, tr, store_dir)
    finally:
        rep.steps = driver.steps
        rep.restarts = driver.restarts
        driver.close()
        rep.seconds = time.monotonic() - t0
    return rep


__all__ = ["DECK", "HAND", "ask_deal", "decks_for", "run"]
