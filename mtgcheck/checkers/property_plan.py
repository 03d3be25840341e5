"""Which properties a step of the graph search has to evaluate, read off the properties' own text.

The graph search evaluates every property on every edge and every new state: 35-45 % of its
time on the built-in positions.  Most of that work has a known outcome, and the properties'
symbolic reading (the same predicates over Z3 terms) says which:

- A state property reads some fields of the state vector: the free variables of its term over
  a symbolic state.  A successor whose step left all of them as they were has the outcome of
  the state it came from (both the predicate and the antecedent), which was evaluated before.
- A transition property that is the constant True on a transition (``if t.action.verb !=
  "plot": return TRUE``) never fails on it; an antecedent that is a constant is witnessed on
  every edge of that transition or on none.

Sound because the two readings agree (``tests/test_conformance.py``): a concrete value is a
function of the variables its symbolic term reads.  ``tests/test_property_plan.py`` recounts
every property on a search's states and edges and compares.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from operator import itemgetter, ne
from typing import Any, Sequence

import z3

from mtgcheck.model.actions import catalogue
from mtgcheck.model.config import Config
from mtgcheck.model.logic import symbolic
from mtgcheck.model.state import FIELDS, State, symbolic_state
from mtgcheck.properties.base import Property


def _fields_read(*terms: Any, state: str = "b") -> frozenset[int]:
    """The layout indexes of the fields of the symbolic state named ``state`` that the terms
    read (their constants are named ``state.field[i]``; read off Z3's own printing, which
    shares subterms, since walking the terms from Python costs seconds per configuration)."""
    out: set[int] = set()
    for t in terms:
        if isinstance(t, z3.ExprRef):
            out |= _read_by_term(t, state)
    return frozenset(out)


def _read_by_term(t: Any, state: str) -> frozenset[int]:
    """One term's reads (many transitions give a property the very same term: Z3 shares it).
    Keyed by the term's context too: each Z3 check runs in a fresh context
    (``z3bmc.fresh_context``), whose ids start again from the same numbers."""
    key = (t.ctx_ref().value, t.get_id(), state)
    seen = _READS.get(key)
    if seen is None:
        if len(_READS) >= 4096:
            _READS.clear()
        # The term is kept with its reads, so that its id cannot pass to another term.
        seen = _READS[key] = (t, frozenset(_INDEX[f] for f in re.findall(rf"(?<![\w.]){state}\.(\w+)", t.sexpr())))
    return seen[1]


_READS: dict[tuple[int, int, str], tuple[Any, frozenset[int]]] = {}
_INDEX = {f: i for i, f in enumerate(FIELDS)}


class Memo:
    """One property's outcomes (antecedent, predicate) by the values of the fields it reads:
    on ``s`` (state properties) or on the edge ``(s, s2)`` of one transition."""

    __slots__ = ("prop", "before", "after", "seen")

    def __init__(self, prop: Property, before: frozenset[int], after: frozenset[int]) -> None:
        self.prop = prop
        self.before = _getter(before)
        self.after = _getter(after)
        self.seen: dict[Any, tuple[bool, bool]] = {}

    def outcome(self, cfg: Config, s: State, t: Any = None, s2: State | None = None) -> tuple[bool, bool]:
        """(antecedent holds, predicate holds) on the state ``s`` or the edge ``(s, t, s2)``."""
        key = (self.before(s), self.after(s2)) if s2 is not None else self.before(s)
        out = self.seen.get(key)
        if out is None:
            if len(self.seen) >= _MEMO:
                self.seen.clear()
            args = (s,) if s2 is None else (s, t, s2)
            out = self.seen[key] = (bool(self.prop.triggered(cfg, *args)), bool(self.prop.holds(cfg, *args)))
        return out


class Direct(Memo):
    """A property evaluated on every edge, nothing kept: for a transition not analysed yet."""

    __slots__ = ()

    def __init__(self, prop: Property) -> None:
        super().__init__(prop, frozenset(), frozenset())

    def outcome(self, cfg: Config, s: State, t: Any = None, s2: State | None = None) -> tuple[bool, bool]:
        args = (s,) if s2 is None else (s, t, s2)
        return bool(self.prop.triggered(cfg, *args)), bool(self.prop.holds(cfg, *args))


#: Outcomes kept per memo before it starts over (bounds the memory of a long search).
_MEMO = 50_000
#: Edges of a transition evaluated directly before it is analysed (an analysis costs about
#: what this many direct evaluations cost, so a small search pays nothing for it).
ANALYSE_AFTER = 200
#: New states checked in full before the state properties are analysed (the same trade:
#: their analysis costs about what this many states' full checks cost).
ANALYSE_STATES_AFTER = 2_000


def _getter(idx: frozenset[int]) -> Any:
    """The values of the fields ``idx`` of a state, as one hashable key."""
    if not idx:
        return lambda s: ()
    g = itemgetter(*sorted(idx))
    return g if len(idx) > 1 else (lambda s, g=g: (g(s),))


@dataclass
class TransitionChecks:
    """For one transition: the properties to evaluate on its edges (memoized), and those
    witnessed on every edge without being evaluated (their predicate is True and their
    antecedent too)."""

    evaluate: list[Memo] = field(default_factory=list)
    always_witnessed: list[Property] = field(default_factory=list)


@dataclass
class PropertyPlan:
    analysis: "_Analysis"
    state_props: list[Property]
    memos: list[Memo] = field(default_factory=list)  # per state property, once analysed
    _states: int = 0
    _transitions: dict[int, TransitionChecks] = field(default_factory=dict)
    _fired: dict[int, int] = field(default_factory=dict)
    _direct: TransitionChecks | None = None
    _direct_states: list[Memo] = field(default_factory=list)  # per state property, before the analysis
    _recheck: dict[tuple[bool, ...], list[int]] = field(default_factory=dict)

    def recheck(self, s: State, s2: State) -> list[int]:
        """The state properties (indexes into ``state_props``) whose outcome on ``s2`` may
        differ from their outcome on ``s``: those reading a field the step changed (every
        one for the first :data:`ANALYSE_STATES_AFTER` new states)."""
        if not self.memos:
            self._states += 1
            if self._states <= ANALYSE_STATES_AFTER:
                return list(range(len(self.state_props)))
            self.memos = [Memo(p, r, frozenset()) for p, r in zip(self.state_props, self.analysis.reads(), strict=True)]
        diff = tuple(map(ne, s, s2))
        out = self._recheck.get(diff)
        if out is None:
            changed = {i for i, d in enumerate(diff) if d}
            out = self._recheck[diff] = [k for k, r in enumerate(self.analysis.reads()) if r & changed]
        return out

    def outcome(self, k: int, s: State) -> tuple[bool, bool]:
        """(antecedent holds, predicate holds) for state property ``k`` on ``s``."""
        if not self.memos:
            if not self._direct_states:
                self._direct_states = [Direct(p) for p in self.state_props]
            return self._direct_states[k].outcome(self.analysis.cfg, s)
        return self.memos[k].outcome(self.analysis.cfg, s)

    def transition(self, ti: int) -> TransitionChecks:
        """The checks on the edges of transition ``ti`` of the catalogue (worked out once the
        transition has fired :data:`ANALYSE_AFTER` times; every property before that)."""
        tc = self._transitions.get(ti)
        if tc is None:
            fired = self._fired[ti] = self._fired.get(ti, 0) + 1
            if fired <= ANALYSE_AFTER:
                if self._direct is None:
                    self._direct = TransitionChecks([Direct(p) for p in self.analysis.trans_props])
                return self._direct
            evaluate, always = self.analysis.transition(ti)
            tc = self._transitions[ti] = TransitionChecks([Memo(p, before, after) for p, before, after in evaluate],
                                                          list(always))
        return tc


def plan(cfg: Config, props: Sequence[Property]) -> PropertyPlan:
    """The plan of one search: the configuration's analysis (worked out once, as the search
    first needs each part) with memos of its own, so that a search's cost never depends on
    the searches before it, and a small search pays nothing for the analysis."""
    an = _analysis(cfg, tuple(props))
    return PropertyPlan(an, list(an.state_props))


Reads = frozenset[int]


class _Analysis:
    """Per state property, the fields it reads; per transition (on first use), the properties
    to evaluate on its edges, with the fields they read before and after, and those always
    witnessed."""

    def __init__(self, cfg: Config, props: tuple[Property, ...]) -> None:
        self.cfg = cfg
        self.state_props = tuple(p for p in props if p.kind == "state")
        self.trans_props = tuple(p for p in props if p.kind == "transition")
        self._states: tuple[State, State] | None = None
        self._reads: tuple[Reads, ...] | None = None
        self._per_transition: dict[int, tuple[tuple[tuple[Property, Reads, Reads], ...], tuple[Property, ...]]] = {}

    def _symbolic(self) -> tuple[State, State]:
        """The symbolic states before and after a step (built on first use)."""
        if self._states is None:
            with symbolic():
                self._states = (symbolic_state(self.cfg, "a"), symbolic_state(self.cfg, "b"))
        return self._states

    def reads(self) -> tuple[Reads, ...]:
        """Per state property, the fields its predicate and antecedent read."""
        if self._reads is None:
            b = self._symbolic()[1]
            with symbolic():
                self._reads = tuple(_fields_read(p.pred(self.cfg, b), p.witness(self.cfg, b) if p.witness else True)
                                    for p in self.state_props)
        return self._reads

    def transition(self, ti: int) -> tuple[tuple[tuple[Property, Reads, Reads], ...], tuple[Property, ...]]:
        out = self._per_transition.get(ti)
        if out is not None:
            return out
        cfg, (a, b) = self.cfg, self._symbolic()
        t = catalogue(cfg).transitions[ti]
        evaluate, always = [], []
        with symbolic():
            for p in self.trans_props:
                pred = p.pred(cfg, a, t, b)
                wit = p.witness(cfg, a, t, b) if p.witness else True
                if isinstance(pred, bool) and pred and isinstance(wit, bool):
                    if wit:
                        always.append(p)
                    continue  # never fails here; witnessed on every edge or on none
                evaluate.append((p, _fields_read(pred, wit, state="a"), _fields_read(pred, wit)))
        out = self._per_transition[ti] = (tuple(evaluate), tuple(always))
        return out


@lru_cache(maxsize=16)
def _analysis(cfg: Config, props: tuple[Property, ...]) -> _Analysis:
    return _Analysis(cfg, props)
