"""A refusal or a divergence whose rule is a card's own effect names the card beside the CR
number ("Make Your Own Luck, CR 702.170c"): the number alone does not say which card's text
is at stake.  A rule of the game names none."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mtgcheck.cli import main
from mtgcheck.model.actions import Action, why_illegal
from mtgcheck.model.vocabulary import cited
from mtgcheck.scenario_run import load, run, start
from mtgcheck.validate import run as validate

from .conftest import ROOT

LUCK = ROOT / "tests" / "scenarios" / "card-make-your-own-luck-top-three.json"
LOOT = ROOT / "tests" / "scenarios" / "card-faithless-looting-draw-two-discard-two.json"


def test_cited() -> None:
    assert cited("117.3d") == "CR 117.3d"
    assert cited("702.170c", "Make Your Own Luck") == "Make Your Own Luck, CR 702.170c"


def test_a_cards_refusal_names_it_and_a_game_rules_does_not() -> None:
    rep = run(load(str(LOOT)))
    refused = [v.refusal for v in rep.verdicts if v.refusal is not None]
    assert refused and all(r.card == "Faithless Looting" for r in refused)
    assert all(r.text().startswith("Faithless Looting, CR 701.9a: ") for r in refused)
    cfg, s = start(load(str(LOOT)))
    game = why_illegal(cfg, s, Action("pass", 1))  # player 1 has no priority: the game's rule
    assert game is not None and game.card == "" and game.text().startswith("CR 117")


def test_the_scenario_command_prints_the_card_and_its_json_holds_it(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    r = CliRunner().invoke(main, ["scenario", str(LOOT), "--json", str(out)], catch_exceptions=False)
    assert "illegal (Faithless Looting, CR 701.9a: discard two cards" in r.stdout, r.stdout
    (report,) = json.loads(out.read_text(encoding="utf-8"))["reports"]
    refused = [a["refused_by"] for a in report["actions"] if a["refused_by"]]
    assert refused and all(x["card"] == "Faithless Looting" for x in refused)


ENGINE = '''
from mtgcheck.engines.base import EngineInfo
from mtgcheck.engines.model_engine import ModelEngine


class NoChoices(ModelEngine):
    """Lists no choose action (as phase.rs once did for Make Your Own Luck), accepts them all."""

    def __init__(self) -> None:
        super().__init__("model")

    def hello(self) -> EngineInfo:
        return EngineInfo("no-choices", "1", super().hello().support)

    def actions(self):
        return [a for a in super().actions() if a["do"] != "choose"]
'''


def test_a_divergence_on_a_cards_choice_names_the_card(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "no_choices_engine.py").write_text(ENGINE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    rep = validate("python:no_choices_engine:NoChoices", budget=0, seed=0, store_dir=str(tmp_path / "cx"),
                   scenario_files=[LUCK])
    found = [tr.divergence for tr, _, _ in rep.found if tr.divergence is not None]
    assert found and found[0].kind == "missing-action" and found[0].card == "Make Your Own Luck"
    assert "is legal (Make Your Own Luck, CR 702.170c) but the engine does not list it" in found[0].why
    (stored,) = (tmp_path / "cx").rglob("*.json")
    doc: dict[str, Any] = json.loads(stored.read_text(encoding="utf-8"))
    assert doc["divergence"]["card"] == "Make Your Own Luck"
    for command in ("replay", "show"):
        shown = CliRunner().invoke(main, [command, str(stored)], catch_exceptions=False).stdout
        assert "Make Your Own Luck, CR 702.170c" in shown, shown


def test_a_divergence_on_a_rule_of_the_game_names_no_card(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = ENGINE.replace('a["do"] != "choose"', 'a["do"] != "leave"').replace("no-choices", "no-leave")
    (tmp_path / "no_leave_engine.py").write_text(engine, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    rep = validate("python:no_leave_engine:NoChoices", budget=0, seed=0, store_dir=None, scenario_files=[LUCK])
    found = [tr.divergence for tr, _, _ in rep.found if tr.divergence is not None]
    assert found and found[0].card == "" and "(CR 104.3a)" in found[0].why


def test_a_pending_choice_the_engine_does_not_show_is_a_divergence_naming_the_card(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``pending`` is an observation key like the others: an engine that declares it and shows
    no choice where Faithless Looting asks for the discard diverges, at CR 608.2c, and the
    report names the card."""
    engine = ENGINE.replace("no-choices", "no-pending").replace(
        '''    def actions(self):
        return [a for a in super().actions() if a["do"] != "choose"]''',
        '''    def observe(self):
        return {**super().observe(), "pending": None}''')
    (tmp_path / "no_pending_engine.py").write_text(engine, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    rep = validate("python:no_pending_engine:NoChoices", budget=0, seed=0, store_dir=None, scenario_files=[LOOT])
    found = [tr.divergence for tr, _, _ in rep.found if tr.divergence is not None]
    assert found and (found[0].kind, found[0].field, found[0].rule, found[0].card) == (
        "observation", "pending", "608.2c", "Faithless Looting"), found[0]
    assert "(Faithless Looting, CR 608.2c)" in found[0].why


def test_a_divergence_stored_before_names_its_card_when_shown() -> None:
    """phase.rs's Make Your Own Luck bug, stored without a ``card`` (its hash covers the
    file as it is): replay and show read the card back from the trace; the other stored
    divergences of phase, on rules of the game, name none."""
    stored = sorted((ROOT / "counterexamples" / "phase-0.103.0").glob("*.json"))
    luck = [p for p in stored if "702.170c" in p.read_text(encoding="utf-8")]
    assert luck and all("card" not in json.loads(p.read_text(encoding="utf-8"))["divergence"]
                                for p in stored)
    runner = CliRunner()
    for command in ("replay", "show"):
        out = runner.invoke(main, [command, str(luck[0])], catch_exceptions=False).stdout
        assert "missing-action" in out and "Make Your Own Luck, CR 702.170c" in out, out
    others = runner.invoke(main, ["replay", *map(str, (p for p in stored if p not in luck))]).stdout
    assert "Make Your Own Luck" not in others and "reference agrees" in others
