"""One position's breadth-first search spread over the workers of a Dask cluster.

``mtgcheck check --scheduler ADDRESS --exhaustive``: the states of ONE search are split into
``P`` partitions by a stable hash of their canonical key (:func:`.symmetry.canonicalizer`), and
each partition lives on one worker for the whole search: its visited set (key -> local
number), its parent pointers (local number -> the parent's partition, the parent's number,
the transition), and its part of the current BFS level.  Why futures pinned to workers rather
than actors: a Dask worker runs all its actors on one thread, so two partitions that must
hand each other states would wait on each other; a partition held as the result of a task
(``Client.submit(..., workers=[w], allow_other_workers=False)``) is handed to every later task
of that partition on the same worker, in place, and the buckets of successors move from
worker to worker as ordinary task results (Dask moves the data, peer to peer).

One level is one round: every partition expands its states of level ``n`` (the interpreter's
``enabled``/``effect``, as :func:`.graph._search`) and sorts each successor into the bucket
of its owner; each owner takes its buckets, drops what it has visited, and keeps, for a key
reached more than once, the candidate the local search would have met first.  That order is
what makes the result the local one, not just an equivalent one: the local search numbers
states in the order it discovers them (level, then the parent's number, then the transition,
``enabled`` being in catalogue order), so each state carries the order ``rank(parent) * T + ti``
(``T`` transitions) and the ranks of a level are made dense across partitions (each partition
is sent every partition's sorted orders).  The parent kept, the real state kept (successors
are computed from real states, as locally), the first violation of each property and the
witnesses counted before it are then the local search's, so the verdicts, state counts,
edges, coverage and traces are equal.  Witnesses: the local search stops counting a
property's witnesses once it is violated, so each partition keeps the level's witness events
(by their order) until the level's first violation of that property is known, and counts those
before it.

Limits, said where they apply: only the interpreter runs here (the compiled search is local
only); a search cut by ``max_states`` or the timeout stops at a level boundary (the local one
stops mid-level, so its counts may differ there; an exhaustive search that reaches its
fixpoint is unaffected); the explored graph is never on one machine, so it is not exported.
"""

from __future__ import annotations

import bisect
import marshal
import operator
import time
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

from mtgcheck.configs import CheckConfig
from mtgcheck.model.actions import Action, catalogue
from mtgcheck.model.setup import build
from mtgcheck.model.state import State
from mtgcheck.properties.base import Property

from . import property_plan
from .graph import Exploration
from .result import Verdict

#: A state's place in the search: its partition and its number there.
Ref = tuple[int, int]


def owner(key: State, parts: int) -> int:
    """The partition of a canonical key: a hash that is the same in every process (Python's
    ``hash`` is too, for tuples of ints, but not promised across versions)."""
    return zlib.crc32(marshal.dumps(tuple(key), 4)) % parts


@dataclass(frozen=True)
class Setup:
    """What every partition needs to rebuild the search on its worker (picklable, small)."""

    conf: CheckConfig
    prop_ids: tuple[str, ...]
    variant: str | None
    disabled: frozenset[str]
    max_turn: int | None
    symmetry: bool
    turns: bool
    parts: int


@dataclass
class Round:
    """What one partition reports of one round (a BFS level): small, sent to the driver."""

    number: int = 0  # the round: the depth of the states it finds
    new: int = 0  # states first seen this round (owner side)
    fired: list[int] = field(default_factory=list)  # per transition (expander side)
    edges: int = 0  # distinct (source, target) pairs out of the expanded states
    overflow: bool = False  # a new state hit a bound of the configuration
    witnesses: dict[str, int] = field(default_factory=dict)
    #: property -> (event order, where: (partition, number) of the state, and the transition
    #: of an edge's violation or -1 for a state's)
    violations: dict[str, tuple[int, tuple[int, int, int]]] = field(default_factory=dict)


class Partition:
    """One partition's share of the search, kept on its worker between rounds."""

    def __init__(self, setup: Setup, index: int) -> None:
        from mtgcheck.properties.catalogue import BY_ID

        from .symmetry import canonicalizer

        self.setup, self.me = setup, index
        self.cfg, _ = build(setup.conf.position, variant=setup.variant, disabled=setup.disabled)
        self.key: Callable[[State], State] = (canonicalizer(self.cfg, turns=setup.turns) if setup.symmetry
                                              else (lambda st: st))
        cat = catalogue(self.cfg)
        self.transitions, self.enabled = cat.transitions, cat.enabled
        self.props = [BY_ID[p] for p in setup.prop_ids]
        self.plan = property_plan.plan(self.cfg, self.props)
        self.numbers: dict[State, int] = {}  # the visited set: canonical key -> number here
        self.parents: list[tuple[int, int, int]] = []  # number -> (partition, number, transition) or -1s
        self.level: list[tuple[int, int, State]] = []  # (order, number, state) of this level, by order
        self.events: dict[int, dict[str, list[int]]] = {}  # round -> property -> witness events (orders)

    def note(self, r: Round, pid: str, order: int, w: bool, ok: bool, where: tuple[int, int, int]) -> None:
        """One outcome of a property on an edge or a new state (``order``: its place in the
        local search's order of this level)."""
        if w:
            r.witnesses[pid] = r.witnesses.get(pid, 0) + 1
            self.events.setdefault(r.number, {}).setdefault(pid, []).append(order)
        if not ok and (pid not in r.violations or order < r.violations[pid][0]):
            r.violations[pid] = (order, where)


def _start(setup: Setup, index: int) -> Partition:
    return Partition(setup, index)


def _expand(part: Partition, number: int, done: frozenset[str], *orders: list[int]) -> tuple[Any, ...]:
    """Expand this partition's part of the level: every successor sorted into its owner's
    bucket (the first candidate per key, by order, kept), the edges' property outcomes noted.
    ``orders``: every partition's sorted orders of the level, for the dense ranks."""
    setup, T, P = part.setup, len(part.transitions), part.setup.parts
    r = Round(number, fired=[0] * T)
    for old in [n for n in part.events if n < number - 1]:  # the driver has counted them
        del part.events[old]
    buckets: list[dict[State, tuple[int, State, int, int]]] = [{} for _ in range(P)]
    for order, number, s in part.level:
        if s.game_over or (setup.max_turn is not None and s.turn > setup.max_turn):
            continue
        rank = sum(bisect.bisect_left(o, order) for o in orders)
        targets: set[State] = set()
        for ti in part.enabled(s):
            t = part.transitions[ti]
            s2 = t.effect(s)
            r.fired[ti] += 1
            k2 = part.key(s2)
            targets.add(k2)
            o2 = (rank * T + ti) * 2  # the edge's event; the new state's is o2 + 1
            bucket = buckets[owner(k2, P)]
            if k2 not in bucket:  # a later edge to the same key is never the first
                bucket[k2] = (o2 + 1, s2, number, ti)
            checks = part.plan.transition(ti)
            for p in checks.always_witnessed:
                if p.id not in done:
                    part.note(r, p.id, o2, True, True, (part.me, number, ti))
            for memo in checks.evaluate:
                if memo.prop.id not in done:
                    w, ok = memo.outcome(part.cfg, s, t, s2)
                    part.note(r, memo.prop.id, o2, w, ok, (part.me, number, ti))
        r.edges += len(targets)
    part.level = []
    return (*[[(k, o, None if s2 == k else s2, n, ti) for k, (o, s2, n, ti) in b.items()] for b in buckets], r)


def _settle(part: Partition, number: int, done: frozenset[str], sender: Sequence[int],
            *buckets: list[tuple[State, int, State | None, int, int]]) -> tuple[Round, list[int]]:
    """Take this partition's buckets: a key not visited yet, by its first candidate, becomes
    a state of the next level (its parent kept, its state properties checked).  ``sender``:
    the partition each bucket came from.  Returns the round and the level's sorted orders."""
    r = Round(number)
    first: dict[State, tuple[int, State, int, int, int]] = {}
    for src, bucket in zip(sender, buckets, strict=True):
        for k, o, s2, n, ti in bucket:
            if k in part.numbers:
                continue
            seen = first.get(k)
            if seen is None or o < seen[0]:
                first[k] = (o, k if s2 is None else s2, src, n, ti)
    state_props = part.plan.state_props
    for k, (o, s2, src, n, ti) in sorted(first.items(), key=lambda kv: kv[1][0]):
        number = part.numbers[k] = len(part.parents)
        part.parents.append((src, n, ti))
        part.level.append((o, number, s2))
        r.overflow |= bool(s2.overflow)
        for j, p in enumerate(state_props):
            if p.id not in done:
                w, ok = part.plan.outcome(j, s2)
                part.note(r, p.id, o, w, ok, (part.me, number, -1))
    r.new = len(first)
    return r, [o for o, _, _ in part.level]


def _witnessed_up_to(part: Partition, number: int, limits: dict[str, int]) -> dict[str, int]:
    """A round's witness events of each property up to (and with) its first violation."""
    events = part.events.get(number, {})
    return {pid: sum(1 for o in events.get(pid, ()) if o <= lim) for pid, lim in limits.items()}


def _parent(part: Partition, number: int) -> tuple[int, int, int]:
    return part.parents[number]


@dataclass
class _Spread(Exploration):
    """The exploration of a distributed search: its figures, not its graph."""

    distinct_edges: int = 0
    partition_states: list[int] = field(default_factory=list)  # the states each partition holds

    @property
    def edges(self) -> int:
        return self.distinct_edges


class StateCount(Sequence[State]):
    """The states of a distributed search, counted: they stay on the workers."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: Any) -> Any:
        raise IndexError("the states of a distributed search stay on its workers")

    def __iter__(self) -> Iterator[State]:
        return iter(())


#: Seconds :func:`check` waits for a worker when the cluster shows none.
WORKER_WAIT = 30.0


def check(client: Any, conf: CheckConfig, props: Sequence[Property], *, timeout: float = 120.0,
          max_states: int | None = None, disabled: frozenset[str] = frozenset(), variant: str | None = None,
          symmetry: bool = True, unbounded: bool = True, first_violation: bool = False,
          parts: int | None = None) -> tuple[list[Verdict], Any]:
    """:func:`.graph.check` on the interpreter, its states spread over the workers of the
    Dask ``client`` in ``parts`` partitions (default: one per worker): the same verdicts,
    state counts, coverage and traces.  ``max_states`` (default: none) and ``timeout`` are
    checked between levels."""
    from .graph import Found, verdicts_of
    from .symmetry import canonicalizer

    t0 = time.monotonic()
    workers = sorted(client.scheduler_info()["workers"])
    if not workers:
        # A worker restarting (a local cluster's nanny, under load) is briefly none: wait
        # for one, a while, before calling the cluster empty.
        try:
            client.wait_for_workers(1, timeout=WORKER_WAIT)
        except TimeoutError:
            pass
        workers = sorted(client.scheduler_info()["workers"])
    if not workers:
        from mtgcheck.errors import UsageError

        raise UsageError(f"--scheduler: expected a Dask cluster with a worker, got none (waited {WORKER_WAIT:.0f} s "
                         "for one)")
    P = parts or len(workers)
    cfg, s0 = build(conf.position, variant=variant, disabled=disabled)
    max_turn = None if unbounded else conf.max_turn
    setup = Setup(conf, tuple(p.id for p in props), variant, disabled, max_turn, symmetry, unbounded, P)
    where = [workers[q % len(workers)] for q in range(P)]

    def on(q: int, fn: Callable[..., Any], *args: Any) -> Any:
        """A task of partition ``q``, on its worker only (its state is there)."""
        return client.submit(fn, *args, workers=[where[q]], allow_other_workers=False, pure=False)

    state = [on(q, _start, setup, q) for q in range(P)]
    transitions = catalogue(cfg).transitions
    k0 = canonicalizer(cfg, turns=unbounded)(s0) if symmetry else s0
    inbox: list[list[Any]] = [[[(k0, 1, None if s0 == k0 else s0, -1, -1)] if q == owner(k0, P) else []]
                              for q in range(P)]
    senders: list[list[int]] = [[-1] for _ in range(P)]
    found: dict[str, tuple[int, tuple[int, int, int]]] = {}  # property -> (depth, where)
    witnessed = {p.id: 0 for p in props}
    fired = [0] * len(transitions)
    total = edges = depth = level = 0
    held = [0] * P
    overflow, complete, stopped = False, True, "done"
    edge_rounds: list[Any] = []  # the expanding side of this round (none for the first state)
    while True:
        done = frozenset(found)
        settled = [on(q, _settle, state[q], level, done, senders[q], *inbox[q]) for q in range(P)]
        # The level's expansion starts while the driver reads the round (one wait per level): it
        # is thrown away if the search stops here.
        orders = [on(q, operator.getitem, settled[q], 1) for q in range(P)]
        out = [on(p, _expand, state[p], level + 1, done, *orders) for p in range(P)]
        got: list[Round] = client.gather([on(q, operator.getitem, settled[q], 0) for q in range(P)] + edge_rounds)
        rounds = got[:P]
        for r in got[P:]:
            fired = [a + b for a, b in zip(fired, r.fired, strict=True)]
            edges += r.edges
        _tally(client, on, state, level, got, found, witnessed)
        if not any(r.new for r in rounds):
            break
        total += sum(r.new for r in rounds)
        held = [h + r.new for h, r in zip(held, rounds, strict=True)]
        overflow |= any(r.overflow for r in rounds)
        depth = level
        if first_violation and found and level >= min(d for d, _ in found.values()):
            complete, stopped = False, "first violation"
            break
        if (max_states is not None and total >= max_states) or time.monotonic() - t0 > timeout:
            complete = False
            stopped = "state budget" if max_states is not None and total >= max_states else "timeout"
            break
        inbox = [[on(p, operator.getitem, out[p], q) for p in range(P)] for q in range(P)]
        senders = [list(range(P)) for _ in range(P)]
        edge_rounds = [on(p, operator.getitem, out[p], P) for p in range(P)]
        level += 1

    def trace(at: tuple[int, int, int]) -> list[Action]:
        """Follow the parent pointers from partition to partition back to the first state."""
        q, n, ti = at
        path = [transitions[ti].action] if ti >= 0 else []
        while True:
            q, n, ti = on(q, _parent, state[q], n).result()
            if ti < 0:
                return path[::-1]
            path.append(transitions[ti].action)

    ex = _Spread(cfg, StateCount(total), complete=complete, depth=depth, distinct_edges=edges,
                partition_states=held)
    ex.fixpoint = max_turn is None and complete and not overflow
    ex.stopped = stopped  # what stopped it, in the local search's words
    ex.backend_note = f"the interpreter, {P} partitions over {len(workers)} Dask workers"
    violated = {pid: (d, trace(at)) for pid, (d, at) in found.items()}
    ex.seconds = time.monotonic() - t0
    return verdicts_of(conf, props, ex, Found(violated, witnessed, fired, depth if complete else level),
                     unbounded), ex


def _tally(client: Any, on: Callable[..., Any], state: list[Any], level: int, rounds: list[Round],
           found: dict[str, tuple[int, tuple[int, int, int]]], witnessed: dict[str, int]) -> None:
    """Add one round's witnesses and first violations, as the local search counts them: a
    property's witnesses up to its first violation, none after."""
    firsts: dict[str, tuple[int, tuple[int, int, int]]] = {}
    for r in rounds:
        for pid, (o, at) in r.violations.items():
            if pid not in found and (pid not in firsts or o < firsts[pid][0]):
                firsts[pid] = (o, at)
    for r in rounds:
        for pid, c in r.witnesses.items():
            if pid not in found and pid not in firsts:
                witnessed[pid] += c
    if firsts:
        limits = {pid: o for pid, (o, _) in firsts.items()}
        for counts in client.gather([on(q, _witnessed_up_to, state[q], level, limits) for q in range(len(state))]):
            for pid, c in counts.items():
                witnessed[pid] += c
        for pid, (_, at) in firsts.items():
            found[pid] = (level, at)


def runner(executor: Any, opts: Any) -> Callable[[CheckConfig, Sequence[str]], list[Verdict]] | None:
    """How ``mtgcheck check`` runs a graph unit when its executor is a Dask cluster and the
    search is ``--exhaustive``: one search across every worker, driven from the main process
    (:func:`check`), instead of one whole search on one worker.  None otherwise."""
    client = getattr(executor, "client", None)
    if client is None or not opts.exhaustive:
        return None
    if opts.export_dir:
        from mtgcheck.errors import UsageError

        raise UsageError("--export-graph: the graph of a search spread over a Dask cluster (--scheduler with "
                         "--exhaustive) stays on its workers; export it from a local run")

    def run(conf: CheckConfig, prop_ids: Sequence[str]) -> list[Verdict]:
        from mtgcheck.properties.catalogue import BY_ID

        t0 = time.monotonic()
        out, _ = check(client, conf, [BY_ID[p] for p in prop_ids], timeout=opts.timeout, variant=opts.rules.variant,
                       disabled=opts.rules.disabled, first_violation=opts.first_violation)
        for v in out:
            v.stats["unit_seconds"] = round(time.monotonic() - t0, 2)
        return out

    return run
