"""One formats layer: every public format has a valid JSON Schema, its reader checks a
document against it first, and a malformed document is one FormatError worded by the one
translator (:func:`mtgcheck.formats.schema_problems`), whatever the format.
"""

from __future__ import annotations

import ast
import copy
import json
from pathlib import Path
from typing import Any, Callable

import pytest
from jsonschema import Draft202012Validator

from mtgcheck import formats, manifest
from mtgcheck.configs import BUILTIN, parse_config
from mtgcheck.divergence import KINDS
from mtgcheck.engines.base import EngineError
from mtgcheck.engines.pipe import support_of
from mtgcheck.errors import FormatError
from mtgcheck.model import cards
from mtgcheck.replay import from_doc
from mtgcheck.scenario_format import load_scenario
from mtgcheck.scenario_write import setup_of
from mtgcheck.store import content_hash, stored

from .conftest import ROOT

DATA = ROOT / "mtgcheck" / "data"
POOL = json.loads((DATA / "cards.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", formats.SCHEMAS)
def test_every_format_has_a_valid_schema(name: str) -> None:
    path = DATA / formats.schema_file(name)
    schema = json.loads(path.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    assert schema["$id"] == f"urn:mtgcheck:schema:{name}"
    assert schema == formats.schema(name) and formats.load_schema(name) is not formats.schema(name)


def test_the_schemas_say_what_the_code_says() -> None:
    pool = formats.schema("cards-1")["$defs"]["card"]["properties"]
    assert set(pool["types"]["items"]["enum"]) == cards.TYPES
    # Keywords are listed once, in the code that implements them (the loader checks them).
    assert pool["keywords"]["items"] == {"type": "string", "minLength": 1}
    assert set(pool["supertypes"]["items"]["enum"]) == cards.SUPERTYPES
    cx = formats.schema("counterexample-1")
    # Checker names are the registry's alone (a checker registered by a plugin may have found
    # one): the schema has no copy of them; the loader reads the registry.
    assert cx["properties"]["found_by"] == {**cx["properties"]["found_by"], "type": "string"}
    assert "enum" not in cx["properties"]["found_by"]
    assert tuple(cx["$defs"]["divergence"]["properties"]["kind"]["enum"]) == tuple(KINDS)


def test_the_shipped_documents_fit_their_schemas() -> None:
    assert list(formats.validator("cards-1").iter_errors(POOL)) == []
    files = stored(ROOT / "counterexamples")
    assert files
    for f in files:
        assert list(formats.validator("counterexample-1").iter_errors(json.loads(f.read_text()))) == [], f
    assert list(formats.validator("manifest-1").iter_errors(json.loads((ROOT / "manifest.json").read_text()))) == []


# --- each reader: a malformed document, one line, the translator's words --------------------

def _scenario_doc() -> dict[str, Any]:
    return {"format": "mtgcheck.scenario/1", "name": "a plot", "rules": ["702.170a"],
            "setup": {"players": 2, "turn": 1, "active": 0, "step": "main1",
                      "cards": [{"id": "a", "card": "Forest", "owner": 0, "zone": "hand"}]},
            "actions": [{"player": 0, "do": "pass"}]}


def _counterexample_doc() -> dict[str, Any]:
    doc = {"format": "mtgcheck.counterexample/1", "violates": "divergence", "found_by": "differential",
           "target": "e-1", "seed": 0, "trace_length": 1, "scenario": _scenario_doc(),
           "divergence": {"kind": "observation", "step": 0, "field": "turn", "rule": "500.1", "rules_say": 1,
                          "engine_says": 2, "why": "the turn"}}
    return {**doc, "hash": content_hash(doc)}


def _config_doc() -> dict[str, Any]:
    return {"format": "mtgcheck.config/1", "name": "c", "setup": setup_of(BUILTIN[0].position)}


def _manifest_doc() -> dict[str, Any]:
    return {"format": "mtgcheck.manifest/1", "options": {}, "properties": ["p"], "units": {}}


def _read_scenario(doc: Any, tmp: Path) -> None:
    path = tmp / "s.json"
    path.write_text(json.dumps(doc))
    load_scenario(path, known_cards=cards.card_names(), known_planes=cards.plane_names())


def _read_manifest(doc: Any, tmp: Path) -> None:
    path = tmp / "s.json"
    path.write_text(json.dumps(doc))
    manifest.load(path)


def _read_supports(doc: Any, tmp: Path) -> None:
    try:
        support_of(doc)
    except EngineError as exc:  # an engine's fault, in the translator's words
        raise FormatError("hello reply", "supports", str(exc)) from None


# (format, reader, a malformed document, the schema and definition, where it is shown, its prefix, the field)
READERS: list[tuple[str, Callable[[Any, Path], None], Any, str, str | None, str, str, str]] = [
    ("scenario", _read_scenario, {**_scenario_doc(), "rules": ["plot"]}, "scenario-1", None, "s.json", "",
     "rules[0]"),
    ("config", lambda doc, tmp: parse_config(doc, "s.json"),
     {**_config_doc(), "setup": {**_config_doc()["setup"], "players": "two"}}, "config-1", None, "s.json", "",
     "setup.players"),
    ("counterexample", lambda doc, tmp: from_doc(doc, "s.json"), {**_counterexample_doc(), "found_by": "me"},
     "counterexample-1", None, "s.json", "", "found_by"),
    ("manifest", _read_manifest, {**_manifest_doc(), "properties": ["p", 3]}, "manifest-1", None, "s.json", "",
     "properties[1]"),
    ("cards", lambda doc, tmp: cards.pool_from_document(doc),
     {**POOL, "cards": [{**POOL["cards"][0], "keywords": [3]}]}, "cards-1", None, cards.POOL_FILE, "",
     "cards[0].keywords[0]"),
    ("engine protocol", _read_supports, {"cards": ["Forest"], "observes": ["zones"]}, "engine-protocol-1",
     "supports", "hello reply", "supports", "supports.observes"),
]


@pytest.mark.parametrize("case", READERS, ids=[case[0] for case in READERS])
def test_each_reader_checks_its_schema_first_in_the_shared_words(case: Any, tmp_path: Path) -> None:
    _, read, doc, name, definition, shown, prefix, field = case
    expected = formats.schema_problems(copy.deepcopy(doc), shown, prefix, schema=name, definition=definition)
    assert expected and expected[0].field == field
    with pytest.raises(FormatError) as info:
        read(copy.deepcopy(doc), tmp_path)
    message = str(info.value)
    assert "\n" not in message and message.endswith(str(expected[0])), (message, str(expected[0]))


def test_a_valid_document_of_each_reader_is_read(tmp_path: Path) -> None:
    _read_scenario(_scenario_doc(), tmp_path)
    parse_config(_config_doc(), "s.json")
    from_doc(_counterexample_doc(), "s.json")
    _read_manifest(_manifest_doc(), tmp_path)
    cards.pool_from_document(POOL)
    support_of({"cards": ["Forest"], "observe": ["zones"]})


def test_every_reader_takes_an_integral_float_as_the_integer_the_schema_accepted(tmp_path: Path) -> None:
    """JSON Schema counts 2.0 as an integer; each reader then reads it as 2 (one helper,
    ``formats.checked``), not as a float kept, nor refused by a check of its own."""
    sc = load_scenario(_write(tmp_path, {**_scenario_doc(), "setup": {**_scenario_doc()["setup"], "turn": 1.0}}),
                       known_cards=cards.card_names(), known_planes=cards.plane_names())
    assert type(sc.setup.turn) is int
    conf = parse_config({**_config_doc(), "max_turn": 2.0}, "s.json")
    assert type(conf.max_turn) is int
    doc = {k: v for k, v in _counterexample_doc().items() if k != "hash"}
    doc["seed"] = 7.0
    ce = from_doc({**doc, "hash": content_hash(doc)}, "s.json")  # the hash covers the file as stored
    assert type(ce.seed) is int and ce.seed == 7
    m = manifest.load(_write(tmp_path, {**_manifest_doc(), "units": {"graph": {"c": {"holds": [], "states": 5.0}}}}))
    assert type(m["units"]["graph"]["c"]["states"]) is int
    assert support_of({"cards": ["Forest"], "max_x": 2.0}).max_x == 2


def _write(tmp: Path, doc: Any) -> Path:
    path = tmp / "s.json"
    path.write_text(json.dumps(doc))
    return path


def test_references_and_player_wording_work_in_any_schema() -> None:
    protocol = formats.schema("engine-protocol-1")
    assert formats.describe(protocol["$defs"]["player"], root=protocol) == "a player index (an integer >= 0)"
    assert formats.describe({"$ref": "urn:mtgcheck:schema:scenario-1#/$defs/step"}, root=protocol).startswith(
        "one of beginning, main1")
    problems = formats.schema_problems({"active": -1}, "reply", "observation", schema="engine-protocol-1",
                                       definition="observation")
    assert [str(p) for p in problems] == ["reply: observation.active: expected a player index (an integer >= 0), "
                                          "got -1"]


# --- no module reads another's private helpers ------------------------------------------------

#: Imports of another module's private names allowed (none: a name another module needs is public).
PRIVATE_IMPORTS_ELSEWHERE: set[tuple[str, str]] = set()


def test_no_module_imports_another_modules_private_names() -> None:
    found = set()
    for folder in ("mtgcheck", "model", "properties"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom):
                    found |= {(path.relative_to(ROOT).as_posix(), alias.name) for alias in node.names
                              if alias.name.startswith("_") and not alias.name.startswith("__")}
    assert found <= PRIVATE_IMPORTS_ELSEWHERE, sorted(found - PRIVATE_IMPORTS_ELSEWHERE)


# --- each closed word set declared once, in the model ------------------------------------------


def test_the_schemas_hold_the_models_words() -> None:
    """Steps, zones, verbs, ways to cast, choices, observation and expectation keys: declared
    in the model (``word_sets`` says where each goes); a schema that drifts is named here."""
    from mtgcheck.formats import schema_drift, word_sets

    assert len(word_sets()) >= 15
    assert schema_drift() == []


def test_a_drifted_schema_is_named_with_the_models_words(monkeypatch: pytest.MonkeyPatch) -> None:
    import copy as copy_

    drifted = copy_.deepcopy(formats.schema("scenario-1"))
    drifted["$defs"]["step"]["enum"] = ["beginning", "main1"]
    real = formats.schema
    monkeypatch.setattr(formats, "schema", lambda name: drifted if name == "scenario-1" else real(name))
    (line,) = formats.schema_drift()
    assert line.startswith("scenario-1.schema.json: $defs.step.enum: holds ['beginning', 'main1'], the model says")


def test_the_harness_reads_the_models_words() -> None:
    from mtgcheck import scenario_format, validate
    from mtgcheck.engines import base
    from mtgcheck.model.observe import OBSERVATION_KEYS, observe
    from mtgcheck.model.setup import build
    from mtgcheck.model.state import STEPS, ZONES
    from mtgcheck.model.vocabulary import SETUP_ZONES, VERBS

    assert scenario_format.VERBS is VERBS and base.VERBS is VERBS and base.OBSERVABLE is OBSERVATION_KEYS
    assert scenario_format.STEPS is STEPS and scenario_format.EXPECT_ZONES is ZONES
    assert scenario_format.SETUP_ZONES is SETUP_ZONES
    assert sorted(validate.FIELD_ORDER) == sorted(OBSERVATION_KEYS)
    from mtgcheck.configs import BUILTIN

    cfg, s = build(BUILTIN[0].position)
    assert sorted(observe(cfg, s)) == sorted([*OBSERVATION_KEYS, "bound_hit"])
