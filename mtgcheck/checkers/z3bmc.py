"""Z3: bounded model checking and k-induction over the transition relation of the one spec.

The relation is *derived*: each transition's guard and effect from ``model/`` are run on
symbolic states (inside :class:`mtgcheck.model.logic.symbolic`), giving
``T_i(a, b) = guard_i(a) & b == settle(effect_i(a))``; nothing is written twice.  It is built
once per configuration over template states and instantiated at each depth by substitution.
Its form is lean: one action variable ``act`` picks the transition (``act == i`` implies
guard i); the state after the action is a frame term per entry (the entry as it was unless a
transition that writes it is taken); the state-based actions (``settle``) are built once,
after it, not once per transition; and the renumbering of positions after a move is built
once and instantiated by substitution (:class:`SharedCompaction`).

Every guard condition is wrapped as ``en(cond) -> cond``; the ``en`` literals are passed as
assumptions, so the unsat core of a proof names the rules it rests on, and a mutant is the
same relation with some ``en`` false.

* BMC (iterative deepening): the first depth at which a property can fail is the length
  of a shortest counterexample; its trace is replayed on the interpreter before it is
  reported (a trace that doesn't replay would be an encoding bug, reported as such).
* k-induction (k = 0 up to ``max_k``, 1 by default): from *any* state (not only reachable ones), a path of k steps
  on which the property held (and every property proved before it holds throughout) takes
  one more step that keeps it; the base case is the BMC run to depth >= k.  The smallest
  k that works is reported.  The step case assumes invariants *found* on the configuration
  (:mod:`.invariants`: templates over the state layout, filtered by the states the
  explicit-state search reaches and by every initial state); a proof counts only once the
  candidates its unsat core names are closed into an inductive set (Houdini restricted to
  what proofs use, :class:`_Closure`), and the core names them.  Opt-in, the hand-written
  lemmas are proved initial and inductive (Houdini) and then assumed like proved properties.
* Every induction query has a fixed Z3 resource limit (``rlimit``, deterministic), so what
  is proved does not depend on the machine's load; the run's wall-clock ``timeout`` is a
  safety net only, and what it stops is ``unknown``: never ``holds``, never ``proved``.
"""

from __future__ import annotations

import functools
import gc
import random
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Collection, Iterator, ParamSpec, Sequence, TypeVar

import z3

from mtgcheck.configs import CheckConfig
from mtgcheck.model.actions import Action, catalogue, enabled_transition, legal_actions
from mtgcheck.model.config import Config
from mtgcheck.model.logic import And, Implies, Or, symbolic
from mtgcheck.model.setup import build
from mtgcheck.model.state import BY_PLANE, FIELDS, LAYOUT, State, bounds, equal_states, flat, symbolic_state
from mtgcheck.properties.base import Property

from .result import HOLDS, PROVED, UNKNOWN, VACUOUS, VIOLATED, Verdict

#: Resource limit of one induction query: Z3's ``rlimit`` counter, which counts solver work
#: deterministically, so what is proved does not depend on the machine's load (a wall-clock
#: limit per query made the proved count move with it).  Measured on the built-ins
#: (``stats["induction_queries"]``): Z3 does 1 to 5 million a second depending on the load,
#: so the former 8 s was 8 to 40 million; every k = 0 proof there costs under 7 million,
#: and a failing attempt spends the whole limit, hence 10 million.
RLIMIT = 10_000_000
#: Largest k tried by k-induction; the base case is the BMC run, so k is also at most the
#: depth BMC reached for the property.  On the built-ins k = 2 proved nothing that k = 1
#: did not (at about 10 million per configuration), so the default stops at 1.
MAX_K = 1
#: The limit of a k >= 1 attempt, as a fraction of :data:`RLIMIT`: the proofs k >= 1 makes
#: on the built-ins are cheap (below 0.5 million: the path's first steps already pin the
#: state down), while a failing attempt spends its whole limit.
STEP_SHARE = 4
#: A step case that runs out of its limit is tried again one transition at a time (a case
#: split on the action variable): on ``flashback`` the whole relation at once exhausts the
#: limit on ``stack-ordered``, while each transition alone is unsat well within it (66
#: queries in 4.6 s; on ``plot``, 100 in 12 s with invariants Houdini later drops).  The split stops,
#: unknown, once its queries together have spent this many times :data:`RLIMIT`.
SPLIT_RLIMITS = 20
#: Reachable states the invariant templates are mined from (breadth-first from the
#: configuration's position and from a few other initial placements).
SAMPLE_CAP = 3000
#: States :func:`_witness` expands at most looking for a run of the depth BMC asks.
WITNESS_CAP = 20_000
#: The share of BMC's time the closing of invariants for BMC alone may take
#: (``bmc_invariants``); what it leaves is BMC's, plain if the closing did not end.
CLOSING_SHARE = 0.5
#: Members of the invariant closure checked by one query (:meth:`_Closure.close_all`).
CLOSE_CHUNK = 32
#: The limit of a chunk's query split by transition, as a multiple of :data:`RLIMIT` (the
#: two splits of ``flashback``'s hints spend 4.4M and 12.0M); past it the members go one by
#: one, so a chunk never costs much more than asking its members one by one would.
CHUNK_SPLIT_RLIMITS = 5
#: Other initial placements the sample starts from (besides the configuration's position).
SAMPLE_STARTS = 16
#: Options of BMC's solver: Z3's simplex-based arithmetic solver (``smt.arith.solver`` 2),
#: not its default (6).  A BMC query is a long run of integer entries each equal to a choice
#: over the entries before it; on ``flashback`` (the 22 properties to depth 10 from every
#: placement, states constrained, two alternated runs each) it took 34.7 and 48.5 s where
#: the default took 65.0 and 73.7 s.  The induction's queries keep the default: the closing
#: of ``flashback``'s invariants took 20.0 and 21.7 s with it, 20.6 and 13.4 s without.
BMC_OPTIONS = {"smt.arith.solver": 2}


def well_formed(cfg: Config, s: State) -> Any:
    """Domains of the state vector's fields, read from the layout (model/state.py, LAYOUT).
    Works on concrete states too: ``tests/test_state_layout.py`` checks the states of
    random games against it.  The proofs do not assume it: the same bounds are mined as
    ``range`` candidates (:mod:`.invariants`) and kept only once closed like any other."""
    c = []
    for d in LAYOUT:
        if d.index == BY_PLANE and not cfg.planechase or d.name == "planar_ctrl" and not cfg.planechase:
            continue
        lo, hi = bounds(cfg, d, s)
        v = getattr(s, d.name)
        for x in (v if isinstance(v, tuple) else (v,)):
            if lo is not None:
                c.append(x >= lo)
            if hi is not None:
                c.append(x <= hi)
    return And(*c)


def initial_placements(cfg: Config, s0: State, s: State) -> Any:
    """The symbolic initial states: every placement of the configuration's cards.

    Each card may start in any zone it can be in at a moment with an empty stack (library,
    hand, graveyard, exile; the battlefield for permanent cards), libraries in any order,
    an exiled card plotted on any turn so far or not at all; everything else (turn, step,
    life, mana, Planechase) is the configuration's.  BMC from here covers every such
    position at once, not one hand-picked setup.
    """
    from mtgcheck.model.state import EXILE, LIBRARY

    c = []
    n = cfg.n
    card_fields = {"zone", "pos", "plotted"}
    for f in FIELDS:
        if f in card_fields:
            continue
        x, y = getattr(s, f), getattr(s0, f)
        if isinstance(x, tuple):
            c.extend(a == b for a, b in zip(x, y, strict=True))
        else:
            c.append(x == y)
    for j, sl in enumerate(cfg.slots):
        c.append(Or(*[s.zone[j] == z for z in placement_zones(sl)]))
        lib_mates = [k for k in range(n) if cfg.slots[k].owner == sl.owner]
        size = sum(If_(s.zone[k] == LIBRARY) for k in lib_mates)
        c.append(Implies(s.zone[j] == LIBRARY, And(s.pos[j] >= 0, s.pos[j] < size)))
        c.append(Implies(s.zone[j] != LIBRARY, s.pos[j] == 0))
        for k in lib_mates:
            if k > j:
                c.append(Implies(And(s.zone[j] == LIBRARY, s.zone[k] == LIBRARY), s.pos[j] != s.pos[k]))
        c.append(Implies(s.zone[j] == EXILE, And(s.plotted[j] >= 0, s.plotted[j] <= s0.turn)))
        c.append(Implies(s.zone[j] != EXILE, s.plotted[j] == 0))
    return And(*c)


def placement_zones(sl: Any) -> list[int]:
    """The zones a card may start in: any it can be in at a moment with an empty stack."""
    from mtgcheck.model.state import BATTLEFIELD, EXILE, GRAVEYARD, HAND, LIBRARY

    return [LIBRARY, HAND, GRAVEYARD, EXILE] + ([BATTLEFIELD] if sl.card.permanent else [])


def If_(c: Any) -> Any:
    return z3.If(c, 1, 0)


def state_from_model(cfg: Config, model: z3.ModelRef, s: State) -> State:
    vals: dict[str, Any] = {}
    for f in FIELDS:
        x = getattr(s, f)
        ev = lambda t: model.eval(t, model_completion=True).as_long()  # noqa: E731
        vals[f] = tuple(ev(t) for t in x) if isinstance(x, tuple) else ev(x)
    return State(**vals)


def raw_transitions(cfg: Config) -> list[tuple[Any, Any]]:
    """Per transition of the catalogue, its guard conditions and its effect *before* the
    state-based actions (``catalogue`` wraps every effect as ``settle(cfg, effect(s))``).

    Settling is the same function after every transition, so the relation builds it once,
    over an intermediate state, instead of once per transition (most of the build time).
    Falls back to the settled effects (and no separate settle) if the catalogue's make-up
    ever differs from this reading of it."""
    ts = catalogue(cfg).transitions
    try:
        from mtgcheck.model.actions import gather

        raw = list(gather(cfg))
    except Exception:  # pragma: no cover - the model's internals moved
        raw = []
    if len(raw) == len(ts) and all(r.action == t.action and r.rule == t.rule for r, t in zip(raw, ts, strict=True)):
        return [(t.conds, r.effect) for t, r in zip(ts, raw, strict=True)]
    return []


class SharedCompaction:
    """While the relation is built, :func:`model.zones.compact` (the renumbering of library
    and stack positions after a move, a pure function of ``zone``, ``pos``, ``ab_kind`` and
    ``ab_pos``) is built once over template variables and instantiated by substitution at
    each call: the same terms, built in Z3's C code instead of Python (it was most of the
    build time, once per move of every transition).  The model's function is put back on
    exit; concrete runs never see the change."""

    FIELDS = ("zone", "pos", "ab_kind", "ab_pos")

    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.patched: list[tuple[Any, Any]] = []
        self._shared: Any = None  # the substituting compact, once built (False: not applicable)

    def _prepare(self) -> Any:
        """The substituting ``compact``, built on the first entry and kept, so that a reader
        that enters again (the conformance check, one transition at a time) builds it once;
        False when the model's function reads more than :attr:`FIELDS`."""
        from mtgcheck.model import zones

        orig = zones.compact
        t = symbolic_state(self.cfg, "compact")
        out = orig(self.cfg, t)
        src = [x for f in self.FIELDS for x in getattr(t, f)]
        res = {f: getattr(out, f) for f in ("pos", "ab_pos", "stack_size")}
        allowed = {x.get_id() for x in src}
        if any(v.get_id() not in allowed for v in _constants([_term(v) for v in res["pos"] + res["ab_pos"]]
                                                                + [_term(res["stack_size"])])):
            return False  # it reads more than those fields now: leave the model's function alone

        def compact(cfg: Config, s: State) -> State:
            if cfg is not self.cfg:
                return orig(cfg, s)
            pairs = [(x, _term(y)) for x, y in zip(src, (y for f in self.FIELDS for y in getattr(s, f)), strict=True)]
            sub = (lambda v: z3.substitute(v, *pairs))  # noqa: E731
            return s.replace(pos=tuple(map(sub, res["pos"])), ab_pos=tuple(map(sub, res["ab_pos"])),
                             stack_size=sub(_term(res["stack_size"])))

        return compact

    def __enter__(self) -> "SharedCompaction":
        import sys

        from mtgcheck.model import zones

        orig = zones.compact
        if self._shared is None:
            self._shared = self._prepare()
        if self._shared is False:
            return self
        for name, mod in list(sys.modules.items()):
            if name.startswith(("mtgcheck.model.", "model.")) and getattr(mod, "compact", None) is orig:
                self.patched.append((mod, orig))
                mod.compact = self._shared
        return self

    def __exit__(self, *exc: object) -> None:
        for mod, orig in self.patched:
            mod.compact = orig
        self.patched.clear()


def _constants(terms: Sequence[Any]) -> list[Any]:
    """The uninterpreted constants (state variables) the terms read."""
    seen: set[int] = set()
    out, todo = [], list(terms)
    while todo:
        t = todo.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            out.append(t)
        todo.extend(t.children())
    return out


def _term(v: Any) -> Any:
    if isinstance(v, z3.ExprRef):
        return v
    return z3.IntVal(int(v))


@dataclass
class Encoding:
    """The transition relation of one configuration, over template states ``a`` (before),
    ``m`` (after the action, before the state-based actions) and ``b`` (after).

    One action variable ``act`` says which transition is taken.  ``m`` is the frame form:
    each entry of ``m`` is the entry of ``a`` unless a transition that writes it is taken
    (an ``If`` chain over the transitions writing it, grouped by the value they write);
    ``b = settle(m)`` is built once.  ``rels``/``guards`` give the per-transition reading
    (``T_i(a, b) = guard_i(a) & b == settle(effect_i(a))``) for the callers that need it."""

    cfg: Config
    init: State
    a: State
    b: State
    actions: list[Action]
    rules: list[str]
    en: dict[str, Any]  # condition id -> enable literal
    en_cr: dict[str, str]
    build_seconds: float
    guards: list[Any] = field(default_factory=list)
    m: State | None = None
    act: Any = None
    step_rel: Any = None  # the whole relation over (a, m, b, act)
    raw: list[State] = field(default_factory=list)  # per transition, effect_i(a) before settling
    settled: State | None = None  # settle(m)
    _props: dict[str, list[Any]] = field(default_factory=dict)
    _rels: list[Any] | None = None

    @classmethod
    def build(cls, cfg: Config, init: State) -> "Encoding":
        t0 = time.monotonic()
        from mtgcheck.model.settle import settle

        split = raw_transitions(cfg)
        ts = catalogue(cfg).transitions
        with symbolic(), SharedCompaction(cfg):
            a, b = symbolic_state(cfg, "a"), symbolic_state(cfg, "b")
            m = symbolic_state(cfg, "m") if split else b
            act = z3.Int("act")
            en: dict[str, Any] = {}
            en_cr: dict[str, str] = {}
            actions, rules, guards, raw = [], [], [], []
            for i, t in enumerate(ts):
                conds = split[i][0] if split else t.conds
                parts = []
                for c in conds:
                    lit = en.setdefault(c.id, z3.Bool(f"en:{c.id}"))
                    en_cr[c.id] = c.cr
                    parts.append(Implies(lit, c.test(a)))
                guard = And(*parts)
                guards.append(z3.BoolVal(guard) if isinstance(guard, bool) else guard)
                raw.append((split[i][1] if split else t.effect)(a))
                actions.append(t.action)
                rules.append(t.rule)
            n = len(ts)
            parts = [act >= 0, act < n]
            parts += [z3.Implies(act == i, g) for i, g in enumerate(guards) if not z3.is_true(g)]
            fa, fm = flat(a), flat(m)
            flat_raw = [flat(e) for e in raw]
            for j, (x, y) in enumerate(zip(fa, fm, strict=True)):
                groups: dict[int, tuple[Any, list[int]]] = {}
                for i in range(n):
                    v = _term(flat_raw[i][j])
                    if v.eq(x):
                        continue  # the frame: transition i leaves this entry as it was
                    groups.setdefault(v.get_id(), (v, []))[1].append(i)
                rhs = x
                for v, idx in reversed(list(groups.values())):
                    rhs = z3.If(z3.Or([act == i for i in idx]) if len(idx) > 1 else act == idx[0], v, rhs)
                parts.append(y == rhs)
            settled = None
            if split:
                settled = settle(cfg, m)
                parts.append(equal_states(b, settled))
            step_rel = z3.And(parts)
        return cls(cfg, init, a, b, actions, rules, en, en_cr, time.monotonic() - t0, guards=guards,
                   m=m if split else None, act=act, step_rel=step_rel, raw=raw, settled=settled)

    @property
    def rels(self) -> list[Any]:
        """Per transition: ``guard_i(a) & b == settle(effect_i(a))`` (built on first use)."""
        if self._rels is None:
            out = []
            with symbolic():
                for g, e in zip(self.guards, self.raw, strict=True):
                    if self.m is not None:
                        after = z3.substitute(equal_states(self.b, self.settled), *zip(flat(self.m), map(_term, flat(e)), strict=True))
                    else:
                        after = equal_states(self.b, e)
                    out.append(z3.And(g, after))
            self._rels = out
        return self._rels

    def prop_terms(self, p: Property) -> list[Any]:
        """Per transition, the property over (a, t, b) (transition kind) or over b (state)."""
        if p.id not in self._props:
            with symbolic():
                if p.kind == "state":
                    term = p.pred(self.cfg, self.b)
                    self._props[p.id] = [z3.BoolVal(term) if isinstance(term, bool) else term]
                else:
                    ts = catalogue(self.cfg).transitions
                    out = []
                    for t in ts:
                        term = p.pred(self.cfg, self.a, t, self.b)
                        out.append(z3.BoolVal(term) if isinstance(term, bool) else term)
                    self._props[p.id] = out
        return self._props[p.id]

    def violation_term(self, p: Property) -> Any:
        """A transition property fails on the step from ``a`` to ``b`` under ``act``: one
        disjunct per distinct predicate, guarded by the transitions whose predicate it is (no
        guard if it is every transition's: ``act``'s range is part of the relation).  A
        predicate that reads only the states, not the transition (``object-ids-fresh``), is the
        same term for every transition: one negation instead of one per transition.  On
        ``flashback``, BMC of the 22 properties to depth 8 (states constrained, the closing
        aside) took 48-52 s where the per-transition disjunction took 66-81 s."""
        terms = self.prop_terms(p)
        groups: dict[int, tuple[Any, list[int]]] = {}
        for i, term in enumerate(terms):
            if not z3.is_true(term):
                groups.setdefault(term.get_id(), (term, []))[1].append(i)
        return z3.Or([z3.Not(term) if len(idx) == len(terms) else
                      z3.And(z3.Or([self.act == i for i in idx]), z3.Not(term))
                      for term, idx in groups.values()] or [z3.BoolVal(False)])

    def state_term(self, p: Property, s: State) -> Any:
        with symbolic():
            term = p.pred(self.cfg, s)
        return z3.BoolVal(term) if isinstance(term, bool) else term


class Unroller:
    """States s0..sk and the relation between consecutive ones, added to one solver."""

    def __init__(self, enc: Encoding, solver: z3.Solver, tag: str) -> None:
        self.enc, self.solver, self.tag = enc, solver, tag
        self.states = [symbolic_state(enc.cfg, f"{tag}0")]
        self.mids: list[State] = []
        self.acts: list[Any] = []
        self.sels: list[list[Any]] = []
        self._fa, self._fb = flat(enc.a), flat(enc.b)
        self._fm = flat(enc.m) if enc.m is not None else []
        self._pairs: dict[int, list[tuple[Any, Any]]] = {}
        self._viol: dict[str, Any] = {}  # property -> its violation over (a, m, act, b)
        self._constraints: list[Callable[[State], Any]] = []

    def sub(self, term: Any, k: int) -> Any:
        """``term`` over (a, m, act, b) as a term over step k's states and action."""
        pairs = self._pairs.get(k)
        if pairs is None:
            pairs = list(zip(self._fa, flat(self.states[k]), strict=True)) + \
                list(zip(self._fb, flat(self.states[k + 1]), strict=True))
            if k < len(self.mids) and self._fm:
                pairs += list(zip(self._fm, flat(self.mids[k]), strict=True))
            if k < len(self.acts):
                pairs.append((self.enc.act, self.acts[k]))
                self._pairs[k] = pairs  # step k is complete: its pairs no longer change
        return z3.substitute(term, *pairs)

    def constrain(self, fact: Callable[[State], Any]) -> None:
        """Assert ``fact`` on every state, those unrolled so far and those to come.  Only
        for what holds in every reachable state (invariants proved initial and inductive):
        it removes no run from the initial states, only the unreachable states a solver
        would otherwise have to rule out at each depth."""
        self._constraints.append(fact)
        for st in self.states:
            self.solver.add(fact(st))

    def extend(self) -> int:
        k = len(self.states) - 1
        self.states.append(symbolic_state(self.enc.cfg, f"{self.tag}{k + 1}"))
        for fact in self._constraints:
            self.solver.add(fact(self.states[-1]))
        if self._fm:
            self.mids.append(symbolic_state(self.enc.cfg, f"{self.tag}m{k}"))
        act = z3.Int(f"{self.tag}act{k}")
        self.acts.append(act)
        self.solver.add(self.sub(self.enc.step_rel, k))
        self.sels.append([act == i for i in range(len(self.enc.actions))])
        return k

    def violation(self, p: Property, k: int) -> Any:
        """A formula: the property fails on step k (transition) or in state k+1 (state)."""
        terms = self.enc.prop_terms(p)
        if p.kind == "state":
            return z3.Not(self.sub(terms[0], k))
        if k < len(self.acts):  # one substitution of the whole disjunction, not one per transition
            if p.id not in self._viol:
                self._viol[p.id] = self.enc.violation_term(p)
            return self.sub(self._viol[p.id], k)
        return z3.Or([z3.And(sel, z3.Not(self.sub(term, k))) for sel, term in zip(self.sels[k], terms, strict=True)
                      if not z3.is_true(term)] or [z3.BoolVal(False)])

    def trace(self, model: z3.ModelRef, upto: int) -> list[Action]:
        """The actions of steps 0..upto-1 (read from the action variable, or from the
        selector literals of steps a caller such as ``mtgcheck diff`` added itself)."""
        out = []
        for k in range(upto):
            if k < len(self.acts):
                out.append(self.enc.actions[model.eval(self.acts[k], model_completion=True).as_long()])
                continue
            for i, sel in enumerate(self.sels[k]):
                if z3.is_true(model.eval(sel, model_completion=True)):
                    out.append(self.enc.actions[i])
                    break
        return out


def _replays(enc: Encoding, p: Property, trace: Sequence[Action], start: State) -> bool:
    """The Z3 trace, run on the interpreter from the solver's initial state, is legal and
    breaks the property."""
    s = start
    for a in trace:
        t = enabled_transition(enc.cfg, s, a)
        if t is None:
            return False
        s2 = t.effect(s)
        if p.kind == "transition" and not p.holds(enc.cfg, s, t, s2):
            return True
        s = s2
    return p.kind == "state" and not p.holds(enc.cfg, s)


@contextmanager
def fresh_context() -> Iterator[None]:
    """A new Z3 context for what runs inside, with Python's cyclic garbage collector paused.

    The models and unsat cores Z3 returns depend on the terms its context holds and on their
    ids, which Z3 recycles as terms are freed: a term is freed when Python drops the last
    reference to it, and a collection of cycles drops them at moments set by the process's
    history (how much it allocated before).  Without both, a unit's verdicts (which
    candidates a proof rests on, which it drops, and so what is proved) would depend on the
    units its process ran before: on the pool's scheduling, or on a pytest worker's share of
    the items (measured: the same check twice in one process, 10.5M and 9.9M of ``rlimit``,
    72 and 74 candidates proven).  Pausing the collector for one unit keeps its cycles until
    the end of the unit, a bounded cost."""
    z3.z3._main_ctx = None  # z3py creates the default context anew on its next use
    gc.collect()
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


_P = ParamSpec("_P")
_R = TypeVar("_R")


def in_fresh_context(f: Callable[_P, _R]) -> Callable[_P, _R]:
    """``f`` run inside :func:`fresh_context`."""
    @functools.wraps(f)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with fresh_context():
            return f(*args, **kwargs)
    return run


@in_fresh_context
def check(conf: CheckConfig, props: Sequence[Property], *, depth: int | None = None, timeout: float = 60.0,
          variant: str | None = None, disabled: frozenset[str] = frozenset(),
          induction: bool = True, symbolic_init: bool = True, strengthen: bool = False,
          rlimit: int | None = None, max_k: int = MAX_K, invariants: bool = True,
          sample_cap: int = SAMPLE_CAP, first_violation: bool = False,
          hints: Collection[str] = (), bmc_invariants: bool = False,
          split_hints: Collection[str] = ()) -> list[Verdict]:
    """BMC to ``depth`` and k-induction for every property; one verdict each.

    ``first_violation``: BMC stops after the first depth at which some property fails
    (every property failing there is reported; the others hold to that depth).

    ``timeout`` is the whole run's wall-clock safety net (what it stops is unknown);
    ``rlimit`` bounds each induction query deterministically (default :data:`RLIMIT`);
    ``invariants``: strengthen induction with the invariants found on the configuration
    (mined from at most ``sample_cap`` reachable states, kept by Houdini); ``hints``: the
    names of the candidates an earlier run's proofs closed (the manifest's ``invariants``),
    tried first (:class:`_Induction`): checked, never trusted; ``split_hints``: those of them
    whose chunk of the closure had to be split (the manifest's ``split``), whose chunks are
    split at once (:class:`_Closure`): how a query is asked, never what it answers.

    BMC's states are constrained by the candidates the k = 0 induction closed into an
    inductive set, and by the state properties it proved (:meth:`Unroller.constrain`).  With
    ``induction=False``, ``bmc_invariants`` finds and closes the candidates for BMC alone
    (:func:`_closed_invariants`, ``hints`` first), the state properties closed with them
    constraining BMC's states as the induction's do; otherwise BMC is plain (the mutants'
    kill matrix: a shallow violation is found faster than the invariants are closed)."""
    cfg, s0 = build(conf.position, variant=variant, disabled=disabled)
    enc = Encoding.build(cfg, s0)
    depth = conf.depth if depth is None else depth
    enables = list(enc.en.values())
    deadline = time.monotonic() + timeout
    sol = z3.Solver()
    sol.set(**BMC_OPTIONS)
    un = Unroller(enc, sol, "s")
    with symbolic():
        if symbolic_init:
            sol.add(initial_placements(cfg, s0, un.states[0]))
        else:
            sol.add(equal_states(un.states[0], s0))
    status: dict[str, Verdict] = {}
    reached: dict[str, int] = {p.id: 0 for p in props}
    vacuous_relation = False
    t0 = time.monotonic()
    for p in props:  # state properties in the initial state
        if p.kind == "state":
            sol.push()
            sol.add(z3.Not(enc.state_term(p, un.states[0])))
            res = sol.check(*enables)
            if res == z3.sat:
                status[p.id] = Verdict("z3", p.id, conf.name, VIOLATED, depth=0)
            elif res != z3.unsat:  # no base case: induction may not prove it, nor rest on it
                status[p.id] = Verdict("z3", p.id, conf.name, UNKNOWN,
                                       f"solver: {sol.reason_unknown()} on the initial states", depth=0)
            sol.pop()
    runs: list[Any] = []  # runs[k]: whether a run of k+1 steps exists (z3.sat), once asked
    at_position = z3.Bool("at-position")
    with symbolic():
        sol.add(z3.Implies(at_position, equal_states(un.states[0], s0)))

    def run_exists(k: int) -> Any:
        """Unroll to k+1 steps and ask whether any run that long exists; if none, no deeper
        bound differs, and at k = 0 the relation is vacuous.  A run the interpreter plays
        from the position (:func:`_witness`) is asked first, its steps given: the solver
        confirms it at a fraction of the open question's cost (a fifth to a tenth at depth
        8 to 10 on ``costs``), and the open question is asked only if it does not."""
        nonlocal vacuous_relation
        while len(runs) <= k:
            un.extend()
            sol.set("timeout", max(1, int((deadline - time.monotonic()) * 1000)))
            played = _witness(cfg, s0, len(runs) + 1)
            res = z3.unknown if played is None else \
                sol.check(*enables, at_position, *[un.acts[i] == t for i, t in enumerate(played)])
            runs.append(res if res == z3.sat else sol.check(*enables))
            if runs[-1] == z3.unsat:
                vacuous_relation = len(runs) == 1
        return runs[k]

    def bmc(todo: Sequence[Property]) -> None:
        """BMC to ``depth`` for ``todo``: one query per depth for all of them at once,
        narrowed down only on a violation."""
        for k in range(depth):
            if deadline - time.monotonic() <= 0:
                break
            r = run_exists(k)
            if r == z3.unsat:
                for p in todo:
                    reached[p.id] = max(reached[p.id], k)
                break  # no run of length k+1: every deeper bound is the same
            lits, viols = {}, {}
            for p in todo:
                if p.id not in status:
                    lits[p.id] = z3.Bool(f"viol:{p.id}:{k}")
                    viols[p.id] = un.violation(p, k)
                    sol.add(z3.Implies(lits[p.id], viols[p.id]))
            while lits:
                sol.set("timeout", max(1, int((deadline - time.monotonic()) * 1000)))
                any_lit = z3.Bool(f"any:{k}:{len(lits)}")
                sol.add(z3.Implies(any_lit, z3.Or(list(lits.values()))))
                res = sol.check(*enables, any_lit)
                if res == z3.unsat:
                    for pid in lits:
                        reached[pid] = k + 1
                        # What the query just showed, kept: no run reaching step k breaks these
                        # here (removes no run; the deeper queries need not rediscover it).
                        sol.add(z3.Not(viols[pid]))
                    break
                if res == z3.unknown:
                    for pid in lits:
                        status[pid] = Verdict("z3", pid, conf.name, UNKNOWN, f"solver: {sol.reason_unknown()}",
                                              depth=k)
                    break
                model = sol.model()
                pid = next(q for q, lit in lits.items() if z3.is_true(model.eval(lit, model_completion=True)))
                status[pid] = _violation(enc, conf, next(q for q in props if q.id == pid), model, un, k + 1)
                del lits[pid]
            if first_violation and any(v.status == VIOLATED for v in status.values()):
                break

    budget = Budget(RLIMIT if rlimit is None else rlimit, deadline)
    found: Any = None
    init_of = (lambda st: initial_placements(cfg, s0, st)) if symbolic_init else None
    def start_induction() -> _Induction | None:
        """The induction of the properties not decided yet, with the invariants found."""
        nonlocal found
        todo = [p for p in props if p.id not in status]
        if not induction or vacuous_relation or not todo:
            return None
        if invariants and time.monotonic() < deadline:
            found = find_invariants(enc, conf, init_of, budget, cap=sample_cap)
        return _Induction(enc, todo, budget, init_of=init_of, strengthen=strengthen,
                          invariants=found.live if found and found.complete else (), hints=hints,
                          split_hints=split_hints)

    bmc_seconds = time.monotonic() - t0  # the initial states' checks, then BMC's queries
    constrained, closing_seconds = 0, 0.0  # BMC's constraints (proved facts) and closing them for BMC alone
    closed_props: list[Property] = []  # the state properties closed with them (``bmc_invariants``)
    if induction and not first_violation:
        # Induction first: a property proved at k = 0 needs no BMC (its base case is the
        # initial states, checked above); BMC then runs for the others, for their
        # counterexamples and the base cases of k >= 1.  (``first_violation``, the mutants'
        # kill matrix, wants the shortest violation at once: BMC first.)
        tb = time.monotonic()
        run_exists(0)
        bmc_seconds += time.monotonic() - tb
        ind = start_induction()
        if ind is not None:
            ind.run(reached, range(1))
            constrained = _constrain(un, enc, ind.closure, [p for p in ind.done if p.kind == "state"])
        tb = time.monotonic()
        bmc([p for p in props if ind is None or p.id not in ind.proved])
        bmc_seconds += time.monotonic() - tb
        if ind is not None:
            ind.run(reached, range(1, max_k + 1))
    else:
        if bmc_invariants:
            tb = time.monotonic()
            # At most a share of the time left: a closing that does not end in it leaves BMC
            # plain, with the rest of the time, instead of starved.
            closing_deadline = time.monotonic() + (deadline - time.monotonic()) * CLOSING_SHARE
            closed = _closed_invariants(enc, conf, [p for p in props if p.id not in status], init_of,
                                        Budget(budget.rlimit, closing_deadline), hints, sample_cap, split_hints)
            closed_props = closed.proven_properties() if closed is not None else []
            constrained = _constrain(un, enc, closed, closed_props)
            closing_seconds = time.monotonic() - tb
        tb = time.monotonic()
        bmc(props)
        bmc_seconds += time.monotonic() - tb
        ind = start_induction()
        if ind is not None:
            ind.run(reached, range(max_k + 1))
    proofs = ind.proved if ind is not None else {}
    inv_use = ind.summary() if ind is not None else {}
    out = []
    for p in props:
        if p.id in status:
            v = status[p.id]
        elif p.id in proofs:
            pr = proofs[p.id]
            # depth: what BMC reached, if it ran for it (a proof at k = 0 needs no BMC)
            v = Verdict("z3", p.id, conf.name, PROVED, "rests on " + ", ".join(pr.core) if pr.core else "", k=pr.k,
                        depth=reached[p.id] or None)
        elif budget.cut:
            v = Verdict("z3", p.id, conf.name, UNKNOWN, "time ran out during induction", depth=reached[p.id])
        elif vacuous_relation:
            v = Verdict("z3", p.id, conf.name, VACUOUS, "the initial state and the transition relation are "
                        "unsatisfiable together", depth=0)
        elif reached[p.id] < depth and time.monotonic() >= deadline:
            v = Verdict("z3", p.id, conf.name, UNKNOWN, f"time ran out at depth {reached[p.id]}",
                        depth=reached[p.id])
        else:
            v = Verdict("z3", p.id, conf.name, HOLDS, "BMC", depth=reached[p.id])
        v.seconds = bmc_seconds
        v.stats.update(build_seconds=round(enc.build_seconds, 2), transitions=len(enc.actions),
                       initial="every placement" if symbolic_init else "the configuration's position",
                       bmc_constrained_by=constrained, **budget.summary())
        if bmc_invariants:
            v.stats["bmc_invariant_seconds"] = round(closing_seconds, 2)
            v.stats["bmc_closed_properties"] = [q.id for q in closed_props]
        cti = inv_use.get("ctis", {}).get(p.id)
        if cti is not None and v.status == HOLDS:
            from mtgcheck.model.observe import observe

            # The step case's counterexample at k = 0, under every invariant still live: a
            # state (unreachable, or BMC would have found it) and the action that breaks it.
            try:
                shown: Any = observe(cfg, cti[0])
            except Exception:  # an unreachable state may hold values no position has
                shown = repr(cti[0])
            v.stats["induction_cti"] = {"action": str(cti[1]), "state": shown}
        if found is not None:
            v.stats["invariants"] = {"mined": found.mined, "initially_true": len(found.live),
                                     "sample_states": found.sample_states, "mining_seconds": round(found.seconds, 2),
                                     "per_template": found.per_template,
                                     **{k_: x for k_, x in inv_use.items() if k_ not in ("ctis", "names", "split")}}
            # The candidates the proofs closed, and those of them whose chunk was split, for
            # the manifest (the next run's hints): lists shared by the unit's verdicts, left out
            # of the report's rows.
            v.stats["proof_invariants"] = inv_use.get("names", [])
            v.stats["proof_split"] = inv_use.get("split", [])
        out.append(v)
    return out


def _violation(enc: Encoding, conf: CheckConfig, prop: Property, model: z3.ModelRef, un: Unroller,
               steps: int) -> Verdict:
    """The verdict of a BMC model that breaks ``prop`` within ``steps``: violated, with the
    trace and its initial state, once the trace replays on the interpreter."""
    from mtgcheck.model.observe import observe
    from mtgcheck.model.setup import position_of_state

    trace = un.trace(model, steps)
    start = state_from_model(enc.cfg, model, un.states[0])
    if not _replays(enc, prop, trace, start):
        return Verdict("z3", prop.id, conf.name, UNKNOWN, "the solver's counterexample does not replay "
                       "on the interpreter (an encoding bug)", trace=trace)
    v = Verdict("z3", prop.id, conf.name, VIOLATED, depth=steps, trace=trace)
    v.stats["initial_state"] = observe(enc.cfg, start)
    v.stats["initial_position"] = position_of_state(enc.cfg, conf.position, start)
    return v


def _witness(cfg: Config, s0: State, steps: int, cap: int = WITNESS_CAP) -> list[int] | None:
    """A run of ``steps`` steps from ``s0`` on the interpreter, as the indices of its
    transitions in the catalogue (depth first, at most ``cap`` states expanded), or None.
    Only a hint for the solver, which checks it (:func:`check`'s ``run_exists``)."""
    index = {id(t): i for i, t in enumerate(catalogue(cfg).transitions)}
    todo: list[tuple[State, tuple[int, ...]]] = [(s0, ())]
    while todo and cap > 0:
        s, path = todo.pop()
        if len(path) == steps:
            return list(path)
        cap -= 1
        for a in reversed(legal_actions(cfg, s)):
            t = enabled_transition(cfg, s, a)
            if t is not None:
                todo.append((t.effect(s), (*path, index[id(t)])))
    return None


def _constrain(un: Unroller, enc: Encoding, closure: "_Closure | None", proved: Sequence[Property]) -> int:
    """Constrain BMC's states by the candidates ``closure`` proved inductive and by the
    state properties ``proved``: facts of every reachable state, so BMC's verdicts are the
    same, and its queries need not rule out the unreachable states they exclude (on
    ``costs``, with the 273 candidates of the manifest, depth 9 in 41 to 50 s where the
    plain relation reached 6 in 60 s).  Returns how many facts constrain each state."""
    from .invariants import flat as flat_entries

    invs = closure.proven_candidates() if closure is not None else []
    if invs:
        un.constrain(lambda st: z3.And([c.build(flat_entries(st)) for c in invs]))
    if proved:
        un.constrain(lambda st: z3.And([enc.state_term(p, st) for p in proved]))
    return len(invs) + len(proved)


def _closed_invariants(enc: Encoding, conf: CheckConfig, todo: Sequence[Property], init_of: Any, budget: Budget,
                       hints: Collection[str], sample_cap: int,
                       split_hints: Collection[str] = ()) -> "_Closure | None":
    """The candidates found on the configuration (only the ``hints``, if given) closed into
    an inductive set, the state properties of ``todo`` taking part as members (each true in
    every initial state: :func:`check` asked that first), those that close proved with them
    (:meth:`_Closure.proven_properties`): what :func:`_constrain` may assume without the
    induction having run.  None if the candidates could not all be checked initially true,
    or ``budget`` ran out first."""
    found = find_invariants(enc, conf, init_of, budget, cap=sample_cap)
    if not found.complete:
        return None
    names = set(hints)
    closure = _Closure(enc, [c for c in found.live if not names or c.name in names], budget, todo,
                       split_first=split_hints)
    closure.close_all()
    # The properties too: their consecution was asked with the chunks (``close_all``), so
    # closing them mostly reads the supports already found.
    while not budget.cut and not closure.close(sorted(closure.live) + sorted(closure.path.hyp_live)):
        pass  # a member was dropped: close what is left
    return None if budget.cut else closure


def placements(cfg: Config, s0: State, n: int, seed: int = 0) -> list[State]:
    """Up to ``n`` concrete initial placements other than ``s0`` (distinct zones), drawn
    with a seeded generator: each card in a zone :func:`placement_zones` allows, libraries
    shuffled, an exiled card plotted on a turn so far or not.

    Not from Z3's models: which model a solver returns depends on what the process asked Z3
    before (term ids), so the invariants mined from these states, and so the proofs, would
    depend on the order a worker ran its units in."""
    from mtgcheck.model.state import EXILE, LIBRARY

    rng = random.Random(seed)
    seen = {tuple(s0.zone)}
    out: list[State] = []
    for _ in range(50 * n):
        if len(out) >= n:
            break
        zone = tuple(rng.choice(placement_zones(sl)) for sl in cfg.slots)
        if zone in seen:
            continue
        seen.add(zone)
        pos = [0] * cfg.n
        for owner in range(cfg.players):
            lib = [j for j, sl in enumerate(cfg.slots) if sl.owner == owner and zone[j] == LIBRARY]
            rng.shuffle(lib)
            for i, j in enumerate(lib):
                pos[j] = i
        plotted = tuple(rng.randint(0, s0.turn) if z == EXILE else 0 for z in zone)
        out.append(s0.replace(zone=zone, pos=tuple(pos), plotted=plotted))
    return out


def find_invariants(enc: Encoding, conf: CheckConfig, init_of: Any, budget: Budget, *,
                    cap: int = SAMPLE_CAP) -> Any:
    """Candidate invariants of the configuration: template instances true in every state the
    explicit-state search reaches (from the position and a few other placements) and in
    every initial state (:mod:`.invariants`).  Not yet trusted: :class:`_Closure` keeps one
    only inside an inductive set."""
    from . import invariants as inv

    cfg = enc.cfg
    starts = [enc.init] + (placements(cfg, enc.init, SAMPLE_STARTS) if init_of is not None else [])
    states = inv.sample(cfg, starts, cap=cap, max_turn=conf.max_turn)

    def init(st: State) -> Any:
        with symbolic():
            return init_of(st) if init_of is not None else equal_states(st, enc.init)

    def check(sol: z3.Solver, *assumptions: Any, what: str = "") -> Any:
        return budget.check(sol, *assumptions, what=what)

    return inv.find(cfg, states, init, lambda tag: symbolic_state(cfg, tag), check)


class _Closure:
    """Houdini, restricted to what the proofs use.

    A proof's unsat core names the candidates it assumed; each must be inductive, and the
    consecution query of a candidate (every live candidate in a state, one step, the
    candidate false after it) either has a counterexample, and the candidate is dropped for
    good, or is unsatisfiable, and its unsat core names the candidates it rests on, which
    must be inductive in turn.  A set closed this way holds in every initial state and is
    inductive, so every reachable state satisfies it: only then does a proof that used it
    count.  The cores are kept (a core stays valid while its members live), so junk that no
    proof touches is never examined."""

    def __init__(self, enc: Encoding, cands: Sequence[Any], budget: Budget, props: Sequence[Property] = (),
                 proven: Collection[str] = (), split_first: Collection[str] = ()) -> None:
        self.enc, self.budget = enc, budget
        #: Members whose chunk an earlier run had to split (the manifest's ``split``): such a
        #: chunk is asked one transition at a time at once, not first whole to run out of its
        #: limit (two such chunks were 20M of ``flashback``'s 80M).  The members of every chunk
        #: split in this run (``split``) are what the next run is told.
        self.split_first = frozenset(split_first)
        self.split: set[str] = set()
        self.cands = {c.name: c for c in cands}
        self.live: set[str] = set(self.cands)
        self.support: dict[str, frozenset[str]] = {}
        #: Candidates closed into an inductive set (``proven``: by an earlier closure, with
        #: the properties then proved, which this one's path assumes).
        self.proven: set[str] = set(proven) & self.live
        self.dropped = 0
        self.queries = 0
        self.path = _Path(enc, 0)
        self.path.add_invariants(cands, self.live)
        # The state properties to prove are members too (``hyp:ID``), whose consecution is
        # their step case: a candidate may need the very property it helps prove (a trigger
        # above the spell that caused it needs the stack's positions distinct).
        self.props = {f"hyp:{p.id}": p for p in props if p.kind == "state"}
        self.path.add_hypotheses(list(self.props.values()))
        self.prop_core: dict[str, list[str]] = {}  # hyp:ID -> its step case's core (shown)
        self._goal: dict[str, Any] = {}
        self._post: dict[str, Any] = {}

    def _after(self, name: str) -> Any:
        from .invariants import flat

        if name not in self._post:
            after = self.path.un.states[1]
            self._post[name] = self.enc.state_term(self.props[name], after) if name in self.props else \
                self.cands[name].build(flat(after))
        return self._post[name]

    def _consecution(self, name: str) -> frozenset[str] | None:
        """The candidates ``name``'s consecution rests on, or None (dropped).

        A counterexample starts from a state where every live candidate holds, so every
        candidate false after its step is in no inductive subset of the live ones: all of
        them are dropped at once (Houdini's step).  A property's consecution is its step
        case (k = 0, everything live assumed)."""
        if name in self.props:
            p = self.props[name]
            res, _, core = self.path.attempt([p], self.budget)
            if res == z3.unsat:
                self.prop_core[name] = core
                return frozenset(self.path.last_support)
            if res == z3.sat and self.path.last_cti is not None:
                self.path.ctis[p.id] = self.path.last_cti
            return None
        if name not in self._goal:
            lit = z3.Bool(f"goal:{name}")
            self.path.sol.add(z3.Implies(lit, z3.Not(self._after(name))))
            self._goal[name] = lit
        self.queries += 1
        res = self.budget.check(self.path.sol, *self.enc.en.values(), *self.path.facts.values(),
                                *self.path.live_lits(), self._goal[name], what=f"invariant {name}")
        if res == z3.unsat:
            return self._core_support()
        if res == z3.sat:
            m = self.path.sol.model()
            for other in sorted(self.live | self.path.hyp_live):
                if other != name and not z3.is_true(m.eval(self._after(other), model_completion=True)):
                    self._drop(other)
        return None

    def close_all(self, rounds: int = 20) -> None:
        """The consecution of every live member, :data:`CLOSE_CHUNK` members per query: is
        some member of the chunk false after one step from a state where every live
        candidate and hypothesis holds?  Unsat: the query's unsat core is the support of each
        member of the chunk (what :meth:`close` would have asked one member at a time).  Sat:
        every member false after that step is in no inductive subset of the live ones and is
        dropped (Houdini's step); the members left without a live support are asked again.
        Out of its limit: the same query one transition at a time (:meth:`_Path._split`), and
        if that runs out too, the chunk's members are left to :meth:`close`, one each.  For
        a set that closes (the manifest's hints), one query per chunk instead of one per
        member."""
        for _ in range(rounds):
            todo = [n for n in sorted(self.live) + sorted(self.path.hyp_live)
                    if n not in self.proven and not self._supported(n)]
            dropped = False
            for c in range(0, len(todo), CLOSE_CHUNK):
                if self.budget.cut:
                    return
                chunk = [n for n in todo[c:c + CLOSE_CHUNK] if n in self.live or n in self.path.hyp_live]
                if not chunk:  # all dropped by an earlier chunk's counterexample
                    continue
                self.queries += 1
                # A literal of its own (the number of the query): a chunk's goal is never
                # another's, nor is the split's cache of cores (keyed by ``what``) shared.
                lit = z3.Bool(f"goal:chunk:{self.queries}")
                self.path.sol.add(z3.Implies(lit, z3.Or([z3.Not(self._after(n)) for n in chunk])))
                what = f"invariants: {len(chunk)} at once (query {self.queries})"
                assumptions = [*self.enc.en.values(), *self.path.facts.values(), *self.path.live_lits(), lit]
                # Out of its limit whole, asked one transition of the step at a time, as a
                # property's step case is (on ``flashback``'s hints, 64M of rlimit where
                # asking the chunk's members one by one took 78M); asked so at once if an
                # earlier run had to split a chunk holding one of its members.
                if self.split_first.intersection(chunk):
                    self.path.split_first.add(what)
                res, core = self.path.ask(assumptions, self.budget, what, 1, CHUNK_SPLIT_RLIMITS)
                if what in self.path.split_first:
                    self.split.update(chunk)
                if res == z3.unsat:
                    sup = self._support_of(core)
                    for n in chunk:
                        self.support[n] = sup - {n}
                elif res == z3.sat:
                    m = self.path.sol.model()
                    for n in sorted(self.live | self.path.hyp_live):
                        if not z3.is_true(m.eval(self._after(n), model_completion=True)):
                            self._drop(n)
                    dropped = True
            if not dropped:
                return

    def _supported(self, name: str) -> bool:
        sup = self.support.get(name)
        return sup is not None and self.path.still_live({x if x.startswith("hyp:") else f"inv:{x}" for x in sup})

    def _core_support(self) -> frozenset[str]:
        """The candidates and hypotheses named by the last query's unsat core."""
        return self._support_of([str(x) for x in self.path.sol.unsat_core()])

    @staticmethod
    def _support_of(core: Sequence[str]) -> frozenset[str]:
        """The candidates and hypotheses an unsat core (literal names) names."""
        return frozenset([n[4:] for n in core if n.startswith("inv:")] + [n for n in core if n.startswith("hyp:")])

    def proven_candidates(self) -> list[Any]:
        """The candidates proven inductive (the proven set also names the properties closed
        with them, ``hyp:ID``, which are no candidates)."""
        return [self.cands[n] for n in sorted(self.proven) if n in self.cands]

    def proven_properties(self) -> list[Property]:
        """The state properties closed into the inductive set with the candidates: true in
        every initial state (the caller's check) and after every step from the set, so in
        every reachable state."""
        return [self.props[n] for n in sorted(self.proven) if n in self.props]

    def drop_property(self, p: Property) -> None:
        """``p``'s own step case failed at k = 0: nothing may rest on it any more."""
        if f"hyp:{p.id}" in self.props:
            self._drop(f"hyp:{p.id}")

    def _drop(self, name: str) -> None:
        if name in self.proven:  # a proved property: true after any step the proof covers
            return
        if name in self.props:
            self.path.hyp_live.discard(name)
        else:
            self.live.discard(name)
            self.dropped += 1
        self.support.pop(name, None)

    def close(self, names: Sequence[str]) -> bool:
        """Whether the candidates ``names`` lie in an inductive set of live candidates (then
        all of it is proven); on False some candidate was dropped and the caller retries."""
        todo, seen = sorted(names, reverse=True), set()
        while todo:
            if self.budget.cut:
                return False
            n = todo.pop()
            if n in seen or n in self.proven:
                continue
            seen.add(n)
            sup = self.support.get(n)
            if not self._supported(n):
                sup = self._consecution(n)
                if sup is None:
                    self._drop(n)
                    return False
                self.support[n] = sup
            todo.extend(sorted(sup, reverse=True))
        self.proven |= seen
        return True

    def summary(self) -> dict[str, Any]:
        return {"live": len(self.live), "proven": len(self.proven - set(self.props)), "dropped": self.dropped,
                "consecution_queries": self.queries, "names": [c.name for c in self.proven_candidates()],
                "split": sorted(self.split & set(self.cands))}


def lemmas(cfg: Config) -> list[tuple[str, Any]]:
    """Candidate strengthening invariants (state predicates), besides the state properties.

    None is trusted: each must hold in every initial state and survive the Houdini
    fixpoint in :func:`_strengthen` before any proof may assume it."""
    from mtgcheck.model.logic import Count
    from mtgcheck.model.state import AB_NONE, EXILE, STACK

    n, K, A = cfg.n, len(cfg.planes), cfg.ability_slots
    return [
        ("lemma:oids-below-next", lambda s: And(*[s.oid[j] < s.next_oid for j in range(n)],
                                                *[s.pl_oid[k] < s.next_oid for k in range(K)])),
        ("lemma:plotted-not-in-future", lambda s: And(*[s.plotted[j] <= s.turn for j in range(n)])),
        ("lemma:plotted-only-exiled", lambda s: And(*[Implies(s.plotted[j] != 0, s.zone[j] == EXILE)
                                                      for j in range(n)])),
        ("lemma:stack-size", lambda s: s.stack_size == Count(s.zone[j] == STACK for j in range(n))
         + Count(s.ab_kind[a] != AB_NONE for a in range(A))),
        ("lemma:off-stack-unmarked", lambda s: And(*[Implies(s.zone[j] != STACK, And(s.fb_exile[j] == 0, s.how[j] == 0))
                                                     for j in range(n)])),
        ("lemma:fb-mark-boolean", lambda s: And(*[Or(s.fb_exile[j] == 0, s.fb_exile[j] == 1) for j in range(n)])),
        ("lemma:in-game-boolean", lambda s: And(*[Or(s.in_game[p] == 0, s.in_game[p] == 1) for p in range(cfg.players)])),
        ("lemma:active-is-player", lambda s: And(s.active >= 0, s.active < cfg.players)),
    ]


@dataclass
class Proof:
    """How a property was proved: the k of k-induction and what the proof rests on."""

    k: int
    core: list[str]


class Budget:
    """Per-query resource limit, and the overall wall-clock deadline as a safety net only.

    A query stopped by the deadline sets ``cut``: whatever it would have decided is then
    unknown (the caller reports it so), never a proof and never a silent "holds"."""

    def __init__(self, rlimit: int, deadline: float) -> None:
        self.rlimit, self.deadline = rlimit, deadline
        self.cut = False
        self.queries: list[tuple[str, str, int, float]] = []  # (what, result, rlimit used, seconds)

    def check(self, sol: z3.Solver, *assumptions: Any, what: str = "", share: int = 1) -> z3.CheckSatResult:
        """One query, with ``1/share`` of the resource limit."""
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            self.cut = True
            return z3.unknown
        sol.set("rlimit", max(1, self.rlimit // share))
        sol.set("timeout", max(1, int(remaining * 1000)))
        before, t0 = _rlimit_count(sol), time.monotonic()
        res = sol.check(*assumptions)
        self.queries.append((what, str(res), _rlimit_count(sol) - before, time.monotonic() - t0))
        # The reason Z3 gives does not tell the two limits apart ("canceled" for both in the
        # incremental core): a query that ends unknown at the deadline was stopped by the clock.
        if res == z3.unknown and time.monotonic() >= self.deadline - 0.25:
            self.cut = True
        return res

    def summary(self) -> dict[str, Any]:
        return {"induction_queries": [f"{w}: {r} ({n / 1e6:.1f}M, {s:.1f} s)" for w, r, n, s in self.queries],
                "induction_rlimit": sum(n for _, _, n, _ in self.queries),
                "induction_seconds": round(sum(s for *_, s in self.queries), 2), "rlimit_per_query": self.rlimit}


def _rlimit_count(sol: z3.Solver) -> int:
    st = sol.statistics()
    return int(st.get_key_value("rlimit count")) if "rlimit count" in st.keys() else 0  # noqa: SIM118 (not a dict)


class _Path:
    """The step case of k-induction: k+1 steps of the relation from an *arbitrary* state,
    in one incremental solver.  Proved properties are asserted (behind a literal each, so
    that the unsat core says which a proof used) on every state and step: they hold on
    every reachable path, so this only removes unreachable paths."""

    def __init__(self, enc: Encoding, k: int) -> None:
        self.enc, self.k = enc, k
        self.sol = z3.Solver()
        self.un = Unroller(enc, self.sol, f"k{k}.")
        self.facts: dict[str, Any] = {}  # literal name -> literal
        self.inv_lits: dict[str, Any] = {}  # invariant candidate -> literal
        self.last_cti: tuple[State, Action] | None = None  # the last counterexample to induction
        self.ctis: dict[str, tuple[State, Action]] = {}  # property -> its counterexample, if any
        self.live: set[str] = set()
        #: ``hyp:ID`` -> literal: state property ID (not proved yet) on the first state, a
        #: member of the closure like a candidate (joint induction; k = 0 only).
        self.hyp_lits: dict[str, Any] = {}
        self.hyp_live: set[str] = set()
        self.last_support: list[str] = []  # the last unsat core's candidates and hypotheses
        self.queries = 0
        #: (query, transition) -> the unsat core of that transition's query in a case split.
        self.split_cores: dict[tuple[str, int], set[str]] = {}
        self.split_first: set[str] = set()  # queries that ran out whole: asked split from then on
        with symbolic():
            for _ in range(k + 1):
                self.un.extend()

    def holds(self, p: Property, upto: int) -> Any:
        """``p`` on states 0..upto (state property) or on steps 0..upto-1 (transition)."""
        if p.kind == "state":
            first = self.enc.state_term(p, self.un.states[0])
            return z3.And(first, *[self.un.sub(self.enc.prop_terms(p)[0], i) for i in range(upto)])
        return z3.And(*[z3.Not(self.un.violation(p, i)) for i in range(upto)])

    def assume(self, p: Property) -> None:
        lit = z3.Bool(f"fact:{p.id}")
        self.sol.add(z3.Implies(lit, self.holds(p, self.k + 1)))
        self.facts[str(lit)] = lit

    def add_invariants(self, invs: Sequence[Any], live: set[str]) -> None:
        """Invariant candidates, each behind a literal ``inv:NAME``, on states 0..k (the
        step case's first states are then ones they allow); only those named in ``live``
        are assumed (the set may shrink: :class:`_Closure`)."""
        from .invariants import flat

        for c in invs:
            lit = z3.Bool(f"inv:{c.name}")
            self.sol.add(z3.Implies(lit, z3.And([c.build(flat(st)) for st in self.un.states[:self.k + 1]])))
            self.inv_lits[c.name] = lit
        self.live = live

    def add_hypotheses(self, props: Sequence[Property]) -> None:
        """The state properties still to prove, each behind a literal ``hyp:ID`` on the first
        state: a proof or a candidate's consecution may rest on them, and the closure then
        owes their own step case (:class:`_Closure`)."""
        for p in props:
            if p.kind == "state":
                lit = z3.Bool(f"hyp:{p.id}")
                self.sol.add(z3.Implies(lit, self.enc.state_term(p, self.un.states[0])))
                self.hyp_lits[str(lit)] = lit
                self.hyp_live.add(str(lit))

    def live_lits(self) -> list[Any]:
        return [lit for n, lit in self.inv_lits.items() if n in self.live] + \
            [lit for n, lit in self.hyp_lits.items() if n in self.hyp_live]

    def still_live(self, names: Any) -> bool:
        """Whether every candidate and hypothesis named in an unsat core is still live."""
        return all(n[4:] in self.live if n.startswith("inv:") else n in self.hyp_live if n.startswith("hyp:")
                   else True for n in names)

    def attempt(self, cands: Sequence[Property], budget: Budget) -> tuple[Any, list[Property], list[str]]:
        """One query: the candidates, assumed on the first k steps, all hold on step k.

        Returns the result, the candidates a counterexample to induction breaks (sat), and
        the unsat core's names (unsat): guard conditions with their CR rules, and facts."""
        self.queries += 1
        go = z3.Bool(f"go:{self.k}:{self.queries}")
        viol = {p.id: self.un.violation(p, self.k) for p in cands}
        self.sol.add(z3.Implies(go, z3.And(*[self.holds(p, self.k) for p in cands], z3.Or(list(viol.values())))))
        what = f"k={self.k} {'+'.join(p.id for p in cands)}"
        share = 1 if self.k == 0 else STEP_SHARE
        assumptions = [*self.enc.en.values(), *self.facts.values(), *self.live_lits(), go]
        res, core = self.ask(assumptions, budget, what, share)
        self.last_support = [n[4:] for n in core if n.startswith("inv:")] + [n for n in core if n.startswith("hyp:")]
        if res == z3.sat:
            m = self.sol.model()
            self.last_cti = (state_from_model(self.enc.cfg, m, self.un.states[self.k]), self.un.trace(m, self.k + 1)[-1])
            return res, [p for p in cands if z3.is_true(m.eval(viol[p.id], model_completion=True))], []
        if res == z3.unsat:
            return res, [], self._core(core)
        return res, [], []

    def ask(self, assumptions: Sequence[Any], budget: Budget, what: str, share: int,
            limits: int | None = None) -> tuple[Any, list[str]]:
        """One query, whole; if it runs out of its limit, split by transition (:meth:`_split`,
        within ``limits``).  Returns the result and the unsat core's literal names.  A query
        that ran out whole once (the same ``what``) is split at once from then on."""
        if what in self.split_first:
            return self._split(assumptions, budget, what, share, limits)
        res = budget.check(self.sol, *assumptions, what=what, share=share)
        core = [str(lit) for lit in self.sol.unsat_core()] if res == z3.unsat else []
        if res == z3.unknown and not budget.cut:
            self.split_first.add(what)
            res, core = self._split(assumptions, budget, what, share, limits)
        return res, core

    def _split(self, assumptions: Sequence[Any], budget: Budget, what: str, share: int,
               limits: int | None = None) -> tuple[Any, list[str]]:
        """The same query, one transition of the last step at a time.

        Unsat when every transition's query is (the core is the union of theirs); sat at the
        first that is (its model is the solver's); unknown if one is, or the split's total
        limit (``limits`` times the budget's; :data:`SPLIT_RLIMITS`, read at the call, if
        None) is spent."""
        limits = SPLIT_RLIMITS if limits is None else limits
        act, spent, core = self.un.acts[self.k], 0, set()
        for i, action in enumerate(self.enc.actions):
            # A transition proved before with assumptions still made is not asked again
            # (facts only grow; the invariants its core named are still live).
            known = self.split_cores.get((what, i))
            if known is not None and self.still_live(known):
                core |= known
                continue
            if spent >= limits * budget.rlimit:
                return z3.unknown, []
            res = budget.check(self.sol, *assumptions, act == i, what=f"{what} [{action.verb} #{i}]", share=share)
            spent += budget.queries[-1][2]
            if res != z3.unsat:
                return res, []
            mine = {str(lit) for lit in self.sol.unsat_core() if not lit.eq(act == i)}
            self.split_cores[(what, i)] = mine
            core |= mine
        return z3.unsat, sorted(core)

    def _core(self, names: Sequence[str]) -> list[str]:
        rules = sorted({f"CR {self.enc.en_cr[n[3:]]} ({n[3:]})" for n in names if n.startswith("en:")})
        facts = sorted(n[5:] for n in names if n.startswith("fact:"))
        invs = sorted(n[4:] for n in names if n.startswith("inv:"))
        joint = sorted(n[4:] for n in names if n.startswith("hyp:"))
        return rules + ([f"proved {', '.join(facts)}"] if facts else []) + \
            ([f"proved together with {', '.join(joint)}"] if joint else []) + [f"invariant {n}" for n in invs]


def _lemma_props(cfg: Config) -> list[Property]:
    """The candidate lemmas as state properties, so that one mechanism proves both."""
    return [Property(name, (), "strengthening lemma", "state", (lambda c, s, f=f: f(s)))
            for name, f in lemmas(cfg)]


def _initially_true(enc: Encoding, cands: Sequence[Property], init_of: Any, budget: Budget) -> list[Property]:
    """The candidates that hold in every initial state (the base case of a lemma)."""
    sol = z3.Solver()
    with symbolic():
        s = symbolic_state(enc.cfg, "h0")
        sol.add(init_of(s) if init_of is not None else equal_states(s, enc.init))
        return [p for p in cands if budget.check(sol, z3.Not(enc.state_term(p, s)), what=f"init {p.id}") == z3.unsat]


def _houdini(path: _Path, cands: list[Property], budget: Budget, rounds: int) -> tuple[list[Property], list[str]]:
    """The largest subset (found in at most ``rounds`` queries) that is k-inductive as a
    whole: each counterexample drops what it breaks.  Empty if the budget runs out."""
    for _ in range(rounds):
        if not cands or budget.cut:
            break
        res, broken, core = path.attempt(cands, budget)
        if res == z3.unsat:
            return cands, core
        if res != z3.sat or not broken:
            break
        cands = [p for p in cands if p not in broken]
    return [], []


class _Induction:
    """k-induction, smallest k first, one property at a time; a proved property is assumed
    (on every state and step) by every later attempt, at every k.

    k is tried only up to the depth BMC reached for the property (the base case; k = 0 needs
    only the initial states).  At k = 0 the step case may assume the invariant candidates
    (``invariants``, true in every initial state); a proof counts only once the candidates
    its core names are closed into an inductive set (:class:`_Closure`), and is retried
    without any candidate found not to be.  At k >= 1 the candidates proven so far are
    assumed.  Opt-in (``strengthen``), after k = 0: the hand-written lemmas true initially
    whose Houdini fixpoint is inductive are proved, assumed like properties, and k = 0 is
    tried again.  Every query has the same resource limit; one stopped by the wall clock
    proves nothing (``budget.cut``).

    ``hints`` (candidate names): k = 0 is first tried with only these candidates live.
    Checking a set that closes is one query per member, where finding it drops the others
    one counterexample at a time (531 queries against 364 on ``flashback``, 157 s against
    45 s).  What that proves stands (its sets were closed); if a property is left, k = 0 is
    tried again with every candidate, the ones proven so far kept, since a candidate
    dropped under the hints alone may be inductive with the others.

    :meth:`run` may be called for k = 0, then again for k >= 1 once BMC has run."""

    def __init__(self, enc: Encoding, props: Sequence[Property], budget: Budget, *, init_of: Any = None,
                 strengthen: bool = False, invariants: Sequence[Any] = (), hints: Collection[str] = (),
                 split_hints: Collection[str] = ()) -> None:
        self.enc, self.props, self.budget = enc, props, budget
        self.init_of, self.strengthen = init_of, strengthen
        self.invariants, self.hints, self.split_hints = invariants, hints, split_hints
        self.proved: dict[str, Proof] = {}
        self.done: list[Property] = []
        self.closure: _Closure | None = None
        self.ctis: dict[str, tuple[State, Action]] = {}
        self.hinted: dict[str, Any] = {}

    def run(self, reached: dict[str, int], ks: range) -> None:
        for k in ks:
            todo = [p for p in self.props if p.id not in self.proved and reached[p.id] >= k]
            if not todo or self.budget.cut:
                break
            if k == 0:
                self._k0(todo)
                continue
            path = _Path(self.enc, k)
            if self.closure is not None:
                path.add_invariants(self.closure.proven_candidates(), self.closure.proven)
            for f in self.done:
                path.assume(f)
            _prove_each(path, todo, self.budget, self.proved, self.done)

    def _k0(self, todo: list[Property]) -> None:
        enc, budget = self.enc, self.budget
        carried: list[str] = []
        if self.invariants and self.hints:
            names = set(self.hints)
            given = [c for c in self.invariants if c.name in names]
            self.closure = _Closure(enc, given, budget, todo, split_first=self.split_hints)
            self.closure.close_all()
            _prove_each(self.closure.path, todo, budget, self.proved, self.done, self.closure)
            todo = [p for p in todo if p.id not in self.proved]
            self.hinted = {"hints": len(names), "hints_mined": len(given), "hints_queries": self.closure.queries,
                           "hints_sufficed": not todo}
            if not todo:
                return
            carried = [c.name for c in self.closure.proven_candidates()]
        if self.invariants:
            self.closure = _Closure(enc, self.invariants, budget, todo, proven=carried)
            path = self.closure.path
        else:
            path = _Path(enc, 0)
        for f in self.done:
            path.assume(f)
        _prove_each(path, todo, budget, self.proved, self.done, self.closure)
        self.ctis.update(path.ctis)
        if self.strengthen and not budget.cut:
            for lemma in _strengthen(enc, path, self.init_of, budget):
                self.done.append(lemma)
                path.assume(lemma)
            _prove_each(path, [p for p in todo if p.id not in self.proved], budget, self.proved, self.done,
                        self.closure)

    def summary(self) -> dict[str, Any]:
        """The invariants' use (and ``ctis``: the step case's counterexample of each property
        left unproved at k = 0)."""
        return {**(self.closure.summary() if self.closure is not None else {}), **self.hinted,
                "ctis": {pid: cti for pid, cti in self.ctis.items() if pid not in self.proved}}


def _induction(enc: Encoding, props: Sequence[Property], reached: dict[str, int], budget: Budget,
               max_k: int = MAX_K, **kw: Any) -> tuple[dict[str, Proof], dict[str, Any]]:
    """:class:`_Induction` for k = 0..max_k at once: the proofs and the invariants' use."""
    ind = _Induction(enc, props, budget, **kw)
    ind.run(reached, range(max_k + 1))
    return ind.proved, ind.summary()


def _prove_each(path: _Path, todo: Sequence[Property], budget: Budget, proved: dict[str, Proof],
                done: list[Property], closure: _Closure | None = None) -> None:
    """Try each property alone at the path's k; what is proved is assumed from then on.
    With ``closure``, a proof whose core names invariant candidates counts only once they
    are closed into an inductive set; otherwise it is retried without the dropped one."""
    for p in todo:
        while not budget.cut and p.id not in proved:
            res, _, core = path.attempt([p], budget)
            if res == z3.sat and path.last_cti is not None:
                path.ctis[p.id] = path.last_cti
            if res != z3.unsat:
                if closure is not None:  # not inductive at k = 0: nothing may rest on it
                    closure.drop_property(p)
                break
            if closure is not None:
                own = f"hyp:{p.id}"
                if own in closure.props:  # its step case is the query just made
                    closure.support[own], closure.prop_core[own] = frozenset(path.last_support), core
                    ok = closure.close([own])
                else:
                    ok = closure.close(path.last_support)
                if not ok:
                    continue  # a member it rests on is not inductive: dropped, try again without it
                # every property closed with it is proved too (the whole set is inductive)
                for q in closure.proven_properties():
                    name = f"hyp:{q.id}"
                    # (closed by :meth:`_Closure.close_all`, it has no core of its own yet:
                    # its own attempt, later in ``todo``, gives one)
                    if name != own and q.id not in proved and name in closure.prop_core:
                        proved[q.id] = Proof(0, closure.prop_core[name])
                        done.append(q)
                        path.assume(q)
            proved[p.id] = Proof(path.k, core)
            done.append(p)
            path.assume(p)


def _strengthen(enc: Encoding, path: _Path, init_of: Any, budget: Budget) -> list[Property]:
    """Lemmas proved initial and inductive (together, assuming what is already proved)."""
    cands = _initially_true(enc, _lemma_props(enc.cfg), init_of, budget)
    return _houdini(path, cands, budget, len(cands) + 1)[0]
