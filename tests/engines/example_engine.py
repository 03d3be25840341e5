#!/usr/bin/env python3
"""An example rules engine speaking mtgcheck's engine protocol, ``mtgcheck.engine/1``.

It reads one JSON request per line on stdin and writes one JSON reply per line on stdout
(docs/engine-protocol.md), and imports nothing from mtgcheck: any program can be validated
with ``mtgcheck validate --engine "cmd:COMMAND"``.  Its ``hello`` declares a narrow scope,
so the harness only sends positions inside it; any other setup is refused (``unsupported``):

* 2 players; no Planechase, no player who left, no extra turns; no player owning more than
  seven cards (so the cleanup step's discard to hand size, CR 514.1, never happens here);
* Slickshot Show-Off (a creature with plot; its trigger on a noncreature spell goes on the
  stack), Test Plotted Shock (an instant with plot), Test Plotted Fireball (a sorcery with plot
  and {X}, X up to 2), Lightning Bolt, and the basic lands (never cast, they only sit where they are);
* the verbs pass, plot and cast; cast normally (paying the mana cost) or plotted (free).

Mana is the protocol's abstract amount: a player gets ``setup.mana[p]`` at the start of each
of their turns, and pays a cost by subtracting the card's mana value.

``--broken[=BUG]`` breaks one rule on purpose (repeatable): ``plotted-same-turn`` (the default)
a plotted card may be cast on the turn it became plotted (CR 702.170d: only on a later turn);
``plot-timing`` plotting ignores sorcery timing (CR 702.170a); ``x-free`` X may be above 0 on a
plotted (free) cast (CR 107.3b); ``cast-how`` a card may be "cast plotted" from the hand
(CR 702.170d: only a plotted card in exile); ``no-lose`` a player at 0 life stays in the game
(CR 704.5a); ``draw-bottom`` the draw of the turn takes the bottom card of the library (CR 121.1:
the top card), which only a game whose library holds two cards or more shows.  ``--no-list`` says ``lists_actions: false`` (the harness then compares only the
answers of ``apply``).  ``--log FILE`` appends each exchange to FILE as one JSON object
``{"request": ..., "reply": ...}`` per line.

``deal`` (docs/engine-deals.md) is how an engine that cannot be set up starts a game: the
request gives decks, the engine shuffles (here with the request's ``seed``, so that a deal
replays) and deals ``hand`` cards to each player, and replies the position it dealt.
``--hide-library`` plays an engine whose libraries are hidden (as Forge's are): the libraries
it plays are shuffled again after the deal, in an order the reply does not show, and the reply
says ``"hidden_libraries": true`` (the harness then follows its draws, docs/engine-deals.md).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

PROTOCOL = "mtgcheck.engine/1"
STEPS = ("beginning", "main1", "combat", "main2", "end")
PUMP = "ability:show-off-pump"
MAX_HAND_SIZE = 7  # CR 402.2


@dataclass(frozen=True)
class CardDef:
    """What the rules read of a card; a card with no ``cost`` is a land and is never cast."""

    cost: int | None = None  # mana value
    plot: int | None = None  # plot cost
    damage: int = 0  # damage dealt to its one target ("any target"); 0: no target
    creature: bool = False
    toughness: int = 0
    instant: bool = False
    x: bool = False  # {X} in its cost: it deals X damage


LAND = CardDef()
CARDS = {"Slickshot Show-Off": CardDef(cost=2, plot=2, creature=True, toughness=2),
         "Test Plotted Shock": CardDef(cost=2, plot=1, damage=2, instant=True),
         "Test Plotted Fireball": CardDef(cost=1, plot=1, damage=1, x=True),
         "Lightning Bolt": CardDef(cost=1, damage=3, instant=True),
         **{land: LAND for land in ("Forest", "Island", "Mountain", "Plains", "Swamp")}}
SUPPORTS = {"cards": sorted(CARDS), "planes": [], "verbs": ["pass", "plot", "cast"], "hows": ["normal", "plotted"],
            "observe": ["zones", "plotted", "turn", "active", "step", "priority", "stack", "life", "mana",
                        "in_game", "game_over"], "players": [2], "max_x": 2, "lists_actions": True}
BUGS = ("plotted-same-turn", "plot-timing", "x-free", "cast-how", "no-lose", "draw-bottom")


@dataclass
class Card:
    """A card and the object it currently is: each zone change makes a new object (CR 400.7)."""

    id: str
    name: str
    owner: int
    zone: str
    plotted: int = 0  # the turn it became plotted; 0: not plotted
    damage: int = 0
    obj: int = 0
    target: str | None = None
    target_obj: int = 0
    x: int = 0


class Unsupported(Exception):
    """A setup outside the declared scope: skipped by the harness, not a divergence."""


class Game:
    """One game, from a protocol ``setup`` object (the active player has priority)."""

    def __init__(self, setup: dict[str, Any], broken: frozenset[str]) -> None:
        if setup["players"] != 2 or setup.get("planechase") or setup.get("left") or setup.get("extra_turns"):
            raise Unsupported("only 2 players, without Planechase, left players or extra turns")
        if any(sum(c["owner"] == p for c in setup["cards"]) > MAX_HAND_SIZE for p in range(setup["players"])):
            raise Unsupported(f"a player owns more than {MAX_HAND_SIZE} cards (no cleanup discard, CR 514.1)")
        unknown = sorted({c["card"] for c in setup["cards"]} - set(CARDS))
        if unknown:
            raise Unsupported(f"cards not implemented: {', '.join(unknown)}")
        self.broken, self.n = broken, 2
        self.turn, self.active, self.step = setup["turn"], setup["active"], setup["step"]
        self.priority, self.passes, self.game_over = self.active, 0, False
        self.life = list(setup.get("life", [20] * self.n))
        self.mana_per_turn = list(setup.get("mana", [0] * self.n))
        self.mana = list(self.mana_per_turn)
        self.in_game, self.drew_empty = [True] * self.n, [False] * self.n
        self.cards = {c["id"]: Card(c["id"], c["card"], c["owner"], c["zone"], c.get("plotted_turn", 0), obj=i)
                      for i, c in enumerate(setup["cards"])}
        self.next_obj = len(self.cards)
        self.library = [[c.id for c in self.cards.values() if c.zone == "library" and c.owner == p]
                        for p in range(self.n)]  # top card first
        self.stack: list[tuple[str, int]] = []  # bottom first: (card id or ability, controller)

    # -- who acts ----------------------------------------------------------------------
    def next_in_game(self, p: int, include_self: bool = False) -> int:
        """The next player in turn order still in the game (``p`` if nobody else is)."""
        for k in range(0 if include_self else 1, self.n):
            if self.in_game[(p + k) % self.n]:
                return (p + k) % self.n
        return p

    def give_priority_to_active(self) -> None:
        # CR 117.3b: after a resolution or a new step, the active player receives priority.
        self.priority, self.passes = self.next_in_game(self.active, include_self=True), 0

    # -- which actions exist, and which are legal now ---------------------------------------
    def candidates(self) -> Iterator[dict[str, Any]]:
        """Every action this game could ever offer (each checked by :meth:`why_not`)."""
        for p in range(self.n):
            yield {"player": p, "do": "pass"}
        for c in self.cards.values():
            d = CARDS[c.name]
            if d.plot is not None:
                yield {"player": c.owner, "do": "plot", "card": c.id}  # from the hand (the default)
            if d.cost is None:
                continue
            targets = [[]] if not d.damage else [[f"player:{q}"] for q in range(self.n)] + \
                [[k.id] for k in self.cards.values() if CARDS[k.name].creature and k.id != c.id]
            for how in ("normal", "plotted"):
                for x in range(SUPPORTS["max_x"] + 1) if d.x else (0,):
                    for t in targets:
                        yield {"player": c.owner, "do": "cast", "card": c.id, "how": how, **({"x": x} if x else {}),
                               **({"targets": t} if t else {})}

    def timing(self, p: int, rule: str) -> list[tuple[bool, str]]:
        """Sorcery timing: own turn, own main phase, empty stack (priority is checked first)."""
        return [(self.active == p, f"only during your own turn ({rule})"),
                (self.step in ("main1", "main2"), f"only during your main phase ({rule})"),
                (not self.stack, f"only while the stack is empty ({rule})")]

    def why_not(self, a: dict[str, Any]) -> str | None:
        """None if the candidate action ``a`` is legal now, else why not."""
        p = a["player"]
        if self.game_over:
            return "the game is over (CR 104.2a)"
        if self.priority != p:
            return f"player {p} does not have priority (CR 117.1)"
        if a["do"] == "pass":
            return None
        c = self.cards[a["card"]]
        d = CARDS[c.name]
        if a["do"] == "plot":  # CR 702.170a: from your hand, paying the plot cost
            checks = [(c.zone == "hand", "the card is not in your hand (CR 702.170a)"),
                      *([] if "plot-timing" in self.broken else self.timing(p, "CR 702.170a")),
                      (self.mana[p] >= d.plot, "not enough mana for the plot cost")]
        elif a["how"] == "normal":
            checks = [(c.zone == "hand", "the card is not in your hand (CR 601.2a)"),
                      *([] if d.instant else self.timing(p, "CR 307.1")),
                      (self.mana[p] >= d.cost + a.get("x", 0), "not enough mana (CR 601.2g)")]
        else:  # CR 702.170d: a plotted card, on a later turn, at sorcery speed, for free
            checks = [((c.zone == "exile" and c.plotted > 0) or ("cast-how" in self.broken and c.zone == "hand"),
                       "the card is not a plotted card in exile (CR 702.170d)"),
                      (c.plotted < self.turn or "plotted-same-turn" in self.broken, "plotted this turn (CR 702.170d)"),
                      (a.get("x", 0) == 0 or "x-free" in self.broken,
                       "X must be 0 when the spell is cast without paying its mana cost (CR 107.3b)"),
                      *self.timing(p, "CR 702.170d")]
        t = a.get("targets", [None])[0]
        checks.append((t is None or self.targetable(t), "not a legal target (CR 601.2c)"))
        return next((why for ok, why in checks if not ok), None)

    def targetable(self, t: str) -> bool:
        if t.startswith("player:"):
            return self.in_game[int(t[7:])]
        return self.cards[t].zone == "battlefield"

    def actions(self) -> list[dict[str, Any]]:
        return [a for a in self.candidates() if self.why_not(a) is None]

    def canonical(self, a: dict[str, Any]) -> str:
        """An action with its defaults filled in and its keys sorted, to compare requests."""
        a = {k: v for k, v in a.items() if (k, v) not in (("x", 0), ("kicker", False), ("targets", []))}
        if a.get("do") == "plot" and a.get("card") in self.cards:  # from: where the card is
            a.setdefault("from", "library" if self.cards[a["card"]].zone == "library" else "hand")
        return json.dumps(a, sort_keys=True)

    # -- doing it --------------------------------------------------------------------------
    def apply(self, request: dict[str, Any]) -> dict[str, Any]:
        key = self.canonical(request)
        a = next((c for c in self.candidates() if self.canonical(c) == key), None)
        why = "no such action in this game" if a is None else self.why_not(a)
        if a is None or why is not None:
            return {"legal": False, "reason": why}  # an illegal action changes nothing
        {"pass": self.pass_priority, "plot": self.plot, "cast": self.cast}[a["do"]](a)
        self.state_based_actions()
        return {"legal": True}

    def pass_priority(self, a: dict[str, Any]) -> None:
        if self.passes + 1 < sum(self.in_game):  # CR 117.3d: the next player receives priority
            self.priority, self.passes = self.next_in_game(a["player"]), self.passes + 1
        elif self.stack:  # CR 117.4: all passed in succession: the top of the stack resolves
            self.resolve_top()
        elif self.step != "end":  # CR 117.4, 500.2: with an empty stack, the step ends
            self.step = STEPS[STEPS.index(self.step) + 1]
            self.give_priority_to_active()
        else:
            self.next_turn()

    def plot(self, a: dict[str, Any]) -> None:
        # CR 116.1: a special action, it doesn't use the stack; CR 116.3: the player keeps priority.
        c = self.cards[a["card"]]
        self.mana[c.owner] -= CARDS[c.name].plot or 0
        self.move(c, "exile")
        c.plotted, self.passes = self.turn, 0

    def cast(self, a: dict[str, Any]) -> None:
        c, p = self.cards[a["card"]], a["player"]
        d = CARDS[c.name]
        x = a.get("x", 0)
        self.mana[p] -= (d.cost or 0) + x if a["how"] == "normal" else 0  # CR 702.170d: plotted is free
        t = a.get("targets", [None])[0]
        self.move(c, "stack")  # CR 601.2a
        c.x = x
        c.target, c.target_obj = t, self.cards[t].obj if t in self.cards else 0
        if not d.creature:  # CR 603.3: Show-Off's trigger goes on the stack, once per Show-Off
            self.stack += [(PUMP, p) for k in self.cards.values()
                           if k.name == "Slickshot Show-Off" and k.owner == p and k.zone == "battlefield"]
        self.passes = 0  # CR 117.3c: the caster receives priority again

    def resolve_top(self) -> None:
        name, _ = self.stack.pop()
        c = self.cards.get(name)  # None: Show-Off's +2/+0, which changes nothing observed here
        if c is not None and CARDS[c.name].creature:
            self.move(c, "battlefield")  # CR 608.3: a permanent spell enters the battlefield
        elif c is not None:
            t = c.target
            damage = c.x if CARDS[c.name].x else CARDS[c.name].damage
            if t is not None and t.startswith("player:") and self.in_game[int(t[7:])]:
                self.life[int(t[7:])] -= damage
            elif t in self.cards and self.cards[t].zone == "battlefield" and self.cards[t].obj == c.target_obj:
                self.cards[t].damage += damage
            # CR 608.2b: with its target gone it doesn't resolve; either way it ends in the graveyard.
            self.move(c, "graveyard")
        self.give_priority_to_active()

    def next_turn(self) -> None:
        for c in self.cards.values():
            c.damage = 0  # CR 514.2: damage wears off in the cleanup step
        self.turn, self.active = self.turn + 1, self.next_in_game(self.active)
        self.step, self.priority, self.passes = "beginning", self.active, 0
        self.mana[self.active] = self.mana_per_turn[self.active]
        lib = self.library[self.active]  # CR 504.1: the active player draws a card
        if lib:
            self.move(self.cards[lib[-1] if "draw-bottom" in self.broken else lib[0]], "hand")
        else:
            self.drew_empty[self.active] = True

    def move(self, c: Card, zone: str) -> None:
        """Move a card; it becomes a new object that is not plotted, damaged or targeting (CR 400.7)."""
        if c.zone == "library":
            self.library[c.owner].remove(c.id)
        self.stack = [e for e in self.stack if e[0] != c.id]
        if zone == "stack":
            self.stack.append((c.id, c.owner))
        self.next_obj += 1
        c.zone, c.obj, c.plotted, c.damage, c.target, c.x = zone, self.next_obj, 0, 0, None, 0

    def state_based_actions(self) -> None:
        for c in self.cards.values():  # CR 704.5g: lethal damage destroys a creature
            if c.zone == "battlefield" and CARDS[c.name].creature and c.damage >= CARDS[c.name].toughness:
                self.move(c, "graveyard")
        # CR 704.5a, 704.5b: a player at 0 life, or who drew from an empty library, loses.
        lost = [p for p in range(self.n) if self.in_game[p] and (self.drew_empty[p] or
                                                                 (self.life[p] <= 0 and "no-lose" not in self.broken))]
        for p in lost:
            self.in_game[p] = False  # CR 800.4a: they leave with their cards and abilities
            for c in self.cards.values():
                if c.owner == p and c.zone != "outside":
                    self.move(c, "outside")
            self.stack = [e for e in self.stack if e[1] != p]
            self.priority = self.next_in_game(p) if self.priority == p else self.priority
            self.passes = 0
        self.game_over = self.game_over or sum(self.in_game) <= 1  # CR 104.2a

    def observe(self) -> dict[str, Any]:
        return {"zones": {c.id: c.zone for c in self.cards.values()},
                "plotted": sorted(c.id for c in self.cards.values() if c.plotted),
                "turn": self.turn, "active": self.active, "step": self.step, "priority": self.priority,
                "stack": [name for name, _ in self.stack], "life": list(self.life), "mana": list(self.mana),
                "in_game": [p for p in range(self.n) if self.in_game[p]], "game_over": self.game_over}


def deal(request: dict[str, Any]) -> dict[str, Any]:
    """Shuffle each deck and deal ``hand`` cards from its top: the position, as a setup (libraries top first)."""
    rnd = random.Random(request.get("seed"))
    cards = []
    for p, deck in enumerate(request["decks"]):
        order = list(deck)
        rnd.shuffle(order)
        hand = int(request.get("hand", 2))
        cards += [{"id": f"p{p}c{i}", "card": name, "owner": p, "zone": "hand" if i < hand else "library"}
                  for i, name in enumerate(order)]
    n = len(request["decks"])
    return {"players": n, "turn": 1, "active": 0, "step": "main1", "mana": list(request.get("mana", [3] * n)),
            "cards": cards}


def answer(request: dict[str, Any], state: dict[str, Any], broken: frozenset[str] = frozenset(),
           lists: bool = True, hide: bool = False) -> dict[str, Any]:
    """The reply to one request; ``state["game"]`` holds the game set up last."""
    op = request.get("op")
    if op == "hello" and request.get("protocol") != PROTOCOL:
        return {"ok": False, "error": f"this engine speaks {PROTOCOL} only"}
    if op == "hello":
        name = ("example" if not broken else "example-broken" if broken == {"plotted-same-turn"}
                else "example-broken-" + "+".join(sorted(broken)))
        return {"ok": True, "name": name, "version": "1.0", "supports": {**SUPPORTS, "lists_actions": lists}}
    if op == "setup":
        try:
            state["game"] = Game(request["setup"], broken)
        except Unsupported as exc:
            return {"ok": False, "unsupported": True, "error": str(exc)}
        return {"ok": True}
    if op == "deal":
        setup = deal(request)
        try:
            state["game"] = game = Game(setup, broken)
        except Unsupported as exc:
            return {"ok": False, "error": str(exc)}
        if not hide:
            return {"ok": True, "setup": setup}
        rnd = random.Random(f"hidden {request.get('seed')}")
        for lib in game.library:
            rnd.shuffle(lib)  # the order it plays is not the one it showed
        return {"ok": True, "setup": setup, "hidden_libraries": True}
    if op == "quit":
        return {"ok": True}
    game = state.get("game")
    if game is None or op not in ("actions", "apply", "observe"):
        return {"ok": False, "error": f"unexpected request {op!r}" + (" before setup" if game is None else "")}
    if op == "actions":
        return {"ok": True, "actions": game.actions()}
    if op == "apply":
        return {"ok": True, **game.apply(request["action"])}
    return {"ok": True, "observation": game.observe()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--broken", nargs="?", const="plotted-same-turn", action="append", choices=BUGS, default=[],
                        help="break one rule on purpose (repeatable; default: plotted-same-turn)")
    parser.add_argument("--no-list", action="store_true", help="say lists_actions: false")
    parser.add_argument("--hide-library", action="store_true",
                        help="play libraries in an order the deal does not show (hidden_libraries)")
    parser.add_argument("--log", help="append every request and its reply to this file")
    args = parser.parse_args(argv)
    state: dict[str, Any] = {}
    for line in sys.stdin:
        if not line.strip():
            continue
        request: Any = line.rstrip("\n")
        try:
            request = json.loads(line)
            reply = answer(request, state, frozenset(args.broken), not args.no_list, args.hide_library)
        except Exception as exc:  # noqa: BLE001 - a bad request or a bug: answer, the harness reports it
            reply = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        if args.log:  # before replying, so that the log is complete once the reply is read
            with open(args.log, "a", encoding="utf-8") as log:
                log.write(json.dumps({"request": request, "reply": reply}) + "\n")
        print(json.dumps(reply), flush=True)
        if isinstance(request, dict) and request.get("op") == "quit":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
