"""Dual helpers: the same rule code computes on plain Python values and on Z3 terms.

Every guard and effect in ``model/`` is written with these helpers instead of Python's
``and``/``or``/``if`` on state values, so that the concrete interpreter (``step``) and the
symbolic transition relation (Z3) come from one text (DESIGN.md, "One spec, three
checkers").  On concrete values they are ordinary Python; when any argument is a Z3 term
they build the corresponding Z3 expression.  Python control flow is still fine on the
*configuration* (card facts, player count), which is the same in both worlds.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence, TypeVar

import z3

T = TypeVar("T")
Val = Any  # int | bool | z3.ExprRef


_SYMBOLIC = [False]


def symbolic_mode() -> bool:
    """True while a Z3 encoding is being built (see :func:`symbolic`)."""
    return _SYMBOLIC[0]


class symbolic:
    """Context in which the helpers may meet Z3 terms.

    Outside it every value is concrete and the helpers take their fast path (plain
    ``all``/``any``/conditional), which is what the interpreter, the graph search and
    Hypothesis run; the Z3 encoder builds its terms inside it.
    """

    def __enter__(self) -> "symbolic":
        self._old = _SYMBOLIC[0]
        _SYMBOLIC[0] = True
        return self

    def __exit__(self, *exc: object) -> None:
        _SYMBOLIC[0] = self._old


def is_sym(x: object) -> bool:
    return _SYMBOLIC[0] and isinstance(x, z3.ExprRef)


def _any_sym(xs: Sequence[object]) -> bool:
    return _SYMBOLIC[0] and any(isinstance(x, z3.ExprRef) for x in xs)


def And(*xs: Val) -> Val:
    """Conjunction. On concrete values: ``all`` (no Z3 object is ever built)."""
    if _SYMBOLIC[0] and _any_sym(xs):
        return z3.And(*[z3.BoolVal(bool(x)) if not is_sym(x) else x for x in xs])
    return all(xs)


def Or(*xs: Val) -> Val:
    if _SYMBOLIC[0] and _any_sym(xs):
        return z3.Or(*[z3.BoolVal(bool(x)) if not is_sym(x) else x for x in xs])
    return any(xs)


def Not(x: Val) -> Val:
    if not _SYMBOLIC[0]:
        return not x
    return z3.Not(x) if is_sym(x) else not x


def Implies(a: Val, b: Val) -> Val:
    if not _SYMBOLIC[0]:
        return not a or bool(b)
    return Or(Not(a), b)


def If(c: Val, a: Val, b: Val) -> Val:
    """Choice by a condition. Concrete condition: one branch, as Python does."""
    if _SYMBOLIC[0] and is_sym(c):
        if not is_sym(a) and not is_sym(b) and a == b:
            return a
        if isinstance(a, bool) and isinstance(b, bool):
            return z3.If(c, z3.BoolVal(a), z3.BoolVal(b))
        return z3.If(c, a, b)
    return a if c else b


def Sum(xs: Iterable[Val]) -> Val:
    if not _SYMBOLIC[0]:
        return sum(xs)
    items = list(xs)
    if _any_sym(items):
        return z3.Sum([x if is_sym(x) else z3.IntVal(int(x)) for x in items]) if items else 0
    return sum(items)


def Count(conds: Iterable[Val]) -> Val:
    """How many of the conditions hold."""
    if not _SYMBOLIC[0]:
        return sum(1 for c in conds if c)
    return Sum(If(c, 1, 0) for c in conds)


def live(pairs: Iterable[tuple[Val, T]]) -> list[tuple[Val, T]]:
    """The (condition, value) pairs whose condition may hold: concretely, those whose
    condition is true; symbolically, every pair whose condition is a term.

    For a formula that only reads a pair under its condition (``Implies(c, ..)`` or
    ``Count(And(c, ..))``), dropping a pair whose condition is false changes nothing, and
    the concrete reading then costs what the pairs that hold cost, not the square of all
    of them.
    """
    if not _SYMBOLIC[0]:
        return [(c, v) for c, v in pairs if c]
    return [(c, v) for c, v in pairs if is_sym(c) or c]


def at(seq: Sequence[T], i: Val) -> T:
    """``seq[i]`` for a concrete or a symbolic index (an ``If`` chain over the bound)."""
    if not _SYMBOLIC[0] or not is_sym(i):
        return seq[i]
    out = seq[-1]
    for j in range(len(seq) - 2, -1, -1):
        out = If(i == j, seq[j], out)
    return out


def put(seq: tuple[T, ...], i: Val, v: T) -> tuple[T, ...]:
    """``seq`` with position ``i`` replaced by ``v`` (``i`` concrete or symbolic)."""
    if not _SYMBOLIC[0] or not is_sym(i):
        return seq[:i] + (v,) + seq[i + 1 :]
    return tuple(If(i == j, v, x) for j, x in enumerate(seq))


def first(conds: Sequence[Val], values: Sequence[Val], default: Val) -> Val:
    """The value of the first condition that holds, else ``default``."""
    out = default
    for c, v in zip(reversed(conds), reversed(values), strict=True):
        out = If(c, v, out)
    return out


def lazy_if(c: Val, then: Callable[..., T], other: Callable[..., T], merge: Callable[[Val, T, T], T]) -> T:
    """Branch on ``c``: concretely run one branch only; symbolically run both and merge.

    The branches are called with no argument; ``...`` admits lambdas that bind their loop
    variables as defaults (``lambda s=s: ...``).
    """
    if is_sym(c):
        return merge(c, then(), other())
    return then() if c else other()
