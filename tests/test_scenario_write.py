"""A checker's shrunk failure converts to a scenario file that replays it."""

from __future__ import annotations

import json
from pathlib import Path

from mtgcheck.checkers import hypo
from mtgcheck.configs import BUILTIN
from mtgcheck.model.setup import build
from mtgcheck.properties.catalogue import BY_ID
from mtgcheck.scenario_run import load, run
from mtgcheck.scenario_write import scenario_from_trace

PLOT = next(c for c in BUILTIN if c.name == "plot")


def test_hypothesis_failure_becomes_a_replayable_scenario(tmp_path: Path) -> None:
    prop = BY_ID["plot-only-main-phase-empty-stack"]
    v = hypo.check(PLOT, [prop], seed=3, examples=300, variant="116.2k")[0]
    assert v.status == "violated" and v.trace
    cfg, _ = build(PLOT.position, variant="116.2k")
    doc = scenario_from_trace("116.2k plots outside a main phase", prop.rules, PLOT.position, cfg, v.trace,
                              variant="116.2k")
    path = tmp_path / "cx.json"
    path.write_text(json.dumps(doc))
    under_variant = run(load(str(path)))
    assert under_variant.passed  # every action of the trace is legal under the variant
    doc.pop("variant")
    path.write_text(json.dumps(doc))
    under_rules = run(load(str(path)))
    refused = [x for x in under_rules.verdicts if not x.legal]
    assert refused and refused[0].refusal is not None and refused[0].refusal.cr == "702.170a"


def test_every_builtin_position_round_trips(tmp_path: Path) -> None:
    for conf in BUILTIN:
        cfg, s0 = build(conf.position)
        path = tmp_path / f"{conf.name}.json"
        path.write_text(json.dumps(scenario_from_trace(conf.name, ["100"], conf.position, cfg, [])))
        from mtgcheck.scenario_run import start

        cfg2, s2 = start(load(str(path)))
        assert s2 == s0


def test_an_action_written_with_expectations_after_it_replays(tmp_path: Path) -> None:
    """The writer's object form of ``expect``: the position after each action, as the model
    observes it, checked when the file runs; a wrong one fails."""
    from mtgcheck.model.actions import enabled_transition, legal_actions
    from mtgcheck.model.observe import observe
    from mtgcheck.scenario_write import action_doc, setup_of

    cfg, s = build(PLOT.position)
    actions = []
    for _ in range(6):
        moves = [x for x in legal_actions(cfg, s) if x.verb != "leave"]  # a game that goes on
        a = next((x for x in moves if x.verb != "pass"), moves[0])
        t = enabled_transition(cfg, s, a)
        assert t is not None
        s = t.effect(s)
        seen = observe(cfg, s)
        actions.append(action_doc(cfg, a, after={k: seen[k] for k in ("priority", "pending", "stack", "zones")}))
    assert all(isinstance(d["expect"], dict) and d["expect"]["verdict"] == "legal" for d in actions)
    doc = {"format": "mtgcheck.scenario/1", "name": "written", "rules": ["117.3b"], "setup": setup_of(PLOT.position),
           "actions": actions}
    path = tmp_path / "written.json"
    path.write_text(json.dumps(doc))
    assert run(load(str(path))).passed
    actions[-1]["expect"]["priority"] = (actions[-1]["expect"]["priority"] + 1) % PLOT.position.players
    path.write_text(json.dumps(doc))
    rep = run(load(str(path)))
    assert not rep.passed and rep.mismatches[0].startswith("actions[5].expect.priority: ")
