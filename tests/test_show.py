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
