"""``mtgcheck diff``: the shortest scenario separating two rule sets."""

from __future__ import annotations

import json
from pathlib import Path

from mtgcheck.configs import BUILTIN
from mtgcheck.diff import as_scenario, find
from mtgcheck.scenario_run import load, run

PLOT = next(c for c in BUILTIN if c.name == "plot")
COSTS = next(c for c in BUILTIN if c.name == "costs")


def test_116_2k_against_702_170a(tmp_path: Path) -> None:
    d = find(PLOT, "reference", "116.2k")
    assert d is not None and len(d.trace) == 2 and d.action.verb == "plot"
    assert not d.legal_a and d.legal_b and "702.170a" in d.why
    doc = as_scenario(PLOT, "reference", "116.2k", d)
    p = tmp_path / "diff.json"
    p.write_text(json.dumps(doc))
    assert run(load(str(p))).passed  # as written: under 116.2k
    doc.pop("variant")
    p.write_text(json.dumps(doc))
    rep = run(load(str(p)))
    assert not rep.passed and rep.verdicts[-1].refusal is not None and rep.verdicts[-1].refusal.cr == "702.170a"


def test_a_rule_set_equals_itself() -> None:
    assert find(COSTS, "reference", "reference") is None


def test_mutant_is_separated() -> None:
    d = find(COSTS, "reference", "mutant-cost.sacrifice")
    assert d is not None and d.legal_b and not d.legal_a and "118.8" in d.why


def test_z3_finds_the_same_shortest_separation() -> None:
    from mtgcheck.configs import SMALL
    from mtgcheck.diff import find_z3

    conf = SMALL["break-plot"]
    g = find(conf, "reference", "116.2k")
    z = find_z3(conf, "reference", "116.2k")
    assert g is not None and z is not None
    assert len(z.trace) == len(g.trace) == 2 and z.action.verb == "plot" and not z.legal_a and z.legal_b
    assert "702.170a" in z.why
