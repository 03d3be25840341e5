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


# --- Z3 terms through its C API ---------------------------------------------------------------
# Why: z3py's ``And``, ``Or``, ``If``, ``Sum`` and ``Implies`` coerce and sort-check every
# argument in Python, and ``IntVal`` makes a sort object for each numeral; the relation, the
# invariant candidates and the renumbering lemma build hundreds of thousands of such terms
# (on ``examples/scale/04-plot-14``, about a fifth of a check's Python time).  These make the
# same terms through Z3's C functions (z3py's wrappers of them still check Z3's error state:
# a Boolean where an integer is due is made ``If(b, 1, 0)``, as z3py makes it, and an
# integer where a Boolean is due is an error, as in z3py).  Arguments are terms of one context.


def ast_array(terms: Sequence[Any]) -> Any:
    """The terms as the array of ASTs Z3's C API takes (the caller keeps the terms alive:
    the array holds no reference)."""
    return (z3.Ast * len(terms))(*[t.as_ast() for t in terms])


def mk_and(terms: Sequence[Any]) -> Any:
    """``z3.And(terms)`` of Boolean terms (True for none)."""
    if not terms:
        return z3.BoolVal(True)
    ctx = terms[0].ctx
    return z3.BoolRef(z3.Z3_mk_and(ctx.ref(), len(terms), ast_array(terms)), ctx)


def mk_or(terms: Sequence[Any]) -> Any:
    """``z3.Or(terms)`` of Boolean terms (False for none)."""
    if not terms:
        return z3.BoolVal(False)
    ctx = terms[0].ctx
    return z3.BoolRef(z3.Z3_mk_or(ctx.ref(), len(terms), ast_array(terms)), ctx)


def mk_not(a: Any) -> Any:
    return z3.BoolRef(z3.Z3_mk_not(a.ctx.ref(), a.as_ast()), a.ctx)


def mk_implies(a: Any, b: Any) -> Any:
    """``z3.Implies(a, b)`` of two Boolean terms."""
    return z3.BoolRef(z3.Z3_mk_implies(a.ctx.ref(), a.as_ast(), b.as_ast()), a.ctx)


def mk_eq(a: Any, b: Val) -> Any:
    """``a == b`` of a term and a term or a Python value of its sort (z3py's ``==``)."""
    return z3.BoolRef(z3.Z3_mk_eq(a.ctx.ref(), a.as_ast(), term(b, a.ctx).as_ast()), a.ctx)


def mk_ite(c: Any, a: Any, b: Any) -> Any:
    """``z3.If(c, a, b)`` of a Boolean ``c`` and two terms (Z3 makes a Boolean branch an
    integer against an integer one, as z3py does)."""
    ast = z3.Z3_mk_ite(c.ctx.ref(), c.as_ast(), a.as_ast(), b.as_ast())
    both_bool = isinstance(a, z3.BoolRef) and isinstance(b, z3.BoolRef)
    arith = isinstance(a, z3.ArithRef) or isinstance(b, z3.ArithRef)
    return (z3.BoolRef if both_bool else z3.ArithRef if arith else z3.ExprRef)(ast, c.ctx)


def mk_add(terms: Sequence[Any]) -> Any:
    """``z3.Sum(terms)`` of integer terms (at least one)."""
    ctx = terms[0].ctx
    return z3.ArithRef(z3.Z3_mk_add(ctx.ref(), len(terms), ast_array(terms)), ctx)


#: The numerals and truth values made for the last context (a context's terms are its own).
_CONSTANTS: list[Any] = [None, {}]


def constant(x: bool | int, ctx: z3.Context) -> Any:
    """``z3.BoolVal(x)`` or ``z3.IntVal(x)`` in ``ctx``, made once."""
    if _CONSTANTS[0] is not ctx:
        _CONSTANTS[0], _CONSTANTS[1] = ctx, {}
    made = _CONSTANTS[1]
    key = (type(x) is bool, int(x))
    got = made.get(key)
    if got is None:
        got = made[key] = z3.BoolVal(x, ctx) if key[0] else z3.IntVal(x, ctx)
    return got


def term(x: Val, ctx: z3.Context) -> Any:
    """``x`` as a Z3 term of ``ctx`` (a Python bool or int as a constant)."""
    return x if isinstance(x, z3.ExprRef) else constant(x if isinstance(x, bool) else int(x), ctx)


def _ctx(xs: Sequence[object]) -> z3.Context:
    return next(x for x in xs if isinstance(x, z3.ExprRef)).ctx


def And(*xs: Val) -> Val:
    """Conjunction. On concrete values: ``all`` (no Z3 object is ever built).

    Symbolically, a concrete conjunct is read at once: a false one makes the conjunction
    ``False``, a true one is left out, and a conjunction of one term is that term.  Z3
    would build ``and(x, true)`` as asked; the rules' guards and effects mix concrete tests
    (of a slot's card, of a configuration) with the state's, and kept, those were one term in
    twelve of the relation."""
    if _SYMBOLIC[0] and _any_sym(xs):
        if any(not is_sym(x) and not x for x in xs):
            return False
        terms = [x for x in xs if is_sym(x)]
        return terms[0] if len(terms) == 1 and isinstance(terms[0], z3.BoolRef) else mk_and(terms)
    return all(xs)


def Or(*xs: Val) -> Val:
    """Disjunction: as :func:`And`, a true disjunct makes it ``True``, a false one is left out."""
    if _SYMBOLIC[0] and _any_sym(xs):
        if any(not is_sym(x) and x for x in xs):
            return True
        terms = [x for x in xs if is_sym(x)]
        return terms[0] if len(terms) == 1 and isinstance(terms[0], z3.BoolRef) else mk_or(terms)
    return any(xs)


def Not(x: Val) -> Val:
    if not _SYMBOLIC[0]:
        return not x
    return mk_not(x) if is_sym(x) else not x


def Implies(a: Val, b: Val) -> Val:
    if not _SYMBOLIC[0]:
        return not a or bool(b)
    return Or(Not(a), b)


def If(c: Val, a: Val, b: Val) -> Val:
    """Choice by a condition. Concrete condition: one branch, as Python does."""
    if _SYMBOLIC[0] and is_sym(c):
        if is_sym(a) != is_sym(b):
            return mk_ite(c, term(a, c.ctx), term(b, c.ctx))
        if (a is b or (a.eq(b) if is_sym(a) else a == b)) and isinstance(c, z3.BoolRef):
            # One value either way (Z3 shares equal terms: the same term is the same AST).
            # Z3 builds ``ite(c, a, a)`` as asked; a branch of two states that both leave an
            # entry alone would otherwise carry one such term per entry of the state.
            return a
        return mk_ite(c, term(a, c.ctx), term(b, c.ctx))
    return a if c else b


def Sum(xs: Iterable[Val]) -> Val:
    if not _SYMBOLIC[0]:
        return sum(xs)
    items = list(xs)
    if _any_sym(items):
        ctx = _ctx(items)
        return mk_add([x if is_sym(x) else constant(int(x), ctx) for x in items])
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
