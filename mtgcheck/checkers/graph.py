"""Explicit-state breadth-first search over a concrete configuration.

Every state reachable within the configuration's turn bound is visited once (states are
hashable values); the first violation of each property is found on a shortest path, since
BFS visits states in order of depth.  The reachable graph is kept as a networkx DiGraph for
analysis and export (GraphML or DOT).  A search cut short by its state budget or time limit
reports ``unknown`` for every property it did not see violated.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Sequence

import networkx as nx

from mtgcheck import coverage
from mtgcheck.configs import CheckConfig
from mtgcheck.model.actions import Action, Transition, catalogue
from mtgcheck.model.config import Config
from mtgcheck.model.setup import build
from mtgcheck.model.state import State
from mtgcheck.properties.base import Property

from .result import HOLDS, UNKNOWN, VACUOUS, VIOLATED, Verdict


@dataclass
class Exploration:
    cfg: Config
    graph: nx.DiGraph
    states: list[State] = field(default_factory=list)
    complete: bool = True
    depth: int = 0
    seconds: float = 0.0
    fired: dict[str, int] = field(default_factory=dict)  # rule id -> times a transition fired
    actions: dict[str, int] = field(default_factory=dict)  # action verb -> times fired


def successors(cfg: Config, s: State) -> list[tuple[Transition, State]]:
    out = []
    for t in catalogue(cfg).transitions:
        if t.enabled(s):
            out.append((t, t.effect(s)))
    return out


def _path(parent: dict[int, tuple[int, Action] | None], i: int) -> list[Action]:
    out: list[Action] = []
    while (p := parent[i]) is not None:
        out.append(p[1])
        i = p[0]
    return out[::-1]


def check(conf: CheckConfig, props: Sequence[Property], *, max_states: int = 300_000,
          timeout: float = 120.0, disabled: frozenset[str] = frozenset(),
          variant: str | None = None, symmetry: bool = True) -> tuple[list[Verdict], Exploration]:
    """Search the configuration; one verdict per property.

    With ``symmetry``, states equal up to a swap of identical cards are visited once
    (:mod:`.symmetry`); the stored states are real ones, so traces replay as they are."""
    from .symmetry import canonical

    key = (lambda st: canonical(cfg, st)) if symmetry else (lambda st: st)
    t0 = time.monotonic()
    cfg, s0 = build(conf.position, variant=variant, disabled=disabled)
    g = nx.DiGraph()
    index: dict[State, int] = {key(s0): 0}
    ex = Exploration(cfg, g, [s0])
    parent: dict[int, tuple[int, Action] | None] = {0: None}
    depth_of = {0: 0}
    g.add_node(0)
    violated: dict[str, tuple[int, list[Action]]] = {}
    witnessed: dict[str, int] = {p.id: 0 for p in props}
    state_props = [p for p in props if p.kind == "state"]
    trans_props = [p for p in props if p.kind == "transition"]

    def check_state(i: int, s: State) -> None:
        for p in state_props:
            if p.id in violated:
                continue
            if p.triggered(cfg, s):
                witnessed[p.id] += 1
            if not p.holds(cfg, s):
                violated[p.id] = (depth_of[i], _path(parent, i))

    check_state(0, s0)
    queue = deque([0])
    while queue:
        if len(index) >= max_states or time.monotonic() - t0 > timeout:
            ex.complete = False
            break
        i = queue.popleft()
        s = ex.states[i]
        if s.turn > conf.max_turn or s.game_over:
            continue
        for t, s2 in successors(cfg, s):
            ex.fired[t.rule] = ex.fired.get(t.rule, 0) + 1
            ex.actions[t.action.verb] = ex.actions.get(t.action.verb, 0) + 1
            k2 = key(s2)
            j = index.get(k2)
            new = j is None
            if new:
                j = len(ex.states)
                index[k2] = j
                ex.states.append(s2)
                parent[j] = (i, t.action)
                depth_of[j] = depth_of[i] + 1
                ex.depth = max(ex.depth, depth_of[j])
                queue.append(j)
            g.add_edge(i, j, action=t.action, rule=t.rule)
            for p in trans_props:
                if p.id in violated:
                    continue
                if p.triggered(cfg, s, t, s2):
                    witnessed[p.id] += 1
                if not p.holds(cfg, s, t, s2):
                    violated[p.id] = (depth_of[i] + 1, _path(parent, i) + [t.action])
            if new:
                check_state(j, s2)
    ex.seconds = time.monotonic() - t0
    verdicts = []
    fired = coverage.counts(cfg, ex.fired, ex.actions)  # one dict, shared by the unit's verdicts
    for p in props:
        stats = {"states": len(ex.states), "edges": g.number_of_edges(), "witnesses": witnessed[p.id],
                 "coverage": fired}
        if p.id in violated:
            d, trace = violated[p.id]
            v = Verdict("graph", p.id, conf.name, VIOLATED, depth=d, trace=trace, stats=stats)
        elif not ex.complete:
            v = Verdict("graph", p.id, conf.name, UNKNOWN, f"search stopped after {len(ex.states)} states",
                        depth=ex.depth, stats=stats)
        elif witnessed[p.id] == 0:
            v = Verdict("graph", p.id, conf.name, VACUOUS, "its antecedent never held in the reachable states",
                        depth=ex.depth, stats=stats)
        else:
            v = Verdict("graph", p.id, conf.name, HOLDS,
                        f"all {len(ex.states)} states to turn {conf.max_turn}", depth=ex.depth, stats=stats)
        v.seconds = ex.seconds
        verdicts.append(v)
    return verdicts, ex


def export(ex: Exploration, path: str) -> None:
    """Write the explored graph as GraphML (``.graphml``, via networkx) or DOT (``.dot``)."""
    from mtgcheck.atomic import write_text

    if path.endswith(".dot"):
        lines = ["digraph mtgcheck {"]
        for i, s in enumerate(ex.states):
            lines.append(f'  {i} [label="{i}: turn {s.turn} step {s.step} stack {s.stack_size}"];')
        for i, j, data in ex.graph.edges(data=True):
            a = data["action"]
            lines.append(f'  {i} -> {j} [label="{a.verb} p{a.player}{"" if a.card < 0 else f" c{a.card}"}"];')
        lines.append("}")
        write_text(path, "\n".join(lines) + "\n")
        return
    g = nx.DiGraph()
    for i, s in enumerate(ex.states):
        g.add_node(i, turn=s.turn, step=s.step, stack=s.stack_size)
    for i, j, data in ex.graph.edges(data=True):
        g.add_edge(i, j, action=repr(data["action"]), rule=data["rule"])
    import io

    buf = io.BytesIO()
    nx.write_graphml(g, buf)
    write_text(path, buf.getvalue().decode("utf-8"))
