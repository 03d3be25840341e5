"""The phase.rs rules engine (through phase-python) behind the engine interface (``--engine phase``).

phase is driven in the scenario vocabulary so that every divergence it shows is a scenario
file.  What this adapter does, and why:

Card data
    phase builds its card faces from MTGJSON atomic records (``phase.build_oracle_face``) and
    loads them as a ``card-data.json`` object (``Engine.from_json``).  The faces are built at
    run time from our own records (``mtgcheck/data/cards.json``): the MTGJSON fields our
    records leave out are derived from the ones they have (colours from the mana cost, sub-
    and supertypes from the type line, the mana value), a ``Plot {cost}`` line is written
    from the record's ``plot`` field (phase reads the plot cost from the Oracle text), and a
    text that only restates the keywords (``"Flying."``) is dropped (the keywords come from
    the ``keywords`` list).  Nothing is copied from phase's own card data.

Supported scope
    Only cards whose life in our vocabulary the adapter can map are declared (``SCOPE``: no
    choice beyond targets, no X, kicker, split halves or additional costs), and of those
    only the ones whose face phase builds without an ``Unimplemented`` effect.  Today:
    Slickshot Show-Off (plot, cast from hand, cast plotted, its +2/+0 trigger), Lightning
    Bolt (targets), Counterspell and Remand (a spell on the stack as target), Ornithopter,
    and the basic lands outside the battlefield.  Two to four players (phase's FreeForAll
    format above two); players who already left are made to concede after the position is
    loaded.  No Planechase, no extra turns.

Mana
    Our model's mana is an abstract amount per player that refills at the start of its
    player's turn (``setup.mana``).  phase needs real mana, so each player gets that many
    untapped basic lands of their own on the battlefield, outside our cards (never
    observed), all of the one colour the position's cards ask for (Mountains for red,
    Islands for blue; Mountains if none): N such lands pay exactly the costs of amount at
    most N, and they untap in their controller's untap step, the same refill.  Positions
    whose cards ask for two colours are refused (abstract mana has no colour to split).
    phase pays costs itself (``payment_mode: Auto``).  A land of ours on the battlefield
    would be mana in phase but not in the model, so such positions are refused.

Turn structure
    Our steps are coarser than phase's: ``beginning`` is phase's upkeep and draw steps,
    ``combat`` its beginning-of-combat to end-of-combat steps, ``end`` its end and cleanup
    steps.  A position is set up in the step where our model stands (``draw`` for
    ``beginning``: the draw has happened; ``BeginCombat`` for ``combat``).  When phase
    enters one of its other steps with an empty stack, the adapter passes priority for
    whoever holds it until phase reaches the step that stands for ours, and declares no
    attackers (our model has no attacks).  So one round of passes ends one of our steps.
    The cleanup step's discard to hand size is not in our model: positions where a player
    could hold more than seven cards are refused.

Observation
    zones, plotted, turn, active, step, stack, life, priority, in_game, game_over.  A card
    is tracked by phase's ``card_id`` (the physical card), not by its object id, which phase
    may renumber when the card changes zones.  A card is plotted when it is in exile with
    phase's ``Plotted`` casting permission.  A player who lost is eliminated in phase, which
    exiles what they owned; we report those cards ``outside`` (CR 800.4a).  Triggered
    abilities on the stack are named by their source (Slickshot Show-Off's is
    ``ability:show-off-pump``).

Actions
    phase's legal actions are mapped back (``PassPriority`` -> pass; ``ActivateAbility`` of a
    card's plot ability from the hand -> plot; ``CastSpell`` from the hand -> cast normal,
    from exile with the plotted permission -> cast plotted); land plays, mana abilities and
    attacks have no counterpart and are not listed.  ``leave`` is phase's ``Concede``, which
    phase accepts from any player in the game at any time and by design leaves out of its
    list of legal actions: the adapter lists it for every player still in the game.  phase
    lists a spell before its targets and costs, so each listed cast is tried on a snapshot:
    every sequence of targets phase then offers and accepts is one of our actions, and a
    cast phase cannot complete (not enough mana) is not listed.  So within the scope the
    lists compare like for like, and ``lists_actions`` is declared.  ``apply`` submits the
    action (then the targets, in order) to phase; phase refuses an illegal action by raising
    ``ValueError`` (its message is the reason), and the state is then restored from a
    snapshot taken before.

Divergences seen on this scope (``tests/test_phase_engine.py`` keeps each as a strict xfail)
    a plotted instant can be cast at instant speed (CR 702.170d); after a non-active player's
    spell triggers their own ability, the active player gets priority (CR 117.3c); passes
    made before a player left still count (CR 117.4); the turn of an active player who left
    ends after the current step instead of going on without an active player; a player who
    left can concede again (CR 104.3a).
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

#: Cards whose actions the adapter maps (see the module docstring); declared if phase builds them whole.
SCOPE = ("Slickshot Show-Off", "Lightning Bolt", "Counterspell", "Remand", "Ornithopter",
         "Forest", "Island", "Mountain", "Plains", "Swamp")
#: The basic land that stands for one unit of our abstract mana, by the one colour of a position.
MANA_LAND = {"W": "Plains", "U": "Island", "B": "Swamp", "R": "Mountain", "G": "Forest", "": "Mountain"}
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
ABILITY_KIND = {"Slickshot Show-Off": "show-off-pump"}
OBSERVED = ("zones", "plotted", "turn", "active", "step", "stack", "life", "priority", "in_game", "game_over")
#: 3 and 4 players are phase's FreeForAll format (its Standard format seats 2).
PLAYERS = frozenset({2, 3, 4})
HAND_SIZE = 7  # the cleanup discard (CR 514.1) is not in our model; see setup
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
    if text and {k.strip().lower() for k in text.rstrip(".").split(",")} != {k.lower() for k in keywords}:
        lines.append(text)
    if rec.get("plot"):
        lines.append(f"Plot {rec['plot']}")  # phase reads the plot cost from the Oracle text
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


@cache
def _faces() -> tuple[dict[str, Any], frozenset[str]]:
    """The card-data export for the scope, and the names phase builds without a gap."""
    faces: dict[str, Any] = {}
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


def _colours(name: str) -> set[str]:
    """The colours of the mana symbols a card's costs (mana cost, plot cost) can ask for."""
    rec = _record(name)
    text = (rec.get("manaCost") or "") + (rec.get("plot") or "")
    return {c for c in "WUBRG" if "{" + c + "}" in text}


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
        self.players = 2

    # -- hello ---------------------------------------------------------------------------

    def hello(self) -> EngineInfo:
        support = Support(cards=_faces()[1], verbs=frozenset({"pass", "plot", "cast", "leave"}),
                          hows=frozenset({"normal", "plotted"}),
                          observe=frozenset(OBSERVED),
                          players=PLAYERS, max_x=0, lists_actions=True)
        return EngineInfo("phase", _version(), support, extra={"mana_lands": MANA_LAND})

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
        for c in pos.cards:
            if c.card not in supported:
                raise EngineRefused(f"phase adapter: card {c.card!r} is not supported")
            if c.zone == "battlefield" and "Land" in pool.card(c.card).types:
                raise EngineRefused("phase adapter: a land on the battlefield would be mana in phase, not in the model")
        for p in range(pos.players):
            held = sum(1 for c in pos.cards if c.owner == p and c.zone in ("hand", "library"))
            if held > HAND_SIZE:
                raise EngineRefused(f"phase adapter: player {p} could hold {held} cards; phase discards to "
                                    f"{HAND_SIZE} at cleanup, the model does not")
        colours = set().union(*(_colours(c.card) for c in pos.cards))
        if len(colours) > 1:
            raise EngineRefused(f"phase adapter: cards of several colours ({''.join(sorted(colours))}); our abstract "
                                "mana stands for lands of one colour")
        land = MANA_LAND["".join(colours)]
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
            else:
                return
        raise EngineError("hang", f"phase kept asking after {MAX_SETTLE} automatic passes")

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
        p = self._priority()
        if p is None:
            return []
        # phase's Concede is legal for any player in the game at any time and is never in its
        # list of legal actions (it says so), so it is listed here for every such player.
        out: list[dict[str, Any]] = [{"player": q, "do": "leave"} for q in self._in_game()]
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
            if self._plotted(obj):
                return {"player": p, "do": "cast", "card": card, "how": "plotted"}
        return None

    def _completions(self, p: int, a: Any, doc: dict[str, Any]) -> list[dict[str, Any]]:
        """The ways phase accepts ``a`` to the end (costs paid, every target chosen), as our actions.

        phase lists a spell or ability before its targets and costs; it is tried on a snapshot,
        and each sequence of targets that phase offers and accepts becomes one action.
        """
        if a.kind == "PassPriority":
            return [doc]
        snap = self.game.state()
        try:
            try:
                self.game.apply(p, a)
            except ValueError:
                return []
            choices = self._target_choices(p)
            if choices == [[]] and doc["do"] == "cast":
                choices = [self._cast_targets(doc["card"])]  # phase picks a lone legal target itself
            return [dict(doc, targets=t) if t else doc for t in choices]
        finally:
            self.game = _engine().load_game(snap)

    def _target_choices(self, p: int) -> list[list[str]]:
        """Every complete choice of targets from the current prompt on (``[[]]``: none asked)."""
        w = self.game.waiting_for()
        if w.get("type") != "TargetSelection":
            return [[]] if w.get("type") in ("Priority", "GameOver") else []
        out: list[list[str]] = []
        here = self.game.state()
        for t in w["data"]["selection"]["current_legal_targets"]:
            ours = self._target_name(t)
            if ours is None:
                continue  # a permanent outside our cards (a mana land): nothing of ours names it
            try:
                self.game.apply(p, phase.GameAction.from_dict({"type": "ChooseTarget", "data": {"target": t}}))
                out += [[ours, *rest] for rest in self._target_choices(p)]
            except ValueError:
                pass
            finally:
                self.game = _engine().load_game(here)
        return out

    def _cast_targets(self, card: str) -> list[str]:
        """The targets of our card's spell on the stack, as our names (phase may have chosen them)."""
        for entry in self.game.stack():
            data = entry.get("kind", {}).get("data") or {}
            if entry.get("kind", {}).get("type") == "Spell" and self._our_card(int(entry["source_id"])) == card:
                ability = data.get("ability") or {}
                return [self._target_name(t) or f"?{t}" for t in ability.get("targets") or []]
        return []

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

    def apply(self, action: dict[str, Any]) -> Applied:
        self._need_game("apply")
        p = int(action["player"])
        pa = self._to_phase(action)
        if isinstance(pa, Applied):
            return pa
        snap = self.game.state()
        targets = list(action.get("targets") or [])
        try:
            self.game.apply(p, pa)
            while self.game.waiting_for().get("type") == "TargetSelection":
                if not targets:
                    raise ValueError("a target is missing")
                name = targets.pop(0)
                value = self._target_value(name)
                if value is None:
                    raise ValueError(f"target {name} is not in the game")
                self.game.apply(p, phase.GameAction.from_dict({"type": "ChooseTarget", "data": {"target": value}}))
            if action.get("do") == "cast":
                chosen = self._cast_targets(action["card"])
                if chosen != list(action.get("targets") or []):
                    raise ValueError(f"the spell's targets are {chosen or 'none'}, not those of the action")
        except ValueError as exc:
            self.game = _engine().load_game(snap)
            return Applied(False, f"phase: {exc}")
        self._settle()
        return Applied(True)

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
        if action.get("x", 0) or action.get("kicker") or action.get("sacrifice") or action.get("half"):
            return Applied(False, "phase adapter: no card of the scope takes X, kicker, sacrifices or halves")
        if how == "normal" and obj.get("zone") != "Hand":
            return Applied(False, f"phase: {card} is not in hand (a normal cast here is from the hand)")
        if how == "plotted" and not self._plotted(obj):
            return Applied(False, f"phase: {card} is not a plotted card in exile")
        if how not in ("normal", "plotted"):
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
        for entry in g.stack():  # bottom first
            kind = entry.get("kind", {})
            if kind.get("type") == "Spell":
                stack.append(self._our_card(int(entry["source_id"])) or f"object:{entry['source_id']}")
            else:
                src = g.object(int(entry.get("source_id", -1))) or {}
                stack.append("ability:" + ABILITY_KIND.get(src.get("name", ""), str(src.get("name", "?"))))
        in_game = [p for p in range(self.players) if p not in out_players]
        over = g.waiting_for().get("type") == "GameOver"
        prio = self._priority()
        if prio is None:
            # no one is asked: at the end of the game the one player left holds it, as in our model
            prio = in_game[0] if over and len(in_game) == 1 else int(g.priority_player())
        return {"zones": zones, "plotted": sorted(plotted), "turn": int(g.turn), "active": self._active(),
                "step": STEP_OF.get(g.phase, str(g.phase)), "stack": stack,
                "life": [int(pl["life"]) for pl in st_player], "priority": prio,
                "in_game": in_game, "game_over": over}

    def _in_game(self) -> list[int]:
        return [p for p in range(self.players) if not self.game.player(p).get("is_eliminated")]

    def _active(self) -> int:
        """The active player: phase-python shows it only in the full state (the costly read)."""
        return int(self.game.state()["state"]["active_player"])

    def close(self) -> None:
        self.game = None
