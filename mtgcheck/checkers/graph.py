"""Explicit-state breadth-first search over a concrete configuration.

Every state reachable within the configuration's turn bound (or, with ``unbounded``, every
reachable state: the search runs to its fixpoint) is visited once (states are hashable
values); the first violation of each property is found on a shortest path, since BFS visits
states in order of depth.  The hot loop keeps the explored edges in plain lists; a networkx
DiGraph is built from them only for analysis and export (GraphML or DOT).  A search cut
short by its state budget or time limit reports ``unknown`` for every property it did not
see violated.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Sequence

import networkx as nx

from mtgcheck import coverage
from mtgcheck.budget import GRAPH_BACKENDS
from mtgcheck.configs import CheckConfig
from mtgcheck.model.actions import Action, Transition, catalogue
from mtgcheck.model.config import Config
from mtgcheck.model.setup import build
from mtgcheck.model.state import State
from mtgcheck.properties.base import Property

from . import property_plan
from .result import EVERY_REACHABLE_STATE, HOLDS, PROVED, UNKNOWN, VACUOUS, VIOLATED, Verdict


@dataclass
class Exploration:
    cfg: Config
    states: Sequence[State] = field(default_factory=list)  # a list, or the native search's FlatStates
    complete: bool = True
    depth: int = 0
    seconds: float = 0.0
    fired: dict[str, int] = field(default_factory=dict)  # rule id -> times a transition fired
    actions: dict[str, int] = field(default_factory=dict)  # action verb -> times fired
    # Every edge explored, as parallel lists (source index, target index, transition): plain
    # arrays in the hot loop; :attr:`graph` builds the networkx graph from them on demand.
    # (The compiled search keeps them as machine arrays, and only when asked: see ``n_edges``.)
    sources: Sequence[int] = field(default_factory=list)
    targets: Sequence[int] = field(default_factory=list)
    via: Sequence[Transition] = field(default_factory=list)
    #: Distinct edges when the search counted them itself (the compiled search): no edge list needed.
    n_edges: int | None = None
    #: What stopped the search: "done" (the queue ran out), "state budget", "timeout",
    #: "max-memory" or "first violation".
    stopped: str = "done"
    held_bytes: int = 0  # what the compiled search held at its end (0: the interpreter's)
    #: Seconds the compiled search spent having its program (print and compile, once per
    #: relation; else a cache read and the check against the interpreter).
    program_seconds: float = 0.0
    #: The compiled search's store (:mod:`.native`): its tree's nodes, the most states queued,
    #: the states its queue put in a file, the successors looked up.
    store: dict[str, int] = field(default_factory=dict)
    #: With fingerprints: a bound on the probability that two distinct states shared one (so
    #: that the search may have missed states); None: the visited set is exact.
    collision_bound: float | None = None
    fixpoint: bool = False  # no turn bound, and no new state appeared: every reachable state seen
    backend: str = "python"  # the reading that ran the search: "python" or "native" (.native)
    backend_note: str = ""  # why the compiled reading "auto" chose did not run, if it did not
    _graph: nx.DiGraph | None = None

    @property
    def graph(self) -> nx.DiGraph:
        """The explored graph (nodes: state indexes; edges: ``action`` and ``rule``), for export
        and analysis; built once, when first asked for."""
        if self._graph is None:
            g = nx.DiGraph()
            g.add_nodes_from(range(len(self.states)))
            for i, j, t in zip(self.sources, self.targets, self.via, strict=True):
                g.add_edge(i, j, action=t.action, rule=t.rule)
            self._graph = g
        return self._graph

    @property
    def edges(self) -> int:
        """Distinct explored edges (two transitions between the same states count once)."""
        if self.n_edges is not None:
            return self.n_edges
        return len(set(zip(self.sources, self.targets, strict=True)))


def _path(parent: list[tuple[int, Action] | None], i: int) -> list[Action]:
    out: list[Action] = []
    while (p := parent[i]) is not None:
        out.append(p[1])
        i = p[0]
    return out[::-1]


#: Which reading of the rules runs a search: "python" (the interpreter), "native" (the same
#: relation compiled, :mod:`.native`), or "auto": for a search with no turn bound, the compiled
#: relation if it is in the cache, else the interpreter, and for a search still going after
#: :data:`NATIVE_AFTER` states the compiled relation from the start when a C compiler is found
#: (compiling costs 5-20 s: a small search never pays it).
BACKENDS = GRAPH_BACKENDS
#: States after which "auto" hands a search to the fixpoint to the compiled relation (the
#: interpreter's 3-6 s; the built-in positions end at 1,899 to 181,924 states).
NATIVE_AFTER = 20_000


@dataclass
class Found:
    """What a search found, whichever reading ran it: per property its first violation
    (depth, trace) and the times its antecedent held; per transition the times it fired; and
    the depth to which the search is exhaustive."""

    violated: dict[str, tuple[int, list[Action]]]
    witnessed: dict[str, int]
    fired: list[int]
    checked_to: int


def check(conf: CheckConfig, props: Sequence[Property], *, max_states: int | None = 300_000,
          timeout: float = 120.0, disabled: frozenset[str] = frozenset(),
          variant: str | None = None, symmetry: bool = True,
          unbounded: bool = False, renumber_turns: bool | None = None,
          first_violation: bool = False, backend: str = "python", keep_edges: bool = True,
          max_bytes: int = 0, fingerprints: bool = False, threads: int = 1) -> tuple[list[Verdict], Exploration]:
    """Search the configuration; one verdict per property.

    With ``symmetry``, states equal up to a swap of identical cards are visited once
    (:mod:`.symmetry`); the stored states are real ones, so traces replay as they are.

    With ``unbounded``, the configuration's turn bound (``max_turn``) is ignored: the search
    runs until no new state appears (a fixpoint: every reachable state of the position has
    been seen, and a property that held there is ``proved``), and with ``symmetry`` turn
    numbers are renumbered too (:func:`.symmetry.canonical`).  A search cut by its state
    budget or time limit says ``holds`` to the depth it reached (every state that many actions
    from the start, and every transition out of the states before it), never ``proved``.
    ``renumber_turns`` (default: ``unbounded``) switches the renumbering of turns apart.
    ``first_violation``: stop once every state before the depth of the first violation has
    been expanded (so every property failing at that depth is found); the search is then
    incomplete, and the properties not violated say so.

    ``backend`` (:data:`BACKENDS`): the interpreter or the compiled relation; both visit the
    same states in the same order, so every verdict, figure and trace is the same.

    ``max_states`` None: no state budget (the search runs to its fixpoint, ``timeout`` or
    ``max_bytes``).  ``max_bytes`` (the compiled search; 0: none) bounds what the search holds;
    ``keep_edges`` False keeps only the count of the edges (the compiled search), not the list
    that :attr:`Exploration.graph` is built from.  ``Exploration.stopped`` says what stopped it.
    ``fingerprints`` (the compiled search): a 64-bit hash per visited state, not the state; a
    fixpoint then says ``holds`` with :attr:`Exploration.collision_bound`, never ``proved``.
    ``threads`` (the compiled search): threads that expand the queue's states together; the
    result does not depend on them (:func:`.native.search`)."""
    import sys

    from . import native

    if max_states is None:
        max_states = sys.maxsize

    t0 = time.monotonic()
    cfg, s0 = build(conf.position, variant=variant, disabled=disabled)
    turns = unbounded if renumber_turns is None else renumber_turns
    if turns and not unbounded:
        raise ValueError("turn numbers are renumbered only in a search with no turn bound")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    max_turn = None if unbounded else conf.max_turn
    run: tuple[Exploration, Found] | None = None
    note = ""  # why "auto" did not run the compiled search it chose (the verdicts' stats say it)
    if backend == "auto" and native.cached(cfg, props):
        # Compiled before (one program per relation, with or without the turn bound): no
        # compile to pay for, bounded search or not.
        backend = "native-or-python"
    elif backend == "auto" and unbounded and max_states > NATIVE_AFTER and native.available():
        first = _search(cfg, s0, props, max_states=NATIVE_AFTER, timeout=timeout, t0=t0,
                        first_violation=first_violation, max_turn=max_turn, symmetry=symmetry, turns=turns)
        if first[0].complete or time.monotonic() - t0 > timeout:
            run = first
        else:
            backend = "native-or-python"
    if backend in ("native", "native-or-python"):
        try:
            run = _search_native(cfg, s0, props, max_states=max_states, timeout=timeout - (time.monotonic() - t0),
                                 first_violation=first_violation, max_turn=max_turn, symmetry=symmetry, turns=turns,
                                 keep_edges=keep_edges, max_bytes=max_bytes, fingerprints=fingerprints,
                                 threads=threads)
        except native.Unsupported as e:
            if backend == "native":
                from mtgcheck.errors import UsageError

                raise UsageError(f"--graph-backend native: {e}") from None
            note = f"the interpreter ran the search: {e}"
    if run is None:
        run = _search(cfg, s0, props, max_states=max_states, timeout=timeout, t0=t0,
                      first_violation=first_violation, max_turn=max_turn, symmetry=symmetry, turns=turns)
    ex, found = run
    ex.seconds = time.monotonic() - t0
    ex.backend_note = note
    return verdicts_of(conf, props, ex, found, unbounded), ex


def _search(cfg: Config, s0: State, props: Sequence[Property], *, max_states: int, timeout: float, t0: float,
            first_violation: bool, max_turn: int | None, symmetry: bool, turns: bool) -> tuple[Exploration, Found]:
    """The search by the interpreter (the model's Python, one transition at a time)."""
    from .symmetry import canonicalizer

    key = canonicalizer(cfg, turns=turns) if symmetry else (lambda st: st)
    transitions = catalogue(cfg).transitions
    enabled = catalogue(cfg).enabled
    index: dict[State, int] = {key(s0): 0}
    states = [s0]
    ex = Exploration(cfg, states)
    parent: list[tuple[int, Action] | None] = [None]
    depth_of = [0]
    sources, targets, via = ex.sources, ex.targets, ex.via
    violated: dict[str, tuple[int, list[Action]]] = {}
    witnessed: dict[str, int] = {p.id: 0 for p in props}
    # What each step has to evaluate (:mod:`.property_plan`): the state properties reading a
    # field the step changed, and per transition the properties that are not constant on it.
    pp = property_plan.plan(cfg, props)
    state_props = pp.state_props
    every = list(range(len(state_props)))
    # Per state: bit k set when state property k's antecedent holds there (inherited by a
    # successor whose step changed nothing that property reads).
    masks: list[int] = []
    fired = [0] * len(transitions)

    def check_state(i: int, s: State, recheck: list[int], mask: int) -> None:
        outcomes = {k: pp.outcome(k, s) for k in recheck}
        for k, (w, _) in outcomes.items():
            mask = mask | 1 << k if w else mask & ~(1 << k)
        masks.append(mask)
        k = 0
        while mask:
            if mask & 1 and state_props[k].id not in violated:
                witnessed[state_props[k].id] += 1
            mask >>= 1
            k += 1
        for k, (_, ok) in outcomes.items():  # the others held in the state this one came from
            if not ok and state_props[k].id not in violated:
                violated[state_props[k].id] = (depth_of[i], _path(parent, i))

    check_state(0, s0, every, 0)
    queue = deque([0])
    while queue:
        if len(index) >= max_states or time.monotonic() - t0 > timeout:
            ex.complete = False
            ex.stopped = "state budget" if len(index) >= max_states else "timeout"
            break
        if first_violation and violated and depth_of[queue[0]] >= min(d for d, _ in violated.values()):
            ex.complete = False
            ex.stopped = "first violation"
            break
        i = queue.popleft()
        s = states[i]
        if s.game_over or (max_turn is not None and s.turn > max_turn):
            continue
        for ti in enabled(s):
            t = transitions[ti]
            s2 = t.effect(s)
            fired[ti] += 1
            k2 = key(s2)
            j = index.get(k2)
            new = j is None
            if j is None:
                j = len(states)
                index[k2] = j
                states.append(s2)
                parent.append((i, t.action))
                depth_of.append(depth_of[i] + 1)
                queue.append(j)
            sources.append(i)
            targets.append(j)
            via.append(t)
            checks = pp.transition(ti)
            for p in checks.always_witnessed:
                if p.id not in violated:
                    witnessed[p.id] += 1
            for memo in checks.evaluate:
                p = memo.prop
                if p.id in violated:
                    continue
                w, ok = memo.outcome(cfg, s, t, s2)
                if w:
                    witnessed[p.id] += 1
                if not ok:
                    violated[p.id] = (depth_of[i] + 1, _path(parent, i) + [t.action])
            if new:
                check_state(j, s2, pp.recheck(s, s2), masks[i])
    ex.depth = max(depth_of)
    # A state that hit a bound of the configuration (``overflow``) was cut short: no proof.
    ex.fixpoint = max_turn is None and ex.complete and not any(s.overflow for s in states)
    # The depth to which the search is exhaustive: every state within it was checked, and every
    # transition out of a state before it.
    return ex, Found(violated, witnessed, fired, ex.depth if ex.complete else depth_of[queue[0]])


class _Via(Sequence[Transition]):
    """The transition of each edge of a compiled search, read from its array when asked."""

    def __init__(self, codes: Sequence[int], transitions: Sequence[Transition]) -> None:
        self.codes, self.transitions = codes, transitions

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self.transitions[c] for c in self.codes[i]]
        return self.transitions[self.codes[i]]


def _search_native(cfg: Config, s0: State, props: Sequence[Property], *, max_states: int, timeout: float,
                   first_violation: bool, max_turn: int | None, symmetry: bool,
                   turns: bool, keep_edges: bool = True, max_bytes: int = 0,
                   fingerprints: bool = False, threads: int = 1) -> tuple[Exploration, Found]:
    """The search by the compiled relation (:mod:`.native`): the same states, edges, counts
    and first violations as :func:`_search`, in the same order."""
    from . import native

    r = native.search(cfg, props, s0, max_states=max_states, timeout=timeout, first_violation=first_violation,
                      max_turn=max_turn, symmetry=symmetry, turns=turns, keep_edges=keep_edges,
                      max_bytes=max_bytes, fingerprints=fingerprints, threads=threads)
    transitions = catalogue(cfg).transitions
    ex = Exploration(cfg, r.states, complete=r.complete, depth=r.max_depth, sources=r.sources, targets=r.targets,
                     via=_Via(r.edge_via, transitions), backend="native", n_edges=r.edges, stopped=r.stopped,
                     held_bytes=r.held_bytes, program_seconds=r.program_seconds,
                     store={"nodes": r.nodes, "frontier_peak": r.frontier_peak, "spilled": r.spilled,
                            "batch_bytes": r.batch_bytes,
                            "generated": r.generated}, collision_bound=r.collision_bound)
    ex.fixpoint = max_turn is None and r.complete and not r.overflow

    def path(i: int) -> list[Action]:  # the shortest trace to state i, by its parent pointers
        return [transitions[t].action for t in native.path_to(r.parent, r.via, i)]

    violated: dict[str, tuple[int, list[Action]]] = {}
    for p, v in zip(props, r.violations, strict=True):
        if v is not None:
            i, t, d = v
            violated[p.id] = (d, path(i) + ([transitions[t].action] if t >= 0 else []))
    witnessed = {p.id: w for p, w in zip(props, r.witnessed, strict=True)}
    return ex, Found(violated, witnessed, r.fired, ex.depth if r.complete else r.queue_head_depth)


def verdicts_of(conf: CheckConfig, props: Sequence[Property], ex: Exploration, found: Found,
              unbounded: bool) -> list[Verdict]:
    """One verdict per property from what the search found (either reading)."""
    transitions = catalogue(ex.cfg).transitions
    for t, c in zip(transitions, found.fired, strict=True):
        if not c:
            continue
        ex.fired[t.rule] = ex.fired.get(t.rule, 0) + c
        ex.actions[t.action.verb] = ex.actions.get(t.action.verb, 0) + c
    states, checked_to, violated, witnessed = ex.states, found.checked_to, found.violated, found.witnessed
    verdicts = []
    fired_cov = coverage.counts(ex.cfg, ex.fired, ex.actions)  # one dict, shared by the unit's verdicts
    edges = ex.edges
    scope = (EVERY_REACHABLE_STATE if ex.fixpoint
             else f"exhaustive to depth {checked_to}" if unbounded else f"to turn {conf.max_turn}")
    for p in props:
        stats = {"states": len(states), "edges": edges, "witnesses": witnessed[p.id],
                 "coverage": fired_cov, "scope": scope, "backend": ex.backend}
        if not ex.complete:
            stats["stopped"] = ex.stopped
        if ex.backend == "native":
            stats["program_s"] = round(ex.program_seconds, 2)
        if ex.backend_note:
            stats["backend_note"] = ex.backend_note
        if ex.collision_bound is not None:
            stats["collision_bound"] = ex.collision_bound
        if p.id in violated:
            d, trace = violated[p.id]
            v = Verdict("graph", p.id, conf.name, VIOLATED, depth=d, trace=trace, stats=stats)
        elif not ex.complete and unbounded and witnessed[p.id]:
            v = Verdict("graph", p.id, conf.name, HOLDS, f"search stopped after {len(states)} states "
                        f"({ex.stopped}), exhaustive to depth {checked_to}", depth=checked_to, stats=stats)
        elif not ex.complete:
            v = Verdict("graph", p.id, conf.name, UNKNOWN, f"search stopped after {len(states)} states "
                        f"({ex.stopped})", depth=ex.depth, stats=stats)
        elif witnessed[p.id] == 0:
            v = Verdict("graph", p.id, conf.name, VACUOUS, "its antecedent never held in the reachable states",
                        depth=ex.depth, stats=stats)
        elif ex.fixpoint and ex.collision_bound is not None:
            v = Verdict("graph", p.id, conf.name, HOLDS, f"all {len(states)} states: {scope}, unless two states "
                        f"shared a fingerprint (probability at most {ex.collision_bound:.2g})",
                        depth=ex.depth, stats=stats)
        elif ex.fixpoint:
            v = Verdict("graph", p.id, conf.name, PROVED, f"all {len(states)} states: {scope}",
                        depth=ex.depth, stats=stats)
        else:
            v = Verdict("graph", p.id, conf.name, HOLDS,
                        f"all {len(states)} states to turn {conf.max_turn}", depth=ex.depth, stats=stats)
        v.seconds = ex.seconds
        verdicts.append(v)
    return verdicts


#: The default search's state budget with no turn bound (:func:`check_to_the_end`): the
#: built-in positions end at 1,899 (``flashback``), 3,123 (``costs``), 135,925
#: (``planechase``) and 181,924 (``plot``) states.
TO_THE_END_STATES = 400_000
#: The share of the unit's time that search may take before the turn-bounded one takes over.
TO_THE_END_SHARE = 0.5


def check_to_the_end(conf: CheckConfig, props: Sequence[Property], *, timeout: float = 120.0,
                     disabled: frozenset[str] = frozenset(), variant: str | None = None,
                     backend: str = "auto") -> tuple[list[Verdict], Exploration]:
    """The default search: with no turn bound first, until no new state appears (its
    fixpoint: every property ``proved`` for every reachable state of the position, every turn
    included), within :data:`TO_THE_END_STATES` states and :data:`TO_THE_END_SHARE` of the
    time.  Short of the fixpoint, the search to the configuration's turn bound runs in the
    time left and its verdicts stand, except that a violation the first search found (a real
    game: every state it reached is reachable, and BFS found it on a shortest path) replaces
    a bounded verdict that is not one: a search cut short never weakens the report."""
    t0 = time.monotonic()
    out, ex = check(conf, props, timeout=timeout * TO_THE_END_SHARE, disabled=disabled, variant=variant,
                    unbounded=True, max_states=TO_THE_END_STATES, backend=backend)
    if ex.fixpoint:
        return out, ex
    left = max(timeout - (time.monotonic() - t0), 0.0)
    # The relation is the same with the turn bound: "auto" runs the program the first search
    # compiled (if it did), else the interpreter.
    out2, ex2 = check(conf, props, timeout=left, disabled=disabled, variant=variant, backend=backend)
    return [v if v.status == VIOLATED and v2.status != VIOLATED else v2 for v, v2 in zip(out, out2, strict=True)], ex2


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
