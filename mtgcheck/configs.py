"""The built-in configurations that ``mtgcheck check`` runs with no arguments, and the
loader of configuration files (``mtgcheck check --config FILE``, docs/config.md).

Each is a starting position plus bounds: the graph search explores every state reachable
within ``max_turn``; BMC and Hypothesis go ``depth`` actions deep.  The positions are small
on purpose (the state space grows quickly with cards), yet each property's antecedent is
reachable in at least one of them: the checkers report a property whose antecedent never
fired as vacuous rather than as holding.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mtgcheck.errors import FormatError
from mtgcheck.model.setup import CardPlacement as C, PlanarSetup, Position


@dataclass(frozen=True)
class CheckConfig:
    name: str
    position: Position
    max_turn: int = 2
    depth: int = 8
    hypothesis_examples: int = 200
    hypothesis_steps: int = 40


def library_of(owner: int, n: int, name: str = "Island") -> tuple[C, ...]:
    """``n`` cards named ``name`` in ``owner``'s library, with ids ``lib<owner>a``, ``lib<owner>b``, ..."""
    return tuple(C(f"lib{owner}{chr(97 + i)}", name, owner, "library") for i in range(n))


BUILTIN: tuple[CheckConfig, ...] = (
    CheckConfig(
        "plot",
        Position(players=2, turn=1, active=0, step="main1", life=(20, 20), mana=(2, 2),
                 cards=(C("show", "Slickshot Show-Off", 0, "hand"),
                        C("shock", "Test Plotted Shock", 0, "hand"),
                        C("fireball", "Test Plotted Fireball", 1, "exile", plotted_turn=1),
                        C("bolt", "Lightning Bolt", 1, "hand"),
                        *library_of(0, 2), *library_of(1, 2))),
        max_turn=3, depth=10),
    CheckConfig(
        "flashback",
        Position(players=2, turn=1, active=0, step="main1", life=(20, 20), mana=(3, 2),
                 cards=(C("twice", "Think Twice", 0, "graveyard"),
                        C("looting", "Faithless Looting", 0, "graveyard"),
                        C("counter", "Counterspell", 1, "hand"),
                        C("remand", "Remand", 1, "graveyard"),
                        *library_of(0, 3), *library_of(1, 2))),
        max_turn=2, depth=10),
    CheckConfig(
        "costs",
        Position(players=2, turn=1, active=0, step="main1", life=(20, 20), mana=(6, 1),
                 cards=(C("luck", "Make Your Own Luck", 0, "hand"),
                        C("rites", "Village Rites", 0, "hand"),
                        C("thopter", "Ornithopter", 0, "battlefield"),
                        C("top", "Lightning Bolt", 0, "library"),
                        C("mid", "Forest", 0, "library"),
                        C("low", "Think Twice", 0, "library"),
                        *library_of(1, 1))),
        max_turn=1, depth=8),
    CheckConfig(
        "planechase",
        Position(players=3, turn=1, active=0, step="main1", life=(20, 20, 20), mana=(1, 1, 1),
                 cards=(*library_of(0, 2), *library_of(1, 2), *library_of(2, 2)),
                 planechase=PlanarSetup(decks=(("Test Plane Tally Grounds",), (), ()), plane="Otaria",
                                        plane_owner=1, plane_counters=0, controller=0)),
        max_turn=2, depth=10),
    CheckConfig(
        "lands",
        # Mana from lands (CR 305, 605, 107.4, 500.4): each player has an Island out and a land
        # in hand; Lightning Bolt and Think Twice need their colours, Counterspell two Islands.
        Position(players=2, turn=1, active=0, step="main1", life=(20, 20), mana=(0, 0), lands=True,
                 # The spells first: their slots' rules (pass.resolve.cardN) are those of the
                 # other positions, which validation's random games reach.
                 cards=(C("bolt", "Lightning Bolt", 0, "hand"),
                        C("twice", "Think Twice", 0, "hand"),
                        C("counter", "Counterspell", 1, "hand"),
                        C("island0", "Island", 0, "battlefield"),
                        C("mountain0", "Mountain", 0, "hand"),
                        C("island1", "Island", 1, "battlefield"),
                        C("island1b", "Island", 1, "hand"),
                        *library_of(0, 1), *library_of(1, 1, "Mountain"))),
        max_turn=2, depth=10),
    CheckConfig(
        "hand-size",
        # The cleanup discard (CR 514.1): player 0 holds eight cards in their main phase, with
        # mana for Lightning Bolt or Think Twice (whose draw keeps the hand at eight).
        Position(players=2, turn=1, active=0, step="main1", life=(20, 20), mana=(2, 0),
                 cards=(C("bolt", "Lightning Bolt", 0, "hand"),
                        C("twice", "Think Twice", 0, "hand"),
                        *(C(f"island{i}", "Island", 0, "hand") for i in range(6)),
                        *library_of(0, 1), *library_of(1, 1))),
        max_turn=2, depth=10),
)


# --- small positions: one rule area each, for mutants and the tests that break properties ---

SMALL_EXAMPLES = 300


def _libs(*counts: int) -> tuple[C, ...]:
    """``counts[p]`` Islands in player p's library (so that the next turn's draw is harmless)."""
    return tuple(C(f"lib{p}{i}", "Island", p, "library") for p, n in enumerate(counts) for i in range(n))


def _conf(name: str, position: Position, max_turn: int, depth: int = 8) -> CheckConfig:
    return CheckConfig(name, position, max_turn=max_turn, depth=depth, hypothesis_examples=SMALL_EXAMPLES,
                       hypothesis_steps=25)


# --- small positions ------------------------------------------------------------------------

# Turn 2, player 0's main phase: a plot card in hand, and a card plotted on turn 1 in exile
# (castable now, so the plotted-cast properties have something to say on the intact rules).
PLOT = _conf("break-plot", Position(
    players=2, turn=2, active=0, step="main1", life=(20, 20), mana=(3, 0),
    cards=(C("shock", "Test Plotted Shock", 0, "hand"),
           C("fireball", "Test Plotted Fireball", 0, "exile", plotted_turn=1),
           *_libs(1, 1))), max_turn=2)

# Make Your Own Luck with a land and a nonland card among the top three.
LUCK = _conf("break-luck", Position(
    players=2, turn=1, active=0, step="main1", life=(20, 20), mana=(5, 0),
    cards=(C("luck", "Make Your Own Luck", 0, "hand"),
           C("forest", "Forest", 0, "library"),
           C("bolt", "Lightning Bolt", 0, "library"),
           *_libs(0, 1))), max_turn=1)

# Village Rites (sacrifice a creature as an additional cost) and a creature to sacrifice.
RITES = _conf("break-rites", Position(
    players=2, turn=1, active=0, step="main1", life=(20, 20), mana=(1, 0),
    cards=(C("rites", "Village Rites", 0, "hand"),
           C("thopter", "Ornithopter", 0, "battlefield"),
           *_libs(2, 1))), max_turn=1)

# Flashback: an instant and a sorcery in the graveyard, mana for one flashback.
FLASHBACK = _conf("break-flashback", Position(
    players=2, turn=1, active=0, step="main1", life=(20, 20), mana=(3, 0),
    cards=(C("twice", "Think Twice", 0, "graveyard"),
           C("looting", "Faithless Looting", 0, "graveyard"),
           *_libs(2, 1))), max_turn=1)

# A card with flashback in hand, cast the normal way.
HAND_FLASHBACK = _conf("break-hand-flashback", Position(
    players=2, turn=1, active=0, step="main1", life=(20, 20), mana=(2, 0),
    cards=(C("twice", "Think Twice", 0, "hand"), *_libs(2, 1))), max_turn=1)

# One Lightning Bolt: the smallest position where a card changes zones and uses the stack.
BOLT = _conf("break-bolt", Position(
    players=2, turn=1, active=0, step="main1", life=(20, 20), mana=(1, 0),
    cards=(C("bolt", "Lightning Bolt", 0, "hand"), *_libs(1, 1))), max_turn=1)

# Planechase, Otaria face up: the planar die and chaos.
OTARIA = _conf("break-otaria", Position(
    players=2, turn=1, active=0, step="main1", life=(20, 20), mana=(1, 0),
    cards=_libs(1, 1),
    planechase=PlanarSetup(decks=((), ()), plane="Otaria", plane_owner=0, plane_counters=0, controller=0)),
    max_turn=1)

# Planechase, a plane with a counter face up; player 0's planar deck holds the next plane.
TALLY = _conf("break-tally", Position(
    players=2, turn=1, active=0, step="main1", life=(20, 20), mana=(0, 0),
    cards=_libs(1, 1),
    planechase=PlanarSetup(decks=(("Test Plane Still Waters",), ()), plane="Test Plane Tally Grounds",
                           plane_owner=1, plane_counters=1, controller=0)),
    max_turn=1)

# Three players, player 0's end step, player 1 has an extra turn queued next.
EXTRA_TURN = _conf("break-extra-turn", Position(
    players=3, turn=1, active=0, step="end", life=(20, 20, 20), mana=(0, 0, 0),
    cards=_libs(1, 1, 1),
    planechase=PlanarSetup(decks=((), (), ()), plane="Test Plane Still Waters", plane_owner=0,
                           plane_counters=0, controller=0),
    extra_turns=(1,)), max_turn=2)


# Counterspell against a spell cast with flashback (it must still be exiled: CR 702.34a).
COUNTER = _conf("break-counter", Position(
    players=2, turn=1, active=0, step="main1", life=(20, 20), mana=(3, 2),
    cards=(C("twice", "Think Twice", 0, "graveyard"), C("counter", "Counterspell", 1, "hand"),
           *_libs(2, 1))), max_turn=1)

# Three players: player 0's Lightning Bolt, player 1's Aven Interrupter (flash) to target it, so the
# only spell its trigger could target can leave the game with its controller (CR 603.3d, 800.4a);
# no library: no run of the checks reaches the next draw step.
AVEN = _conf("break-aven", Position(
    players=3, turn=1, active=0, step="main1", life=(20, 20, 20), mana=(1, 3, 0),
    cards=(C("bolt", "Lightning Bolt", 0, "hand"), C("aven", "Aven Interrupter", 1, "hand"))),
    max_turn=1, depth=8)

# Mana from lands: two lands in hand, one on the battlefield of each colour Lightning Bolt
# and Think Twice need, so a second land play, an unchecked colour and a kept pool each show.
LANDS = _conf("break-lands", Position(
    players=2, turn=1, active=0, step="main1", life=(20, 20), mana=(0, 0), lands=True,
    cards=(C("island", "Island", 0, "battlefield"), C("mountain", "Mountain", 0, "hand"),
           C("island2", "Island", 0, "hand"), C("bolt", "Lightning Bolt", 0, "hand"),
           C("twice", "Think Twice", 0, "hand"), *_libs(1, 1))), max_turn=1)

# The cleanup discard: player 0's end step with eight cards in hand (a turn with a discard, or
# with none under the broken rule).
HAND_SIZE = _conf("break-hand-size", Position(
    players=2, turn=1, active=0, step="end", life=(20, 20), mana=(0, 0),
    cards=(*(C(f"island{i}", "Island", 0, "hand") for i in range(8)), *_libs(1, 1))), max_turn=2)

SMALL: dict[str, CheckConfig] = {c.name: c for c in (PLOT, LUCK, RITES, FLASHBACK, HAND_FLASHBACK, BOLT, OTARIA,
                                                     TALLY, EXTRA_TURN, COUNTER, AVEN, LANDS, HAND_SIZE)}


# --- configuration files (format mtgcheck.config/1, docs/config.md) ---------------------

CONFIG_FORMAT = "mtgcheck.config/1"
#: The bounds a file may set, each with its CheckConfig default when the file leaves it out.
BOUNDS = ("max_turn", "depth", "hypothesis_examples", "hypothesis_steps")


CONFIG_SCHEMA = "config-1"


def config_schema() -> dict[str, Any]:
    """The published JSON Schema of configuration files (its ``setup`` is the scenario's)."""
    from mtgcheck import formats

    return formats.load_schema(CONFIG_SCHEMA)


def _expected(key: str) -> str:
    """What a top-level key must hold, in the words of scenario errors."""
    from mtgcheck.formats import schema

    prop = schema(CONFIG_SCHEMA)["properties"][key]
    if key == "format":
        return repr(CONFIG_FORMAT)
    if key == "name":
        return "a name of letters, digits, _ and - (at most 64)"
    if key == "setup":
        return "an object (a position, as a scenario's setup)"
    if prop.get("type") == "integer":
        return f"an integer from {prop['minimum']} to {prop['maximum']}"
    return "a string"


def _top_level_problem(doc: object, shown: str) -> FormatError | None:
    """The first problem outside ``setup`` (the scenario loader words those), or None.

    Problems are ordered by the schema's key order, so a file of another format is told
    that first rather than about each of its keys.
    """
    from mtgcheck.formats import Said, field_path, schema, shown_value, validator  # every format's wording

    if not isinstance(doc, dict):
        return FormatError(shown, "(top level)", f"an object (a {CONFIG_FORMAT} document)", shown_value(doc))
    keys = list(schema(CONFIG_SCHEMA)["properties"])
    unknown = [k for k in doc if k not in keys]
    if unknown:
        # A key with spaces or control characters is quoted and escaped: the message stays one line.
        return FormatError(shown, field_path("", (unknown[0],)), "one of the top-level keys: " + ", ".join(keys),
                           Said("an unknown key"))
    try:
        errors = list(validator(CONFIG_SCHEMA).iter_errors(doc))
    except RecursionError:
        return FormatError(shown, "(top level)", "a configuration nested less deeply", Said("nesting too deep to check"))
    bad = {e.path[0] for e in errors if e.path and e.path[0] != "setup"}
    missing = {k for k in schema(CONFIG_SCHEMA)["required"] if k not in doc}
    for key in keys:
        if key in missing:
            return FormatError(shown, key, _expected(key), Said("nothing (the key is missing)"))
        if key in bad:
            return FormatError(shown, key, _expected(key), shown_value(doc[key]))
    return None


def parse_config(doc: object, source: str) -> CheckConfig:
    """Check and type an already-parsed configuration document; FormatError on the first problem.

    The ``setup`` goes through the scenario loader (schema, then cross-field checks such
    as known card names and player indexes), wrapped in an empty scenario so that its
    field paths (``setup.cards[1].card``) read the same in both formats.
    """
    from mtgcheck.model import cards as pool
    from mtgcheck.errors import display
    from mtgcheck.formats import normalized
    from mtgcheck.scenario_format import FORMAT, parse_scenario

    shown = display(source)
    problem = _top_level_problem(doc, shown)
    if problem is not None:
        raise problem
    assert isinstance(doc, dict)
    wrapped = {"format": FORMAT, "name": doc["name"], "rules": [], "setup": doc["setup"], "actions": []}
    position = parse_scenario(wrapped, source=source, known_cards=pool.card_names(),
                              known_planes=pool.plane_names()).setup
    bounds = {k: v for k, v in normalized(doc).items() if k in BOUNDS}  # type: ignore[union-attr]
    conf = CheckConfig(doc["name"], position, **bounds)
    if conf.max_turn < position.turn:
        raise FormatError(shown, "max_turn", f"a turn no earlier than setup.turn ({position.turn})", conf.max_turn)
    return conf


def load_config(path: str | Path) -> CheckConfig:
    """Read a configuration file (``mtgcheck.config/1``): a CheckConfig, or one FormatError.

    The file is read as scenario files are (UTF-8 JSON of at most 1 MiB, no repeated keys,
    no NaN), so the two formats fail alike.
    """
    from mtgcheck import jsonread

    doc = jsonread.read(path, what="a readable configuration file")
    return parse_config(doc, str(path))
