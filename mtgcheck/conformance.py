"""Conformance of the two readings of the one spec: concrete and symbolic (Z3).

The interpreter runs the rules on Python values; the Z3 encoding runs the very same code on
Z3 terms.  :func:`check_transition` evaluates a transition's guard and effect both ways on a
concrete state and reports any difference.  This is what keeps "one spec" honest: a rule
that used Python ``and``/``if`` on a state value (which fails, or silently compares terms,
on Z3 variables), or a fast path that drifted from its symbolic twin, shows up here.

The symbolic side is the reading the Z3 relation is made of (:class:`.z3bmc.Encoding`): each
transition's conditions and its effect before the state-based actions, built once over a
state of Z3 variables, and the state-based actions (``settle``) built once after it, with
the same shared renumbering of positions.  Checking a state is then an evaluation of those
terms with the state's values (a Z3 model), not a new symbolic run of the rules: it checks
the very terms the proofs use, and costs milliseconds instead of a new symbolic run on
constant terms, most of it in ``settle`` (measured, one core: the 120-example test 17.4 s
before, 7.1 s after; two of the deep tier's 250-example shards 131.9 s before, 22.7 s after).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Sequence

import z3

from mtgcheck.model.actions import Transition, catalogue
from mtgcheck.model.config import Config
from mtgcheck.model.logic import symbolic
from mtgcheck.model.state import FIELDS, State, flat, symbolic_state


@dataclass
class _Reading:
    """One configuration's symbolic reading, over the variables of state ``a`` (before) and
    ``m`` (after the action, before the state-based actions); per transition, built on first
    use: its condition terms and its effect."""

    cfg: Config
    a: State
    m: State | None  # None: the catalogue's effects are read whole (settling included)
    settled: State | None  # settle(m)
    raw: dict[int, Any]  # catalogue index -> the raw effect (before settling)
    index: dict[int, int]  # id(transition) -> catalogue index
    shared: Any  # the relation's shared renumbering of positions (z3bmc.SharedCompaction)
    #: id(transition) -> (the transition, kept so that its id is never reused, its conditions,
    #: its effect)
    built: dict[int, tuple[Transition, list[Any], State]] = field(default_factory=dict)

    @property
    def ctx(self) -> z3.Context:
        return flat(self.a)[0].ctx

    def terms(self, t: Transition) -> tuple[list[Any], State]:
        """``t``'s conditions over ``a`` and its effect (over ``a``; before settling when
        ``m`` is set and ``t`` is the catalogue's)."""
        key = id(t)
        if key not in self.built:
            i = self.index.get(key)
            effect = self.raw[i] if i is not None and self.m is not None else t.effect
            with symbolic(), self.shared:
                self.built[key] = (t, [c.test(self.a) for c in t.conds], effect(self.a))
        return self.built[key][1:]


@lru_cache(maxsize=32)
def _reading(cfg: Config, ctx: z3.Context) -> _Reading:
    """Keyed by Z3's current main context too: a reading's terms live in the context they were
    built in, and the rules build constants in the current one (:func:`.z3bmc.fresh_context`)."""
    from mtgcheck.checkers.z3bmc import SharedCompaction, raw_transitions
    from mtgcheck.model.settle import settle

    ts = catalogue(cfg).transitions
    split = raw_transitions(cfg)
    shared = SharedCompaction(cfg)
    with symbolic(), shared:
        a = symbolic_state(cfg, "conf.a")
        m = symbolic_state(cfg, "conf.m") if split else None
        settled = settle(cfg, m) if m is not None else None
    return _Reading(cfg, a, m, settled, {i: e for i, (_, e) in enumerate(split)},
                    {id(t): i for i, t in enumerate(ts)}, shared)


def _value(model: z3.ModelRef, x: Any) -> Any:
    """``x``'s value under ``model`` (a Python value as it is), with no completion: a term that
    reads anything but the state's variables does not reduce to a constant and fails the check."""
    if not isinstance(x, z3.ExprRef):
        return x
    y = model.eval(x)
    if z3.is_int_value(y):
        return y.as_long()
    if z3.is_true(y):
        return True
    if z3.is_false(y):
        return False
    raise AssertionError(f"symbolic value did not reduce to a constant: {y}")


def _evaluate(model: z3.ModelRef, st: State) -> State:
    """The state of the values of ``st``'s entries under ``model``."""
    return State(tuple(tuple(_value(model, x) for x in v) if isinstance(v, tuple) else _value(model, v) for v in st))


def _assign(model: z3.ModelRef, variables: Sequence[Any], values: Sequence[Any], ctx: z3.Context) -> None:
    for var, val in zip(variables, values, strict=True):
        model.update_value(var, z3.IntVal(int(val), ctx))


def check_transition(cfg: Config, t: Transition, s: State) -> list[str]:
    """Differences between the concrete and the symbolic reading of ``t`` at ``s`` (empty: agree)."""
    r = _reading(cfg, z3.main_ctx())
    try:
        conds, post_terms = r.terms(t)
    except z3.Z3Exception as exc:  # e.g. Python's ``if`` on a state value: no Z3 reading at all
        return [f"{t.rule}: the rules cannot be read over Z3 variables: {exc}"]
    problems: list[str] = []
    ctx = r.ctx
    model = z3.Model(ctx)
    _assign(model, flat(r.a), flat(s), ctx)
    concrete_conds = [bool(c.test(s)) for c in t.conds]
    sym_conds = [bool(_value(model, x)) for x in conds]
    for c, a, b in zip(t.conds, concrete_conds, sym_conds, strict=True):
        if a != b:
            problems.append(f"{t.rule}: condition {c.id} is {a} concretely, {b} symbolically")
    if all(concrete_conds):
        post = t.effect(s)
        sym_post = _evaluate(model, post_terms)
        if r.m is not None and r.settled is not None and id(t) in r.index:  # then settle, built once
            _assign(model, flat(r.m), flat(sym_post), ctx)
            sym_post = _evaluate(model, r.settled)
        for f in FIELDS:
            a, b = getattr(post, f), getattr(sym_post, f)
            if a != b:
                problems.append(f"{t.rule}: field {f} is {a} concretely, {b} symbolically")
    return problems
