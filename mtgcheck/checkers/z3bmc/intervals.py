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
  sum, a difference, a product, a negation by the usual interval rules; ``If(c, x, y)``
  the hull of ``x`` and ``y``, or one of them when ``c`` is decided by the intervals; a
  comparison true, false or undecided by the intervals.  Any other operation: any value.
  Each rule over-approximates, so the interval of a term contains every value it takes.
* The entries after the step are the relation's frame terms (an ``If`` chain over the
  transitions, the entry before the step when none writes it) and then the state-based
  actions over those; their intervals are evaluated the same way.  The guards are left
  out: that adds steps the rules forbid, which can only widen the intervals.
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
import time
from typing import Any, Sequence

import z3

from mtgcheck.model.state import flat

from .relation import Encoding, as_term

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


def _compare(code: int, a: Interval, b: Interval) -> bool | None:
    if code in (GE, GT):  # b <= a, b < a
        a, b = b, a
        code = LE if code == GE else LT
    if code == LE:  # a <= b
        return True if a[1] <= b[0] else False if a[0] > b[1] else UNDECIDED
    return True if a[1] < b[0] else False if a[0] >= b[1] else UNDECIDED  # a < b


# Node codes of a compiled term DAG (:class:`Dag`).
(NUM, VAR, TRUE, FALSE, ITE, ADD, SUB, NEG, MUL, LE, LT, GE, GT, EQ, NOT, AND, OR, IMPLIES,
 ANY_INT, ANY_BOOL) = range(20)
_CODES = {z3.Z3_OP_ITE: ITE, z3.Z3_OP_ADD: ADD, z3.Z3_OP_SUB: SUB, z3.Z3_OP_UMINUS: NEG, z3.Z3_OP_MUL: MUL,
          z3.Z3_OP_LE: LE, z3.Z3_OP_LT: LT, z3.Z3_OP_GE: GE, z3.Z3_OP_GT: GT, z3.Z3_OP_EQ: EQ,
          z3.Z3_OP_NOT: NOT, z3.Z3_OP_AND: AND, z3.Z3_OP_OR: OR, z3.Z3_OP_IMPLIES: IMPLIES,
          z3.Z3_OP_TRUE: TRUE, z3.Z3_OP_FALSE: FALSE}


class Dag:
    """The terms' DAG, read once through Z3's C API into flat lists (children before their
    parents), so that each pass evaluates plain Python data: walking Z3's objects took most
    of a pass's time.  ``index[ast id]`` is a node's place."""

    def __init__(self, roots: Sequence[Any]) -> None:
        self.code: list[int] = []
        self.arg: list[Any] = []  # NUM: the value; VAR: the AST id; else the children's places
        self.index: dict[int, int] = {}
        if not roots:
            return
        ctx = roots[0].ctx.ref()
        int_sort, numeral, app = z3.Z3_INT_SORT, z3.Z3_NUMERAL_AST, z3.Z3_APP_AST
        for root in roots:
            todo: list[tuple[Any, bool]] = [(root.as_ast(), False)]
            while todo:
                a, ready = todo.pop()
                key = z3.Z3_get_ast_id(ctx, a)
                if key in self.index:
                    continue
                kind = z3.Z3_get_ast_kind(ctx, a)
                n = z3.Z3_get_app_num_args(ctx, a) if kind == app else 0
                kids = [z3.Z3_get_app_arg(ctx, a, i) for i in range(n)]
                if not ready and n:
                    todo.append((a, True))
                    todo.extend((k, False) for k in kids)
                    continue
                is_int = z3.Z3_get_sort_kind(ctx, z3.Z3_get_sort(ctx, a)) == int_sort
                if kind == numeral and is_int:
                    code, arg = NUM, int(z3.Z3_get_numeral_string(ctx, a))
                elif kind == app:
                    op = z3.Z3_get_decl_kind(ctx, z3.Z3_get_app_decl(ctx, a))
                    if op == z3.Z3_OP_UNINTERPRETED and not n:
                        code, arg = (VAR, key) if is_int else (ANY_BOOL, ())
                    else:
                        code = _CODES.get(op, ANY_INT if is_int else ANY_BOOL)
                        arg = tuple(self.index[z3.Z3_get_ast_id(ctx, k)] for k in kids)
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
            elif code == ITE:
                c, x, y = val[arg[0]], val[arg[1]], val[arg[2]]
                put(x if c is True else y if c is False else
                    (min(x[0], y[0]), max(x[1], y[1])) if isinstance(x, tuple) else x if x == y else UNDECIDED)
            elif code == ADD:
                put((sum(val[i][0] for i in arg), sum(val[i][1] for i in arg)))
            elif code == SUB:
                lo, hi = val[arg[0]]
                for i in arg[1:]:
                    lo, hi = lo - val[i][1], hi - val[i][0]
                put((lo, hi))
            elif code == NEG:
                put((-val[arg[0]][1], -val[arg[0]][0]))
            elif code == MUL:
                out = val[arg[0]]
                for i in arg[1:]:
                    out = _mul(out, val[i])
                put(out)
            elif code in (LE, LT, GE, GT):
                put(_compare(code, val[arg[0]], val[arg[1]]))
            elif code == EQ:
                a, b = val[arg[0]], val[arg[1]]
                if isinstance(a, tuple):
                    put(True if a[0] == a[1] == b[0] == b[1] else False if a[1] < b[0] or b[1] < a[0] else UNDECIDED)
                else:
                    put(UNDECIDED if a is UNDECIDED or b is UNDECIDED else a == b)
            elif code == NOT:
                a = val[arg[0]]
                put(UNDECIDED if a is UNDECIDED else not a)
            elif code == AND:
                xs = [val[i] for i in arg]
                put(False if False in xs else True if all(x is True for x in xs) else UNDECIDED)
            elif code == OR:
                xs = [val[i] for i in arg]
                put(True if True in xs else False if all(x is False for x in xs) else UNDECIDED)
            elif code == IMPLIES:
                a, b = val[arg[0]], val[arg[1]]
                put(True if (a is False or b is True) else False if (a is True and b is False) else UNDECIDED)
            elif code == TRUE:
                put(True)
            elif code == FALSE:
                put(False)
            else:
                put(ANY if code == ANY_INT else UNDECIDED)
        return val

    def value(self, values: list[Any], term: Any) -> Any:
        return values[self.index[term.get_id()]]


def _within(iv: Interval, lo: int | None, hi: int | None) -> bool:
    return (lo is None or iv[0] >= lo) and (hi is None or iv[1] <= hi)


def inductive_bounds(enc: Encoding, cands: Sequence[Any]) -> tuple[set[str], dict[str, Any]]:
    """The greatest set of the bound candidates (``Candidate.bound``) whose conjunction the
    interval pass shows inductive (module docstring), and figures of the passes."""
    t0 = time.monotonic()
    bounded = [c for c in cands if getattr(c, "bound", None) is not None]
    before = flat(enc.a)
    # With ``m``, the effects are before the state-based actions (settle, over ``m``);
    # without, they are settled already.
    middle = flat(enc.m) if enc.m is not None else None
    after = flat(enc.settled) if enc.settled is not None else []
    raws = [[as_term(x) for x in flat(e)] for e in enc.raw]
    after_terms = [as_term(x) for x in after]
    dag = Dag([x for r in raws for x in r] + after_terms)
    keep = {c.name for c in bounded}
    passes = 0
    while keep:
        passes += 1
        env: dict[int, Interval] = {}
        for c in bounded:
            if c.name in keep:
                col, lo, hi = c.bound
                var = before[col]
                old = env.get(var.get_id(), ANY)
                env[var.get_id()] = (max(old[0], -math.inf if lo is None else lo),
                                     min(old[1], math.inf if hi is None else hi))
        values = dag.evaluate(env)
        # Each entry after the action: the hull of its value under every transition and of
        # the frame (the entry before the step, when the transition taken leaves it).
        frame: list[Interval] = []
        for col, var in enumerate(before):
            ivs = [env.get(var.get_id(), ANY)] + [dag.value(values, r[col]) for r in raws]
            frame.append((min(i[0] for i in ivs), max(i[1] for i in ivs)))
        if middle is not None:  # then the state-based actions, over ``m`` with those intervals
            settled = dag.evaluate({x.get_id(): iv for x, iv in zip(middle, frame, strict=True)})
            step = {col: dag.value(settled, after_terms[col]) for col in range(len(after_terms))}
        else:
            step = dict(enumerate(frame))
        failed = {c.name for c in bounded if c.name in keep and not _within(step[c.bound[0]], *c.bound[1:])}
        if not failed:
            break
        keep -= failed
    return keep, {"interval_bounds": len(keep), "interval_candidates": len(bounded), "interval_passes": passes,
                  "interval_seconds": round(time.monotonic() - t0, 2)}


__all__ = ["inductive_bounds", "Dag", "ANY"]
