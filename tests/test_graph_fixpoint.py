"""The graph search with no turn bound: it runs to its fixpoint and says ``proved``; cut by a
budget it says ``holds`` to the depth it reached; renumbering turns changes no verdict."""

from __future__ import annotations

from mtgcheck.checkers import graph
from mtgcheck.checkers.symmetry import canonical
from mtgcheck.configs import BUILTIN
from mtgcheck.model.actions import legal_actions, step
from mtgcheck.model.setup import build
from mtgcheck.properties.catalogue import BY_ID, PROPERTIES

SMALL = [c for c in BUILTIN if c.name in ("flashback", "costs")]


def test_fixpoint_proves_and_turn_renumbering_changes_no_verdict() -> None:
    for conf in SMALL:
        vs, ex = graph.check(conf, PROPERTIES, unbounded=True)
        plain, ex_plain = graph.check(conf, PROPERTIES, unbounded=True, renumber_turns=False)
        assert ex.fixpoint and ex_plain.fixpoint
        assert [(v.property, v.status) for v in vs] == [(v.property, v.status) for v in plain]
        assert len(ex.states) < len(ex_plain.states)
        assert {v.status for v in vs} <= {"proved", "vacuous"}
        assert any(v.status == "proved" and v.stats["scope"] == "every reachable state of the position"
                   and v.summary() == "proved (every reachable state of the position)" for v in vs)
        # No turn bound: the search went past the configuration's bound, to games that ended.
        assert max(s.turn for s in ex.states) > conf.max_turn
        bounded, _ = graph.check(conf, PROPERTIES)
        assert "proved" not in {v.status for v in bounded}


def test_a_violation_is_found_without_a_turn_bound_too() -> None:
    plot = next(c for c in BUILTIN if c.name == "plot")
    prop = BY_ID["plot-only-main-phase-empty-stack"]
    (v,), _ = graph.check(plot, [prop], variant="116.2k", unbounded=True, max_states=5000)
    assert v.status == "violated" and v.depth == 3


def test_a_cut_search_holds_to_a_depth_never_proves() -> None:
    conf = SMALL[0]
    vs, ex = graph.check(conf, PROPERTIES, unbounded=True, max_states=200)
    assert not ex.complete and not ex.fixpoint
    assert "proved" not in {v.status for v in vs}
    held = [v for v in vs if v.status == "holds"]
    assert held and all(0 < v.depth <= ex.depth and "exhaustive to depth" in v.detail for v in held)


def test_renumbered_turns_keep_order_and_never() -> None:
    conf = next(c for c in BUILTIN if c.name == "plot")
    cfg, s = build(conf.position)
    import random

    rng = random.Random(5)
    for _ in range(300):
        acts = legal_actions(cfg, s)
        if not acts:
            cfg, s = build(conf.position)
            continue
        s = step(cfg, s, rng.choice(acts))
        c = canonical(cfg, s, turns=True)
        assert canonical(cfg, c, turns=True) == c
        for j in range(cfg.n):
            assert (c.plotted[j] == 0) == (s.plotted[j] == 0) and (c.last_cast[j] == 0) == (s.last_cast[j] == 0)
            assert (c.plotted[j] < c.turn) == (s.plotted[j] < s.turn)
            assert (c.last_cast[j] == c.turn) == (s.last_cast[j] == s.turn)


def test_check_exhaustive_proves_from_the_command_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`mtgcheck check --exhaustive`: a property proved at the fixpoint of every configuration
    (or vacuous there, its antecedent never reached) is proved; without the flag, it holds."""
    import json
    import subprocess
    import sys

    from .conftest import ROOT

    def run(*extra: str) -> dict:  # type: ignore[type-arg]
        out = tmp_path / f"out{len(extra)}.json"
        subprocess.run([sys.executable, "-m", "mtgcheck.cli", "check", "--checker", "graph", "--config", "flashback",
                        "--config", "costs", "--no-store", "--json", str(out), *extra],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
        return {c["property"]: c for c in json.loads(out.read_text())["combined"]}

    exhaustive, bounded = run("--exhaustive"), run()
    assert exhaustive["flashback-spell-always-ends-in-exile"]["status"] == "proved"
    assert bounded["flashback-spell-always-ends-in-exile"]["status"] == "holds"
    assert "proved" not in {c["status"] for c in bounded.values()}
