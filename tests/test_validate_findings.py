"""Finding and reporting (issue 14): the rule a divergence cites, every field that differs,
the shortest trace kept, rule coverage, extra scenario folders, probing engines that do not
list their actions, whole-trace replay, and runs that stop on repeated faults."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mtgcheck import validate as val
from mtgcheck.cli import main
from mtgcheck.engines.vocab import Session
from mtgcheck.model.actions import Action, enabled_transition
from mtgcheck.model.turns import MAX_HAND_SIZE
from mtgcheck.replay import load as load_cx
from mtgcheck.store import stored
from mtgcheck.validate import Driver, cause, run, scripted

from .conftest import ROOT

HERE = Path(__file__).parent
EXAMPLE = f"cmd:{sys.executable} {HERE / 'engines' / 'example_engine.py'}"
FAULTY = HERE / "engines" / "faulty_engine.py"


def _card(cid: str, name: str, owner: int, zone: str) -> dict[str, Any]:
    return {"id": cid, "card": name, "owner": owner, "zone": zone}


def _setup(cards: list[dict[str, Any]], *, life: list[int] | None = None, mana: list[int] | None = None,
           players: int = 2, turn: int = 1) -> dict[str, Any]:
    libs = [_card(f"lib{p}", "Island", p, "library") for p in range(players)]
    return {"players": players, "turn": turn, "active": 0, "step": "main1", "life": life or [20] * players,
            "mana": mana or [4] * players, "cards": cards + libs, "planechase": None}


def _play(spec: str, setup: dict[str, Any], acts: list[dict[str, Any]]) -> val.Trace:
    driver = Driver(spec)
    try:
        return driver.play(setup, scripted(acts, setup), steps=len(acts) + 1)
    finally:
        driver.close()


def _pass(p: int) -> dict[str, Any]:
    return {"player": p, "do": "pass"}


COUNTERED = [_pass(0), {"player": 1, "do": "cast", "card": "counter", "how": "normal", "targets": ["twice"]},
             _pass(1), _pass(0)]


# -- 1. the rule whose effect differs, every differing field ------------------------------------

def test_a_countered_flashback_spell_cites_702_34a() -> None:
    setup = _setup([_card("twice", "Think Twice", 0, "graveyard"), _card("counter", "Counterspell", 1, "hand")],
                   mana=[3, 2])
    cast = {"player": 0, "do": "cast", "card": "twice", "how": "flashback", "flashback": "printed"}
    tr = _play("model:mutant-flashback-countered-to-graveyard", setup, [cast, *COUNTERED])
    d = tr.divergence
    assert d is not None and d.kind == "observation" and d.field == "zones.twice"
    assert d.rule == "702.34a", d  # not 608.2, the rule of the pass that resolved Counterspell
    assert (d.rules_say, d.engine_says) == ("exile", "graveyard")


def test_a_countered_spell_cast_from_hand_cites_701_6a() -> None:
    setup = _setup([_card("twice", "Think Twice", 0, "hand"), _card("counter", "Counterspell", 1, "hand")],
                   mana=[2, 2])
    cast = {"player": 0, "do": "cast", "card": "twice", "how": "normal"}
    tr = _play("model:mutant-normal-cast-marked-for-exile", setup, [cast, *COUNTERED])
    d = tr.divergence
    assert d is not None and d.field == "zones.twice" and d.rule == "701.6a", d
    assert (d.rules_say, d.engine_says) == ("graveyard", "exile")


def test_a_player_at_0_life_still_in_the_game_cites_704_5a_and_every_field_is_reported() -> None:
    setup = _setup([_card("bolt", "Lightning Bolt", 0, "hand"), _card("bolt1", "Lightning Bolt", 1, "hand")],
                   life=[20, 3], mana=[1, 1])
    acts = [{"player": 0, "do": "cast", "card": "bolt", "how": "normal", "targets": ["player:1"]}, _pass(0), _pass(1)]
    tr = _play(EXAMPLE + " --broken=no-lose", setup, acts)
    d = tr.divergence
    assert d is not None and d.kind == "observation" and d.step == 2
    fields = [(d.field, d.rule)] + [(x["field"], x["rule"]) for x in d.also]
    # cause before consequence: the loser's cards leave (800.4a), then who is in the game, then the end
    assert fields == [("zones.bolt1", "800.4a"), ("zones.lib1", "800.4a"), ("in_game", "704.5a"),
                      ("game_over", "104.2a")]
    assert all(x["rules_say"] != x["engine_says"] for x in d.also)
    assert "and 3 more: zones.lib1, in_game, game_over" in d.why
    assert d.to_json()["also"][1]["field"] == "in_game"


def test_a_player_who_left_still_having_priority_cites_800_4j() -> None:
    setup = _setup([_card("bolt", "Lightning Bolt", 0, "hand")], players=3)
    se = Session.begin(setup, source="(test)")
    cfg, s = se.cfg, se.start
    a = Action("leave", 0)  # player 0 has priority and concedes
    t = enabled_transition(cfg, s, a)
    assert t is not None
    s2 = t.effect(s)
    assert s2.priority == 1
    assert cause(cfg, s, t, s2, a, "priority", 0) == "800.4j"
    assert cause(cfg, s, t, s2, a, "in_game", [0, 1, 2]) == "104.3a"
    assert cause(cfg, s, t, s2, a, "zones.bolt", "hand") == "800.4a"


def test_the_resolved_spell_and_the_damage_cite_their_own_rules() -> None:
    setup = _setup([_card("bolt", "Lightning Bolt", 0, "hand")], mana=[1, 0])
    se = Session.begin(setup, source="(test)")
    cfg, s = se.cfg, se.start
    cast = Action("cast", 0, card=0, how=1, target=1)
    s = enabled_transition(cfg, s, cast).effect(s)  # type: ignore[union-attr]
    s = enabled_transition(cfg, s, Action("pass", 0)).effect(s)  # type: ignore[union-attr]
    t = enabled_transition(cfg, s, Action("pass", 1))
    assert t is not None and t.rule.startswith("pass.resolve")
    s2 = t.effect(s)
    assert cause(cfg, s, t, s2, Action("pass", 1), "zones.bolt", "stack") == "608.2n"
    assert cause(cfg, s, t, s2, Action("pass", 1), "life", [20, 20]) == "120.3"
    assert cause(cfg, s, t, s2, Action("pass", 1), "stack", ["bolt"]) == "608.2"
    assert cause(cfg, s, t, s2, Action("pass", 1), "priority", 1) == "117.3b"


# -- 2. the shortest trace of each divergence is kept -------------------------------------------

def _plot_scenario(prefix: list[dict[str, Any]]) -> dict[str, Any]:
    acts = [{**a, "expect": "legal"} for a in prefix]
    acts += [{"player": 0, "do": "plot", "card": "shock", "expect": "legal"},
             {"player": 0, "do": "cast", "card": "shock", "how": "plotted", "targets": ["player:1"],
              "expect": "illegal"}]
    return {"format": "mtgcheck.scenario/1", "name": "plot then cast at once", "rules": ["702.170d"],
            "setup": _setup([_card("shock", "Test Plotted Shock", 0, "hand")], mana=[3, 0]), "actions": acts}


def test_the_shortest_trace_of_a_divergence_is_kept_and_stored(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    # Found first (files are read in name order): the same divergence after four passes.
    (folder / "a-long.json").write_text(json.dumps(_plot_scenario([_pass(0), _pass(1), _pass(0), _pass(1)])))
    (folder / "b-short.json").write_text(json.dumps(_plot_scenario([])))
    monkeypatch.setattr(val, "minimize", lambda driver, tr, **kw: tr)  # keep what was found, as found
    store = tmp_path / "cx"
    rep = run("model:mutant-plotted-cast-same-turn", budget=0, seed=0, store_dir=str(store),
              scenario_files=sorted(folder.glob("*.json")))
    assert len(rep.found) == 1
    tr, path, new = rep.found[0]
    # the model lists its actions: the cast plotted at once is listed right after the plot
    assert tr.divergence is not None and tr.divergence.kind == "extra-action"
    assert len(tr.actions) == 1 and tr.source.endswith("b-short.json")
    assert new and path is not None and stored(store) == [path]
    assert load_cx(path).doc["trace_length"] == 1
    d = rep.to_json()["divergences"][0]
    assert d["traces"] == 2 and d["shortest_found"] == 1


# -- 3. rule coverage -----------------------------------------------------------------------------

def test_validate_against_the_model_reaches_every_rule_of_the_catalogue() -> None:
    rep = run("model", budget=200, seed=0, store_dir=None, scenario_files=[])  # the default budget
    cov = rep.to_json()["coverage"]
    assert rep.found == []
    assert cov["missing"] == [] and cov["rules_reached"] == cov["rules_in_catalogue"] >= 23
    for rule in ("choose.legend", "choose.target", "plot.library", "pass.resolve.ability3"):
        assert cov["fired"][rule] > 0


def test_generated_positions_bring_a_player_to_0_life_and_counter_a_spell_from_hand() -> None:
    setups = val.builtin_setups(Driver("model").support)
    assert any(min(s["life"]) <= 3 for s in setups)
    assert any({c["card"] for c in s["cards"]} >= {"Counterspell", "Think Twice"}
               and any(c["card"] == "Think Twice" and c["zone"] == "hand" for c in s["cards"]) for s in setups)


# -- 4. extra scenario folders add to the default -------------------------------------------------

def test_scenario_folders_add_to_the_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "mine.json").write_text(json.dumps(_plot_scenario([])))

    def scenarios(*args: str) -> int:
        out = tmp_path / "r.json"
        r = CliRunner().invoke(main, ["validate", "--engine", EXAMPLE, "--budget", "0", "--no-store",
                                      "--json", str(out), *args])
        assert r.exit_code in (0, 1), r.output
        return json.loads(out.read_text())["sources"].get("scenarios", 0)

    default, none = scenarios(), scenarios("--no-default-scenarios")  # stored counterexamples count in both
    assert default > none
    assert scenarios("--scenarios", str(extra)) == default + 1
    assert scenarios("--scenarios", str(extra), "--no-default-scenarios") == none + 1


# -- 5. engines that do not list their actions are probed at every step ---------------------------

@pytest.mark.parametrize("bug,rule", [("plot-timing", "702.170a"), ("x-free", "107.3b"), ("cast-how", "702.170d"),
                                      ("plotted-same-turn", "702.170d")])
def test_a_lax_engine_that_lists_no_actions_is_caught(bug: str, rule: str) -> None:
    rep = run(f"{EXAMPLE} --no-list --broken={bug}", budget=60, seed=0, store_dir=None, scenario_files=[])
    found = {(tr.divergence.kind, tr.divergence.rule) for tr, _, _ in rep.found if tr.divergence}
    assert ("illegal-accepted", rule) in found, found


def test_a_faithful_engine_that_lists_no_actions_is_clean() -> None:
    rep = run(f"{EXAMPLE} --no-list", budget=30, seed=0, store_dir=None, scenario_files=[])
    # The budget is positions tried: those the engine declines (a player owning more than
    # seven cards: it has no cleanup discard) make no trace, and each is declined once at
    # most, never drawn again.
    declines = [s for s in val.builtin_setups(Driver(f"{EXAMPLE} --no-list").support)
                if any(sum(c["owner"] == p for c in s["cards"]) > MAX_HAND_SIZE for p in range(s["players"]))]
    assert declines
    assert rep.found == [] and rep.traces + rep.refused == 30 and rep.refused <= len(declines)


def test_probes_try_every_single_check_here() -> None:
    """Turn 2, main phase: a card plotted on turn 1, a card in hand; every condition that alone
    forbids an action gives one probe."""
    import random

    fireball = {**_card("fireball", "Test Plotted Fireball", 0, "exile"), "plotted_turn": 1}
    setup = _setup([_card("shock", "Test Plotted Shock", 0, "hand"), fireball], mana=[3, 0], turn=2)
    se = Session.begin(setup, source="(test)", max_x=2)
    support = Driver(EXAMPLE + " --no-list").support
    got = val.probes(support, se.cfg, se.start, random.Random(0))
    assert got and all(enabled_transition(se.cfg, se.start, a) is None for a in got)
    assert any(a.verb == "cast" and a.x > 0 for a in got)  # X above 0 on a free cast (107.3b)
    assert any(a.player == 1 for a in got)  # a player without priority


# -- 6. replay compares the whole trace -----------------------------------------------------------

def test_replay_reports_a_divergence_elsewhere(tmp_path: Path) -> None:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    (folder / "short.json").write_text(json.dumps(_plot_scenario([])))
    run("model:mutant-plotted-cast-same-turn", budget=0, seed=0, store_dir=str(tmp_path / "cx"),
        scenario_files=[folder / "short.json"])
    [path] = stored(tmp_path / "cx")
    crashing = f"cmd:{sys.executable} {FAULTY} --fault crash --after 0"  # falls over at the first action
    r = CliRunner().invoke(main, ["replay", str(path), "--engine", crashing])
    assert r.exit_code == 1, r.output
    assert "DIVERGES ELSEWHERE (crash" in r.output and "stored: extra-action, actions, CR 702.170d" in r.output
    r = CliRunner().invoke(main, ["replay", str(path), "--engine", "model:mutant-plotted-cast-same-turn"])
    assert r.exit_code == 1 and "STILL DIVERGES" in r.output
    r = CliRunner().invoke(main, ["replay", str(path), "--engine", "model"])
    assert r.exit_code == 0 and "no longer diverges" in r.output


# -- 8. repeated faults stop the run ------------------------------------------------------------

def test_identical_hangs_stop_the_run_after_max_faults() -> None:
    spec = f"cmd:{sys.executable} {FAULTY} --fault hang --after 1"
    rep = run(spec, budget=20, seed=0, store_dir=None, scenario_files=[], call_timeout=0.3, max_faults=2)
    assert rep.stopped is not None and rep.stopped.startswith("stopped: 2 identical faults (hang")
    assert rep.diverged == 2 and rep.traces < 5  # a game too short to reach the second action may not hang
    hangs = [tr for tr, _, _ in rep.found if tr.divergence and tr.divergence.kind == "hang"]
    assert len(hangs) == 1 and len(rep.found) == 1  # stored once
    assert rep.to_json()["stopped"] == rep.stopped


def test_the_progress_bar_draws_and_the_cli_reports_the_stop(tmp_path: Path) -> None:
    rep = run("model", budget=3, seed=0, store_dir=None, scenario_files=[], show_progress=True)
    assert rep.traces == 3
    spec = f"cmd:{sys.executable} {FAULTY} --fault hang --after 1"
    r = CliRunner().invoke(main, ["validate", "--engine", spec, "--budget", "10", "--no-store", "--call-timeout",
                                  "0.3", "--max-faults", "1", "--no-default-scenarios"])
    assert r.exit_code == 1, r.output
    assert "stopped: 1 identical faults (hang" in r.output
