"""Bounds proved by interval arithmetic (mtgcheck/checkers/z3bmc/intervals.py).

The pass claims that a set of bound candidates is inductive without asking Z3; these tests
ask Z3 anyway, on small positions, and check that the pass refuses a bound that is not
inductive, that each interval rule is an over-approximation, and that the closure proves
what the pass found without one query each."""

from __future__ import annotations

import math
import time

import pytest
import z3

from mtgcheck.checkers import invariants as inv, z3bmc
from mtgcheck.checkers.invariants import flat
from mtgcheck.checkers.z3bmc.budget import RLIMIT, Budget
from mtgcheck.checkers.z3bmc.closure import find_invariants
from mtgcheck.checkers.z3bmc.initial import initial_placements
from mtgcheck.checkers.z3bmc.bound_pass import inductive_bounds
from mtgcheck.checkers.z3bmc.intervals import ANY, Dag
from mtgcheck.checkers.z3bmc.path import Path
from mtgcheck.configs import SMALL
from mtgcheck.model.setup import build


def _found(name: str):  # type: ignore[no-untyped-def]
    conf = SMALL[name]
    cfg, s0 = build(conf.position)
    enc = z3bmc.Encoding.build(cfg, s0)
    found = find_invariants(enc, conf, lambda st: initial_placements(cfg, s0, st),
                            Budget(RLIMIT, time.monotonic() + 300))
    return cfg, enc, found


@pytest.mark.parametrize("name", ["break-bolt", "break-aven", "break-lands"])
def test_what_the_pass_keeps_z3_finds_inductive(name: str) -> None:
    """One query: from a state where every kept bound holds, no step breaks one of them."""
    _, enc, found = _found(name)
    keep, stats = inductive_bounds(enc, found.live)
    assert stats["interval_candidates"] > len(keep) > 50  # most kept, not all (some need more than bounds)
    kept = [c for c in found.live if c.name in keep]
    path = Path(enc, 0)
    path.add_invariants(kept, set(keep))
    goal = z3.Bool("goal")
    path.sol.add(z3.Implies(goal, z3.Or([z3.Not(c.build(flat(path.un.states[1]))) for c in kept])))
    assert path.sol.check(*enc.en.values(), *path.live_lits(), goal) == z3.unsat


def test_a_bound_that_is_not_inductive_is_refused() -> None:
    """``turn <= 1`` holds in the position (turn 1) and in every initial state, but the
    next turn breaks it: the pass drops it, and keeps the true bounds."""
    cfg, enc, found = _found("break-bolt")
    turn = next(e.col for e in inv.entries(cfg) if e.label == "turn")
    false_bound = inv.Candidate("turn <= 1", "range", lambda f: f[turn] <= 1, (turn, None, 1))
    keep, _ = inductive_bounds(enc, [*found.live, false_bound])
    assert "turn <= 1" not in keep
    assert keep == inductive_bounds(enc, found.live)[0]


def test_each_interval_rule_over_approximates() -> None:
    """Every value a term takes, for values of its variables in their intervals, lies in its interval."""
    x, y = z3.Ints("x y")
    b = z3.Bool("b")
    terms = [z3.If(x > 5, x, 3), x - 2 * y, -x + y * y, z3.Sum([z3.If(x == k, 1, 0) for k in range(4)]),
             z3.If(z3.And(x >= 0, b), y, x + 1), z3.If(z3.Or(x < 0, x > 9), 7, y),
             (x + 1) % 2, y % 3, y % -4, x % 5, (x - y) % (y * y + 1)]
    env = {x.get_id(): (0, 4), y.get_id(): (-2, 3)}
    dag = Dag(terms)
    vals = dag.evaluate(env)
    for t in terms:
        lo, hi = dag.value(vals, t)
        for xv in range(0, 5):
            for yv in range(-2, 4):
                for bv in (False, True):
                    v = z3.simplify(z3.substitute(t, (x, z3.IntVal(xv)), (y, z3.IntVal(yv)),
                                                  (b, z3.BoolVal(bv)))).as_long()
                    assert lo <= v <= hi, (t, xv, yv, v, (lo, hi))
    # decided conditions pick a branch: x in [0, 4] is never > 5, never outside [0, 9]
    assert dag.value(vals, terms[0]) == (3, 3)
    assert dag.value(vals, terms[5]) == (-2, 3)
    assert dag.value(vals, terms[3]) == (0, 4)
    assert dag.value(dag.evaluate({}), x) == ANY and ANY == (-math.inf, math.inf)
    # a remainder lies below its divisor; x in [0, 4] is its own remainder by 5; a divisor
    # that may be 0 tells nothing
    assert [dag.value(vals, t) for t in terms[6:]] == [(0, 1), (0, 2), (0, 3), (0, 4), ANY]


def test_a_guard_narrows_only_values_it_rules_out() -> None:
    """``Dag.narrowed``: every value of the box that makes the guard true lies in the narrowed
    intervals, and a guard no value of the box meets gives None."""
    x, y = z3.Ints("x y")
    b = z3.Bool("b")
    guards = [z3.And(x >= 2, y == 1), z3.And(b, 3 > x, y <= 0), z3.And(x != 1, z3.Or(y == 2, b), 1 <= y),
              z3.And(x > 1, x < 3), z3.And(x >= 5), z3.And(y == 4, x <= 2)]
    env = {x.get_id(): (0, 4), y.get_id(): (-2, 3)}
    dag = Dag(guards)
    for g in guards:
        narrow = dag.narrowed(dag.index[g.get_id()], env)
        meets = [(xv, yv) for xv in range(0, 5) for yv in range(-2, 4) for bv in (False, True)
                 if z3.is_true(z3.simplify(z3.substitute(g, (x, z3.IntVal(xv)), (y, z3.IntVal(yv)),
                                                         (b, z3.BoolVal(bv)))))]
        if narrow is None:
            assert not meets, g
            continue
        (xl, xh), (yl, yh) = narrow.get(x.get_id(), ANY), narrow.get(y.get_id(), ANY)
        assert all(xl <= xv <= xh and yl <= yv <= yh for xv, yv in meets), (g, narrow)
    first = dag.narrowed(dag.index[guards[0].get_id()], env)
    assert first is not None and first[x.get_id()] == (2, 4) and first[y.get_id()] == (1, 1)
    assert dag.narrowed(dag.index[guards[4].get_id()], env) is None


def test_read_under_the_guards_the_pass_keeps_more(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Each transition's effect read under its guard (``bound_pass.GUARDS``): more bounds
    kept, and a value no kept bound allows is excluded (``x != c``); that Z3 finds what is
    kept inductive is :func:`test_what_the_pass_keeps_z3_finds_inductive`'s."""
    from mtgcheck.checkers.z3bmc import bound_pass

    _, enc, found = _found("break-aven")
    keep, stats = inductive_bounds(enc, found.live)
    monkeypatch.setattr(bound_pass, "GUARDS", False)
    blind, _ = inductive_bounds(enc, found.live)
    assert blind < keep and stats["interval_excluded"] > 0


def test_the_closure_proves_them_without_a_query_each() -> None:
    """With intervals, the kept bounds are proven before any query, and a closure of every
    candidate asks fewer queries than without them."""
    def closure(intervals: bool) -> z3bmc.Closure:
        with z3bmc.fresh_context():  # as a check runs: the same queries whatever ran before
            _, enc, found = _found("break-bolt")
            c = z3bmc.Closure(enc, found.live, Budget(RLIMIT, time.monotonic() + 300), intervals=intervals)
            proven_first = set(c.proven)
            c.close_all()
        assert proven_first == c.by_intervals
        return c

    with_iv, without = closure(True), closure(False)
    assert with_iv.by_intervals and not without.by_intervals
    assert with_iv.queries < without.queries, (with_iv.queries, without.queries)
    # what the queries kept agrees: no bound the pass proved was dropped by Houdini's queries
    assert with_iv.by_intervals <= without.live


def test_a_dag_that_grows_keeps_its_places_and_reads_a_new_term_as_a_dag_of_its_own_would() -> None:
    """``Dag.add``: the places given stay; the new terms' values are those a Dag built of
    them alone gives; terms dropped by the caller in between are kept, so that a new term
    never takes an old one's place by its id."""
    import gc

    from mtgcheck.checkers.z3bmc.intervals import Dag

    x, y = z3.Int("grow.x"), z3.Int("grow.y")
    dag = Dag([x + 1, z3.If(x > 2, y, x)])
    places = dict(dag.index)
    for k in range(50):  # terms made, read in and dropped
        dag.add([x * k + y])
    gc.collect()
    new = [y - 3 * x, z3.If(y >= 0, x + 1, y + 7)]
    dag.add(new)
    assert all(dag.index[i] == p for i, p in places.items())
    alone = Dag(new)
    env = {x.get_id(): (0, 4), y.get_id(): (-2, 5)}
    grown, own = dag.evaluate(env), alone.evaluate(env)
    assert [dag.value(grown, t) for t in new] == [alone.value(own, t) for t in new] == [(-14, 5), (1, 12)]


def test_unchecked_calls_z3s_function_and_a_wrapper_of_another_shape_is_kept() -> None:
    """``intervals.unchecked`` (the Dag's reads without z3py's error check) gives what the
    wrapper gives; a function that is not such a wrapper is returned as it is."""
    from mtgcheck.checkers.z3bmc.intervals import unchecked

    x = z3.Int("x")
    term = x + 3 <= 7
    ctx = term.ctx.ref()
    for f in (z3.Z3_get_ast_id, z3.Z3_get_ast_kind, z3.Z3_get_app_num_args):
        assert unchecked(f) is not f and unchecked(f)(ctx, term.as_ast()) == f(ctx, term.as_ast())
    assert unchecked(z3.Z3_get_app_arg)(ctx, term.as_ast(), 1) is not None
    plain = lambda a, b: a + b  # noqa: E731
    assert unchecked(plain) is plain
    assert unchecked(len) is len
