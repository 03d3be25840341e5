"""Configuration files (``mtgcheck.config/1``): the loader, the schema, the CLI, and fuzzing.

Every malformed input must become one FormatError of one line (file, field, expected),
never another exception; the fuzz tests count the inputs they tried and record the count.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from jsonschema import Draft202012Validator

from mtgcheck.check_run import configs_named
from mtgcheck.configs import BOUNDS, BUILTIN, CheckConfig, config_schema, load_config, parse_config
from mtgcheck.errors import FormatError, UsageError
from mtgcheck.scenario_format import load_schema

from .conftest import ROOT

EXAMPLE = ROOT / "examples" / "three-player-planechase.json"
FUZZ = settings(max_examples=120, deadline=None, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def _valid() -> dict[str, Any]:
    return json.loads(EXAMPLE.read_text())


def _cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mtgcheck.cli", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=300, env={"CI": "true", "PATH": "/usr/bin:/bin"})


# --- the loader and the schema ------------------------------------------------------------


def test_example_loads_as_written() -> None:
    doc, conf = _valid(), load_config(EXAMPLE)
    assert conf.name == doc["name"] and all(getattr(conf, k) == doc[k] for k in BOUNDS if k in doc)
    setup = doc["setup"]
    assert (conf.position.players, conf.position.turn, conf.position.active) == \
        (setup["players"], setup["turn"], setup["active"])
    assert [c.id for c in conf.position.cards] == [c["id"] for c in setup["cards"]]
    assert conf.position.planechase is not None
    assert conf.position.planechase.plane == setup["planechase"]["plane"]["name"]


def test_schema_reuses_the_scenario_setup_and_states_the_defaults() -> None:
    schema = config_schema()
    scenario = load_schema()
    assert schema["properties"]["setup"] == {"$ref": f"{scenario['$id']}#/$defs/setup"}
    defaults = {f.name: f.default for f in fields(CheckConfig) if f.name in BOUNDS}
    assert {k: schema["properties"][k]["default"] for k in BOUNDS} == defaults
    Draft202012Validator.check_schema(schema)


def test_bounds_default_and_integral_floats_count() -> None:
    doc = _valid()
    for k in BOUNDS:
        doc.pop(k, None)
    doc["depth"] = 3.0
    conf = parse_config(doc, "c.json")
    assert conf.depth == 3 and isinstance(conf.depth, int)
    default = CheckConfig("x", conf.position)
    assert (conf.max_turn, conf.hypothesis_examples, conf.hypothesis_steps) == \
        (default.max_turn, default.hypothesis_examples, default.hypothesis_steps)


@pytest.mark.parametrize(("change", "field"), [
    (lambda d: d.pop("setup"), "setup"),
    (lambda d: d.update(format="mtgcheck.scenario/1"), "format"),
    (lambda d: d.update(name="two words"), "name"),
    (lambda d: d.update(max_turn=10**40), "max_turn"),
    (lambda d: d.update(max_turn=0), "max_turn"),
    (lambda d: d.update(hypothesis_steps="40"), "hypothesis_steps"),
    (lambda d: d.update(depth=True), "depth"),
    (lambda d: d.update(colour="blue"), "colour"),
    (lambda d: d.update({"two\nlines": 1}), '["two\\nlines"]'),  # quoted and escaped: one line
    (lambda d: d.update({"": 1}), '[""]'),
    (lambda d: d["setup"].update(turn=3), "max_turn"),  # max_turn 2 is before setup.turn
    (lambda d: d["setup"]["cards"][0].update(card="Black Lotus"), "setup.cards[0].card"),
    (lambda d: d["setup"].update(active=7), "setup.active"),
    (lambda d: d["setup"]["planechase"].update(controller="me"), "setup.planechase.controller"),
])
def test_malformed_names_the_field(change: Any, field: str) -> None:
    doc = _valid()
    change(doc)
    with pytest.raises(FormatError) as info:
        parse_config(doc, "c.json")
    assert info.value.field == field and str(info.value).startswith(f"c.json: {field}: expected ")


def test_file_errors_say_configuration(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match=r"\(file\): expected a readable configuration file"):
        load_config(tmp_path / "missing.json")
    (tmp_path / "twice.json").write_text('{"name": "a", "name": "b"}')
    with pytest.raises(FormatError, match=r"\(json\): expected each key at most once"):
        load_config(tmp_path / "twice.json")


def test_names_and_files_mix_and_must_differ(tmp_path: Path) -> None:
    assert [c.name for c in configs_named(["costs", str(EXAMPLE)])] == ["costs", _valid()["name"]]
    assert configs_named([]) == list(BUILTIN)
    doc = _valid()
    doc["name"] = "costs"
    (tmp_path / "costs.json").write_text(json.dumps(doc))
    with pytest.raises(UsageError, match="two configurations named 'costs'"):
        configs_named(["costs", str(tmp_path / "costs.json")])
    with pytest.raises(UsageError, match="or a configuration file"):
        configs_named(["no-such-name"])


# --- the command line -------------------------------------------------------------------


def test_check_runs_a_config_file_beside_a_builtin(tmp_path: Path) -> None:
    doc = _valid()
    doc.update(name="small", max_turn=1)
    doc["setup"]["planechase"]["decks"] = [[], [], []]
    (tmp_path / "small.json").write_text(json.dumps(doc))
    out = tmp_path / "r.json"
    r = _cli("check", "--checker", "graph", "--config", str(tmp_path / "small.json"), "--config", "costs",
             "--property", "planar-die-cost-rises", "--property", "mandatory-additional-costs-paid",
             "--json", str(out), "--no-store")
    assert r.returncode in (0, 3), r.stderr
    report = json.loads(out.read_text())
    assert {v["config"] for v in report["verdicts"]} == {"small", "costs"}
    states = {v["config"]: v["stats"].get("states") for v in report["verdicts"]}
    assert states["small"] and states["costs"] and states["small"] != states["costs"]


def test_check_refuses_a_malformed_file_and_writes_nothing(tmp_path: Path) -> None:
    doc = _valid()
    doc["setup"]["cards"][1]["owner"] = 9
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    r = _cli("check", "--config", "bad.json", "--json", "r.json", "--junit", "r.xml", cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().count("\n") == 0
    assert "bad.json: setup.cards[1].owner: expected a player index" in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]


# --- fuzzing: any input is a config or one FormatError line ---------------------------------


class Tried:
    """Counts the inputs one fuzz test fed the loader, and how they ended."""

    def __init__(self) -> None:
        self.inputs = self.refused = 0

    def load(self, load: Any) -> None:
        """Load one input: a CheckConfig, or a FormatError whose message is one line."""
        self.inputs += 1
        try:
            conf = load()
        except FormatError as exc:
            text = str(exc)
            assert "\n" not in text and "\r" not in text and ": expected " in text, text
            self.refused += 1
            return
        assert isinstance(conf, CheckConfig)

    def report(self, record_property: Any, name: str) -> None:
        record_property(f"{name}_inputs", self.inputs)
        print(f"config loader fuzz, {name}: {self.inputs} inputs tried, {self.refused} refused")
        assert self.inputs >= FUZZ.max_examples // 2 and self.refused > 0


def _file(path: Path, data: bytes) -> Any:
    path.write_bytes(data)
    return lambda: load_config(path)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)
KEYS = ["format", "name", "description", "setup", "max_turn", "depth", "hypothesis_examples", "hypothesis_steps"]


def _paths(doc: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a document (to replace or delete), down to a depth of 8 (not into a deep list)."""
    out = [at]
    if len(at) >= 8:
        return out
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _paths(v, (*at, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += _paths(v, (*at, i))
    return out


def _mutate(doc: dict[str, Any], data: st.DataObject) -> None:
    """Replace, delete or add a value somewhere, or put a huge number or a deep list there."""
    where = data.draw(st.sampled_from(_paths(doc)[1:]))
    parent: Any = doc
    for step in where[:-1]:
        parent = parent[step]
    how = data.draw(st.sampled_from(["replace", "delete", "add", "huge", "deep"]))
    if how == "delete":
        del parent[where[-1]]
    elif how == "add" and isinstance(parent, dict):
        parent[data.draw(st.text(max_size=8) | st.sampled_from(KEYS))] = data.draw(JSON)
    elif how == "huge":
        parent[where[-1]] = data.draw(st.sampled_from([10**30, -(10**30), 2**63, 1e308, -1e308, 1e-300]))
    elif how == "deep":
        deep: list[Any] = []
        for _ in range(data.draw(st.integers(50, 3000))):
            deep = [deep]
        parent[where[-1]] = deep
    else:
        parent[where[-1]] = data.draw(JSON)


def test_fuzz_mutated_documents(record_property: Any) -> None:
    tried = Tried()

    @FUZZ
    @given(st.data())
    def run(data: st.DataObject) -> None:
        doc = _valid()
        for _ in range(data.draw(st.integers(1, 3))):
            _mutate(doc, data)
        tried.load(lambda: parse_config(doc, "fuzz.json"))

    run()
    tried.report(record_property, "mutated")


def test_fuzz_arbitrary_json(record_property: Any) -> None:
    tried = Tried()

    @FUZZ
    @given(JSON | st.dictionaries(st.sampled_from(KEYS), JSON, max_size=8))
    def run(doc: Any) -> None:
        tried.load(lambda: parse_config(doc, "fuzz.json"))

    run()
    tried.report(record_property, "arbitrary")


def test_fuzz_truncated_files_and_bytes(tmp_path: Path, record_property: Any) -> None:
    tried, text = Tried(), EXAMPLE.read_bytes()

    @FUZZ
    @given(cut=st.integers(0, len(text)), junk=st.binary(max_size=8), noise=st.binary(max_size=200))
    def run(cut: int, junk: bytes, noise: bytes) -> None:
        tried.load(_file(tmp_path / "cut.json", text[:cut] + junk))
        tried.load(_file(tmp_path / "noise.json", noise))

    run()
    tried.report(record_property, "truncated")


def test_fuzz_deep_nesting_and_huge_numbers(tmp_path: Path, record_property: Any) -> None:
    tried = Tried()

    @FUZZ
    @given(st.sampled_from(["[", '{"a":', '{"setup":[']), st.integers(10, 200_000),
           st.sampled_from(list(BOUNDS)), st.integers(1, 6000))
    def run(opener: str, depth: int, key: str, digits: int) -> None:
        tried.load(_file(tmp_path / "deep.json", (opener * depth).encode()))
        huge = EXAMPLE.read_text().replace(f'"{key}": ', f'"{key}": {"9" * digits}', 1)
        tried.load(_file(tmp_path / "huge.json", huge.encode()))

    run()
    tried.report(record_property, "deep")
