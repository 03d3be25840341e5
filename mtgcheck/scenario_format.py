"""Load scenario files (format ``mtgcheck.scenario/1``) into typed, frozen records.

A scenario file is public: judges and engine authors write it by hand, and the
counterexample store writes it by machine. So a file is checked twice before anything
runs it: first its structure, against the published JSON Schema
(``mtgcheck/data/scenario-1.schema.json``), which other tools can use on their own; then
the cross-field rules a schema cannot say (a player index below ``setup.players``, a card
id declared before it is used, a card name of the built-in pool). Every problem becomes a
:class:`~mtgcheck.errors.FormatError` naming the file, the field (``setup.cards[1].card``),
what was expected and what was found, on one line, because the CLI prints exactly one
line for a bad input and exits 2. The format is documented in ``docs/scenario.md``.

Examples
--------
>>> doc = {"format": "mtgcheck.scenario/1", "name": "a plot", "rules": ["702.170a"],
...        "setup": {"players": 2, "turn": 1, "active": 0, "step": "main1",
...                  "cards": [{"id": "a", "card": "Forest", "owner": 0, "zone": "hand"}]},
...        "actions": [{"player": 0, "do": "plot", "card": "a", "expect": "illegal"}]}
>>> s = parse_scenario(doc, source="a.json", known_cards={"Forest"}, known_planes=())
>>> s.setup.life, s.actions[0].verb, s.actions[0].args
((20, 20), 'plot', {'card': 'a'})
>>> doc["setup"]["active"] = 2
>>> parse_scenario(doc, source="a.json", known_cards={"Forest"}, known_planes=())
... # doctest: +ELLIPSIS
Traceback (most recent call last):
...
mtgcheck.model.errors.FormatError: a.json: setup.active: expected a player index from 0 to 1 ...
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mtgcheck import formats
from mtgcheck.errors import FormatError, UnknownCardError, display
from mtgcheck.formats import PATTERN_WORDS, Said, field_path, normalized, shown_value
from mtgcheck.jsonread import MAX_BYTES, read as _read
from mtgcheck.model.setup import CardPlacement, PlanarSetup, Position
from mtgcheck.model.state import ABILITIES, STEPS, ZONES
from mtgcheck.model.vocabulary import SETUP_ZONES, VERBS

__all__ = [
    "EXPECT_ZONES",
    "FORMAT",
    "MAX_FILE_BYTES",
    "SETUP_ZONES",
    "STEPS",
    "VERBS",
    "VERB_ARGUMENTS",
    "ActionSpec",
    "CardSpec",
    "Expect",
    "PlanechaseSpec",
    "Scenario",
    "Setup",
    "load_scenario",
    "load_schema",
    "parse_scenario",
    "validate_all",
    "verdict_of",
]

#: The value of the ``format`` key; a file with another value is some other format.
FORMAT = "mtgcheck.scenario/1"
#: Larger files are refused unread: no hand-written scenario comes near, and a cap keeps a
#: stray multi-gigabyte file from exhausting memory in the parser.
MAX_FILE_BYTES = MAX_BYTES
SCHEMA_NAME = "scenario-1"

# The format's words are the model's (declared once there; the schema holds them too, and
# tests/test_formats.py checks it does).
#: ``stack`` and ``outside`` (left the game with its owner) can only be reached by playing.
EXPECT_ZONES = ZONES
#: The argument keys each verb takes (besides ``player``, ``do`` and ``expect``).
VERB_ARGUMENTS: Mapping[str, tuple[str, ...]] = {
    "pass": (),
    "plot": ("card", "from", "spend"),
    "cast": ("card", "how", "x", "kicker", "half", "targets", "sacrifice", "flashback", "spend"),
    "choose": ("cards",),
    "roll": ("result", "spend"),
    "leave": (),
    "play": ("card",),
    "tap": ("card",),
}

# The schema's patterns, again, matched with re.fullmatch: jsonschema uses re.search, where
# "$" also matches before a final newline, so "show\n" would pass the schema alone.
_ID_RE = re.compile(r"[A-Za-z0-9_-]+")
_RULE_RE = re.compile(r"[0-9]{3}(\.[0-9]+[a-z]?)?")
_PLAYER_TARGET_RE = re.compile(r"player:([0-9]+)")

_RULE_PATTERN = "^[0-9]{3}(\\.[0-9]+[a-z]?)?$"
_ID_PATTERN = "^[A-Za-z0-9_-]+$"
_TARGET_PATTERN = "^([A-Za-z0-9_-]+|player:[0-9]+)$"
_PATTERN_WORDS = PATTERN_WORDS  # the schema's patterns in plain words: (one, several)


# ---------------------------------------------------------------------------------------
# Records


# The setup records are the model's own (one definition of a position): a scenario's setup
# *is* a position.
CardSpec = CardPlacement
PlanechaseSpec = PlanarSetup
Setup = Position


@dataclass(frozen=True, slots=True)
class ActionSpec:
    """One step of the timeline: who does what, and the verdict the file expects."""

    #: Position in ``actions``, from 0: reports name the action as ``actions[index]``.
    index: int
    player: int
    verb: str
    #: ``"legal"``, ``"illegal"``, or None when the file states no verdict.
    expect: str | None
    #: The verb's arguments exactly as in the file, e.g. ``{"card": "show", "how": "plotted"}``.
    args: dict[str, Any]
    #: With the verdict ``"illegal"``, the CR rule that must refuse it (``"702.170d"``), or None.
    rule: str | None = None
    #: Expectations on the position after this action (``"expect": {...}``), or None.
    state: Expect | None = None


@dataclass(frozen=True, slots=True)
class Expect:
    """Expectations on a position (the final one, or the one after an action): one
    attribute per key, None when absent.

    ``plane``, ``planar_controller`` and ``pending`` may also be expected to be null ("no
    plane", "no planar controller", "no choice waits"), which None cannot tell apart from
    "not expected"; ``keys`` holds the keys the file gave, so use :meth:`given` for those.
    """

    zones: dict[str, str] | None = None
    plotted: tuple[str, ...] | None = None
    not_plotted: tuple[str, ...] | None = None
    turn: int | None = None
    active: int | None = None
    step: str | None = None
    life: tuple[int, ...] | None = None
    mana: tuple[int, ...] | None = None
    planar_controller: int | None = None
    plane: str | None = None
    plane_counters: int | None = None
    extra_turns: tuple[int, ...] | None = None
    stack: tuple[str, ...] | None = None
    in_game: tuple[int, ...] | None = None
    game_over: bool | None = None
    #: Who has priority.
    priority: int | None = None
    #: The choice the game waits for: ``{"choice": ..., "player": ..., ["source": ...]}``;
    #: None with ``"pending"`` in ``keys``: no choice waits.
    pending: dict[str, Any] | None = None
    keys: frozenset[str] = frozenset()

    def given(self, key: str) -> bool:
        """Whether the file states this expectation (True for ``"plane": null`` too)."""
        return key in self.keys


@dataclass(frozen=True, slots=True)
class Scenario:
    """A loaded scenario: what to set up, what to do, and what to find at the end."""

    #: The file it came from (or the ``source`` given to :func:`parse_scenario`).
    path: str
    name: str
    rules: tuple[str, ...]
    description: str | None
    #: The rule variant to run under (e.g. ``"116.2k"``), or None for the rules as written.
    variant: str | None
    setup: Setup
    actions: tuple[ActionSpec, ...]
    expect: Expect | None
    #: The document as loaded (integral floats such as ``2.0`` made ints), e.g. to embed it
    #: in a counterexample file unchanged.
    raw: dict[str, Any]


# ---------------------------------------------------------------------------------------
# Public functions


def load_schema() -> dict[str, Any]:
    """The published JSON Schema of the format, as a fresh dict (callers may change it).

    Other formats that embed a scenario (counterexample files, configurations) build on
    it by its ``$id`` rather than copy it, so that the two can never disagree.
    """
    return formats.load_schema(SCHEMA_NAME)


def load_scenario(
    path: str | Path,
    *,
    known_cards: Collection[str],
    known_planes: Collection[str],
    known_variants: Collection[str] | None = None,
) -> Scenario:
    """Read, check and type a scenario file.

    Parameters
    ----------
    path
        The file. It must be UTF-8 JSON of at most :data:`MAX_FILE_BYTES` bytes (a UTF-8
        byte-order mark is allowed and ignored).
    known_cards, known_planes
        The names of the built-in pool: the loader cannot know which cards the model
        implements, so the caller says.
    known_variants
        If given, ``variant`` must be one of these; None skips the check (the model then
        rejects an unknown variant itself).

    Returns
    -------
    Scenario

    Raises
    ------
    FormatError
        For the first problem, on one line: field ``(file)`` if the file can't be read,
        ``(json)`` if it isn't JSON, otherwise the path of the offending value. Its
        ``problems`` attribute lists every problem found (itself first), for a caller that
        wants to show them all.
    UnknownCardError
        (a FormatError) for a card or plane name the pool does not hold.
    """
    try:
        doc = _read(path, what="a readable scenario file")
    except FormatError as error:
        error.problems = [error]  # type: ignore[attr-defined]
        raise
    return _parse(doc, str(path), known_cards, known_planes, known_variants, "")


def parse_scenario(
    doc: object,
    *,
    source: str,
    known_cards: Collection[str],
    known_planes: Collection[str],
    known_variants: Collection[str] | None = None,
    prefix: str = "",
) -> Scenario:
    """Check and type a scenario that is already parsed JSON (e.g. embedded in a file).

    ``source`` names the file in error messages and becomes :attr:`Scenario.path`.
    ``prefix`` is the field path of the scenario inside that file (e.g. ``"scenario"``),
    so that an error names the field where the user will find it
    (``scenario.setup.turn``). Raises as :func:`load_scenario` does.
    """
    return _parse(doc, source, known_cards, known_planes, known_variants, prefix)


def validate_all(
    doc: object,
    *,
    source: str,
    known_cards: Collection[str],
    known_planes: Collection[str],
    known_variants: Collection[str] | None = None,
    prefix: str = "",
) -> list[FormatError]:
    """Every problem of an already-parsed scenario, the most relevant first; [] if none.

    Structural problems (against the schema) come first and, when there are any, are
    all there is: the cross-field checks assume a well-formed document, and reporting,
    say, "player 5 is out of range" for ``"players": "two"`` would only add noise.
    """
    shown = display(source)
    problems = formats.schema_problems(doc, shown, prefix, schema=SCHEMA_NAME, what="a scenario")
    if problems:
        return problems
    normal = normalized(doc)
    assert isinstance(normal, dict)  # the schema says so
    return _Semantics(normal, shown, prefix, known_cards, known_planes, known_variants).run()


# ---------------------------------------------------------------------------------------
# Cross-field checks


class _Semantics:
    """The rules the schema can't state, each problem collected with its field path."""

    def __init__(self, doc: dict[str, Any], shown: str, prefix: str,
                 known_cards: Collection[str], known_planes: Collection[str],
                 known_variants: Collection[str] | None) -> None:
        self.doc, self.shown, self.prefix = doc, shown, prefix
        self.known_cards, self.known_planes, self.known_variants = (
            known_cards, known_planes, known_variants)
        self.problems: list[FormatError] = []
        setup = doc["setup"]
        self.players: int = setup["players"]
        self.left: set[int] = set(setup.get("left", ()))
        self.ids: set[str] = set()

    def add(self, path: Sequence[str | int], expected: str, got: object,
            kind: type[FormatError] = FormatError) -> None:
        self.problems.append(kind(self.shown, field_path(self.prefix, path), expected, got))

    def run(self) -> list[FormatError]:
        doc = self.doc
        for i, rule in enumerate(doc["rules"]):
            if not _RULE_RE.fullmatch(rule):
                self.add(("rules", i), _PATTERN_WORDS[_RULE_PATTERN][0], rule)
        variant = doc.get("variant")
        known = self.known_variants
        if variant is not None and known is not None and variant not in known:
            self.add(("variant",), "a rule variant the model knows", variant)
        self.check_setup(doc["setup"])
        for i, action in enumerate(doc["actions"]):
            self.check_action(("actions", i), action)
        if "expect" in doc:
            self.check_expect(doc["expect"], ("expect",))
        return self.problems

    # -- players and cards ------------------------------------------------------------

    def player(self, path: Sequence[str | int], index: int, *, in_game: bool = False) -> None:
        """A player index below ``players`` and, if ``in_game``, of a player still in it."""
        if index >= self.players:
            self.add(path, f"a player index from 0 to {self.players - 1} "
                           f"(setup.players is {self.players})", index)
        elif in_game and index in self.left:
            self.add(path, "a player who has not left the game (see setup.left)", index)

    def per_player(self, path: Sequence[str | int], values: list[Any]) -> None:
        if len(values) != self.players:
            self.add(path, f"one entry per player ({self.players})",
                     Said(f"{len(values)} entr{'y' if len(values) == 1 else 'ies'}"))

    def card_ref(self, path: Sequence[str | int], card_id: str) -> None:
        if card_id not in self.ids:
            self.add(path, "the id of a card declared in setup.cards", card_id)

    def plane_name(self, path: Sequence[str | int], name: str) -> None:
        if name not in self.known_planes:
            self.add(path, "a plane of the built-in pool", name, UnknownCardError)

    # -- the parts --------------------------------------------------------------------

    def check_setup(self, setup: dict[str, Any]) -> None:
        where = ("setup",)
        for i, index in enumerate(setup.get("left", ())):
            self.player((*where, "left", i), index)
        self.player((*where, "active"), setup["active"], in_game=True)
        for key in ("life", "mana"):
            if key in setup:
                self.per_player((*where, key), setup[key])
        if setup.get("mana_rules") == "lands" and any(setup.get("mana", ())):
            # With lands, mana comes from tapping them (CR 605); no pool starts full.
            self.add((*where, "mana"), "zeros (with mana_rules lands, mana comes from tapping lands)",
                     setup["mana"])
        for i, index in enumerate(setup.get("extra_turns", ())):
            self.player((*where, "extra_turns", i), index)
        first_use: dict[str, int] = {}
        for i, card in enumerate(setup["cards"]):
            at = (*where, "cards", i)
            card_id = card["id"]
            if not _ID_RE.fullmatch(card_id):
                self.add((*at, "id"), _PATTERN_WORDS[_ID_PATTERN][0], card_id)
            elif card_id in first_use:
                self.add((*at, "id"), "an id not used before "
                         f"(setup.cards[{first_use[card_id]}] has it)", card_id)
            else:
                first_use[card_id] = i
            self.ids.add(card_id)
            if card["card"] not in self.known_cards:
                self.add((*at, "card"), "a card of the built-in pool", card["card"],
                         UnknownCardError)
            # CR 800.4a: the cards of a player who left the game left with them.
            self.player((*at, "owner"), card["owner"], in_game=True)
            plotted_turn = card.get("plotted_turn")
            if plotted_turn is not None:
                if card["zone"] != "exile":  # CR 702.170a: a plotted card is in exile
                    self.add((*at, "plotted_turn"), "no plotted_turn on a card outside exile "
                             f"(zone is {card['zone']!r})", plotted_turn)
                elif plotted_turn > setup["turn"]:
                    self.add((*at, "plotted_turn"),
                             f"a turn no later than setup.turn ({setup['turn']})", plotted_turn)
        planechase = setup.get("planechase")
        if planechase is not None:
            self.check_planechase((*where, "planechase"), planechase)

    def check_planechase(self, where: tuple[str, ...], planechase: dict[str, Any]) -> None:
        decks = planechase["decks"]
        communal = planechase.get("communal", False)
        wanted = 1 if communal else self.players
        if len(decks) != wanted:
            self.add((*where, "decks"),
                     "exactly one deck (communal is true)" if communal
                     else f"one deck per player ({self.players}; set communal for one shared deck)",
                     Said(f"{len(decks)} deck{'' if len(decks) == 1 else 's'}"))
        for d, deck in enumerate(decks):
            for i, name in enumerate(deck):
                self.plane_name((*where, "decks", d, i), name)
        plane = planechase["plane"]
        self.plane_name((*where, "plane", "name"), plane["name"])
        if communal and "owner" in plane:
            # CR 901.15b / 800.4p: the planes of one communal planar deck are no player's, so
            # none leaves the game with a player; an owner would say otherwise.
            self.add((*where, "plane", "owner"), "no owner with a communal planar deck (CR 901.15b: "
                     "its planes leave with no player)", plane["owner"])
        elif not communal and "owner" not in plane:
            self.add((*where, "plane", "owner"), "the plane's owner (a player index; required "
                     "unless communal is true)", Said("nothing"))
        elif not communal:
            self.player((*where, "plane", "owner"), plane["owner"], in_game=True)
        # CR 901.6: the planar controller is a player in the game.
        self.player((*where, "controller"), planechase["controller"], in_game=True)

    def check_action(self, where: tuple[str, int], action: dict[str, Any]) -> None:
        self.player((*where, "player"), action["player"])
        if "rule" in action and verdict_of(action) != "illegal":
            # The rule that refuses an action: only an action expected to be refused has one.
            self.add((*where, "rule"), 'a rule only with the verdict "illegal" ("expect": "illegal", '
                                       'or "verdict": "illegal" in its expect object)', action["rule"])
        if isinstance(action.get("expect"), dict):
            self.check_expect(action["expect"], (*where, "expect"))
        if "card" in action:
            self.card_ref((*where, "card"), action["card"])
        for key in ("cards", "sacrifice"):
            for i, card_id in enumerate(action.get(key, ())):
                self.card_ref((*where, key, i), card_id)
        for i, target in enumerate(action.get("targets", ())):
            player = _PLAYER_TARGET_RE.fullmatch(target)
            if player:
                self.player((*where, "targets", i), int(player.group(1)))
            elif _ID_RE.fullmatch(target):
                self.card_ref((*where, "targets", i), target)
            else:
                self.add((*where, "targets", i), _PATTERN_WORDS[_TARGET_PATTERN][0],
                         target)
        if "flashback" in action and action.get("how") != "flashback":
            self.add((*where, "flashback"), 'no "flashback" key unless how is "flashback"',
                     action["flashback"])

    def check_expect(self, expect: dict[str, Any], where: tuple[str | int, ...]) -> None:
        for card_id in expect.get("zones", {}):
            self.card_ref((*where, "zones", card_id), card_id)
        for key in ("plotted", "not_plotted", "stack"):
            for i, card_id in enumerate(expect.get(key, ())):
                if key == "stack" and card_id.startswith("ability:"):
                    # A triggered ability on the stack, named by its kind: the kinds are the
                    # card registry's (it allocates them), read here, not copied in the schema.
                    if card_id.removeprefix("ability:") not in ABILITIES[1:]:
                        self.add((*where, key, i), "a card id or ability:KIND, KIND one of "
                                 + ", ".join(ABILITIES[1:]), card_id)
                    continue
                self.card_ref((*where, key, i), card_id)
        both = set(expect.get("plotted", ())) & set(expect.get("not_plotted", ()))
        for i, card_id in enumerate(expect.get("not_plotted", ())):
            if card_id in both:
                self.add((*where, "not_plotted", i), "a card not also listed in expect.plotted",
                         card_id)
        for key in ("active", "priority"):
            if key in expect:
                self.player((*where, key), expect[key])
        pending = expect.get("pending")
        if pending is not None:
            self.player((*where, "pending", "player"), pending["player"])
            if pending.get("source") is not None:
                self.card_ref((*where, "pending", "source"), pending["source"])
        if expect.get("planar_controller") is not None:
            self.player((*where, "planar_controller"), expect["planar_controller"])
        for key in ("extra_turns", "in_game"):
            for i, index in enumerate(expect.get(key, ())):
                self.player((*where, key, i), index)
        for key in ("life", "mana"):
            if key in expect:
                self.per_player((*where, key), expect[key])
        if expect.get("plane") is not None:
            self.plane_name((*where, "plane"), expect["plane"])
        if self.doc["setup"].get("planechase") is None:
            # No planes in this game: expecting one is a mistake in the file, not a test.
            for key in ("plane", "planar_controller", "plane_counters"):
                if expect.get(key) is not None:
                    self.add((*where, key), "null or no key (setup.planechase is absent: "
                             "this game has no planes)", shown_value(expect[key]))


# ---------------------------------------------------------------------------------------
# Building the records


def _parse(doc: object, path: str, known_cards: Collection[str],
           known_planes: Collection[str], known_variants: Collection[str] | None,
           prefix: str) -> Scenario:
    """Check, then build the records; raise the first problem, carrying all of them."""
    problems = validate_all(doc, source=path, known_cards=known_cards, known_planes=known_planes,
                            known_variants=known_variants, prefix=prefix)
    if problems:
        first = problems[0]
        first.problems = problems  # type: ignore[attr-defined]
        raise first
    normal = normalized(doc)
    assert isinstance(normal, dict)  # the schema says so
    return _build(normal, path)


def _build(doc: dict[str, Any], path: str) -> Scenario:
    setup = doc["setup"]
    players = setup["players"]
    pc = setup.get("planechase")
    planechase = None if pc is None else PlanechaseSpec(
        decks=tuple(tuple(deck) for deck in pc["decks"]),
        plane=pc["plane"]["name"],
        plane_owner=pc["plane"].get("owner", -1),
        plane_counters=pc["plane"]["counters"],
        controller=pc["controller"],
        communal=pc.get("communal", False),
    )
    built_setup = Setup(
        players=players,
        turn=setup["turn"],
        active=setup["active"],
        step=setup["step"],
        life=tuple(setup.get("life", [20] * players)),
        mana=tuple(setup.get("mana", [0] * players)),
        cards=tuple(CardSpec(id=card["id"], card=card["card"], owner=card["owner"],
                             zone=card["zone"], plotted_turn=card.get("plotted_turn"))
                    for card in setup["cards"]),
        planechase=planechase,
        left=tuple(setup.get("left", ())),
        extra_turns=tuple(setup.get("extra_turns", ())),
        lands=setup.get("mana_rules") == "lands",
    )
    actions = tuple(
        ActionSpec(index=i, player=action["player"], verb=action["do"],
                   expect=verdict_of(action),
                   args={key: value for key, value in action.items()
                         if key not in ("player", "do", "expect", "rule")},
                   rule=action.get("rule"),
                   state=_build_expect(action["expect"]) if isinstance(action.get("expect"), dict) else None)
        for i, action in enumerate(doc["actions"]))
    return Scenario(
        path=path,
        name=doc["name"],
        rules=tuple(doc["rules"]),
        description=doc.get("description"),
        variant=doc.get("variant"),
        setup=built_setup,
        actions=actions,
        expect=_build_expect(doc["expect"]) if "expect" in doc else None,
        raw=doc,
    )


def verdict_of(action: Mapping[str, Any]) -> str | None:
    """The verdict an action document expects: ``"legal"``, ``"illegal"`` or None (none
    stated: a plain step of the timeline, which must be legal).

    ``expect`` is either the verdict itself or an object of expectations on the position
    after the action, whose ``verdict`` key, if any, is the verdict.
    """
    expect = action.get("expect")
    if isinstance(expect, dict):
        verdict = expect.get("verdict")
        return verdict if isinstance(verdict, str) else None
    return expect if isinstance(expect, str) else None


def _build_expect(expect: dict[str, Any]) -> Expect:
    expect = {key: value for key, value in expect.items() if key != "verdict"}

    def seq(key: str) -> tuple[Any, ...] | None:
        return tuple(expect[key]) if key in expect else None

    return Expect(
        zones=dict(expect["zones"]) if "zones" in expect else None,
        plotted=seq("plotted"),
        not_plotted=seq("not_plotted"),
        turn=expect.get("turn"),
        active=expect.get("active"),
        step=expect.get("step"),
        life=seq("life"),
        mana=seq("mana"),
        planar_controller=expect.get("planar_controller"),
        plane=expect.get("plane"),
        plane_counters=expect.get("plane_counters"),
        extra_turns=seq("extra_turns"),
        stack=seq("stack"),
        in_game=seq("in_game"),
        game_over=expect.get("game_over"),
        priority=expect.get("priority"),
        pending=dict(expect["pending"]) if expect.get("pending") is not None else None,
        keys=frozenset(expect),
    )

