"""Bounds on single entries proved by interval arithmetic over the relation, without a query.

Why: of the consecution queries a proof from scratch asks, the largest share is one kind
of candidate, a constant bound on one entry of the state (``pos[twice] >= 0``,
``x[bolt] <= 3``).  On ``flashback`` 140 such queries took 86 of the 207 seconds, each
asking Z3 for a counterexample over the whole transition relation with every other
candidate assumed.  Most of them hold for a simple reason: the value after a step is a
count, a constant, a copy of a bounded entry, or a choice among such (``If``).  Interval
arithmetic over the relation's terms sees that in one pass.

The argument (abstract interpretation with the interval domain, the textbook way):

* Take a set ``R`` of bound candidates, each ``lo <= x_c <= hi`` on one column ``c``.
  Give every entry of the state before the step the interval its candidates in ``R`` allow
  (no candidate: any integer).  Every other variable of the relation (the action taken,
  the guards' switches) may hold any value.
* Evaluate, bottom up, an interval that contains every value each term of the relation
  can take when the entries before the step lie in their intervals: a numeral is itself; a
  sum, a difference, a product, a negation by the usual interval rules; ``x mod d`` for a
  divisor that cannot be 0, between 0 and ``|d| - 1`` (SMT-LIB's ``mod``: the remainder of
  the division rounding so that it is never negative), ``x`` itself when ``x`` lies there
  already (the turn order's ``(p + 1) % P``); ``If(c, x, y)``
  the hull of ``x`` and ``y``, or one of them when ``c`` is decided by the intervals; a
  comparison true, false or undecided by the intervals.  Any other operation: any value.
  Each rule over-approximates, so the interval of a term contains every value it takes.
* The entries after the step are the relation's frame terms (an ``If`` chain over the
  transitions, the entry before the step when none writes it) and then the state-based
  actions over those; their intervals are evaluated the same way.  A transition's effect
  applies only where its guard holds (with every rule's switch on, as every query assumes
  them: ``Encoding.plain_guards``), so where an entry's value leaves its interval it is
  evaluated again with the variables narrowed by the guard's comparisons with a numeral
  (:meth:`Dag.narrowed`: every value left out makes a conjunct false), and a transition
  whose guard is false wherever ``R`` holds takes no step (:func:`.bound_pass._under_guards`).
  The guard's other conjuncts are left out: that adds steps the rules forbid, which can only
  widen the intervals.
* If every candidate of ``R`` holds on the interval of its entry after the step, then from
  any state where all of ``R`` holds, every step leads to one where all of ``R`` holds: the
  conjunction of ``R`` is inductive.  Each candidate also holds in every initial state (the
  closure's candidates are checked for that first), so ``R`` holds in every reachable state.
* A candidate that fails is taken out of ``R`` (it may still be proved by a query) and the
  pass is repeated, until nothing fails: the greatest such ``R``, found in a few passes.

Nothing here trusts the sample or the candidates' names: only the relation's own terms.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import z3

Interval = tuple[float, float]
ANY: Interval = (-math.inf, math.inf)
UNDECIDED = None


def _mul(a: Interval, b: Interval) -> Interval:
    products = []
    for x in a:
        for y in b:
            # 0 * inf counts as 0: the interval's end is a limit, not a value
            products.append(0.0 if (x == 0 or y == 0) else x * y)
    return (min(products), max(products))


def compare(code: int, a: Interval, b: Interval) -> bool | None:
    if code in (GE, GT):  # b <= a, b < a
        a, b = b, a
        code = LE if code == GE else LT
    if code == LE:  # a <= b
        return True if a[1] <= b[0] else False if a[0] > b[1] else UNDECIDED
    return True if a[1] < b[0] else False if a[0] >= b[1] else UNDECIDED  # a < b


# Node codes of a compiled term DAG (:class:`Dag`).
(NUM, VAR, TRUE, FALSE, ITE, ADD, SUB, NEG, MUL, LE, LT, GE, GT, EQ, NOT, AND, OR, IMPLIES,
 ANY_INT, ANY_BOOL, DISTINCT, MOD) = range(22)
_CODES = {z3.Z3_OP_ITE: ITE, z3.Z3_OP_ADD: ADD, z3.Z3_OP_SUB: SUB, z3.Z3_OP_UMINUS: NEG, z3.Z3_OP_MUL: MUL,
          z3.Z3_OP_LE: LE, z3.Z3_OP_LT: LT, z3.Z3_OP_GE: GE, z3.Z3_OP_GT: GT, z3.Z3_OP_EQ: EQ,
          z3.Z3_OP_NOT: NOT, z3.Z3_OP_AND: AND, z3.Z3_OP_OR: OR, z3.Z3_OP_IMPLIES: IMPLIES,
          z3.Z3_OP_TRUE: TRUE, z3.Z3_OP_FALSE: FALSE, z3.Z3_OP_MOD: MOD}


def unchecked(wrapper: Any) -> Any:
    """Z3's C function behind one of ``z3core``'s wrappers, called without the wrapper's
    check of Z3's error state after it (the wrapper itself if ``z3core`` is not shaped so).

    Why: the Dag's reads of a valid term (its id, kind, arguments, sort, operator) never set
    an error, and the check after each was half the time of reading a relation's terms
    (``examples/scale/04-plot-14``: 59,399 terms, 30,602 nodes, 1.03 s to 0.62 s)."""
    elems = (getattr(wrapper, "__defaults__", None) or (None,))[-1]
    return getattr(elems, "f", wrapper)


class Dag:
    """The terms' DAG, read once through Z3's C API into flat lists (children before their
    parents), so that each pass evaluates plain Python data: walking Z3's objects took most
    of a pass's time.  ``index[ast id]`` is a node's place."""

    def __init__(self, roots: Sequence[Any]) -> None:
        self.code: list[int] = []
        self.arg: list[Any] = []  # NUM: the value; VAR: the AST id; else the children's places
        self.index: dict[int, int] = {}
        self._keep: list[Any] = []
        self.add(roots)

    def add(self, roots: Sequence[Any]) -> None:
        """Read more terms in: their nodes not read yet are appended, after those they read
        (the places already given stay as they are).  The terms are kept: an AST's id is
        Z3's to give again once the AST is freed, and ``index`` must not then name the new
        term's place by the old one's."""
        if not roots:
            return
        self._keep.extend(roots)
        ctx = roots[0].ctx.ref()
        int_sort, numeral, app = z3.Z3_INT_SORT, z3.Z3_NUMERAL_AST, z3.Z3_APP_AST
        ast_id, ast_kind, num_args, app_arg, sort_kind, get_sort, decl_kind, app_decl = map(unchecked, (
            z3.Z3_get_ast_id, z3.Z3_get_ast_kind, z3.Z3_get_app_num_args, z3.Z3_get_app_arg,
            z3.Z3_get_sort_kind, z3.Z3_get_sort, z3.Z3_get_decl_kind, z3.Z3_get_app_decl))
        index = self.index
        for root in roots:
            top = root.as_ast()
            if ast_id(ctx, top) in index:
                continue
            todo: list[tuple[Any, bool]] = [(top, False)]
            while todo:
                a, ready = todo.pop()
                key = ast_id(ctx, a)
                if key in index:
                    continue
                kind = ast_kind(ctx, a)
                n = num_args(ctx, a) if kind == app else 0
                kids = [app_arg(ctx, a, i) for i in range(n)]
                if not ready and n:
                    todo.append((a, True))
                    todo.extend((k, False) for k in kids)
                    continue
                is_int = sort_kind(ctx, get_sort(ctx, a)) == int_sort
                if kind == numeral and is_int:
                    code, arg = NUM, int(z3.Z3_get_numeral_string(ctx, a))
                elif kind == app:
                    op = decl_kind(ctx, app_decl(ctx, a))
                    if op == z3.Z3_OP_UNINTERPRETED and not n:
                        code, arg = (VAR, key) if is_int else (ANY_BOOL, ())
                    else:
                        code = _CODES.get(op, ANY_INT if is_int else ANY_BOOL)
                        if op == z3.Z3_OP_DISTINCT and n == 2:  # ``x != y``: not ``x == y``
                            code = DISTINCT
                        arg = tuple(index[ast_id(ctx, k)] for k in kids)
                else:
                    code, arg = (ANY_INT if is_int else ANY_BOOL), ()
                self.index[key] = len(self.code)
                self.code.append(code)
                self.arg.append(arg)

    def evaluate(self, env: dict[int, Interval]) -> list[Any]:
        """Every node's value: an interval for an integer, True/False/None (undecided) for a
        Boolean, given the variables' intervals (by AST id; any integer if absent)."""
        val: list[Any] = []
        put = val.append
        for code, arg in zip(self.code, self.arg, strict=True):
            if code == NUM:
                put((arg, arg))
            elif code == VAR:
                put(env.get(arg, ANY))
            else:
                put(node_value(code, [val[i] for i in arg]))
        return val

    def value(self, values: list[Any], term: Any) -> Any:
        return values[self.index[term.get_id()]]

    def cone(self, roots: Sequence[int]) -> list[int]:
        """The places of the nodes ``roots`` read, children before their parents."""
        seen: set[int] = set()
        todo = list(roots)
        code, arg = self.code, self.arg
        while todo:
            p = todo.pop()
            if p in seen:
                continue
            seen.add(p)
            if code[p] not in (NUM, VAR):
                todo.extend(arg[p])
        return sorted(seen)  # children before their parents (the Dag's order)

    def evaluate_cone(self, cone: Sequence[int], env: dict[int, Interval]) -> dict[int, Any]:
        """:meth:`evaluate` of the nodes ``cone`` only (children before their parents)."""
        val: dict[int, Any] = {}
        code, arg = self.code, self.arg
        for p in cone:
            c = code[p]
            val[p] = (arg[p], arg[p]) if c == NUM else env.get(arg[p], ANY) if c == VAR else \
                node_value(c, [val[q] for q in arg[p]])
        return val

    def narrowed(self, guard: int, env: dict[int, Interval]) -> dict[int, Interval] | None:
        """``env`` with each variable narrowed by what the Boolean node ``guard`` says of it
        when true: the conjuncts that compare a variable with a numeral (``step == 2``,
        ``mana[0] >= 1``).  None: some variable has no value left, so ``guard`` is false
        wherever ``env`` holds.  Why sound: every value the narrowed intervals leave out makes
        a conjunct, so the guard, false."""
        out = dict(env)
        todo = [guard]
        code, arg = self.code, self.arg
        while todo:
            p = todo.pop()
            c = code[p]
            if c == AND:
                todo.extend(arg[p])
                continue
            if c not in (LE, LT, GE, GT, EQ):
                continue
            x, y = arg[p]
            if code[x] == NUM and code[y] == VAR:
                x, y, c = y, x, {LE: GE, LT: GT, GE: LE, GT: LT, EQ: EQ}[c]
            if code[x] != VAR or code[y] != NUM:
                continue
            k, n = arg[x], arg[y]
            lo, hi = out.get(k, ANY)
            if c in (LE, EQ):
                hi = min(hi, n)
            if c == LT:
                hi = min(hi, n - 1)
            if c in (GE, EQ):
                lo = max(lo, n)
            if c == GT:
                lo = max(lo, n + 1)
            if lo > hi:
                return None
            out[k] = (lo, hi)
        return out


def node_value(code: int, xs: list[Any]) -> Any:
    """The value of a node other than a numeral or a variable, from its children's values
    (intervals for integers, True/False/None for Booleans): the rules of the module docstring."""
    if code == ITE:
        c, x, y = xs
        return x if c is True else y if c is False else \
            (min(x[0], y[0]), max(x[1], y[1])) if isinstance(x, tuple) else x if x == y else UNDECIDED
    if code == ADD:
        return (sum(x[0] for x in xs), sum(x[1] for x in xs))
    if code == SUB:
        lo, hi = xs[0]
        for x in xs[1:]:
            lo, hi = lo - x[1], hi - x[0]
        return (lo, hi)
    if code == NEG:
        return (-xs[0][1], -xs[0][0])
    if code == MUL:
        out = xs[0]
        for x in xs[1:]:
            out = _mul(out, x)
        return out
    if code == MOD:
        x, d = xs
        if d[0] <= 0 <= d[1]:
            return ANY  # mod by 0 is any value
        top = max(abs(d[0]), abs(d[1])) - 1
        return x if 0 <= x[0] and x[1] <= min(abs(d[0]), abs(d[1])) - 1 else (0, top)
    if code in (LE, LT, GE, GT):
        return compare(code, xs[0], xs[1])
    if code == DISTINCT:
        same = node_value(EQ, xs)
        return UNDECIDED if same is UNDECIDED else not same
    if code == EQ:
        a, b = xs
        if isinstance(a, tuple):
            return True if a[0] == a[1] == b[0] == b[1] else False if a[1] < b[0] or b[1] < a[0] else UNDECIDED
        return UNDECIDED if a is UNDECIDED or b is UNDECIDED else a == b
    if code == NOT:
        return UNDECIDED if xs[0] is UNDECIDED else not xs[0]
    if code == AND:
        return False if False in xs else True if all(x is True for x in xs) else UNDECIDED
    if code == OR:
        return True if True in xs else False if all(x is False for x in xs) else UNDECIDED
    if code == IMPLIES:
        a, b = xs
        return True if (a is False or b is True) else False if (a is True and b is False) else UNDECIDED
    if code == TRUE:
        return True
    if code == FALSE:
        return False
    return ANY if code == ANY_INT else UNDECIDED


__all__ = ["Dag", "ANY", "Interval", "UNDECIDED", "compare", "node_value"]
