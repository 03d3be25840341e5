"""The transition relation of one configuration, derived from the one spec (:class:`Encoding`)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Sequence

import z3

from mtgcheck.model.actions import Action, catalogue
from mtgcheck.model.config import Config
from mtgcheck.model.logic import And, Implies, constant, is_sym, mk_ite, mk_or, symbolic
from mtgcheck.model.state import FIELDS, State, equal_states, flat, symbolic_state
from mtgcheck.properties.base import Property

from .substitution import Substitution


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
    raw = _gathered(cfg)
    return [(t.conds, r.effect) for t, r in zip(catalogue(cfg).transitions, raw, strict=True)] if raw else []


def _gathered(cfg: Config) -> list[Any]:
    """The catalogue's transitions as the model gathers them (their effects before
    ``settle``; :func:`raw_transitions`), or none if their make-up differs from the catalogue's."""
    ts = catalogue(cfg).transitions
    try:
        from mtgcheck.model.actions import gather

        raw = list(gather(cfg))
    except Exception:  # pragma: no cover - the model's internals moved
        raw = []
    if len(raw) == len(ts) and all(r.action == t.action and r.rule == t.rule for r, t in zip(raw, ts, strict=True)):
        return raw
    return []


class SharedCompaction:
    """While the relation is built, :func:`model.zones.compact` (the renumbering of library
    and stack positions after a move, a pure function of ``zone``, ``pos``, ``ab_kind`` and
    ``ab_pos``) is built once over template variables and instantiated by substitution at
    each call: the same terms, built in Z3's C code instead of Python (it was most of the
    build time, once per move of every transition).  It is handed to the model through the
    hook the model declares for it (``zones.SHARED_COMPACT``), set on entry and cleared on
    exit; concrete runs never read it."""

    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self._shared: Any = None  # the substituting compact, once built (False: not applicable)
        self._before: Any = None
        #: Every call of the substituting ``compact``: (its input, its output).
        self.calls: list[tuple[State, State]] = []

    def applies(self) -> bool:
        """Whether the shared ``compact`` is in use (built, and the model's function declares
        what it reads and writes)."""
        return bool(self._shared)

    def last_of(self, start: int, effect: State) -> State | None:
        """The input of the last compaction since call ``start`` if ``effect`` is exactly its
        output: the fields it writes are its output's terms and the others it reads are its
        input's, so nothing after it changed them.  Then ``effect == compact(input)`` (see
        :func:`factored_compaction`); else None."""
        from mtgcheck.model import zones

        if not self._shared or len(self.calls) <= start:
            return None
        before, out = self.calls[-1]
        same = all(as_term(x).eq(as_term(y)) for f in zones.COMPACT_WRITES
                   for x, y in zip(flat_field(effect, f), flat_field(out, f), strict=True)) and \
            all(as_term(x).eq(as_term(y)) for f in zones.COMPACT_READS if f not in zones.COMPACT_WRITES
                for x, y in zip(flat_field(effect, f), flat_field(before, f), strict=True))
        return before if same else None

    def __call__(self, s: State) -> State:
        """``compact`` over ``s``, not recorded."""
        out = self._shared(self.cfg, s)
        self.calls.pop()
        return out

    def _prepare(self) -> Any:
        """The substituting ``compact``, built on the first entry and kept, so that a reader
        that enters again (the conformance check, one transition at a time) builds it once;
        False when the model's function reads or writes more than it declares
        (``zones.COMPACT_READS``, ``zones.COMPACT_WRITES``)."""
        from mtgcheck.model import zones

        t = symbolic_state(self.cfg, "compact")
        out = zones.compact(self.cfg, t)
        src = [x for f in zones.COMPACT_READS for x in getattr(t, f)]
        res = {f: getattr(out, f) for f in zones.COMPACT_WRITES}
        allowed = {x.get_id() for x in src}
        written = [as_term(x) for v in res.values() for x in (v if isinstance(v, tuple) else (v,))]
        if any(v.get_id() not in allowed for v in constants(written)) or \
                any(not as_term(x).eq(as_term(y)) for f in FIELDS if f not in res
                    for x, y in zip(flat_field(out, f), flat_field(t, f), strict=True)):
            return False  # it reads or writes more than that now: leave the model's function alone

        def compact(cfg: Config, s: State) -> State | None:
            if cfg is not self.cfg:
                return None  # built for another configuration: the model builds its own
            sub = Substitution(src, [as_term(y) for f in zones.COMPACT_READS for y in getattr(s, f)])
            out = s.replace(**{f: tuple(sub(as_term(x)) for x in v) if isinstance(v, tuple) else sub(as_term(v))
                               for f, v in res.items()})
            self.calls.append((s, out))
            return out

        return compact

    def __enter__(self) -> "SharedCompaction":
        from mtgcheck.model import zones

        if self._shared is None:
            self._shared = self._prepare()
        self._before = zones.SHARED_COMPACT[0]
        if self._shared is not False:
            zones.SHARED_COMPACT[0] = self._shared
        return self

    def __exit__(self, *exc: object) -> None:
        from mtgcheck.model import zones

        zones.SHARED_COMPACT[0] = self._before


def by_transition(is_act: Sequence[Any], default: Any, values: Sequence[tuple[int, Any]]) -> Any:
    """The term that is ``v`` when ``act == i`` for each ``(i, v)`` of ``values``, else
    ``default``: an ``If`` chain with one branch per distinct value (the transitions writing
    the same term share it).  ``is_act[i]`` is the literal ``act == i``, built once for the
    relation (z3py coerces both sides of every ``==``: 34,000 of them on plot-14, a fifth of
    the build)."""
    groups: dict[int, tuple[Any, list[int]]] = {}
    for i, v in values:
        groups.setdefault(v.get_id(), (v, []))[1].append(i)
    out = default
    for v, idx in reversed(list(groups.values())):
        # (through Z3's C API: the frame builds thousands of these, ``model/logic.py``)
        out = mk_ite(mk_or([is_act[i] for i in idx]) if len(idx) > 1 else is_act[idx[0]], v, out)
    return out


def factored_compaction(cfg: Config, shared: SharedCompaction, is_act: Sequence[Any], a: State, m: State,
                        before: Sequence[State | None], flat_raw: list[list[Any]]) -> tuple[int, list[list[Any]]]:
    """One compaction for every transition whose effect ends with one, instead of one each.

    Most effects end with a move, and a move renumbers the library and stack positions
    (``zones.compact``, O(n^2) counting terms for n slots), unless its caller leaves that to
    a later renumbering (``model/zones.py``, "Deferred renumbering": a spell's resolution, a
    discard now end without one).  Built per transition, that was most of the relation: on
    ``examples/scale/04-plot-14``, before the deferral, the 21 choices of two cards for
    Faithless Looting's discard and the 28 passes were 97k of its 132k terms; the casts,
    each ending with its move to the stack, still share one here.

    Why it is the same relation: for such a transition ``i``, ``effect_i == compact(p_i)``,
    where ``p_i`` is its state before that last compaction (:meth:`SharedCompaction.last_of`
    checks it term by term).  ``compact`` reads ``zone``, ``pos``, ``ab_kind``, ``ab_pos`` and
    writes ``pos``, ``ab_pos``, ``stack_size``; ``p_i`` has ``effect_i``'s ``zone`` and
    ``ab_kind``, which are ``m``'s when ``act == i``.  So with ``P`` the state whose ``zone``
    and ``ab_kind`` are ``m``'s and whose ``pos``/``ab_pos`` are ``p_i``'s when ``act == i`` (an
    ``If`` chain over those transitions), ``compact(P)`` equals ``effect_i``'s written fields
    whenever ``act == i``: a function applied to a case split is the case split of its
    values.  Those entries of every such transition are ``compact(P)``'s in the effects
    returned (the frame then groups them into one ``If`` branch); nothing else changes.  ``P`` reads no
    entry of ``m`` that ``compact`` writes, so the definitions are not circular.  The
    per-transition reading (``Encoding.raw``, ``rels``, the interval pass) keeps the
    effects as they were.  Returns how many transitions share the one compaction, and the
    flat effects with it (``flat_raw`` itself if none do)."""
    from mtgcheck.model import zones

    ends = [i for i, p in enumerate(before) if p is not None]
    if len(ends) < 2:
        return 0, flat_raw
    offsets, k = {}, 0
    for f in FIELDS:
        offsets[f] = k
        k += len(flat_field(a, f))
    pre: dict[str, tuple[Any, ...]] = {}
    for f in zones.COMPACT_READS:
        if f not in zones.COMPACT_WRITES:
            pre[f] = flat_field(m, f)
            continue
        # (``a``'s entry otherwise: any value, read only when a transition of ``ends`` is taken)
        pre[f] = tuple(by_transition(is_act, x, [(i, as_term(flat_field(before[i], f)[j])) for i in ends])  # type: ignore[arg-type]
                       for j, x in enumerate(flat_field(a, f)))
    fields = {f: (v if isinstance(getattr(m, f), tuple) else v[0]) for f, v in pre.items()}
    out = shared(m.replace(**fields))
    effects = [list(e) for e in flat_raw]
    for f in zones.COMPACT_WRITES:
        for j, v in enumerate(flat_field(out, f)):
            for i in ends:
                effects[i][offsets[f] + j] = v
    return len(ends), effects


def staged_effects(shared: SharedCompaction, is_act: Sequence[Any], a: State, stages: Sequence[tuple[Any, Any] | None],
                   effects: list[State], before: list[State | None]) -> int:
    """The effects of staged transitions (``model.vocabulary.staged``: ``effect == then(head)``)
    with one ``then`` per family, built over the family's merged heads, instead of one each.

    A family is the transitions that share one ``then`` object (the cards a player may
    discard to hand size, the pairs Faithless Looting may discard).  Built per transition,
    each one's ``then`` (the next turn, the spell finishing) was a copy of the same terms
    over a state that differs in one card or two.  ``H`` is the state each of whose entries
    is head ``i``'s when ``act == i`` (an ``If`` chain over the family, an entry every head
    leaves alike kept as it is); ``then(H)`` is ``then(head_i(a)) == effect_i(a)`` whenever
    ``act == i``, since a function applied to a case split is the case split of its values
    (``then`` reads nothing but its state).  So ``then(H)`` is the effect of every member,
    in ``effects`` (and ``before``, the input of its last renumbering, for
    :func:`factored_compaction`), replaced in place; the per-transition reading
    (``Encoding.raw``, BMC's ``step_rel_each``, the interval pass) keeps each one's own.
    ``tests/test_z3_relation.py`` proves the relation's state after the action equal to each
    transition's own effect in every state.  Returns how many transitions are in a family
    of two or more."""
    families: dict[int, tuple[Any, list[int]]] = {}
    for i, st in enumerate(stages):
        if st is not None:
            families.setdefault(id(st[1]), (st[1], []))[1].append(i)
    done = 0
    for then, idx in families.values():
        if len(idx) < 2:
            continue
        heads = [stages[i][0](a) for i in idx]  # type: ignore[index]
        merged = {}
        for f in FIELDS:
            vals = [flat_field(h, f) for h in heads]
            entries = []
            for j in range(len(vals[0])):
                col = [v[j] for v in vals]
                if all(x is col[0] or (not is_sym(x) and not is_sym(col[0]) and x == col[0]) for x in col):
                    entries.append(col[0])  # every head alike: kept as it is (a constant stays one)
                    continue
                terms = [as_term(x) for x in col]
                default = terms[-1]
                entries.append(by_transition(is_act, default, [(i, t) for i, t in zip(idx[:-1], terms[:-1], strict=True)
                                                            if not t.eq(default)]))
            merged[f] = tuple(entries) if isinstance(getattr(a, f), tuple) else entries[0]
        start = len(shared.calls)
        out = then(a.replace(**merged))
        last = shared.last_of(start, out)
        for i in idx:
            effects[i], before[i] = out, last
        done += len(idx)
    return done


def flat_field(s: State, f: str) -> tuple[Any, ...]:
    """One field of a state as a tuple (a scalar as a tuple of one)."""
    v = getattr(s, f)
    return v if isinstance(v, tuple) else (v,)


def constants(terms: Sequence[Any]) -> list[Any]:
    """The uninterpreted constants (state variables) the terms read, in the order a walk
    meets them.

    Read through Z3's C API, each shared subterm once (``intervals.unchecked``): z3py made an
    object for every child of every node (the 335 calls of a check of
    ``examples/scale/04-plot-14``, the renumbering lemma's mostly, took 0.29 s so and take
    0.05 s, the same constants found); only the constants found are made z3py objects."""
    if not terms:
        return []
    from .intervals import unchecked
    from .substitution import expr

    ctx = terms[0].ctx
    ref = ctx.ref()
    ast_id, ast_kind, num_args, app_arg, decl_kind, app_decl = map(unchecked, (
        z3.Z3_get_ast_id, z3.Z3_get_ast_kind, z3.Z3_get_app_num_args, z3.Z3_get_app_arg,
        z3.Z3_get_decl_kind, z3.Z3_get_app_decl))
    app, uninterpreted = z3.Z3_APP_AST, z3.Z3_OP_UNINTERPRETED
    seen: set[int] = set()
    out, todo = [], [t.as_ast() for t in reversed(terms)]
    while todo:
        a = todo.pop()
        key = ast_id(ref, a)
        if key in seen:
            continue
        seen.add(key)
        if ast_kind(ref, a) != app:
            continue
        n = num_args(ref, a)
        if not n:
            if decl_kind(ref, app_decl(ref, a)) == uninterpreted:
                out.append(expr(a, ctx))
            continue
        todo.extend(app_arg(ref, a, i) for i in reversed(range(n)))
    return out


def fields_read(term: Any, states: Sequence[State]) -> frozenset[str]:
    """The fields of ``states`` (symbolic states) whose variables ``term`` reads."""
    field_of = {x.get_id(): f for s in states for f in FIELDS for x in flat_field(s, f)}
    return frozenset(field_of[c.get_id()] for c in constants([term]) if c.get_id() in field_of)


def as_term(v: Any) -> Any:
    """A Z3 integer term for a value of the state: a term as it is, a Python int as a numeral."""
    if isinstance(v, z3.ExprRef):
        return v
    return constant(int(v), z3.main_ctx())


class _Watched:
    """A transition handed to a property's predicate, noting whether the predicate read it.

    A predicate is a function of the configuration, the states and the transition; one
    that read nothing of the transition (``object-ids-fresh``, ``flashback-spell-always-ends-in-exile``:
    the states alone) builds the same term for every transition, so it is built once
    (on ``examples/scale/04-plot-14``, building each 179 times was about a second of the
    check).  Reading
    an attribute, comparing, hashing or testing the transition counts as reading it."""

    def __init__(self, t: Any) -> None:
        object.__setattr__(self, "_t", t)
        object.__setattr__(self, "read", False)

    def _seen(self) -> Any:
        object.__setattr__(self, "read", True)
        return object.__getattribute__(self, "_t")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._seen(), name)

    def __eq__(self, other: object) -> bool:
        return bool(self._seen() == (other._seen() if isinstance(other, _Watched) else other))

    def __hash__(self) -> int:
        return hash(self._seen())

    def __bool__(self) -> bool:
        return bool(self._seen())


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
    #: settle(m) before its final renumbering: ``settled == compact(renumbered_from)``
    #: (``model/settle.py:settle_parts``; read by ``renumbering.py``).
    renumbered_from: State | None = None
    #: The transitions whose final renumbering is one term shared by all in ``step_rel``
    #: (:func:`factored_compaction`), and the same relation with each one's own: BMC's.
    #: The shared one has fewer terms (on ``examples/scale/04-plot-14``, 51k against 55k since
    #: most moves leave their renumbering to ``settle``'s, ``model/zones.py``'s note "Deferred
    #: renumbering"; 72k against 132k before) and
    #: k-induction's queries cost less on it (the ladder's rlimit, ``docs/figures.md``), while
    #: BMC from every placement went deeper without it on ``costs`` (depth 10 against 9 in 60 s;
    #: a depth there took up to twice as long, on the relation's own terms).
    factored: int = 0
    #: The transitions whose effect's shared part is built once per family in ``step_rel``
    #: (:func:`staged_effects`); BMC's ``step_rel_each`` builds each one's own.
    staged: int = 0
    step_rel_each: Any = None
    _props: dict[str, list[Any]] = field(default_factory=dict)
    _rels: list[Any] | None = None
    _plain_guards: list[Any] | None = None
    #: Per state (by id, the state kept so that its id stays its own): b's variables := its entries.
    _onto: dict[int, tuple[State, Substitution]] = field(default_factory=dict)

    @classmethod
    def build(cls, cfg: Config, init: State) -> "Encoding":
        t0 = time.monotonic()
        from mtgcheck.model.settle import settle_parts

        split = raw_transitions(cfg)
        ts = catalogue(cfg).transitions
        with symbolic(), SharedCompaction(cfg) as shared:
            a, b = symbolic_state(cfg, "a"), symbolic_state(cfg, "b")
            m = symbolic_state(cfg, "m") if split else b
            act = z3.Int("act")
            en: dict[str, Any] = {}
            en_cr: dict[str, str] = {}
            actions, rules, guards, raw = [], [], [], []
            before_compact: list[State | None] = []  # per transition: see factored_compaction
            gathered = _gathered(cfg) if split else []
            stages = [(r.head, r.then) if r.then is not None else None for r in gathered]
            for i, t in enumerate(ts):
                conds = split[i][0] if split else t.conds
                parts = []
                for c in conds:
                    lit = en.setdefault(c.id, z3.Bool(f"en:{c.id}"))
                    en_cr[c.id] = c.cr
                    parts.append(Implies(lit, c.test(a)))
                guard = And(*parts)
                guards.append(z3.BoolVal(guard) if isinstance(guard, bool) else guard)
                start = len(shared.calls)
                raw.append((split[i][1] if split else t.effect)(a))
                before_compact.append(shared.last_of(start, raw[-1]) if split else None)
                actions.append(t.action)
                rules.append(t.rule)
            n = len(ts)
            is_act = [act == i for i in range(n)]
            parts = [act >= 0, act < n]
            parts += [z3.Implies(is_act[i], g) for i, g in enumerate(guards) if not z3.is_true(g)]
            fa, fm = flat(a), flat(m)
            flat_raw = [flat(e) for e in raw]
            one_raw = list(raw)
            staged = staged_effects(shared, is_act, a, stages, one_raw, before_compact) if stages else 0
            flat_one = [flat(e) for e in one_raw] if staged else flat_raw
            factored, shared_raw = factored_compaction(cfg, shared, is_act, a, m, before_compact, flat_one) \
                if split and shared.applies() else (0, flat_one)

            def frame(effects: list[list[Any]], j: int, x: Any) -> Any:
                # a transition that leaves this entry as it was is no case of it (Z3 shares
                # equal terms: the same AST is the same pointer, as ``Z3_is_eq_ast`` compares)
                here = x.as_ast().value
                return by_transition(is_act, x, [(i, v) for i in range(n)
                                                 if (v := as_term(effects[i][j])).as_ast().value != here])

            each, one = [], []
            for j, (x, y) in enumerate(zip(fa, fm, strict=True)):
                each.append(y == frame(flat_raw, j, x))
                same = all(shared_raw[i][j] is flat_raw[i][j] for i in range(n))
                one.append(each[-1] if same else y == frame(shared_raw, j, x))
            settled = pre = None
            if split:
                pre, settled = settle_parts(cfg, m)
                parts.append(equal_states(b, settled))
        return cls(cfg, init, a, b, actions, rules, en, en_cr, time.monotonic() - t0, guards=guards,
                   m=m if split else None, act=act, step_rel=z3.And(parts + one), raw=raw, settled=settled,
                   renumbered_from=pre, factored=factored, staged=staged, step_rel_each=z3.And(parts + each))

    def add_step_fact(self, fact: Any) -> None:
        """Conjoin to the relation a term over ``b`` proved to hold after every step
        (``renumbering.py``'s top of the stack): a consequence of the relation, so it removes
        no step, and spares every later query the argument (a pigeonhole over the stack's
        entries, out of Z3's reach at 16 entries).  Only the solvers built after it see it."""
        self.step_rel = z3.And(self.step_rel, fact)
        self.step_rel_each = z3.And(self.step_rel_each, fact)

    @property
    def plain_guards(self) -> list[Any]:
        """Per transition, its guard over ``a`` with every rule's switch on (``en:``, which
        every query assumes: they are there only so that a core names the rules it used),
        simplified.  For the passes, which read a transition's effect under its guard."""
        if self._plain_guards is None:
            en = list(self.en.values())
            on = Substitution(en, [z3.BoolVal(True)] * len(en))
            self._plain_guards = [z3.simplify(on(g)) if en else g for g in self.guards]
        return self._plain_guards

    @property
    def rels(self) -> list[Any]:
        """Per transition: ``guard_i(a) & b == settle(effect_i(a))`` (built on first use)."""
        if self._rels is None:
            out = []
            onto = Substitution(flat(self.m)) if self.m is not None else None
            with symbolic():
                for g, e in zip(self.guards, self.raw, strict=True):
                    if onto is not None:
                        after = onto.with_values([as_term(x) for x in flat(e)])(equal_states(self.b, self.settled))
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
                        watched = _Watched(t)
                        term = p.pred(self.cfg, self.a, watched, self.b)
                        out.append(z3.BoolVal(term) if isinstance(term, bool) else term)
                        if not watched.read:  # the same term for every transition (_Watched)
                            out *= len(ts)
                            break
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
        """The state property over ``s``.  Over a state of terms (the unrolled states), its
        term over ``b`` (:meth:`prop_terms`) with ``b``'s variables substituted: the same term
        the predicate builds over ``s`` (it is a function of the state's entries), without
        building it in Python again (``no-deadlock``'s is every guard of the catalogue: on
        ``examples/scale/04-plot-14``, about 0.1 s for each of the eight states asked)."""
        entries = flat(s)
        if p.kind == "state" and all(isinstance(x, z3.ExprRef) for x in entries):
            onto = self._onto.get(id(s))
            if onto is None:
                onto = self._onto[id(s)] = (s, Substitution(flat(self.b), entries))
            return onto[1](self.prop_terms(p)[0])
        with symbolic():
            term = p.pred(self.cfg, s)
        return z3.BoolVal(term) if isinstance(term, bool) else term
