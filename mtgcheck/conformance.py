"""Conformance of the two readings of the one spec: concrete and symbolic (Z3).

The interpreter runs the rules on Python values; the Z3 encoding runs the very same code on
Z3 terms.  :func:`check_transition` evaluates a transition's guard and effect both ways on a
concrete state (the symbolic run on Z3 constants, simplified) and reports any difference.
This is what keeps "one spec" honest: a rule that used Python ``and``/``if`` on a state
value, or a fast path that drifted from its symbolic twin, shows up here.
"""

from __future__ import annotations

from typing import Any

import z3

from mtgcheck.model.actions import Transition
from mtgcheck.model.logic import symbolic
from mtgcheck.model.state import FIELDS, State


def _lift(s: State) -> State:
    vals: dict[str, Any] = {}
    for f in FIELDS:
        v = getattr(s, f)
        vals[f] = tuple(z3.IntVal(x) for x in v) if isinstance(v, tuple) else z3.IntVal(v)
    return State(**vals)


def _value(x: Any) -> Any:
    if isinstance(x, z3.ExprRef):
        y = z3.simplify(x)
        if z3.is_int_value(y):
            return y.as_long()
        if z3.is_true(y):
            return True
        if z3.is_false(y):
            return False
        raise AssertionError(f"symbolic value did not reduce to a constant: {y}")
    return x


def _lower(s: State) -> dict[str, Any]:
    out = {}
    for f in FIELDS:
        v = getattr(s, f)
        out[f] = tuple(_value(x) for x in v) if isinstance(v, tuple) else _value(v)
    return out


def check_transition(t: Transition, s: State) -> list[str]:
    """Differences between the concrete and the symbolic reading of ``t`` at ``s`` (empty: agree)."""
    problems: list[str] = []
    concrete_conds = [bool(c.test(s)) for c in t.conds]
    with symbolic():
        ls = _lift(s)
        sym_conds = [bool(_value(c.test(ls))) for c in t.conds]
    for c, a, b in zip(t.conds, concrete_conds, sym_conds, strict=True):
        if a != b:
            problems.append(f"{t.rule}: condition {c.id} is {a} concretely, {b} symbolically")
    if all(concrete_conds):
        post = t.effect(s)
        with symbolic():
            sym_post = _lower(t.effect(_lift(s)))
        for f in FIELDS:
            a = getattr(post, f)
            if a != sym_post[f]:
                problems.append(f"{t.rule}: field {f} is {a} concretely, {sym_post[f]} symbolically")
    return problems
