"""The phase.rs rules engine (through phase-python) behind the engine interface (``--engine phase``).

phase is driven in the scenario vocabulary so that every divergence it shows is a scenario
file.  What this adapter does, and why:

Card data
    phase builds its card faces from MTGJSON atomic records (``phase.build_oracle_face``) and
    loads them as a ``card-data.json`` object (``Engine.from_json``).  The faces are built at
    run time from our own records (``mtgcheck/data/cards.json``): the MTGJSON fields our
    records leave out are derived from the ones they have (colours from the mana cost, sub-
    and supertypes from the type line, the mana value), a text that only restates the
    keywords (``"Flying."``) is dropped (the keywords come from the ``keywords`` list), and
    phase reads keyword costs from the Oracle text, so ``Kicker {cost}``, ``Plot {cost}`` and
    ``Flashback {cost}`` (``Flashback—{cost}, Pay N life.``) lines are written from the
    record's ``kicker``, ``plot``, ``flashback`` and ``flashbackLife`` fields (a restatement
    inside the record's text is cut off first).  Nothing is copied from phase's own card data.

Supported scope
    Only cards whose life in our vocabulary the adapter can map are declared (``SCOPE``), and
    of those only the ones whose face phase builds without an ``Unimplemented`` effect.
    Today: Slickshot Show-Off (plot, cast plotted, its +2/+0 trigger), Lightning Bolt,
    Counterspell, Remand, Ornithopter; printed flashback (Think Twice, Faithless Looting,
    Deep Analysis with its 3 life, Ancient Grudge, Past in Flames), flashback granted at
    the mana cost (Snapcaster Mage, Past in Flames), X (Blaze, X up to 3 as in the model),
    kicker (Burst Lightning), choices (Faithless Looting's discard, Make Your Own Luck's
    card, Snapcaster Mage's target); the basic lands outside the battlefield.  Two to four
    players (phase's FreeForAll format above two); players who already left are made to
    concede after the position is loaded.

Stays out (not declared, positions with them refused)
    Planechase: phase 0.103 has no planes, planar deck or planar die.
    Extra turns: no card of the scope gives one, and a position can't hand phase a queue.
    Memory Deluge: the model simplifies it to "draw two"; phase digs X cards (a model choice).
    Fire // Ice: split halves need phase's multi-face build, and Fire divides its damage.
    Omniscience (casting ``free``), Village Rites, Bone Splinters (a sacrifice as additional
    cost): phase builds them, the adapter does not yet answer their cost prompts.
    Aven Interrupter, Lilah, Fblthp, the test cards: phase builds them with ``Unimplemented`` parts.

Mana
    Our model's mana is an abstract amount per player that refills at the start of its
    player's turn (``setup.mana``).  phase needs real mana, so each player gets that many
    untapped lands of their own on the battlefield, outside our cards (never observed), each
    tapping for one mana of any colour (``MANA_SOURCE``, a face built from our own record):
    N such lands pay exactly the costs of amount at most N whatever their colours, and they
    untap in their controller's untap step, the same refill.  phase pays costs itself
    (``payment_mode: Auto``), life too.  A land of ours on the battlefield would be mana in
    phase but not in the model, so such positions are refused.

Turn structure
    Our steps are coarser than phase's: ``beginning`` is phase's upkeep and draw steps,
    ``combat`` its beginning-of-combat to end-of-combat steps, ``end`` its end and cleanup
    steps.  A position is set up in the step where our model stands (``draw`` for
    ``beginning``: the draw has happened; ``BeginCombat`` for ``combat``).  When phase
    enters one of its other steps with an empty stack, the adapter passes priority for
    whoever holds it until phase reaches the step that stands for ours, and declares no
    attackers (our model has no attacks).  So one round of passes ends one of our steps.
    The cleanup step's discard to hand size (CR 514.1) is not mapped: positions where a
    player could hold more than seven cards are refused.

Observation
    zones, plotted, turn, active, step, stack, life, priority, in_game, game_over.  A card
    is tracked by phase's ``card_id`` (the physical card), not by its object id, which phase
    may renumber when the card changes zones.  A card is plotted when it is in exile with
    phase's ``Plotted`` casting permission.  A player who lost is eliminated in phase, which
    exiles what they owned; we report those cards ``outside`` (CR 800.4a).  Triggered
    abilities on the stack are named by their source (``ability:show-off-pump``,
    ``ability:snapcaster-grant``).  While a spell's choice is asked, phase has already put
    the spell into its graveyard (exile with flashback); CR 608.2n makes that the last step
    of the resolution, as in the model, so the adapter reports it on top of the stack until
    the choice is made (the divergence is kept as a strict xfail test, not hidden); no player
    has priority then, and the model keeps it with the player whose pass resolved the spell.

Actions
    phase's legal actions are mapped back (``PassPriority`` -> pass; ``ActivateAbility`` of a
    card's plot ability from the hand -> plot; ``CastSpell`` from the hand -> cast normal,
    from the graveyard -> cast flashback, from exile with the plotted permission -> cast
    plotted); land plays, mana abilities and attacks have no counterpart and are not listed.
    ``leave`` is phase's ``Concede``, which phase accepts from any player in the game at any
    time and by design leaves out of its list of legal actions: the adapter lists it for
    every player still in the game.  phase lists a spell before its targets, X and kicker,
    so each listed cast is tried on a snapshot: every sequence of answers phase then offers
    and accepts (``ChooseTarget``, ``ChooseX`` up to 3, ``DecideOptionalCost`` for kicker)
    is one of our actions, and a cast phase cannot complete (not enough mana) is not listed.
    phase picks the flashback it pays itself (the cheaper one when a card has its printed
    one and one granted at its mana cost); the one paid, told by the mana spent, is the
    action's ``flashback``, and an action naming the other one is refused.  So within the
    scope the lists compare like for like, and ``lists_actions`` is declared.  ``apply``
    submits the action, then answers phase's prompts from the action; phase refuses an
    illegal action by raising ``ValueError`` (its message is the reason), and the state is
    then restored from a snapshot taken before.

Choices
    Our ``choose`` answers phase's prompts during a resolution: ``DiscardChoice``
    (``SelectCards``), ``TriggerTargetSelection`` (``ChooseTarget``; the target of Snapcaster
    Mage's trigger, which the model asks as a choice: that ability is reported on the stack
    only once chosen) and ``OptionalEffectChoice`` (``DecideOptionalEffect``: ``[]``
    declines; a card is an answer only if phase then asks for the card).  Our cards are
    listed in the setup's order, as the model lists them.  phase makes a forced choice
    itself (a discard of the whole hand, a lone legal target) where the model asks for it
    with its one answer: the adapter shows it asked (``forced``) until the player makes it.
    phase asks whether to do Make Your Own Luck's optional part when the three cards hold no
    nonland card; the adapter declines for the player (nothing to choose, as in the model).

Divergences seen on this scope (``tests/test_phase_engine.py`` keeps each as a strict xfail)
    a plotted instant can be cast at instant speed (CR 702.170d); after a non-active player's
    spell triggers their own ability, the active player gets priority (CR 117.3c); passes
    made before a player left still count (CR 117.4); the turn of an active player who left
    ends after the current step instead of going on without an active player; a player who
    left can concede again (CR 104.3a); after a resolution priority goes to an active player
    who left (CR 800.4a); Make Your Own Luck offers no card to exile, nothing becomes plotted
    and the rest may stay in the library (CR 702.170c, 608.2c); Past in Flames grants no
    flashback (CR 702.34a); after another player's triggered ability goes on the stack, that
    player gets priority, not the active player (CR 117.3b); a spell resolves although a
    remaining player has not passed since the last spell (its caster passed, then left: CR
    117.4); a resolving spell goes to the graveyard before its choice (CR 608.2n, folded in
    as above); when the player asked a choice concedes, phase can no longer export its state.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import metadata, resources
from typing import Any

import phase

from mtgcheck.engines.base import Applied, EngineError, EngineInfo, EngineRefused, Support
from mtgcheck.engines.vocab import Session
from mtgcheck.errors import FormatError
from mtgcheck.model import cards as pool
from mtgcheck.model.turns import MAX_HAND_SIZE

#: Cards whose actions the adapter maps (see the module docstring); declared if phase builds them whole.
SCOPE = ("Slickshot Show-Off", "Lightning Bolt", "Counterspell", "Remand", "Ornithopter",
         "Think Twice", "Faithless Looting", "Deep Analysis", "Ancient Grudge", "Past in Flames", "Snapcaster Mage",
         "Blaze", "Burst Lightning", "Make Your Own Luck",
         "Forest", "Island", "Mountain", "Plains", "Swamp")
#: Our step -> the phase step that stands for it (where a position is set up and passes stop).
STOP = {"beginning": "Draw", "main1": "PreCombatMain", "combat": "BeginCombat", "main2": "PostCombatMain",
        "end": "End"}
#: Every phase step -> ours.
STEP_OF = {"Untap": "beginning", "Upkeep": "beginning", "Draw": "beginning", "PreCombatMain": "main1",
           "BeginCombat": "combat", "DeclareAttackers": "combat", "DeclareBlockers": "combat",
           "FirstStrikeDamage": "combat", "CombatDamage": "combat", "EndCombat": "combat",
           "PostCombatMain": "main2", "End": "end", "Cleanup": "end"}
ZONE_OF = {"Library": "library", "Hand": "hand", "Graveyard": "graveyard", "Exile": "exile",
           "Battlefield": "battlefield", "Stack": "stack"}
#: phase zone -> the key of its id list: per player (True) or in the game state (False).
PER_PLAYER = {"library": True, "hand": True, "graveyard": True, "exile": False, "battlefield": False}
#: Triggered abilities of the pool, by source name, as our observations name them.
ABILITY_KIND = {"Slickshot Show-Off": "show-off-pump", "Snapcaster Mage": "snapcaster-grant"}
OBSERVED = ("zones", "plotted", "turn", "active", "step", "stack", "life", "priority", "in_game", "game_over")
#: 3 and 4 players are phase's FreeForAll format (its Standard format seats 2).
PLAYERS = frozenset({2, 3, 4})
#: phase's prompts that ask a player to choose during a resolution (our ``choose``).
CHOICES = ("DiscardChoice", "TriggerTargetSelection", "OptionalEffectChoice")
#: Cards whose triggered ability's target our model asks as a ``choose`` (phase: a target prompt).
TARGET_CHOICE = frozenset({"Snapcaster Mage"})
MAX_X = 3  # the largest X listed (the model's default bound)
MAX_SETTLE = 64  # automatic passes in one go: more means phase is looping


def _record(name: str) -> dict[str, Any]:
    """Our raw record of a card (the MTGJSON-shaped fields, which the model's CardDef digests)."""
    for rec in _records():
        if rec["name"] == name:
            return rec
    raise KeyError(name)


@cache
def _records() -> tuple[dict[str, Any], ...]:
    doc = json.loads(resources.files("mtgcheck.data").joinpath("cards.json").read_text(encoding="utf-8"))
    return tuple(doc["cards"])


def atomic_card(rec: dict[str, Any]) -> dict[str, Any]:
    """Our record as an MTGJSON atomic card: the fields phase reads, derived from ours."""
    cost = rec.get("manaCost") or ""
    colours = [c for c in "WUBRG" if "{" + c + "}" in cost]
    left, _, right = rec["type"].partition(" — ")
    supertypes = [w for w in left.split() if w in ("Basic", "Legendary", "Snow", "World")]
    value = 0
    for sym in re.findall(r"\{([^{}]*)\}", cost):
        value += int(sym) if sym.isdigit() else 0 if sym == "X" else 1
    keywords = list(rec.get("keywords", []))
    lines = []
    text = (rec.get("text") or "").strip()
    # A text that only restates the keywords ("Flying.") would be read as an effect.
    # phase reads keyword costs (plot, kicker, flashback) from the Oracle text, one line each,
    # so those lines are written from the record's fields; a restatement inside the text
    # ("Flashback—{1}{U}, Pay 3 life.") is cut off first (phase would read it as an effect).
    text = re.split(r"\s*\b(?:Flashback|Kicker)\b[\s—-]*\{", text, maxsplit=1)[0].strip()
    if rec.get("kicker"):
        lines.append(f"Kicker {rec['kicker']}")
    if text and {k.strip().lower() for k in text.rstrip(".").split(",")} != {k.lower() for k in keywords}:
        lines.append(text)
    if rec.get("plot"):
        lines.append(f"Plot {rec['plot']}")
    if rec.get("flashback"):
        life = rec.get("flashbackLife")
        lines.append(f"Flashback—{rec['flashback']}, Pay {life} life." if life else f"Flashback {rec['flashback']}")
    card: dict[str, Any] = {
        "name": rec["name"], "manaCost": cost or None, "colors": colours, "colorIdentity": colours,
        "type": rec["type"], "types": list(rec["types"]), "subtypes": right.split() if right else [],
        "supertypes": supertypes, "text": "\n".join(lines), "layout": rec.get("layout", "normal"),
        "keywords": keywords, "manaValue": float(value), "identifiers": {},
    }
    for k in ("power", "toughness"):
        if k in rec:
            card[k] = rec[k]
    return card


#: The land that stands for one unit of our abstract mana: not a card of ours, never observed.
MANA_SOURCE: dict[str, Any] = {"name": "mtgcheck Mana Source", "type": "Land", "types": ["Land"],
               "text": "{T}: Add one mana of any color.", "keywords": []}


@cache
def _faces() -> tuple[dict[str, Any], frozenset[str]]:
    """The card-data export for the scope, and the names phase builds without a gap."""
    faces: dict[str, Any] = {MANA_SOURCE["name"].lower(): phase.build_oracle_face(atomic_card(MANA_SOURCE), None)}
    ok: set[str] = set()
    for name in SCOPE:
        try:
            face = phase.build_oracle_face(atomic_card(_record(name)), None)
        except (ValueError, KeyError):
            continue
        faces[name.lower()] = face
        if '"Unimplemented"' not in json.dumps(face):
            ok.add(name)
    return faces, frozenset(ok & pool.card_names())


@cache
def _engine() -> Any:
    return phase.Engine.from_json(json.dumps(_faces()[0]))


def _version() -> str:
    try:
        return metadata.version("phase-python")
    except metadata.PackageNotFoundError:
        return "unknown"


class PhaseEngine:
    """phase.rs through phase-python, in our vocabulary (see the module docstring)."""

    def __init__(self) -> None:
        self.game: Any = None
        self.cards: dict[str, int] = {}  # our card id -> phase card_id
        self.by_card_id: dict[int, str] = {}
        self.order: dict[str, int] = {}  # our card id -> its place in the setup (the model's slot order)
        self.players = 2
        self.last_passer = 0  # the player whose pass resolved the object now asking for a choice
        #: A choice phase made itself (a forced discard), shown as asked: player, cards, the spell.
        self.forced: dict[str, Any] | None = None
        self.ghosts: set[int] = set()  # stack entries of such choices never made (the player left)
        #: (the game object, what the active player can change with, the active player): see _active.
        self._active_seen: tuple[Any, Any, int] | None = None

    # -- hello ---------------------------------------------------------------------------

    def hello(self) -> EngineInfo:
        support = Support(cards=_faces()[1], verbs=frozenset({"pass", "plot", "cast", "choose", "leave"}),
                          hows=frozenset({"normal", "plotted", "flashback"}),
                          observe=frozenset(OBSERVED),
                          players=PLAYERS, max_x=MAX_X, lists_actions=True)
        return EngineInfo("phase", _version(), support, extra={"mana_source": MANA_SOURCE["text"]})

    # -- setup ---------------------------------------------------------------------------

    def setup(self, setup: dict[str, Any]) -> None:
        try:
            pos = Session.begin(setup, source="(engine setup)").position
        except FormatError as exc:
            raise EngineRefused(str(exc)) from None
        supported = _faces()[1]
        if pos.players not in PLAYERS:
            raise EngineRefused(f"phase adapter: {pos.players} players (supported: {sorted(PLAYERS)})")
        if pos.planechase is not None or pos.extra_turns:
            raise EngineRefused("phase adapter: Planechase and extra turns are not supported")
        if pos.lands:
            raise EngineRefused("phase adapter: mana_rules lands is not supported (the adapter turns abstract mana "
                                "into phase's lands itself)")
        for c in pos.cards:
            if c.card not in supported:
                raise EngineRefused(f"phase adapter: card {c.card!r} is not supported")
            if c.zone == "battlefield" and "Land" in pool.card(c.card).types:
                raise EngineRefused("phase adapter: a land on the battlefield would be mana in phase, not in the model")
        for p in range(pos.players):
            held = sum(1 for c in pos.cards if c.owner == p and c.zone in ("hand", "library"))
            if held > MAX_HAND_SIZE:
                raise EngineRefused(f"phase adapter: player {p} could hold {held} cards; the adapter does not "
                                    f"map phase's discard to {MAX_HAND_SIZE} at cleanup (CR 514.1)")
        land = MANA_SOURCE["name"]
        decks: list[list[str]] = [[] for _ in range(pos.players)]
        for c in pos.cards:
            decks[c.owner].append(c.card)
        for p in range(pos.players):
            decks[p] += [land] * pos.mana[p]
            if not decks[p]:
                decks[p].append(land)  # phase refuses an empty deck; the spare card is removed below
        try:
            g = _engine().new_game(decks[0], decks[1], extra_players=decks[2:], seed=0, first_player=pos.active,
                                   format="Standard" if pos.players == 2 else "FreeForAll")
            full = g.state()
        except ValueError as exc:
            raise EngineError("crash", f"phase new_game: {exc}") from None
        st = full["state"]
        objs: dict[str, Any] = st["objects"]
        free: dict[tuple[int, str], list[int]] = {}
        for key in sorted(objs, key=int):
            o = objs[key]
            free.setdefault((o["owner"], o["name"]), []).append(int(key))
        zones: dict[tuple[str, int], list[int]] = {}
        self.cards, self.by_card_id = {}, {}
        self.order = {c.id: i for i, c in enumerate(pos.cards)}
        self.forced, self.last_passer, self.ghosts = None, pos.active, set()
        for c in pos.cards:
            oid = free[(c.owner, c.card)].pop(0)
            o = objs[str(oid)]
            o["zone"] = {"library": "Library", "hand": "Hand", "graveyard": "Graveyard", "exile": "Exile",
                         "battlefield": "Battlefield"}[c.zone]
            o["tapped"] = False
            o["casting_permissions"] = ([{"type": "Plotted", "turn_plotted": c.plotted_turn}]
                                        if c.plotted_turn is not None else [])
            zones.setdefault((c.zone, c.owner if PER_PLAYER[c.zone] else -1), []).append(oid)
            self.cards[c.id] = int(o["card_id"])
            self.by_card_id[int(o["card_id"])] = c.id
        for p in range(pos.players):
            for _ in range(pos.mana[p]):
                oid = free[(p, land)].pop(0)
                o = objs[str(oid)]
                o["zone"], o["tapped"], o["controller"] = "Battlefield", False, p
                zones.setdefault(("battlefield", -1), []).append(oid)
        for rest in free.values():
            for oid in rest:
                del objs[str(oid)]
        for p, pl in enumerate(st["players"]):
            for z in ("library", "hand", "graveyard"):
                pl[z] = zones.get((z, p), [])
            pl["life"] = pos.life[p]
            pl["mana_pool"] = {"mana": []}
        st["battlefield"] = zones.get(("battlefield", -1), [])
        st["exile"] = zones.get(("exile", -1), [])
        st["stack"] = []
        fine = STOP[pos.step]
        st.update(turn_number=pos.turn, active_player=pos.active, priority_player=pos.active, phase=fine,
                  waiting_for={"type": "Priority", "data": {"player": pos.active}}, priority_pass_count=0,
                  priority_passes=[], steps_started_this_turn={fine: 1}, zone_changes_this_turn=[])
        try:
            self.game = _engine().load_game(full)
        except ValueError as exc:
            raise EngineError("crash", f"phase load_game: {exc}") from None
        self.players = pos.players
        for q in pos.left:  # they own no card (CR 800.4a); phase has them concede
            try:
                self.game.apply(q, phase.GameAction.from_dict({"type": "Concede", "data": {"player_id": q}}))
            except ValueError as exc:
                raise EngineError("crash", f"phase refused the concession of player {q}: {exc}") from None
        self._settle()

    # -- playing -------------------------------------------------------------------------

    def _object(self, card: str) -> dict[str, Any] | None:
        """The current object of our card (found by phase's card_id), or None if it is nowhere."""
        want = self.cards[card]
        for o in self._all_objects():
            if int(o.get("card_id", -1)) == want:
                return o
        return None

    def _all_objects(self) -> list[dict[str, Any]]:
        g = self.game
        out: list[dict[str, Any]] = []
        for p in range(self.players):
            out += g.hand(p)
            out += g.graveyard(p)
            out += [g.object(i) for i in g.player(p)["library"]]
        out += g.battlefield()
        out += g.exile()
        for entry in g.stack():
            if entry.get("kind", {}).get("type") == "Spell":
                out.append(g.object(entry["source_id"]))
        return [o for o in out if o]

    def _our_card(self, obj_id: int) -> str | None:
        o = self.game.object(obj_id)
        return self.by_card_id.get(int(o["card_id"])) if o else None

    @staticmethod
    def _plot_index(obj: dict[str, Any]) -> int | None:
        for i, ab in enumerate(obj.get("abilities", [])):
            eff = ab.get("effect", {})
            if (eff.get("type") == "GrantCastingPermission"
                    and eff.get("permission", {}).get("type") == "Plotted"):
                return i
        return None

    @staticmethod
    def _plotted(obj: dict[str, Any]) -> bool:
        return obj.get("zone") == "Exile" and any(p.get("type") == "Plotted"
                                                  for p in obj.get("casting_permissions") or [])

    def _priority(self) -> int | None:
        w = self.game.waiting_for()
        if w.get("type") == "Priority":
            return int(w["data"]["player"])
        return None

    def _settle(self) -> None:
        """Pass through phase's steps that ours fold in, and declare no attackers."""
        g = self.game
        for _ in range(MAX_SETTLE):
            w = g.waiting_for()
            kind = w.get("type")
            if kind == "Priority":
                if g.phase in STOP.values() or g.stack():
                    return
                self._raw_apply(int(w["data"]["player"]), phase.GameAction.from_dict({"type": "PassPriority"}))
            elif kind == "DeclareAttackers":
                player = int(w["data"]["player"])
                self._raw_apply(player, phase.GameAction.from_dict({"type": "DeclareAttackers",
                                                                     "data": {"attacks": []}}))
            elif kind == "OptionalEffectChoice" and self._nothing_to_choose(w):
                self._raw_apply(int(w["data"]["player"]), phase.GameAction.from_dict(
                    {"type": "DecideOptionalEffect", "data": {"accept": False}}))
            else:
                return
        raise EngineError("hang", f"phase kept asking after {MAX_SETTLE} automatic passes")

    def _nothing_to_choose(self, w: dict[str, Any]) -> bool:
        """phase asks whether to do Make Your Own Luck's optional part while the top three cards
        of the library hold no nonland card: there is nothing to choose (the model asks nothing),
        so the adapter declines for the player, which exiles nothing."""
        src = self.game.object(int(w["data"].get("source_id", -1))) or {}
        if src.get("name") != "Make Your Own Luck":
            return False
        top = self.game.player(int(w["data"]["player"]))["library"][:3]
        return all("Land" in pool.card(self.game.object(i)["name"]).types for i in top
                   if self.game.object(i) and self.game.object(i)["name"] in pool.card_names())

    def _raw_apply(self, actor: int, action: Any) -> Any:
        try:
            return self.game.apply(actor, action)
        except ValueError as exc:
            raise EngineError("protocol", f"phase refused its own step action {action!r}: {exc}") from None

    def _need_game(self, call: str) -> None:
        if self.game is None:
            raise EngineError("protocol", f"{call} before setup: there is no game")

    def actions(self) -> list[dict[str, Any]]:
        self._need_game("actions")
        w = self.game.waiting_for()
        kind = w.get("type")
        if kind == "GameOver":
            return []
        # phase's Concede is legal for any player in the game at any time and is never in its
        # list of legal actions (it says so), so it is listed here for every such player.
        out: list[dict[str, Any]] = [{"player": q, "do": "leave"} for q in self._in_game()]
        if self.forced is not None:
            return out + [{"player": self.forced["player"], "do": "choose", "cards": self.forced["cards"]}]
        if kind in CHOICES:
            p = int(w["data"]["player"])
            for cards in self._choice_answers(w):
                answer: dict[str, Any] = {"player": p, "do": "choose", "cards": cards}
                if answer not in out:
                    out.append(answer)
            return out
        if kind != "Priority":
            return out
        p = int(w["data"]["player"])
        for a in self.game.actions():
            doc = self._to_ours(p, a)
            if doc is None:
                continue
            for full in self._completions(p, a, doc):
                if full not in out:
                    out.append(full)
        return out

    def _to_ours(self, p: int, a: Any) -> dict[str, Any] | None:
        """phase's action as ours (without targets), or None if our vocabulary has no word for it."""
        kind, data = a.kind, a.data or {}
        if kind == "PassPriority":
            return {"player": p, "do": "pass"}
        if kind == "ActivateAbility":
            card = self._our_card(int(data["source_id"]))
            obj = self.game.object(int(data["source_id"]))
            if card and obj and obj.get("zone") == "Hand" and self._plot_index(obj) == int(data["ability_index"]):
                return {"player": p, "do": "plot", "card": card, "from": "hand"}
            return None
        if kind == "CastSpell":
            obj = self.game.object(int(data["object_id"]))
            card = self._our_card(int(data["object_id"]))
            if not card or not obj:
                return None
            if obj.get("zone") == "Hand":
                return {"player": p, "do": "cast", "card": card, "how": "normal"}
            if obj.get("zone") == "Graveyard":
                return {"player": p, "do": "cast", "card": card, "how": "flashback"}
            if self._plotted(obj):
                return {"player": p, "do": "cast", "card": card, "how": "plotted"}
        return None

    def _state(self) -> dict[str, Any]:
        """phase's full state (snapshots, the active player); phase failing to export it is a crash."""
        try:
            return self.game.state()
        except ValueError as exc:
            raise EngineError("crash", f"phase could not export its state: {exc}") from None

    def _restore(self, snap: dict[str, Any]) -> None:
        self.game = _engine().load_game(snap)

    def _completions(self, p: int, a: Any, doc: dict[str, Any]) -> list[dict[str, Any]]:
        """The ways phase accepts ``a`` to the end (every prompt of the cast answered), as our actions.

        phase lists a spell or ability before its targets, X and kicker; it is tried on a
        snapshot, and each sequence of answers that phase offers and accepts becomes one action.
        """
        if a.kind == "PassPriority":
            return [doc]
        snap = self._state()
        try:
            try:
                self.game.apply(p, a)
            except ValueError:
                return []
            return self._answers(p, doc, {})
        finally:
            self._restore(snap)

    def _answers(self, p: int, doc: dict[str, Any], got: dict[str, Any]) -> list[dict[str, Any]]:
        """Every complete way through phase's casting prompts from here (``got``: the answers so far)."""
        w = self.game.waiting_for()
        kind, data = w.get("type"), w.get("data") or {}
        if kind in ("Priority", "GameOver"):
            return [self._as_cast(doc, got)] if doc["do"] == "cast" else [doc]
        options: list[tuple[dict[str, Any], dict[str, Any]]] = []  # (our answer, phase's action)
        if kind == "TargetSelection":
            for t in data["selection"]["current_legal_targets"]:
                ours = self._target_name(t)
                if ours is not None:  # a permanent outside our cards (a mana land): nothing of ours names it
                    options.append(({"targets": [*got.get("targets", []), ours]},
                                    {"type": "ChooseTarget", "data": {"target": t}}))
        elif kind == "ChooseXValue":
            for x in range(int(data.get("min", 0)), min(int(data["max"]), MAX_X) + 1):
                options.append(({"x": x}, {"type": "ChooseX", "data": {"value": x}}))
        elif kind == "OptionalCostChoice" and (data.get("cost") or {}).get("type") == "Kicker":
            for pay in (False, True):
                options.append(({"kicker": pay}, {"type": "DecideOptionalCost", "data": {"pay": pay}}))
        out: list[dict[str, Any]] = []
        here = self._state()
        for answer, pa in options:
            try:
                self.game.apply(p, phase.GameAction.from_dict(pa))
                out += self._answers(p, doc, {**got, **answer})
            except ValueError:
                pass
            finally:
                self._restore(here)
        return out  # another prompt (a cost our vocabulary has no word for): not one of our actions

    def _as_cast(self, doc: dict[str, Any], got: dict[str, Any]) -> dict[str, Any]:
        """Our cast action for the spell phase just put on the stack, written as the model writes it."""
        out = dict(doc)
        entry = self._stack_entry(doc["card"])
        targets = got.get("targets") or (self._cast_targets(entry) if entry else [])  # phase picks a lone target
        if targets:
            out["targets"] = targets
        if got.get("x"):
            out["x"] = got["x"]
        if got.get("kicker"):
            out["kicker"] = True
        if doc["how"] == "flashback":
            out["flashback"] = self._flashback_used(doc["card"], got)
        return out

    def _flashback_used(self, card: str, got: dict[str, Any]) -> str:
        """Which flashback phase paid (it chooses itself): the printed one, or one granted at the mana cost.

        Told apart by the mana spent: every card of the scope with printed flashback has a
        flashback cost other than its mana cost."""
        obj = self._object(card) or {}
        d = pool.card(obj.get("name", ""))
        spent = int(obj.get("mana_spent_to_cast_amount") or 0) - int(got.get("x", 0))
        if got.get("kicker"):
            spent -= d.kicker_cost or 0
        return "printed" if d.flashback_cost is not None and spent == d.flashback_cost else "mana_cost"

    def _stack_entry(self, card: str) -> dict[str, Any] | None:
        for entry in self.game.stack():
            if entry.get("kind", {}).get("type") == "Spell" and self._our_card(int(entry["source_id"])) == card:
                return entry
        return None

    def _cast_targets(self, entry: dict[str, Any]) -> list[str]:
        """The targets of a spell on the stack, as our names."""
        ability = (entry.get("kind", {}).get("data") or {}).get("ability") or {}
        return [self._target_name(t) or f"?{t}" for t in ability.get("targets") or []]

    def _target_name(self, t: dict[str, Any]) -> str | None:
        if "Player" in t:
            return f"player:{int(t['Player'])}"
        if "Object" in t:
            return self._our_card(int(t["Object"]))
        return None

    def _target_value(self, name: str) -> dict[str, Any] | None:
        if name.startswith("player:"):
            return {"Player": int(name.split(":", 1)[1])}
        obj = self._object(name) if name in self.cards else None
        return {"Object": int(obj["id"])} if obj else None

    # -- choices -------------------------------------------------------------------------

    def _ordered(self, ids: list[int]) -> list[str] | None:
        """phase object ids as our card ids, in the setup's order (the model's), or None if one is not ours."""
        names = [self._our_card(i) for i in ids]
        if any(n is None for n in names):
            return None
        return sorted((n for n in names if n is not None), key=self.order.__getitem__)

    def _choice_answers(self, w: dict[str, Any], *, accepted: bool = False) -> list[list[str]]:
        """The answers phase offers to a choice prompt, as the card lists of our ``choose``."""
        out: list[list[str]] = []
        for a in self.game.actions():
            data = a.data or {}
            if a.kind == "SelectCards":
                names = self._ordered([int(i) for i in data["cards"]])
            elif a.kind == "ChooseTarget" and "Object" in data["target"]:
                names = self._ordered([int(data["target"]["Object"])])
            elif a.kind == "DecideOptionalEffect" and not accepted:
                if not data["accept"]:
                    names = []  # declining the optional part: no card chosen
                else:
                    # Accepting is an answer of ours only with the card phase then asks for.
                    here = self._state()
                    try:
                        self.game.apply(int(w["data"]["player"]), a)
                        after = self.game.waiting_for()
                        if after.get("type") in CHOICES:
                            out += [c for c in self._choice_answers(after, accepted=True) if c and c not in out]
                    except ValueError:
                        pass
                    finally:
                        self._restore(here)
                    continue
            else:
                continue
            if names is not None and names not in out:
                out.append(names)
        return out

    def _choose(self, action: dict[str, Any]) -> Applied:
        w = self.game.waiting_for()
        kind = w.get("type")
        p = int(action["player"])
        if kind not in CHOICES or int(w["data"]["player"]) != p:
            return Applied(False, f"phase: no choice is asked of player {p}")
        cards = list(action.get("cards") or [])
        snap = self._state()
        try:
            objs = []
            for c in cards:
                o = self._object(c) if c in self.cards else None
                if o is None:
                    raise ValueError(f"card {c} is not in the game")
                objs.append(int(o["id"]))
            if kind == "OptionalEffectChoice":
                self.game.apply(p, phase.GameAction.from_dict({"type": "DecideOptionalEffect",
                                                               "data": {"accept": bool(objs)}}))
                if objs:
                    after = self.game.waiting_for().get("type")
                    if after not in CHOICES:
                        raise ValueError("after accepting, phase asks for no card to choose")
                    kind = after
            if objs or kind != "OptionalEffectChoice":
                if kind == "TriggerTargetSelection" or (kind == "OptionalEffectChoice" and len(objs) == 1
                                                        and any(a.kind == "ChooseTarget" for a in self.game.actions())):
                    if len(objs) != 1:
                        raise ValueError("a target is one card")
                    pa = {"type": "ChooseTarget", "data": {"target": {"Object": objs[0]}}}
                else:
                    pa = {"type": "SelectCards", "data": {"cards": objs}}
                self.game.apply(p, phase.GameAction.from_dict(pa))
        except ValueError as exc:
            self._restore(snap)
            return Applied(False, f"phase: {exc}")
        self._settle()
        return Applied(True)

    # -- applying ------------------------------------------------------------------------

    def apply(self, action: dict[str, Any]) -> Applied:
        self._need_game("apply")
        verb, p = action.get("do"), int(action["player"])
        if self.forced is not None and verb != "leave":
            want = {"player": self.forced["player"], "do": "choose", "cards": self.forced["cards"]}
            if {"player": p, "do": verb, "cards": list(action.get("cards") or [])} != want:
                return Applied(False, f"phase: player {want['player']} must first choose {want['cards']} "
                                      "(phase made that forced choice itself)")
            self.forced = None
            return Applied(True)
        if self.forced is not None and self.forced["player"] == p:  # leaving: the choice is never made
            if self.forced["hide"] is not None:
                self.ghosts.add(self.forced["hide"])  # under the model that ability never reaches the stack
            self.forced = None
        if verb == "choose":
            return self._choose(action)
        pa = self._to_phase(action)
        if isinstance(pa, Applied):
            return pa
        snap = self._state()
        targets = list(action.get("targets") or [])
        before = {int(e["id"]) for e in self.game.stack()}
        asking = self._asked_trigger()
        try:
            result = self.game.apply(p, pa)
            if verb == "cast":
                self._answer_cast(p, action, targets)
        except ValueError as exc:
            self._restore(snap)
            return Applied(False, f"phase: {exc}")
        if verb == "pass":
            self.last_passer = p
            self._forced_choice(result, before)
        if asking is not None and self.game.waiting_for().get("type") != "TriggerTargetSelection":
            self.ghosts.add(asking)  # left before choosing: under the model that ability never reaches the stack
        self._settle()
        return Applied(True)

    def _asked_trigger(self) -> int | None:
        """The stack entry of a triggered ability whose target phase is asking for (one of TARGET_CHOICE)."""
        if self.game.waiting_for().get("type") != "TriggerTargetSelection":
            return None
        top = self.game.stack()[-1:]
        if top and (self.game.object(int(top[0].get("source_id", -1))) or {}).get("name") in TARGET_CHOICE:
            return int(top[0]["id"])
        return None

    def _forced_choice(self, result: Any, before: set[int]) -> None:
        """A choice phase made without asking: a discard of the whole hand (no more cards than
        it discards), the lone legal target of a triggered ability our model asks as a choice.

        Our model asks for it all the same, with its one legal answer: it is shown as asked
        (``self.forced``; a triggered ability is off the stack until then) until the player
        makes it.  Not when the game ended meanwhile."""
        if self.game.waiting_for().get("type") != "Priority":
            return  # the game ended, or phase asks (then nothing was chosen for the player)
        for entry in self.game.stack():
            data = entry.get("kind", {}).get("data") or {}
            src = self.game.object(int(entry.get("source_id", -1))) or {}
            if (int(entry["id"]) in before or entry.get("kind", {}).get("type") != "TriggeredAbility"
                    or src.get("name") not in TARGET_CHOICE):
                continue
            ids = [int(t["Object"]) for t in (data.get("ability") or {}).get("targets") or [] if "Object" in t]
            cards = self._ordered(ids)
            if len(ids) == 1 and cards is not None:
                self.forced = {"player": int(entry["controller"]), "cards": cards, "spell": None,
                               "hide": int(entry["id"])}
                return
        found: dict[int, list[int]] = {}
        for ev in result.events:
            if ev.get("type") == "Discarded":
                found.setdefault(int(ev["data"]["source_id"]), []).append(int(ev["data"]["object_id"]))
        for src, ids in found.items():
            spell, cards = self._our_card(src), self._ordered(ids)
            if spell is not None and cards is not None:
                self.forced = {"player": int(self.game.object(src)["owner"]), "cards": cards, "spell": spell,
                               "hide": None}
                return

    def _answer_cast(self, p: int, action: dict[str, Any], targets: list[str]) -> None:
        """Answer phase's casting prompts with the action's targets, X and kicker (ValueError: it can't)."""
        got: dict[str, Any] = {}
        for _ in range(MAX_SETTLE):
            w = self.game.waiting_for()
            kind, data = w.get("type"), w.get("data") or {}
            if kind in ("Priority", "GameOver"):
                break
            if kind == "TargetSelection":
                if not targets:
                    raise ValueError("a target is missing")
                name = targets.pop(0)
                value = self._target_value(name)
                if value is None:
                    raise ValueError(f"target {name} is not in the game")
                got.setdefault("targets", []).append(name)
                pa = {"type": "ChooseTarget", "data": {"target": value}}
            elif kind == "ChooseXValue":
                got["x"] = int(action.get("x", 0))
                pa = {"type": "ChooseX", "data": {"value": got["x"]}}
            elif kind == "OptionalCostChoice" and (data.get("cost") or {}).get("type") == "Kicker":
                got["kicker"] = bool(action.get("kicker"))
                pa = {"type": "DecideOptionalCost", "data": {"pay": got["kicker"]}}
            else:
                raise ValueError(f"phase asks {kind}, which our action does not answer")
            self.game.apply(p, phase.GameAction.from_dict(pa))
        want = {k: v for k, v in action.items() if k in ("targets", "x", "kicker", "flashback") and v}
        made = {k: v for k, v in self._as_cast({"card": action["card"], "how": action["how"]}, got).items()
                if k in ("targets", "x", "kicker", "flashback")}
        if action.get("how") == "flashback" and "flashback" not in want:  # the default (scenario.md)
            obj = self._object(action["card"]) or {}
            want["flashback"] = "printed" if pool.card(obj.get("name", "")).flashback_cost is not None else "mana_cost"
        if made != want:
            raise ValueError(f"the spell phase cast is {made or 'plain'}, not {want or 'plain'}")

    def _to_phase(self, action: dict[str, Any]) -> Any:
        verb = action.get("do")
        if verb == "pass":
            return phase.GameAction.from_dict({"type": "PassPriority"})
        if verb == "leave":
            return phase.GameAction.from_dict({"type": "Concede", "data": {"player_id": int(action["player"])}})
        card = action.get("card")
        if verb not in ("plot", "cast") or card not in self.cards:
            return Applied(False, f"phase adapter: {verb!r} is outside the supported scope")
        obj = self._object(card)
        if obj is None:
            return Applied(False, f"phase: card {card} is not in the game")
        if verb == "plot":
            if action.get("from", "hand") != "hand" or obj.get("zone") != "Hand":
                return Applied(False, f"phase: {card} is not in its owner's hand, nothing lets it be plotted")
            idx = self._plot_index(obj)
            if idx is None:
                return Applied(False, f"phase: {card} has no plot ability")
            return phase.GameAction.from_dict({"type": "ActivateAbility",
                                               "data": {"source_id": obj["id"], "ability_index": idx}})
        how = action.get("how")
        if action.get("sacrifice") or action.get("half"):
            return Applied(False, "phase adapter: no card of the scope takes sacrifices or halves")
        if how == "normal" and obj.get("zone") != "Hand":
            return Applied(False, f"phase: {card} is not in hand (a normal cast here is from the hand)")
        if how == "plotted" and not self._plotted(obj):
            return Applied(False, f"phase: {card} is not a plotted card in exile")
        if how == "flashback" and obj.get("zone") != "Graveyard":
            return Applied(False, f"phase: {card} is not in a graveyard (flashback casts from there)")
        if how not in ("normal", "plotted", "flashback"):
            return Applied(False, f"phase adapter: casting {how!r} is outside the supported scope")
        return phase.GameAction.from_dict({"type": "CastSpell", "data": {
            "object_id": obj["id"], "card_id": obj["card_id"], "targets": [], "payment_mode": {"type": "Auto"}}})

    # -- observe -------------------------------------------------------------------------

    def observe(self) -> dict[str, Any]:
        self._need_game("observe")
        g = self.game
        st_player = [g.player(p) for p in range(self.players)]
        out_players = {p for p, pl in enumerate(st_player) if pl.get("is_eliminated")}
        zones: dict[str, str] = {}
        plotted: list[str] = []
        for o in self._all_objects():
            card = self.by_card_id.get(int(o.get("card_id", -1)))
            if card is None:
                continue
            if o.get("owner") in out_players:
                # phase exiles what a player who lost owned; our word for it is "outside" (CR 800.4a)
                zones[card] = "outside"
                continue
            zones[card] = ZONE_OF.get(o.get("zone", ""), str(o.get("zone")))
            if self._plotted(o):
                plotted.append(card)
        stack: list[str] = []
        hidden = set(self.ghosts) | ({self.forced["hide"]} if self.forced is not None else set())
        asking = self._asked_trigger()
        if asking is not None:
            hidden.add(asking)  # its target is being chosen: under the model's choice, not yet on the stack
        w = g.waiting_for()
        for entry in g.stack():  # bottom first
            if int(entry["id"]) in hidden:
                continue
            kind = entry.get("kind", {})
            if kind.get("type") == "Spell":
                stack.append(self._our_card(int(entry["source_id"])) or f"object:{entry['source_id']}")
            else:
                src = g.object(int(entry.get("source_id", -1))) or {}
                stack.append("ability:" + ABILITY_KIND.get(src.get("name", ""), str(src.get("name", "?"))))
        resolving = self._our_card(int(w["data"]["source_id"])) if w.get("type") in ("DiscardChoice",
                                                                                 "OptionalEffectChoice") else None
        if self.forced is not None and self.forced["spell"] is not None:
            resolving = self.forced["spell"]
            zones.update({c: "hand" for c in self.forced["cards"]})
        if resolving is not None and resolving not in stack:
            # phase moves a resolving spell to its graveyard (or exile) before the choice its
            # effect asks; under CR 608.2n that is the last step, so it is on the stack until then
            zones[resolving] = "stack"
            stack.append(resolving)
        in_game = [p for p in range(self.players) if p not in out_players]
        over = w.get("type") == "GameOver"
        prio = self._priority()
        if resolving is not None:
            prio = self.last_passer  # no one has priority while a spell resolves; the model keeps it there
        elif self.forced is not None:
            prio = int(g.priority_player())  # the resolution is over: the player about to receive priority
        elif w.get("type") == "TriggerTargetSelection":
            active = self._active()  # the same (CR 117.3b), before phase hands it on
            prio = active if active in in_game else int(g.priority_player())
        elif prio is None:
            # no one is asked: at the end of the game the one player left holds it, as in our model
            prio = in_game[0] if over and len(in_game) == 1 else int(g.priority_player())
        return {"zones": zones, "plotted": sorted(plotted), "turn": int(g.turn), "active": self._active(),
                "step": STEP_OF.get(g.phase, str(g.phase)), "stack": stack,
                "life": [int(pl["life"]) for pl in st_player], "priority": prio,
                "in_game": in_game, "game_over": over}

    def _in_game(self) -> list[int]:
        return [p for p in range(self.players) if not self.game.player(p).get("is_eliminated")]

    def _active(self) -> int:
        """The active player: phase-python shows it only in the full state (the costly read:
        about 2 ms and most of an ``observe``), so it is read again only when it can have
        changed: another game object (a new setup, a snapshot restored), a new turn (this
        adapter refuses extra turns, so each turn has its number), or a player gone."""
        g = self.game
        key = (int(g.turn), tuple(bool(g.player(p).get("is_eliminated")) for p in range(self.players)))
        seen = self._active_seen
        if seen is None or seen[0] is not g or seen[1] != key:
            seen = self._active_seen = (g, key, int(self._state()["state"]["active_player"]))
        return seen[2]

    def close(self) -> None:
        self.game = None
