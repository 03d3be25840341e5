"""Tests of the scenario loader (format mtgcheck.scenario/1): what loads, and what each
kind of mistake in a hand-written file is reported as (file, field, one line)."""

from __future__ import annotations

import copy
import dataclasses
import doctest
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from mtgcheck import scenario_format
from mtgcheck.errors import FormatError, UnknownCardError
from mtgcheck.scenario_format import (
    EXPECT_ZONES,
    FORMAT,
    MAX_FILE_BYTES,
    SETUP_ZONES,
    STEPS,
    VERB_ARGUMENTS,
    VERBS,
    ActionSpec,
    CardSpec,
    Expect,
    PlanechaseSpec,
    Scenario,
    load_scenario,
    load_schema,
    parse_scenario,
    validate_all,
)

DOCS = Path(__file__).resolve().parent.parent / "docs" / "scenario.md"

# The example of the spec, verbatim: it must load as written.
EXAMPLE = """\
{"format": "mtgcheck.scenario/1", "name": "plotted card waits a turn", "rules": ["702.170d"],
 "setup": {"players": 2, "turn": 1, "active": 0, "step": "main1", "mana": [4, 4],
           "cards": [{"id": "show", "card": "Slickshot Show-Off", "owner": 0, "zone": "hand"},
                     {"id": "top", "card": "Forest", "owner": 0, "zone": "library"}],
           "planechase": null},
 "actions": [{"player": 0, "do": "plot", "card": "show", "expect": "legal"},
             {"player": 0, "do": "cast", "card": "show", "how": "plotted", "expect": "illegal"}],
 "expect": {"zones": {"show": "exile"}, "plotted": ["show"], "turn": 1, "active": 0}}
"""

CARDS = frozenset({"Slickshot Show-Off", "Forest", "Faithless Looting", "Fire // Ice",
                   "Village Rites", "Make Your Own Luck", "Lightning Bolt", "Blaze"})
PLANES = frozenset({"Otaria", "Test Plane A", "Test Plane B"})
POOL: dict[str, Any] = {"known_cards": CARDS, "known_planes": PLANES}

PLANECHASE = {"decks": [["Test Plane A"], ["Test Plane B"]],
              "plane": {"name": "Otaria", "owner": 0, "counters": 0}, "controller": 0}


def example() -> dict[str, Any]:
    """A fresh copy of the example, to be spoiled by one test."""
    doc: dict[str, Any] = json.loads(EXAMPLE)
    return doc


def write(tmp_path: Path, doc: object, name: str = "plot.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return path


def load(path: Path, **pool: Any) -> Scenario:
    return load_scenario(path, **(pool or POOL))


def error_of(tmp_path: Path, doc: object, **pool: Any) -> FormatError:
    """The error loading `doc` from a file raises; checks what every error must be."""
    path = write(tmp_path, doc)
    with pytest.raises(FormatError) as caught:
        load(path, **pool)
    error: FormatError = caught.value
    message = str(error)
    assert message.startswith(f"{path}: {error.field}: expected "), message
    assert "\n" not in message and len(message.splitlines()) == 1, message
    assert error.exit_code == 2  # a user's error, under MtgcheckError: the CLI exits 2
    assert error.problems[0] is error  # type: ignore[attr-defined]
    return caught.value


# ---------------------------------------------------------------------------------------
# What loads


def test_the_example_loads_as_written(tmp_path: Path) -> None:
    path = tmp_path / "plot.json"
    path.write_text(EXAMPLE, encoding="utf-8")
    s = load_scenario(path, known_cards={"Slickshot Show-Off", "Forest"}, known_planes=())
    assert s.path == str(path)
    assert (s.name, s.rules, s.description, s.variant) == (
        "plotted card waits a turn", ("702.170d",), None, None)
    setup = s.setup
    assert (setup.players, setup.turn, setup.active, setup.step) == (2, 1, 0, "main1")
    assert setup.life == (20, 20) and setup.mana == (4, 4)
    assert setup.cards == (CardSpec("show", "Slickshot Show-Off", 0, "hand", None),
                           CardSpec("top", "Forest", 0, "library", None))
    assert setup.card("top").zone == "library"
    assert setup.planechase is None and setup.left == () and setup.extra_turns == ()
    assert s.actions == (
        ActionSpec(0, 0, "plot", "legal", {"card": "show"}),
        ActionSpec(1, 0, "cast", "illegal", {"card": "show", "how": "plotted"}),
    )
    assert s.expect == Expect(zones={"show": "exile"}, plotted=("show",), turn=1, active=0,
                              keys=frozenset({"zones", "plotted", "turn", "active"}))
    assert s.raw == json.loads(EXAMPLE)


def test_docs_hold_the_example_verbatim_and_it_loads(tmp_path: Path) -> None:
    blocks = re.findall(r"```json\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)
    assert EXAMPLE in blocks
    path = tmp_path / "docs-example.json"
    path.write_text(blocks[blocks.index(EXAMPLE)], encoding="utf-8")
    assert load(path).name == "plotted card waits a turn"


def test_records_are_frozen(tmp_path: Path) -> None:
    s = load(write(tmp_path, example()))
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.name = "other"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.setup.cards[0].zone = "exile"  # type: ignore[misc]


def test_defaults_are_filled_in(tmp_path: Path) -> None:
    doc = example()
    del doc["setup"]["mana"], doc["setup"]["planechase"], doc["expect"]
    doc["actions"] = []
    doc["setup"]["players"] = 3
    s = load(write(tmp_path, doc))
    assert s.setup.life == (20, 20, 20) and s.setup.mana == (0, 0, 0)
    assert s.setup.planechase is None and s.actions == () and s.expect is None


def test_every_key_and_every_verb_argument_loads(tmp_path: Path) -> None:
    doc = {
        "format": FORMAT, "name": "everything", "rules": ["702", "601.2", "118.9a"],
        "description": "all keys", "variant": "116.2k",
        "setup": {
            "players": 3, "turn": 4, "active": 1, "step": "main2", "life": [20, 7, 1],
            "mana": [0, 5, 2], "left": [2], "extra_turns": [1, 0, 1],
            "cards": [
                {"id": "loot", "card": "Faithless Looting", "owner": 0, "zone": "graveyard"},
                {"id": "fi", "card": "Fire // Ice", "owner": 1, "zone": "hand"},
                {"id": "rites", "card": "Village Rites", "owner": 1, "zone": "hand"},
                {"id": "show", "card": "Slickshot Show-Off", "owner": 1, "zone": "exile",
                 "plotted_turn": 4},
                {"id": "blaze", "card": "Blaze", "owner": 1, "zone": "hand"},
                {"id": "luck", "card": "Make Your Own Luck", "owner": 0, "zone": "battlefield"},
            ],
            "planechase": {"decks": [["Test Plane A", "Test Plane B"]],
                           "plane": {"name": "Otaria", "counters": 2},
                           "controller": 1, "communal": True},
        },
        "actions": [
            {"player": 1, "do": "pass"},
            {"player": 1, "do": "plot", "card": "fi", "from": "hand", "expect": "illegal"},
            {"player": 1, "do": "cast", "card": "fi", "how": "normal", "half": "left",
             "targets": ["player:0", "show"], "kicker": False, "x": 0},
            {"player": 0, "do": "cast", "card": "loot", "how": "flashback",
             "flashback": "mana_cost", "expect": "illegal"},
            {"player": 1, "do": "cast", "card": "rites", "how": "free", "sacrifice": ["show"]},
            {"player": 1, "do": "cast", "card": "blaze", "how": "normal", "x": 3},
            {"player": 1, "do": "choose", "cards": []},
            {"player": 1, "do": "roll", "result": "chaos", "expect": "legal"},
            {"player": 0, "do": "leave"},
        ],
        "expect": {
            "zones": {"loot": "graveyard", "fi": "stack", "luck": "outside"},
            "plotted": ["show"], "not_plotted": ["fi"], "turn": 5, "active": 0,
            "step": "beginning", "life": [20, 7, 1], "mana": [0, 0, 0],
            "planar_controller": None, "plane": None, "plane_counters": 0,
            "extra_turns": [0], "stack": ["fi", "rites"], "in_game": [1], "game_over": True,
        },
    }
    s = load(write(tmp_path, doc))
    assert s.variant == "116.2k" and s.description == "all keys"
    assert s.setup.left == (2,) and s.setup.extra_turns == (1, 0, 1)
    assert s.setup.planechase == PlanechaseSpec(
        decks=(("Test Plane A", "Test Plane B"),), plane="Otaria", plane_owner=-1,
        plane_counters=2, controller=1, communal=True)
    assert s.setup.cards[3].plotted_turn == 4
    assert [a.verb for a in s.actions] == ["pass", "plot", "cast", "cast", "cast", "cast",
                                           "choose", "roll", "leave"]
    assert s.actions[2].args == {"card": "fi", "how": "normal", "half": "left",
                                 "targets": ["player:0", "show"], "kicker": False, "x": 0}
    assert s.actions[0].args == {} and s.actions[0].expect is None
    assert s.actions[6].args == {"cards": []}
    e = s.expect
    assert e is not None
    assert e.plane is None and e.given("plane") and e.given("planar_controller")
    assert e.zones == {"loot": "graveyard", "fi": "stack", "luck": "outside"}
    assert e.stack == ("fi", "rites") and e.game_over is True
    assert e.in_game == (1,) and e.life == (20, 7, 1)


def test_an_integral_float_is_read_as_an_int(tmp_path: Path) -> None:
    doc = example()
    doc["setup"]["turn"] = 1.0
    s = load(write(tmp_path, doc))
    assert s.setup.turn == 1 and type(s.setup.turn) is int


def test_a_byte_order_mark_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + EXAMPLE.encode())
    assert load(path).name == "plotted card waits a turn"


def test_a_null_plane_expectation_is_told_from_none(tmp_path: Path) -> None:
    doc = example()
    doc["setup"]["planechase"] = copy.deepcopy(PLANECHASE)
    doc["expect"]["plane"] = None
    e = load(write(tmp_path, doc)).expect
    assert e is not None and e.plane is None and e.given("plane")
    assert e.planar_controller is None and not e.given("planar_controller")


# ---------------------------------------------------------------------------------------
# Reading the file


def test_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FormatError) as caught:
        load(tmp_path / "nope.json")
    assert caught.value.field == "(file)" and "nope.json" in str(caught.value)
    assert "no such file" in str(caught.value)


def test_a_directory(tmp_path: Path) -> None:
    with pytest.raises(FormatError) as caught:
        load(tmp_path)
    assert caught.value.field == "(file)"


def test_a_file_over_one_mib_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text(" " * MAX_FILE_BYTES + EXAMPLE, encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        load(path)
    assert caught.value.field == "(file)" and "1 MiB" in str(caught.value)


@pytest.mark.parametrize(("text", "words"), [
    (EXAMPLE.replace('"name"', "name"), "at line 1, column 35"),
    (EXAMPLE[:120], "line 2"),
    ("", "line 1, column 1"),
    (EXAMPLE + "x", "Extra data"),
    (EXAMPLE.replace('"turn": 1, "active"', '"turn": NaN, "active"'), "NaN"),
    (EXAMPLE.replace('"turn": 1, "active"', '"turn": Infinity, "active"'), "Infinity"),
    (EXAMPLE.replace('"name": "plotted card waits a turn"', '"name": "a", "name": "b"'),
     "the key 'name' twice"),
    (EXAMPLE.replace('"rules": ["702.170d"]', '"rules": ' + "[" * 100_000 + "]" * 100_000),
     "nested"),
    (EXAMPLE.replace('"turn": 1, "active"', '"turn": ' + "9" * 5000 + ', "active"'),
     "4300 digits"),
])
def test_invalid_json(tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        load(path)
    message = str(caught.value)
    assert caught.value.field == "(json)" and words in message and "\n" not in message
    assert message.startswith(f"{path}: (json): expected ")


def test_text_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin.json"
    path.write_bytes(EXAMPLE.replace("waits", "w\xe4its").encode("latin-1"))
    with pytest.raises(FormatError) as caught:
        load(path)
    assert caught.value.field == "(json)" and "UTF-8" in str(caught.value)


@pytest.mark.parametrize("depth", [300, 990])
def test_deep_nesting_near_the_recursion_limit_is_a_plain_error(tmp_path: Path,
                                                                 depth: int) -> None:
    # Near the limit, reading or checking may run out of stack: still a FormatError.
    text = EXAMPLE.replace('"rules": ["702.170d"]',
                           '"rules": [], "description": ' + "[" * depth + "]" * depth)
    path = tmp_path / "deep.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        load(path)
    assert caught.value.field in ("description", "(json)", "(top level)")
    assert depth > 300 or caught.value.field == "description"
    assert "\n" not in str(caught.value)


# ---------------------------------------------------------------------------------------
# Structure (the schema)


def test_wrong_field_type_names_file_and_field(tmp_path: Path) -> None:
    doc = example()
    doc["setup"]["players"] = "2"
    error = error_of(tmp_path, doc)
    assert error.field == "setup.players"
    assert "plot.json" in str(error)
    assert str(error).endswith("setup.players: expected an integer, got '2'")


def test_unknown_verb(tmp_path: Path) -> None:
    doc = example()
    doc["actions"][0]["do"] = "dance"
    error = error_of(tmp_path, doc)
    assert error.field == "actions[0].do"
    assert str(error).endswith(
        "expected one of pass, plot, cast, choose, roll, leave, play, tap, got 'dance'")


@pytest.mark.parametrize(("spoil", "field"), [
    (lambda d: d.pop("name"), "name"),
    (lambda d: d.pop("actions"), "actions"),
    (lambda d: d["setup"].pop("turn"), "setup.turn"),
    (lambda d: d["setup"]["cards"][1].pop("zone"), "setup.cards[1].zone"),
    (lambda d: d["actions"][1].pop("how"), "actions[1].how"),
    (lambda d: d["actions"][0].pop("do"), "actions[0].do"),
    (lambda d: d["setup"].__setitem__("planechase", {"decks": [[], []], "controller": 0}),
     "setup.planechase.plane"),
])
def test_missing_required_key(tmp_path: Path, spoil: Callable[[Any], Any], field: str) -> None:
    doc = example()
    spoil(doc)
    error = error_of(tmp_path, doc)
    assert error.field == field and "the key is missing" in str(error)


@pytest.mark.parametrize(("spoil", "field", "words"), [
    (lambda d: d.__setitem__("title", "x"), "title", "top-level keys"),
    (lambda d: d["setup"].__setitem__("priority", 0), "setup.priority", "keys of setup:"),
    (lambda d: d["setup"]["cards"][0].__setitem__("tapped", True), "setup.cards[0].tapped",
     "keys of setup.cards[0]:"),
    (lambda d: d["actions"][0].__setitem__("how", "plotted"), "actions[0].how",
     "keys of a 'plot' action: player, do, expect, rule, card, from"),
    (lambda d: d["actions"][1].__setitem__("cards", []), "actions[1].cards",
     "keys of a 'cast' action"),
    (lambda d: d["expect"].__setitem__("hand_size", 3), "expect.hand_size", "keys of expect"),
])
def test_unknown_key(tmp_path: Path, spoil: Callable[[Any], Any], field: str,
                     words: str) -> None:
    doc = example()
    spoil(doc)
    error = error_of(tmp_path, doc)
    assert error.field == field and words in str(error) and "unknown key" in str(error)


@pytest.mark.parametrize(("spoil", "field", "words"), [
    (lambda d: d.__setitem__("format", "mtgcheck.scenario/2"), "format",
     "expected 'mtgcheck.scenario/1', got 'mtgcheck.scenario/2'"),
    (lambda d: d.__setitem__("name", ""), "name", "non-empty string"),
    (lambda d: d.__setitem__("rules", ["702.170D"]), "rules[0]", "CR rule number"),
    (lambda d: d.__setitem__("rules", ["702.170d\n"]), "rules[0]", "CR rule number"),
    (lambda d: d.__setitem__("rules", "702.170d"), "rules", "expected a list, got"),
    (lambda d: d.__setitem__("setup", None), "setup", "expected an object, got null"),
    (lambda d: d["setup"].__setitem__("players", 5), "setup.players", "from 2 to 4, got 5"),
    (lambda d: d["setup"].__setitem__("players", True), "setup.players", "got true"),
    (lambda d: d["setup"].__setitem__("turn", 0), "setup.turn", "an integer >= 1, got 0"),
    (lambda d: d["setup"].__setitem__("step", "upkeep"), "setup.step", "one of beginning,"),
    (lambda d: d["setup"].__setitem__("mana", [4, -1]), "setup.mana[1]", ">= 0, got -1"),
    (lambda d: d["setup"].__setitem__("left", [1, 1]), "setup.left", "1 twice"),
    (lambda d: d["setup"].__setitem__("planechase", 1), "setup.planechase", "object or null"),
    (lambda d: d["setup"]["cards"][0].__setitem__("zone", "stack"), "setup.cards[0].zone",
     "one of library, hand, graveyard, exile, battlefield"),
    (lambda d: d["setup"]["cards"][0].__setitem__("id", "show off"), "setup.cards[0].id",
     "card id"),
    (lambda d: d["setup"]["cards"][0].__setitem__("id", "show\n"), "setup.cards[0].id",
     "card id"),
    (lambda d: d["actions"].__setitem__(0, "pass"), "actions[0]", "an object, got 'pass'"),
    (lambda d: d["actions"][0].__setitem__("expect", "maybe"), "actions[0].expect",
     "one of legal, illegal"),
    (lambda d: d["actions"][0].__setitem__("from", "graveyard"), "actions[0].from",
     "one of hand, library"),
    (lambda d: d["actions"][1].__setitem__("how", "madness"), "actions[1].how",
     "one of normal, flashback, plotted, free"),
    (lambda d: d["actions"][1].__setitem__("x", -1), "actions[1].x", "from 0 to 20"),
    (lambda d: d["actions"][1].__setitem__("x", "3"), "actions[1].x", "an integer, got '3'"),
    (lambda d: d["actions"][1].__setitem__("kicker", "yes"), "actions[1].kicker",
     "true or false, got 'yes'"),
    (lambda d: d["actions"][1].__setitem__("half", "top"), "actions[1].half", "left, right"),
    (lambda d: d["actions"][1].__setitem__("targets", "show"), "actions[1].targets", "a list"),
    (lambda d: d["actions"][1].__setitem__("targets", ["player 1"]), "actions[1].targets[0]",
     '"player:N"'),
    (lambda d: d["actions"][1].__setitem__("flashback", "granted"), "actions[1].flashback",
     "printed, mana_cost"),
    (lambda d: d["actions"].append({"player": 0, "do": "roll", "result": "heads"}),
     "actions[2].result", "blank, chaos, planeswalk"),
    (lambda d: d["actions"].append({"player": 0, "do": "choose", "cards": "top"}),
     "actions[2].cards", "a list"),
    (lambda d: d["actions"].append({"player": 0, "do": "leave", "card": "show"}),
     "actions[2].card", "keys of a 'leave' action"),
    (lambda d: d["actions"].append({"player": -1, "do": "pass"}), "actions[2].player",
     "player index"),
    (lambda d: d["expect"]["zones"].__setitem__("show", "moon"), "expect.zones.show",
     "outside"),
    (lambda d: d["expect"]["zones"].__setitem__("a b", "hand"), "expect.zones",
     "keys that are card ids"),
    (lambda d: d["expect"].__setitem__("game_over", 1), "expect.game_over", "true or false"),
    (lambda d: d["expect"].__setitem__("plane", 3), "expect.plane", "string or null"),
])
def test_structural_errors(tmp_path: Path, spoil: Callable[[Any], Any], field: str,
                           words: str) -> None:
    doc = example()
    spoil(doc)
    error = error_of(tmp_path, doc)
    assert (error.field, type(error)) == (field, FormatError)
    assert words in str(error), str(error)


def test_a_wrong_format_is_reported_first(tmp_path: Path) -> None:
    doc = {"format": "mtgcheck.counterexample/1", "violates": "x", "scenario": example()}
    error = error_of(tmp_path, doc)
    assert error.field == "format"
    assert len(error.problems) > 1  # type: ignore[attr-defined]


def test_of_equal_mistakes_the_first_in_the_file_is_shown(tmp_path: Path) -> None:
    doc = example()
    doc["actions"] = [{"player": 0, "do": "dance"}] * 3
    error = error_of(tmp_path, doc)
    assert error.field == "actions[0].do"
    assert [p.field for p in error.problems] == [  # type: ignore[attr-defined]
        "actions[0].do", "actions[1].do", "actions[2].do"]


def test_the_top_level_must_be_an_object(tmp_path: Path) -> None:
    error = error_of(tmp_path, [example()])
    assert error.field == "(top level)" and "expected an object, got a list of 1 item" in str(error)


# ---------------------------------------------------------------------------------------
# Cross-field rules


def test_unknown_card(tmp_path: Path) -> None:
    doc = example()
    doc["setup"]["cards"][0]["card"] = "Slickshot Showoff"
    error = error_of(tmp_path, doc)
    assert isinstance(error, UnknownCardError)
    assert error.field == "setup.cards[0].card"
    assert "a card of the built-in pool" in str(error) and "'Slickshot Showoff'" in str(error)


@pytest.mark.parametrize(("spoil", "field"), [
    (lambda d: d["setup"].__setitem__("active", 2), "setup.active"),
    (lambda d: d["setup"]["cards"][1].__setitem__("owner", 2), "setup.cards[1].owner"),
    (lambda d: d["actions"][1].__setitem__("player", 3), "actions[1].player"),
    (lambda d: d["actions"][1].__setitem__("targets", ["player:2"]), "actions[1].targets[0]"),
    (lambda d: d["setup"].__setitem__("left", [0, 4]), "setup.left[1]"),
    (lambda d: d["setup"].__setitem__("extra_turns", [2]), "setup.extra_turns[0]"),
    (lambda d: d["expect"].__setitem__("active", 2), "expect.active"),
    (lambda d: d["expect"].__setitem__("in_game", [0, 2]), "expect.in_game[1]"),
    (lambda d: d["expect"].__setitem__("extra_turns", [5]), "expect.extra_turns[0]"),
])
def test_player_index_out_of_range(tmp_path: Path, spoil: Callable[[Any], Any],
                                   field: str) -> None:
    doc = example()
    spoil(doc)
    error = error_of(tmp_path, doc)
    assert error.field == field
    assert "a player index from 0 to 1 (setup.players is 2)" in str(error)


@pytest.mark.parametrize(("where", "key"), [("setup", "life"), ("setup", "mana"),
                                            ("expect", "life"), ("expect", "mana")])
def test_one_entry_per_player(tmp_path: Path, where: str, key: str) -> None:
    doc = example()
    doc[where][key] = [1, 2, 3]
    error = error_of(tmp_path, doc)
    assert error.field == f"{where}.{key}"
    assert "one entry per player (2), got 3 entries" in str(error)


def test_duplicate_id(tmp_path: Path) -> None:
    doc = example()
    doc["setup"]["cards"][1]["id"] = "show"
    error = error_of(tmp_path, doc)
    assert error.field == "setup.cards[1].id" and "setup.cards[0]" in str(error)


@pytest.mark.parametrize(("spoil", "field"), [
    (lambda d: d["actions"][0].__setitem__("card", "shw"), "actions[0].card"),
    (lambda d: d["actions"][1].__setitem__("targets", ["player:1", "bolt"]),
     "actions[1].targets[1]"),
    (lambda d: d["actions"][1].__setitem__("sacrifice", ["elf"]), "actions[1].sacrifice[0]"),
    (lambda d: d["actions"].append({"player": 0, "do": "choose", "cards": ["top", "x"]}),
     "actions[2].cards[1]"),
    (lambda d: d["expect"]["zones"].__setitem__("ghost", "hand"), "expect.zones.ghost"),
    (lambda d: d["expect"].__setitem__("plotted", ["show", "gone"]), "expect.plotted[1]"),
    (lambda d: d["expect"].__setitem__("not_plotted", ["gone"]), "expect.not_plotted[0]"),
    (lambda d: d["expect"].__setitem__("stack", ["gone"]), "expect.stack[0]"),
])
def test_undeclared_card_id(tmp_path: Path, spoil: Callable[[Any], Any], field: str) -> None:
    doc = example()
    spoil(doc)
    error = error_of(tmp_path, doc)
    assert error.field == field and "declared in setup.cards" in str(error)


def test_plotted_turn_on_a_hand_card(tmp_path: Path) -> None:
    doc = example()
    doc["setup"]["cards"][0]["plotted_turn"] = 1
    error = error_of(tmp_path, doc)
    assert error.field == "setup.cards[0].plotted_turn" and "'hand'" in str(error)


def test_plotted_turn_after_the_current_turn(tmp_path: Path) -> None:
    doc = example()
    doc["setup"]["cards"][0].update(zone="exile", plotted_turn=2)
    error = error_of(tmp_path, doc)
    assert error.field == "setup.cards[0].plotted_turn" and "setup.turn (1)" in str(error)
    doc["setup"]["cards"][0]["plotted_turn"] = 1
    assert load(write(tmp_path, doc)).setup.cards[0].plotted_turn == 1


def with_planechase(**changes: Any) -> dict[str, Any]:
    doc = example()
    planechase = copy.deepcopy(PLANECHASE)
    planechase.update(changes)
    doc["setup"]["planechase"] = planechase
    return doc


def test_planechase_loads(tmp_path: Path) -> None:
    pc = load(write(tmp_path, with_planechase())).setup.planechase
    assert pc == PlanechaseSpec((("Test Plane A",), ("Test Plane B",)), "Otaria", 0, 0, 0, False)


def test_planechase_unknown_plane(tmp_path: Path) -> None:
    doc = with_planechase(plane={"name": "Nowhere", "owner": 0, "counters": 0})
    error = error_of(tmp_path, doc)
    assert isinstance(error, UnknownCardError)
    assert error.field == "setup.planechase.plane.name"
    assert "a plane of the built-in pool" in str(error)


def test_planechase_unknown_plane_in_a_deck(tmp_path: Path) -> None:
    error = error_of(tmp_path, with_planechase(decks=[["Test Plane A"], ["Test Plane A", "Zzz"]]))
    assert isinstance(error, UnknownCardError) and error.field == "setup.planechase.decks[1][1]"


def test_planechase_a_card_is_not_a_plane(tmp_path: Path) -> None:
    error = error_of(tmp_path, with_planechase(decks=[["Forest"], []]))
    assert isinstance(error, UnknownCardError) and error.field == "setup.planechase.decks[0][0]"


def test_planechase_owner_not_a_player(tmp_path: Path) -> None:
    error = error_of(tmp_path, with_planechase(plane={"name": "Otaria", "owner": 2, "counters": 0}))
    assert error.field == "setup.planechase.plane.owner" and "player index" in str(error)


def test_planechase_controller_who_has_left(tmp_path: Path) -> None:
    doc = with_planechase(controller=1)
    doc["setup"]["left"] = [1]
    error = error_of(tmp_path, doc)
    assert error.field == "setup.planechase.controller" and "has not left" in str(error)


def test_planechase_plane_owner_who_has_left(tmp_path: Path) -> None:
    doc = with_planechase(plane={"name": "Otaria", "owner": 1, "counters": 0})
    doc["setup"]["left"] = [1]
    assert error_of(tmp_path, doc).field == "setup.planechase.plane.owner"


def test_planechase_one_deck_per_player(tmp_path: Path) -> None:
    error = error_of(tmp_path, with_planechase(decks=[["Test Plane A"]]))
    assert error.field == "setup.planechase.decks" and "got 1 deck" in str(error)


def test_planechase_communal_has_exactly_one_deck(tmp_path: Path) -> None:
    error = error_of(tmp_path, with_planechase(communal=True))
    assert error.field == "setup.planechase.decks" and "exactly one deck" in str(error)
    doc = with_planechase(communal=True, decks=[["Test Plane A", "Test Plane B"]],
                          plane={"name": "Otaria", "counters": 0})
    pc = load(write(tmp_path, doc)).setup.planechase
    assert pc is not None and pc.communal and pc.decks == (("Test Plane A", "Test Plane B"),)
    assert pc.plane_owner == -1


def test_planechase_plane_owner_refused_with_communal_deck(tmp_path: Path) -> None:
    # CR 901.15b: the planes of a communal deck are no player's, so an owner is an error.
    doc = with_planechase(communal=True, decks=[["Test Plane A"]])
    error = error_of(tmp_path, doc)
    assert error.field == "setup.planechase.plane.owner" and "communal" in str(error)


def test_planechase_plane_owner_required_without_communal(tmp_path: Path) -> None:
    error = error_of(tmp_path, with_planechase(plane={"name": "Otaria", "counters": 0}))
    assert error.field == "setup.planechase.plane.owner" and "required" in str(error)


def test_planechase_counters_are_not_negative(tmp_path: Path) -> None:
    doc = with_planechase(plane={"name": "Otaria", "owner": 0, "counters": -1})
    error = error_of(tmp_path, doc)
    assert error.field == "setup.planechase.plane.counters"


def test_active_player_who_has_left(tmp_path: Path) -> None:
    doc = example()
    doc["setup"]["left"] = [0]
    error = error_of(tmp_path, doc)
    assert error.field == "setup.active" and "has not left" in str(error)


def test_card_owned_by_a_player_who_has_left(tmp_path: Path) -> None:
    doc = example()
    doc["setup"]["cards"][1]["owner"] = 1
    doc["setup"]["left"] = [1]
    assert error_of(tmp_path, doc).field == "setup.cards[1].owner"


def test_flashback_choice_only_when_casting_with_flashback(tmp_path: Path) -> None:
    doc = example()
    doc["actions"][1]["flashback"] = "printed"
    assert error_of(tmp_path, doc).field == "actions[1].flashback"


def test_plotted_and_not_plotted_at_once(tmp_path: Path) -> None:
    doc = example()
    doc["expect"]["not_plotted"] = ["top", "show"]
    assert error_of(tmp_path, doc).field == "expect.not_plotted[1]"


def test_planar_expectations_need_planechase(tmp_path: Path) -> None:
    doc = example()
    doc["expect"]["planar_controller"] = 0
    assert error_of(tmp_path, doc).field == "expect.planar_controller"
    doc["expect"]["planar_controller"] = None  # "no planar controller" is fine
    assert load(write(tmp_path, doc)).expect is not None


def test_expected_plane_must_be_known(tmp_path: Path) -> None:
    doc = with_planechase()
    doc["expect"]["plane"] = "Nowhere"
    error = error_of(tmp_path, doc)
    assert isinstance(error, UnknownCardError) and error.field == "expect.plane"


def test_known_variants(tmp_path: Path) -> None:
    doc = example()
    doc["variant"] = "116.2k"
    path = write(tmp_path, doc)
    assert load(path, **POOL, known_variants={"116.2k"}).variant == "116.2k"
    assert load(path).variant == "116.2k"  # not checked unless the caller says
    with pytest.raises(FormatError) as caught:
        load(path, **POOL, known_variants=())
    assert caught.value.field == "variant"


# ---------------------------------------------------------------------------------------
# All problems, embedded scenarios, one line


def test_every_problem_is_collected(tmp_path: Path) -> None:
    doc = example()
    doc["setup"]["active"] = 3
    doc["setup"]["cards"][0]["card"] = "Nope"
    doc["actions"][1]["card"] = "ghost"
    error = error_of(tmp_path, doc)
    fields = [p.field for p in error.problems]  # type: ignore[attr-defined]
    assert fields == ["setup.active", "setup.cards[0].card", "actions[1].card"]
    assert [p.field for p in validate_all(doc, source="x.json", **POOL)] == fields


def test_every_structural_problem_is_collected(tmp_path: Path) -> None:
    doc = example()
    doc["setup"]["players"] = "2"
    doc["actions"][0]["do"] = "dance"
    doc["expect"]["zones"]["show"] = "moon"
    problems = validate_all(doc, source="x.json", **POOL)
    assert {p.field for p in problems} == {"setup.players", "actions[0].do", "expect.zones.show"}


def test_validate_all_of_a_good_scenario_is_empty() -> None:
    assert validate_all(example(), source="x.json", **POOL) == []


def test_parse_scenario_with_a_prefix() -> None:
    doc = example()
    s = parse_scenario(doc, source="ce.json", **POOL)
    assert s.path == "ce.json" and s.name == "plotted card waits a turn"
    doc["setup"]["turn"] = 0
    with pytest.raises(FormatError) as caught:
        parse_scenario(doc, source="ce.json", prefix="scenario", **POOL)
    assert caught.value.field == "scenario.setup.turn"
    assert str(caught.value).startswith("ce.json: scenario.setup.turn: expected")


def test_parse_scenario_does_not_change_its_input() -> None:
    doc = example()
    doc["setup"]["turn"] = 1.0
    before = copy.deepcopy(doc)
    s = parse_scenario(doc, source="x.json", **POOL)
    assert doc == before and type(doc["setup"]["turn"]) is float
    assert s.raw is not doc and s.raw["setup"]["turn"] == 1


@pytest.mark.parametrize("key", ["a\nb", "a\u2028b", "tab\there", "x" * 500])
def test_messages_stay_on_one_line_whatever_the_keys(tmp_path: Path, key: str) -> None:
    doc = example()
    doc["setup"][key] = "v\nv"
    error = error_of(tmp_path, doc)
    assert len(str(error).splitlines()) == 1
    doc = example()
    doc["expect"]["zones"][key] = "hand"
    assert len(str(error_of(tmp_path, doc)).splitlines()) == 1
    doc = example()
    doc["setup"]["cards"][0]["card"] = key
    assert len(str(error_of(tmp_path, doc)).splitlines()) == 1


def test_a_file_name_with_a_newline_stays_on_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "we\nird"
    folder.mkdir()
    doc = example()
    doc["setup"]["players"] = 9
    path = folder / "x.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        load(path)
    assert len(str(caught.value).splitlines()) == 1
    with pytest.raises(FormatError) as caught:
        load(folder / "missing.json")
    assert len(str(caught.value).splitlines()) == 1


def test_a_python_value_that_is_not_json() -> None:
    doc = example()
    doc["rules"] = ("702.170d",)
    with pytest.raises(FormatError) as caught:
        parse_scenario(doc, source="x", **POOL)
    assert caught.value.field == "rules" and "a Python tuple" in str(caught.value)


# ---------------------------------------------------------------------------------------
# The schema, the module and the docs agree


def test_the_schema_is_valid_draft_2020_12() -> None:
    schema = load_schema()
    Draft202012Validator.check_schema(schema)
    assert schema["properties"]["format"] == {"const": FORMAT}


def test_the_schema_and_the_module_agree() -> None:
    defs = load_schema()["$defs"]
    assert tuple(defs["action"]["properties"]["do"]["enum"]) == VERBS
    assert tuple(defs["step"]["enum"]) == STEPS
    assert tuple(defs["setupZone"]["enum"]) == SETUP_ZONES
    assert tuple(defs["expectZone"]["enum"]) == EXPECT_ZONES
    for verb, arguments in VERB_ARGUMENTS.items():
        keys = tuple(defs[f"{verb}Action"]["properties"])
        assert keys == ("player", "do", "expect", "rule", *arguments), verb


def test_both_expects_close_the_same_expectation_keys() -> None:
    defs = load_schema()["$defs"]
    keys = list(defs["expectKeys"]["properties"])
    assert list(defs["expect"]["properties"]) == keys
    assert list(defs["actionExpect"]["properties"]) == ["verdict", *keys]


def test_every_object_of_the_schema_is_closed() -> None:
    def walk(node: object, where: str) -> None:
        if isinstance(node, dict):
            # Not closed: an action (its verb's branch closes it), the expectation keys (the
            # final expect and an action's expect close them, each with its own list) and
            # the branch conditions ("if": a test on "do", not a description of an object).
            if "properties" in node and where not in ("$defs.action", "$defs.expectKeys") \
                    and not where.endswith(".if"):
                assert node.get("additionalProperties") is False, where
            for key, value in node.items():
                walk(value, f"{where}.{key}" if where else key)
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{where}[{i}]")
    walk(load_schema(), "")


def test_the_docs_name_every_key_of_the_schema() -> None:
    text = DOCS.read_text(encoding="utf-8")
    keys: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            keys.update(node.get("properties", {}))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    walk(load_schema())
    missing = sorted(key for key in keys if f"`{key}`" not in text)
    assert not missing
    for word in (*VERBS, *STEPS, *EXPECT_ZONES, "mtgcheck scenario FILE... [--json OUT]"):
        assert word in text, word


def test_module_doctests() -> None:
    result = doctest.testmod(scenario_format, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


# ---------------------------------------------------------------------------------------
# Expectations after an action


def test_an_action_expect_object_loads_with_its_verdict(tmp_path: Path) -> None:
    doc = example()
    doc["actions"][0]["expect"] = {"verdict": "legal", "zones": {"show": "exile"}, "priority": 0,
                                   "pending": None}
    doc["actions"][1]["expect"] = {"verdict": "illegal", "plotted": ["show"],
                                   "pending": {"choice": "discard", "player": 1, "source": "top"}}
    doc["actions"][1]["rule"] = "702.170d"
    doc["actions"].append({"player": 1, "do": "pass", "expect": {"active": 0}})
    s = load(write(tmp_path, doc))
    first, second, third = s.actions
    assert (first.expect, second.expect, third.expect) == ("legal", "illegal", None)
    assert first.state == Expect(zones={"show": "exile"}, priority=0, keys=frozenset({"zones", "priority", "pending"}))
    assert first.state.given("pending") and first.state.pending is None
    assert second.state is not None and second.state.pending == {"choice": "discard", "player": 1, "source": "top"}
    assert second.rule == "702.170d" and "verdict" not in second.args and "expect" not in second.args
    assert third.state == Expect(active=0, keys=frozenset({"active"}))


def test_a_string_expect_has_no_state(tmp_path: Path) -> None:
    s = load(write(tmp_path, example()))
    assert [a.state for a in s.actions] == [None, None] and [a.expect for a in s.actions] == ["legal", "illegal"]


@pytest.mark.parametrize("spoil,field,words", [
    (lambda d: d["actions"][0].__setitem__("expect", {"verdict": "maybe"}), "actions[0].expect.verdict",
     "one of legal, illegal"),
    (lambda d: d["actions"][0].__setitem__("expect", {"hand_size": 3}), "actions[0].expect.hand_size",
     "verdict, zones"),
    (lambda d: d["actions"][0].__setitem__("expect", {"turn": 0}), "actions[0].expect.turn", ">= 1"),
    (lambda d: d["actions"][0].__setitem__("expect", {"zones": {"show": "moon"}}), "actions[0].expect.zones.show",
     "one of library"),
    (lambda d: d["actions"][0].__setitem__("expect", 3), "actions[0].expect", "one of legal, illegal"),
    (lambda d: d["actions"][0].__setitem__("expect", {"pending": {"choice": "scry", "player": 0}}),
     "actions[0].expect.pending.choice", "one of make-your-own-luck, discard"),
    (lambda d: d["expect"].__setitem__("pending", {"player": 0}), "expect.pending.choice", "nothing (the key is missing)"),
    (lambda d: d["expect"].__setitem__("pending", {"choice": "discard", "player": 0, "who": 1}),
     "expect.pending.who", "unknown key"),
    (lambda d: d["expect"].__setitem__("priority", "0"), "expect.priority", "an integer"),
], ids=["verdict", "unknown-key", "turn", "zone", "number", "choice", "no-choice", "pending-key", "priority-string"])
def test_a_malformed_expectation_names_its_field(tmp_path: Path, spoil: Callable[[Any], Any], field: str,
                                                 words: str) -> None:
    doc = example()
    spoil(doc)
    error = error_of(tmp_path, doc)
    assert error.field == field and words in str(error), str(error)


@pytest.mark.parametrize("spoil,field", [
    (lambda d: d["actions"][0].__setitem__("expect", {"priority": 2}), "actions[0].expect.priority"),
    (lambda d: d["actions"][0].__setitem__("expect", {"pending": {"choice": "discard", "player": 5}}),
     "actions[0].expect.pending.player"),
    (lambda d: d["expect"].__setitem__("pending", {"choice": "discard", "player": 0, "source": "ghost"}),
     "expect.pending.source"),
    (lambda d: d["actions"][0].__setitem__("expect", {"zones": {"ghost": "hand"}}), "actions[0].expect.zones.ghost"),
    (lambda d: d["actions"][1].update(expect={"plotted": ["show"]}, rule="702.170d"), "actions[1].rule"),
    (lambda d: d["actions"][1].update(expect={"verdict": "legal"}, rule="702.170d"), "actions[1].rule"),
], ids=["priority", "pending-player", "pending-source", "zones", "rule-without-verdict", "rule-legal"])
def test_cross_field_rules_hold_in_an_action_expect(tmp_path: Path, spoil: Callable[[Any], Any], field: str) -> None:
    doc = example()
    spoil(doc)
    assert error_of(tmp_path, doc).field == field


def test_a_rule_with_an_illegal_verdict_in_the_object_loads(tmp_path: Path) -> None:
    doc = example()
    doc["actions"][1].update(expect={"verdict": "illegal"}, rule="702.170d")
    assert load(write(tmp_path, doc)).actions[1].rule == "702.170d"


def test_an_ability_on_the_stack_is_a_kind_of_the_card_registry(tmp_path: Path) -> None:
    from mtgcheck.model.state import ABILITIES

    doc = example()
    doc["expect"]["stack"] = ["show", "ability:prowess"]
    assert load(write(tmp_path, doc)).expect.stack == ("show", "ability:prowess")  # type: ignore[union-attr]
    doc["expect"]["stack"] = ["ability:surge"]
    error = error_of(tmp_path, doc)
    assert error.field == "expect.stack[0]" and "ability:KIND, KIND one of " + ", ".join(ABILITIES[1:]) in str(error)
    doc["expect"]["stack"] = ["ability:Prowess!"]
    assert error_of(tmp_path, doc).field == "expect.stack[0]"
