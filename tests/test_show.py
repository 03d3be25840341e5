"""``mtgcheck show``: narration, picture and ITF export of a stored counterexample."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from mtgcheck.replay import load
from mtgcheck.show import itf, narrate, svg

from .test_store_replay import PROPERTY_CX


def test_narration_names_the_rule_and_the_breaking_step() -> None:
    cx = load(PROPERTY_CX[0])
    text = narrate(cx)
    assert "CR 702.170a" in text and "the property breaks here" in text
    breaking = [line for line in text.splitlines() if "breaks here" in line]
    assert len(breaking) == 1 and "plot" in breaking[0]
    assert "combat" in text  # the 116.2k reading plots outside the main phase


def test_svg_marks_the_violating_state() -> None:
    root = ET.fromstring(svg(load(PROPERTY_CX[0])))
    fills = [r.get("fill") for r in root.iter("{http://www.w3.org/2000/svg}rect")]
    assert fills.count("#f8d0d0") == 1 and len(fills) >= 2


def test_itf_has_one_state_per_step() -> None:
    cx = load(PROPERTY_CX[0])
    doc = itf(cx)
    assert len(doc["states"]) == len(cx.scenario.actions) + 1
    assert doc["states"][0]["#meta"]["index"] == 0 and "turn" in doc["vars"]
    assert doc["#meta"]["violation_at"] == len(cx.scenario.actions)


def test_narration_of_a_divergence_lists_every_legal_action_before_the_marked_one(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Every action the rules allow just before the marked step (twelve here, never cut short),
    and, for a divergence in the action lists, those of the position where the lists differ."""
    import json

    from mtgcheck.engines.vocab import Session
    from mtgcheck.model.actions import legal_actions
    from mtgcheck.scenario_run import describe
    from mtgcheck.store import stored
    from mtgcheck import validate
    from mtgcheck.validate import run

    monkeypatch.setattr(validate, "minimize", lambda driver, tr, **kw: tr)  # keep every card
    cards = [{"id": "shock", "card": "Test Plotted Shock", "owner": 0, "zone": "hand"},
             *({"id": f"bolt{k}", "card": "Lightning Bolt", "owner": 0, "zone": "hand"} for k in range(3)),
             {"id": "lib0", "card": "Island", "owner": 0, "zone": "library"},
             {"id": "lib1", "card": "Island", "owner": 1, "zone": "library"}]
    setup = {"players": 2, "turn": 1, "active": 0, "step": "main1", "life": [20, 20], "mana": [5, 0],
             "cards": cards, "planechase": None}
    doc = {"format": "mtgcheck.scenario/1", "name": "plot then cast", "rules": ["702.170d"], "setup": setup,
           "actions": [{"player": 0, "do": "plot", "card": "shock", "expect": "legal"}]}
    (tmp_path / "s.json").write_text(json.dumps(doc))
    run("model:mutant-plotted-cast-same-turn", budget=0, seed=0, store_dir=str(tmp_path / "cx"),
        scenario_files=[tmp_path / "s.json"])
    [path] = stored(tmp_path / "cx")
    text = narrate(load(path))
    se = Session.begin(setup, source="(test)")
    before = [describe(se.cfg, a) for a in legal_actions(se.cfg, se.start)]
    assert len(before) > 8
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if "legal before it (by the rules, " in line)
    listed = "; ".join(lines[at + 1:]).split("legal after it")[0]
    for action in before:
        assert action in listed, action
    assert "legal after it, where the lists differ" in text
