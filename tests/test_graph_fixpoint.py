"""The graph search with no turn bound: it runs to its fixpoint and says ``proved``; cut by a
budget it says ``holds`` to the depth it reached; renumbering turns changes no verdict."""

from __future__ import annotations

import pytest

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


def test_check_proves_from_the_command_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`mtgcheck check`: the default search reaches the fixpoint of a built-in position and
    proves each property for every reachable state of it; so does `--exhaustive`."""
    import json
    import subprocess
    import sys

    from .conftest import ROOT

    def run(*args: str) -> list[dict]:  # type: ignore[type-arg]
        out = tmp_path / f"out{len(args)}.json"
        subprocess.run([sys.executable, "-m", "mtgcheck.cli", "check", "--checker", "graph", "--no-store",
                        "--json", str(out), *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
        return json.loads(out.read_text())["verdicts"]  # type: ignore[no-any-return]

    exhaustive = run("--config", "flashback", "--config", "costs", "--exhaustive")
    default = run("--config", "flashback")
    prop = "every-card-in-one-zone"
    ex = {v["config"]: v for v in exhaustive if v["property"] == prop}
    de = {v["config"]: v for v in default if v["property"] == prop}
    assert ex["flashback"]["status"] == ex["costs"]["status"] == de["flashback"]["status"] == "proved"
    assert de["flashback"]["stats"]["scope"] == "every reachable state of the position"
    assert de["flashback"]["stats"]["states"] == ex["flashback"]["stats"]["states"]


def test_short_of_the_fixpoint_the_default_search_keeps_the_bounded_verdicts(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Within its state budget the default search reaches the fixpoint; cut short of it, the
    bounded verdicts stand as they were (the same states, nothing proved)."""
    from mtgcheck.checkers.result import PROVED

    conf = next(c for c in BUILTIN if c.name == "flashback")
    props = [p for p in PROPERTIES if p.id == "every-card-in-one-zone"]
    bounded, ex3 = graph.check(conf, props)
    vs, ex = graph.check_to_the_end(conf, props)
    assert ex.fixpoint and vs[0].status == PROVED and len(ex.states) > len(ex3.states)
    monkeypatch.setattr(graph, "TO_THE_END_STATES", len(ex.states) - 1)
    vs2, ex2 = graph.check_to_the_end(conf, props)
    assert not ex2.fixpoint and len(ex2.states) == len(ex3.states) and vs2[0].status == bounded[0].status == "holds"
    assert vs2[0].stats["scope"] == f"to turn {conf.max_turn}"


def test_a_violation_past_the_turn_bound_is_kept_and_the_rest_stand(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Short of the fixpoint (its state budget cut), the search past the turn bound still
    reports a property it broke there, with its trace, and every other property keeps its
    bounded verdict (not the cut search's weaker one)."""
    from mtgcheck.checkers.result import HOLDS, VIOLATED
    from mtgcheck.properties.base import Property

    conf = next(c for c in BUILTIN if c.name == "flashback")
    late = conf.max_turn + 2
    props = [Property("turns-stay-early", ("500.1",), "test", "state", lambda c, s: s.turn < late),
             BY_ID["every-card-in-one-zone"]]
    bounded, _ = graph.check(conf, props)
    assert [v.status for v in bounded] == [HOLDS, HOLDS]
    monkeypatch.setattr(graph, "TO_THE_END_STATES", 1_000)
    (broken, kept), ex = graph.check_to_the_end(conf, props)
    assert not ex.fixpoint and broken.status == VIOLATED and broken.trace
    assert kept.status == HOLDS and kept.summary() == bounded[1].summary()


@pytest.mark.deep
def test_plot_is_searched_to_its_fixpoint() -> None:
    """``plot`` to the end of every game (181,924 states after symmetry reduction, about half
    a minute on one core): every property proved for every reachable state of the position,
    and the search with no turn bound sees every antecedent the bounded one saw."""
    plot = next(c for c in BUILTIN if c.name == "plot")
    vs, ex = graph.check(plot, PROPERTIES, unbounded=True, max_states=1_000_000, timeout=1_200)
    assert ex.fixpoint, f"cut after {len(ex.states)} states"
    assert {v.status for v in vs} <= {"proved", "vacuous"}
    bounded, ex_bounded = graph.check(plot, PROPERTIES)
    vacuous = {v.property for v in vs if v.status == "vacuous"}
    assert vacuous <= {v.property for v in bounded if v.status == "vacuous"}
    assert max(s.turn for s in ex.states) > plot.max_turn
    assert len(ex.states) > len(ex_bounded.states)
