"""Every scenario in tests/scenarios passes on the reference model; every malformed one is
refused with one line and exit 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mtgcheck.scenario_run import load, run

from .conftest import BAD_SCENARIOS, ROOT, SCENARIOS


def test_there_are_scenarios() -> None:
    assert len(SCENARIOS) >= 50


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario_passes(path: Path) -> None:
    rep = run(load(str(path)))
    problems = [f"#{v.index} {v.text}: {'legal' if v.legal else v.refusal}" for v in rep.verdicts if not v.ok]
    assert rep.passed, "\n".join(problems + rep.mismatches)


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario_is_strict(path: Path) -> None:
    """A scenario checks something: at least one refusal asserted or one final expectation."""
    sc = load(str(path))
    assert sc.expect is not None or any(a.expect == "illegal" for a in sc.actions)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mtgcheck.cli", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


@pytest.mark.parametrize("path", BAD_SCENARIOS, ids=[p.stem for p in BAD_SCENARIOS])
def test_bad_scenario_one_line_exit_2(path: Path) -> None:
    r = _cli("scenario", str(path))
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path.name) in lines[0] and "Traceback" not in r.stderr


@pytest.mark.parametrize("doc,field", [
    ('{"format": "mtgcheck.scenario/1", "name": "x", "rules": [], "actions": [], "setup": {"players": "2", "turn": 1, "active": 0, "step": "main1", "cards": []}}', "setup.players"),
    ("{not json", "(json)"),
])
def test_malformed_inline(tmp_path: Path, doc: str, field: str) -> None:
    p = tmp_path / "bad.json"
    p.write_text(doc)
    r = _cli("scenario", str(p))
    assert r.returncode == 2 and field in r.stderr and "bad.json" in r.stderr and "Traceback" not in r.stderr


def test_unknown_card_and_verb(tmp_path: Path) -> None:
    import json

    base = json.loads((ROOT / "tests" / "scenarios" / "plot-waits-a-turn.json").read_text())
    base["setup"]["cards"][0]["card"] = "Black Lotus"
    (tmp_path / "card.json").write_text(json.dumps(base))
    r = _cli("scenario", str(tmp_path / "card.json"))
    assert r.returncode == 2 and "setup.cards[0].card" in r.stderr
    base = json.loads((ROOT / "tests" / "scenarios" / "plot-waits-a-turn.json").read_text())
    base["actions"][0]["do"] = "dance"
    (tmp_path / "verb.json").write_text(json.dumps(base))
    r = _cli("scenario", str(tmp_path / "verb.json"))
    assert r.returncode == 2 and "actions[0].do" in r.stderr


def test_failing_expectation_exits_1(tmp_path: Path) -> None:
    import json

    doc = json.loads((ROOT / "tests" / "scenarios" / "plot-waits-a-turn.json").read_text())
    doc["actions"][1]["expect"] = "legal"  # the model refuses it (CR 702.170d)
    del doc["actions"][1]["rule"]
    p = tmp_path / "wrong.json"
    p.write_text(json.dumps(doc))
    r = _cli("scenario", str(p), "--json", str(tmp_path / "out.json"))
    assert r.returncode == 1 and "702.170d" in r.stdout
    out = json.loads((tmp_path / "out.json").read_text())
    assert out["reports"][0]["passed"] is False


def test_huge_x_is_refused_not_enumerated(tmp_path: Path) -> None:
    import json

    doc = json.loads((ROOT / "tests" / "scenarios" / "plot-waits-a-turn.json").read_text())
    doc["actions"][1]["x"] = 10**9
    p = tmp_path / "x.json"
    p.write_text(json.dumps(doc))
    r = _cli("scenario", str(p))
    assert r.returncode == 2 and "actions[1].x" in r.stderr and "Traceback" not in r.stderr


def test_too_many_cards_is_one_short_line(tmp_path: Path) -> None:
    import json

    doc = json.loads((ROOT / "tests" / "scenarios" / "plot-waits-a-turn.json").read_text())
    doc["setup"]["cards"] += [{"id": f"c{i}", "card": "Lightning Bolt", "owner": 1, "zone": "hand"} for i in range(50)]
    p = tmp_path / "many.json"
    p.write_text(json.dumps(doc))
    r = _cli("scenario", str(p))
    assert r.returncode == 2 and "setup.cards" in r.stderr and "at most 40" in r.stderr and len(r.stderr) < 300


def test_error_found_while_running_does_not_stop_later_files(tmp_path: Path) -> None:
    """A file whose error shows only as it runs is malformed (exit 2); the files after it still
    run and are reported, with the summary line and the JSON report (docs/scenario.md)."""
    import json

    bad = ROOT / "tests" / "bad_scenarios" / "bad-runtime-split-card-without-half.json"
    good = ROOT / "tests" / "scenarios" / "plot-waits-a-turn.json"
    out = tmp_path / "out.json"
    r = _cli("scenario", str(bad), str(good), "--json", str(out))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert bad.name in r.stderr and "half" in r.stderr
    assert f"PASS {good}" in r.stdout and "1 passed, 0 failed, 1 malformed" in r.stdout
    reports = json.loads(out.read_text())["reports"]
    assert reports[0]["file"] == str(bad) and "half" in reports[0]["error"]
    assert reports[1]["passed"] is True


def test_the_rule_that_refuses_is_checked(tmp_path: Path) -> None:
    """An action expected illegal with a `rule` fails when another rule refuses it."""
    import json

    doc = json.loads((ROOT / "tests" / "scenarios" / "plot-waits-a-turn.json").read_text())
    assert doc["actions"][1]["rule"] == "702.170d"
    assert run(load(str(ROOT / "tests" / "scenarios" / "plot-waits-a-turn.json"))).passed
    doc["actions"][1]["rule"] = "307.1"  # a real rule, but not the one that refuses it
    p = tmp_path / "wrong-rule.json"
    p.write_text(json.dumps(doc))
    r = _cli("scenario", str(p))
    assert r.returncode == 1 and "[expected illegal by CR 307.1]" in r.stdout and "702.170d" in r.stdout


def test_a_rule_without_expect_illegal_is_malformed(tmp_path: Path) -> None:
    import json

    doc = json.loads((ROOT / "tests" / "scenarios" / "plot-waits-a-turn.json").read_text())
    doc["actions"][0]["rule"] = "702.170a"  # the plot is expected legal
    p = tmp_path / "rule-on-legal.json"
    p.write_text(json.dumps(doc))
    r = _cli("scenario", str(p))
    assert r.returncode == 2 and "actions[0].rule" in r.stderr and "Traceback" not in r.stderr


# --- expectations after an action ----------------------------------------------------------

PENDING = ROOT / "tests" / "scenarios" / "card-faithless-looting-discard-pending-until-chosen.json"


def _spoiled(tmp_path: Path, change: Any) -> Path:
    import json

    doc = json.loads(PENDING.read_text(encoding="utf-8"))
    change(doc)
    path = tmp_path / "spoiled.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_the_pending_scenario_checks_the_position_after_its_actions() -> None:
    sc = load(str(PENDING))
    assert sum(a.state is not None for a in sc.actions) >= 4
    assert any(a.state is not None and a.state.pending is not None for a in sc.actions)
    assert run(sc).passed


@pytest.mark.parametrize("change,line", [
    (lambda d: d["actions"][1]["expect"].__setitem__("priority", 0), "actions[1].expect.priority: expected 0, got 1"),
    (lambda d: d["actions"][2]["expect"]["pending"].__setitem__("player", 1),
     "actions[2].expect.pending: expected player 1's discard (from loot), got player 0's discard (from loot)"),
    (lambda d: d["actions"][2]["expect"]["pending"].__setitem__("source", "bolt"),
     "actions[2].expect.pending: expected player 0's discard (from bolt), got player 0's discard (from loot)"),
    (lambda d: d["actions"][0]["expect"].__setitem__("pending", {"choice": "discard", "player": 0}),
     "actions[0].expect.pending: expected player 0's discard, got no pending choice"),
    (lambda d: d["actions"][5]["expect"].__setitem__("pending", {"choice": "discard", "player": 0}),
     "actions[5].expect.pending: expected player 0's discard, got no pending choice"),
    (lambda d: d["actions"][3]["expect"].__setitem__("pending", None),
     "actions[3].expect.pending: expected no pending choice, got player 0's discard (from loot)"),
    (lambda d: d["actions"][2]["expect"]["zones"].__setitem__("forest", "library"),
     "actions[2].expect.zones.forest: expected library, got hand"),
    (lambda d: d["expect"].__setitem__("priority", 1), "expect.priority: expected 1, got 0"),
], ids=["priority", "pending-player", "pending-source", "pending-absent", "pending-after-choice",
        "pending-null", "zones", "final-priority"])
def test_a_wrong_expectation_after_an_action_fails_naming_it(tmp_path: Path, change: Any, line: str) -> None:
    rep = run(load(str(_spoiled(tmp_path, change))))
    assert not rep.passed and rep.mismatches == [line], rep.mismatches
    assert all(v.ok for v in rep.verdicts)  # the verdicts themselves still hold


def test_an_action_expect_object_without_a_verdict_must_be_legal(tmp_path: Path) -> None:
    def refused_pass(d: Any) -> None:
        d["actions"][3]["expect"].pop("verdict")
        d["actions"][3].pop("rule")

    rep = run(load(str(_spoiled(tmp_path, refused_pass))))
    assert [v.index for v in rep.verdicts if not v.ok] == [3] and not rep.mismatches
