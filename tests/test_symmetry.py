"""Symmetry reduction is sound: same verdicts with and without it, fewer states."""

from __future__ import annotations

import random

from mtgcheck.checkers import graph
from mtgcheck.checkers.symmetry import canonical, groups, rename
from mtgcheck.configs import BUILTIN, CheckConfig
from mtgcheck.model.actions import legal_actions, step
from mtgcheck.model.setup import CardPlacement as C, Position, build
from mtgcheck.properties.catalogue import BY_ID, PROPERTIES

TWO_BOLTS = CheckConfig("two-bolts", Position(
    players=2, turn=1, active=0, step="main1", life=(20, 20), mana=(2, 1),
    cards=(C("b1", "Lightning Bolt", 0, "hand"), C("b2", "Lightning Bolt", 0, "hand"),
           C("t1", "Think Twice", 1, "hand"), C("l0", "Island", 0, "library"), C("l1", "Island", 1, "library"))),
    max_turn=1)


def test_same_verdicts_fewer_states() -> None:
    for conf in [TWO_BOLTS] + [c for c in BUILTIN if c.name in ("flashback", "costs")]:
        with_sym, ex1 = graph.check(conf, PROPERTIES, symmetry=True)
        without, ex2 = graph.check(conf, PROPERTIES, symmetry=False)
        assert [v.status for v in with_sym] == [v.status for v in without]
        assert len(ex1.states) <= len(ex2.states)
    _, a = graph.check(TWO_BOLTS, [], symmetry=True)
    _, b = graph.check(TWO_BOLTS, [], symmetry=False)
    assert len(a.states) < len(b.states)


def test_a_renamed_state_has_the_same_canonical_form() -> None:
    cfg, s = build(TWO_BOLTS.position)
    assert groups(cfg) == ((0, 1),)
    rng = random.Random(7)
    for _ in range(200):
        acts = legal_actions(cfg, s)
        if not acts or s.turn > 1:
            cfg, s = build(TWO_BOLTS.position)
            continue
        s = step(cfg, s, rng.choice(acts))
        swapped = rename(cfg, s, [1, 0, 2, 3, 4])
        assert canonical(cfg, swapped) == canonical(cfg, s)
        assert canonical(cfg, canonical(cfg, s)) == canonical(cfg, s)


def test_violation_still_found_on_a_shortest_path() -> None:
    prop = BY_ID["plot-only-main-phase-empty-stack"]
    plot = next(c for c in BUILTIN if c.name == "plot")
    conf = CheckConfig("plot1", plot.position, max_turn=1)
    v_sym = graph.check(conf, [prop], variant="116.2k", symmetry=True)[0][0]
    v_raw = graph.check(conf, [prop], variant="116.2k", symmetry=False)[0][0]
    assert v_sym.status == v_raw.status == "violated" and v_sym.depth == v_raw.depth == 3


def test_graph_export(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import networkx as nx

    _, ex = graph.check(TWO_BOLTS, [])
    graph.export(ex, str(tmp_path / "g.graphml"))
    g = nx.read_graphml(tmp_path / "g.graphml")
    assert g.number_of_nodes() == len(ex.states) and g.number_of_edges() == ex.graph.number_of_edges()
    graph.export(ex, str(tmp_path / "g.dot"))
    text = (tmp_path / "g.dot").read_text()
    assert text.startswith("digraph") and text.count("->") == ex.graph.number_of_edges()
