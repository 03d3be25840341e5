"""Bounds of one entry against another (``oid[x] <= next_oid-1``) shown by linear arithmetic over the terms.

Why: the layout declares bounds of an entry against a scalar (an object id below the next
free one, a turn a card was cast or plotted no later than this one).  No interval proves
them, and each was a consecution query over the whole relation: on
``examples/scale/04-plot-14`` from scratch, the 14 ``oid[x] <= next_oid-1`` were 18 queries
and 6.1M of the induction's 55.6M, and ``object-ids-fresh``'s step case rests on them.  They
hold for a reason a pass over the terms sees: a moving card's new id is ``next_oid + i``, and
``next_oid`` then grows by the size of its group.

The argument extends the interval pass's (:mod:`.intervals`), abstract interpretation over
the relation's terms, with a second component per integer term, a *linear form*:

* A form is a sum of atoms with integer coefficients plus an interval: the term's value is
  that sum plus some number in the interval.  The atoms are the variables and the choices
  (``If``) whose two sides have different forms; each atom's own interval is known (a
  variable's from the bounds assumed, a choice's by the interval rules).
* A numeral is a constant; a variable is itself.  Sums, differences, negations and products by a constant combine
  forms exactly; a choice decided by the intervals is its side's form, one whose sides have
  the same form is that form, any other is an atom.  Any other operation is an atom.  So an
  atom stands for one value wherever it occurs: ``next_oid + If(m, 2, 0)`` minus itself is 0.
* Each form contains every value its term takes: it is built by exact rules, or stands for
  the term itself.  A form's range bounds the term, as the interval does, and comparisons
  are decided by either.  The range replaces each atom by its interval; and where the set
  ``R`` being checked holds a relation ``x <= r + off`` for a variable, a second range writes
  ``x`` as ``r`` plus an offset at most ``off`` (all ``R`` assumes of it), so that ``r`` may
  cancel: both contain every value, so their intersection does.
* The two sides of a relation after the step are evaluated together, and their difference
  bounded by its form's range.  Where it follows only from a correlation the form does not
  hold (the card moved, so its group took its ids: ``If(m, next+1, oid)`` against
  ``next + If(Or(m, m'), 2, 0)``), the evaluation is split on the condition of a choice left in
  the difference, nearest the roots: once with it true, once false (a condition assumed true
  makes its ``And``'s children true, false its ``Or``'s; a branch whose assumptions contradict
  a decided value is no case at all).  The relation holds if it holds in every branch: the
  branches cover every value of the condition.
* The step is read as the interval pass reads it: per transition, the effect before the
  state-based actions (``Encoding.raw``), then those actions over the intermediate state
  ``m`` (``Encoding.settled``), with the relations shown on every transition's effect
  assumed of ``m`` (each holds whichever transition was taken), and ``m``'s intervals the
  hull of the transitions'.  The guards are left out, which only adds steps.

So a relation shown after both stages holds after every step from a state where ``R``
holds: :func:`.bound_pass.inductive_bounds` keeps the greatest ``R`` so shown, with the
bound candidates.
"""

from __future__ import annotations

from typing import Any, Sequence

from .intervals import (ADD, AND, ANY, ANY_INT, DISTINCT, EQ, GE, GT, ITE, LE, LT, MOD, MUL, NEG, NOT, NUM, OR, SUB, VAR, Dag,
                        Interval, UNDECIDED, compare, node_value)

#: A linear form: atom -> coefficient, and the constant's interval.  An atom is a variable
#: (its AST id, >= 0) or a choice or other operation (its Dag place ``p`` as ``-p - 1``).
Form = tuple[dict[int, int], float, float]
#: How many conditions one check may split on, along one branch (2**SPLITS evaluations at most).
SPLITS = 6


class Differences:
    """Evaluation of two terms' relation (:meth:`at_most`), or of a Boolean term
    (:meth:`always`, for :mod:`.step_pass`), over a :class:`.intervals.Dag`, with linear forms
    and case splits (module docstring), given intervals ``env`` and relations ``rel``
    (variable id -> (reference variable id, offset): the variable is at most the reference
    plus the offset) of the variables."""

    def __init__(self, dag: Dag, env: dict[int, Interval], rel: dict[int, tuple[int, int]]) -> None:
        self.dag, self.env, self.rel = dag, env, rel
        self._shown: dict[tuple[int, int, int], bool] = {}
        self._always: dict[int, bool] = {}
        #: Every node's value with nothing assumed, filled as the Dag grows (:meth:`always`).
        self._plain: dict[int, Any] | None = None

    def at_most(self, x: Any, y: Any, off: int) -> bool:
        """Whether ``x <= y + off`` holds for every value of the variables the intervals and
        relations allow (False: not shown, which is not a counterexample)."""
        return self.at_most_places(self.dag.index[x.get_id()], self.dag.index[y.get_id()], off)

    def at_most_places(self, ix: int, iy: int, off: int) -> bool:
        """:meth:`at_most` of the Dag's nodes at places ``ix`` and ``iy``."""
        key = (ix, iy, off)
        if key not in self._shown:
            self._shown[key] = self._holds(ix, iy, off, self.cone((ix, iy)), {}, SPLITS)
        return self._shown[key]

    def always(self, term: Any, splits: int = SPLITS) -> bool:
        """Whether the Boolean ``term`` is true for every value of the variables the
        intervals and relations allow (False: not shown).  Undecided, the evaluation splits
        on a condition the undecided part reads (:meth:`_read_condition`), at most
        ``splits`` deep: the term holds if it holds in both cases."""
        ix = self.dag.index[term.get_id()]
        if ix not in self._always:
            plain = self._plain_values()[ix]
            self._always[ix] = plain is True or (plain is not False and self._true(ix, self.cone((ix,)), {}, splits))
        return self._always[ix]

    def _plain_values(self) -> dict[int, Any]:
        """Every node's value with nothing assumed (a node's value reads only its own cone, so
        it is the value in any cone), evaluated at once and again only for the nodes the Dag
        read in since: most terms are decided so, and a case split reads the rest from it."""
        if self._plain is None:
            self._plain = {}
        if len(self._plain) < len(self.dag.code):
            self._evaluate(list(range(len(self._plain), len(self.dag.code))), {}, into=self._plain)
        return self._plain

    def _true(self, ix: int, cone: list[int], assume: dict[int, bool], splits: int) -> bool:
        val = self._evaluate(cone, assume, self._plain_values()) if assume else self._plain_values()
        if val is None or val[ix] is True:
            return True  # (None: the assumptions contradict a decided value: no such case)
        if val[ix] is False or not splits:
            return False
        cond = self._read_condition(ix, val, assume)
        if cond is None:
            return False
        return all(self._true(ix, cone, self._assumed(assume, cond, b), splits - 1) for b in (True, False))

    def _read_condition(self, root: int, val: dict[int, Any], assume: dict[int, bool]) -> int | None:
        """The undecided condition nearest ``root`` (breadth first) of a choice whose two
        sides differ, through the nodes not decided yet: what the term's value waits on."""
        code, arg = self.dag.code, self.dag.arg
        seen, layer = {root}, [root]
        while layer:
            below = []
            for p in layer:
                c = code[p]
                if c == ITE:
                    q, x, y = arg[p][0], val[arg[p][1]], val[arg[p][2]]
                    if val[q] is UNDECIDED and q not in assume and \
                            (x[1] != y[1] if isinstance(x, tuple) else x != y):
                        return int(q)
                if c in (NUM, VAR):
                    continue
                for q in arg[p]:
                    if q not in seen and val[q] is not True and val[q] is not False:
                        seen.add(q)
                        below.append(q)
            layer = below
        return None

    def cone(self, roots: Sequence[int]) -> list[int]:
        return self.dag.cone(roots)

    def _holds(self, ix: int, iy: int, off: int, cone: list[int], assume: dict[int, bool], splits: int) -> bool:
        # (nothing assumed: the plain values; a case: those it changes, the rest read from them)
        val = self._evaluate(cone, assume, self._plain_values()) if assume else self._plain_values()
        if val is None:
            return True  # the assumptions contradict a decided value: no such case
        (_, hx), fx = val[ix]
        (ly, _), fy = val[iy]
        diff = _combine(fx, fy, -1)
        if hx - ly <= off or self._range(diff, val)[1] <= off:
            return True
        if not splits:
            return False
        cond = self._split_on(diff, cone, val, assume)
        if cond is None:
            return False
        return all(self._holds(ix, iy, off, cone, self._assumed(assume, cond, b), splits - 1) for b in (True, False))

    def _split_on(self, diff: Form, cone: list[int], val: dict[int, Any], assume: dict[int, bool]) -> int | None:
        """The condition to split on: that of the choice nearest the roots among the atoms
        left in the difference, else of any undecided choice of the cone."""
        code, arg = self.dag.code, self.dag.arg
        atoms = sorted((-k - 1 for k in diff[0] if k < 0), reverse=True)
        for p in [*atoms, *reversed(cone)]:
            if code[p] == ITE and val[arg[p][0]] is UNDECIDED and arg[p][0] not in assume:
                return int(arg[p][0])
        return None

    def _assumed(self, assume: dict[int, bool], p: int, b: bool) -> dict[int, bool]:
        """``assume`` with node ``p`` equal to ``b``, and what that says of its children."""
        out = dict(assume)
        todo = [(p, b)]
        code, arg = self.dag.code, self.dag.arg
        while todo:
            q, v = todo.pop()
            if q in out:
                if out[q] != v:
                    out[q] = UNDECIDED  # a clash: no such case (:meth:`_evaluate`)
                continue
            out[q] = v
            if code[q] == NOT:
                todo.append((arg[q][0], not v))
            elif (code[q] == AND and v) or (code[q] == OR and not v):
                todo.extend((c, v) for c in arg[q])
        return out

    def _evaluate(self, cone: list[int], assume: dict[int, bool],
                  base: dict[int, Any] | None = None, into: dict[int, Any] | None = None) -> dict[int, Any] | None:
        """Every node of the cone: ``(interval, form)`` for an integer, a truth value (or
        UNDECIDED) for a Boolean; None if the assumptions clash with each other or with a
        decided value.  ``base``: the values with nothing assumed, kept for every node that
        is not assumed and reads none that is (a node's value reads only its own).  ``into``:
        the dict the values go into, which already holds those of the nodes the cone reads
        but leaves out (the plain values of a Dag that grows: :meth:`_plain_values`)."""
        code, arg = self.dag.code, self.dag.arg
        val: dict[int, Any] = into if into is not None else {}
        moved: set[int] = set()
        for p in cone:
            c, a = code[p], arg[p]
            if base is not None and p not in assume and (c in (NUM, VAR) or moved.isdisjoint(a)):
                val[p] = base[p]
                continue
            moved.add(p)
            if c == NUM:
                v: Any = ((a, a), ({}, a, a))
            elif c == VAR:
                v = self._variable(a)
            elif c == ITE:
                cond = assume.get(a[0], val[a[0]])
                x, y = val[a[1]], val[a[2]]
                if cond is True or cond is False:
                    v = x if cond else y
                elif not isinstance(x, tuple):
                    v = x if x == y else UNDECIDED
                else:
                    iv = (min(x[0][0], y[0][0]), max(x[0][1], y[0][1]))
                    v = (iv, x[1] if x[1] == y[1] else ({-p - 1: 1}, 0, 0))
            elif c in (ADD, SUB, NEG, MUL):
                v = self._arithmetic(c, [val[q] for q in a], p)
            elif c == MOD:  # its interval; no linear form tells its value: a form of its own
                v = (node_value(c, [val[q][0] for q in a]), ({-p - 1: 1}, 0, 0))
            elif c in (LE, LT, GE, GT, EQ, DISTINCT) and isinstance(val[a[0]], tuple):
                v = self._compare(c, val[a[0]], val[a[1]], val)
            else:  # a Boolean connective or comparison, or an operation no rule reads
                v = node_value(c, [val[q] for q in a])
                if c == ANY_INT:
                    v = (v, ({-p - 1: 1}, 0, 0))
            if p in assume:
                if assume[p] is UNDECIDED or (v is not UNDECIDED and v != assume[p]):
                    return None
                v = assume[p]
            elif isinstance(v, tuple):  # the interval, narrowed by the form's range
                r = self._range(v[1], val, own=(p, v[0]))
                v = ((max(v[0][0], r[0]), min(v[0][1], r[1])), v[1])
            val[p] = v
        return val

    def _variable(self, key: int) -> tuple[Interval, Form]:
        return self.env.get(key, ANY), ({key: 1}, 0, 0)

    def _arithmetic(self, c: int, xs: list[Any], p: int) -> tuple[Interval, Form]:
        iv = node_value(c, [x[0] for x in xs])
        if c == ADD:
            out = xs[0][1]
            for x in xs[1:]:
                out = _combine(out, x[1], 1)
            return iv, out
        if c == SUB:
            out = xs[0][1]
            for x in xs[1:]:
                out = _combine(out, x[1], -1)
            return iv, out
        if c == NEG:
            return iv, _scale(xs[0][1], -1)
        const = [not x[1][0] and x[1][1] == x[1][2] for x in xs]
        if sum(const) >= len(xs) - 1:  # a product by constants
            k = 1
            for x, is_const in zip(xs, const, strict=True):
                k *= int(x[1][1]) if is_const else 1
            rest = [x for x, is_const in zip(xs, const, strict=True) if not is_const]
            return iv, _scale(rest[0][1], k) if rest else ({}, k, k)
        return iv, ({-p - 1: 1}, 0, 0)

    def _compare(self, c: int, x: Any, y: Any, val: dict[int, Any]) -> Any:
        """A comparison decided by the intervals, else by the range of the forms' difference."""
        out = node_value(c, [x[0], y[0]])
        if out is not UNDECIDED:
            return out
        lo, hi = self._range(_combine(x[1], y[1], -1), val)
        if c in (EQ, DISTINCT):
            same = False if lo > 0 or hi < 0 else True if lo == hi == 0 else UNDECIDED
            return same if c == EQ or same is UNDECIDED else not same
        return compare(c, (lo, hi), (0, 0))

    def _range(self, f: Form, val: dict[int, Any], own: tuple[int, Interval] | None = None) -> Interval:
        """The form's range: each atom replaced by its interval; and, where a variable has a
        relation, with the variable written as its reference plus an offset (``x = r + d``,
        ``d <= off``), so that the reference may cancel.  Both contain every value: their
        intersection is the range."""
        plain = self._atoms_range(f, val, own)
        related = [k for k in f[0] if k in self.rel]
        if not related:
            return plain
        coeffs, lo, hi = dict(f[0]), f[1], f[2]
        for k in related:
            c = coeffs.pop(k)
            r, off = self.rel[k]
            ix, ir = self.env.get(k, ANY), self.env.get(r, ANY)
            d = (ix[0] - ir[1], min(off, ix[1] - ir[0]))  # the offset's interval
            a, b = (c * d[0], c * d[1]) if c > 0 else (c * d[1], c * d[0])
            lo, hi = lo + a, hi + b
            if coeffs.get(r, 0) + c:
                coeffs[r] = coeffs.get(r, 0) + c
            else:
                coeffs.pop(r, None)
        subst = self._atoms_range((coeffs, lo, hi), val, own)
        return (max(plain[0], subst[0]), min(plain[1], subst[1]))

    def _atoms_range(self, f: Form, val: dict[int, Any], own: tuple[int, Interval] | None) -> Interval:
        lo, hi = f[1], f[2]
        for k, coef in f[0].items():
            if k >= 0:
                iv = self.env.get(k, ANY)
            elif own is not None and -k - 1 == own[0]:
                iv = own[1]
            else:
                iv = val[-k - 1][0]
            a, b = (coef * iv[0], coef * iv[1]) if coef > 0 else (coef * iv[1], coef * iv[0])
            lo, hi = lo + a, hi + b
        return (lo, hi)


def _combine(f: Form, g: Form, sign: int) -> Form:
    """``f + sign * g``."""
    coeffs = dict(f[0])
    for k, c in g[0].items():
        v = coeffs.get(k, 0) + sign * c
        if v:
            coeffs[k] = v
        else:
            coeffs.pop(k, None)
    lo, hi = (g[1], g[2]) if sign > 0 else (-g[2], -g[1])
    return coeffs, f[1] + lo, f[2] + hi


def _scale(f: Form, k: int) -> Form:
    if k == 0:
        return {}, 0, 0
    lo, hi = (k * f[1], k * f[2]) if k > 0 else (k * f[2], k * f[1])
    return {a: k * c for a, c in f[0].items()}, lo, hi


__all__ = ["Differences", "SPLITS"]
