"""Bounds of one entry against another shown by linear forms (mtgcheck/checkers/z3bmc/differences.py).

The pass claims ``x <= y + off`` after every step without asking Z3.  These tests check
each claim against every value on small boxes, that a correlation between the two sides
is seen only where it exists, that a relation that is not inductive is refused, and that
on a position every relation the layout declares is shown (Z3 then confirms the whole set
inductive: ``tests/test_intervals.py``, ``test_what_the_pass_keeps_z3_finds_inductive``)."""

from __future__ import annotations

import itertools
import time

import z3

from mtgcheck.checkers import invariants as inv, z3bmc
from mtgcheck.checkers.invariants import flat
from mtgcheck.checkers.z3bmc.bound_pass import inductive_bounds
from mtgcheck.checkers.z3bmc.budget import RLIMIT, Budget
from mtgcheck.checkers.z3bmc.closure import find_invariants
from mtgcheck.checkers.z3bmc.differences import Differences
from mtgcheck.checkers.z3bmc.initial import initial_placements
from mtgcheck.checkers.z3bmc.intervals import Dag
from mtgcheck.checkers.z3bmc.path import Path
from mtgcheck.configs import SMALL
from mtgcheck.model.logic import symbolic
from mtgcheck.model.setup import build
from mtgcheck.model.zones import new_objects

def _vars() -> tuple[z3.ArithRef, z3.ArithRef, z3.ArithRef, z3.BoolRef, z3.BoolRef]:
    """x, n, k, m, m2, made in the test's own context (another test may have replaced Z3's
    main context in this process, ``z3bmc.fresh_context``)."""
    x, n, k = z3.Ints("x n k")
    m, m2 = z3.Bools("m m2")
    return x, n, k, m, m2


def _shown(x_after: z3.ArithRef, n_after: z3.ArithRef, off: int, rel_off: int = -1) -> bool:
    """``x_after <= n_after + off`` by the pass, from ``x <= n + rel_off``, ``n`` in [1, 6]."""
    X, N, K, _, _ = _vars()
    dag = Dag([x_after, n_after])
    env = {N.get_id(): (1, 6), X.get_id(): (0, 6), K.get_id(): (0, 3)}
    return Differences(dag, env, {X.get_id(): (N.get_id(), rel_off)}).at_most(x_after, n_after, off)


def _always(x_after: z3.ArithRef, n_after: z3.ArithRef, off: int, rel_off: int = -1) -> bool:
    """The same, by trying every value of the box."""
    return _true_on_the_box(x_after <= n_after + off, rel_off)


def test_a_moved_card_takes_an_id_its_group_made_used() -> None:
    """The model's own move: each card of a group gets ``next_oid + i``, and the group takes
    its ids when one of them moves; so every id stays below the next free one."""
    X, N, _, M, M2 = _vars()
    with symbolic():
        ids, after = new_objects(N, [M, M2])
    for i, cond in enumerate((M, M2)):
        x_after = z3.If(cond, ids[i], X)
        assert _shown(x_after, after, -1) and _always(x_after, after, -1)


def test_each_claim_holds_on_every_value_of_the_box() -> None:
    """Whatever the pass shows holds for every value; the false ones it refuses."""
    X, N, K, M, M2 = _vars()
    cases = [
        (z3.If(M, N + 1, X), N + z3.If(z3.Or(M, M2), 2, 0), -1),  # the correlation: shown
        (z3.If(M, N + 1, X), N + z3.If(M2, 2, 0), -1),  # no correlation: moved, no id taken
        (z3.If(M, N + 2, X), N + z3.If(z3.Or(M, M2), 2, 0), -1),  # one past the group
        (X + K, N + K, -1),  # the same atom on both sides cancels
        (X + K, N + 2, -1),  # k may be 3
        (z3.If(M, X, N - 1), N + z3.If(M2, 1, 0), -1),
        (z3.If(z3.And(M, M2), N + 1, X), N + z3.If(M, 2, 0), -1),  # And true: M true
        (2 * X - X, N, -1),  # a product by a constant
        (X * K, N, 0),  # any other product: an atom
    ]
    shown = []
    for x_after, n_after, off in cases:
        claim = _shown(x_after, n_after, off)
        assert not claim or _always(x_after, n_after, off), (x_after, n_after, off)
        shown.append(claim)
    assert shown == [True, False, False, True, False, True, True, True, False]


def test_a_relation_that_is_not_inductive_is_refused() -> None:
    """A card's new id is ``next_oid`` plus its slot, and the group takes one id per slot:
    so ``oid[x] <= next_oid-2`` is inductive for every slot but the last, whose new id is
    ``next_oid-1`` after the step.  The pass keeps the first and refuses the second, Z3
    agrees on both, and the relations the layout declares are kept as without them."""
    conf = SMALL["break-bolt"]
    cfg, s0 = build(conf.position)
    enc = z3bmc.Encoding.build(cfg, s0)
    found = find_invariants(enc, conf, lambda st: initial_placements(cfg, s0, st), Budget(RLIMIT, time.monotonic() + 300))
    rels = [c for c in found.live if c.relation is not None]
    assert rels and all(c.declared for c in rels)
    oids = sorted((c for c in rels if c.name.startswith("oid[")), key=lambda c: c.relation[0])
    assert len(oids) == cfg.n

    def minus_two(c: inv.Candidate) -> inv.Candidate:
        col, ref, _ = c.relation
        return inv.Candidate(c.name.replace("-1", "-2"), "range", lambda f: f[col] <= f[ref] - 2, relation=(col, ref, -2))

    first, last = minus_two(oids[0]), minus_two(oids[-1])
    keep, stats = inductive_bounds(enc, [*found.live, first, last])
    assert first.name in keep and last.name not in keep
    assert keep - {first.name} == inductive_bounds(enc, found.live)[0]
    # every relation the layout declares is shown on this position
    assert {c.name for c in rels} <= keep and stats["interval_relations"] == len(rels) + 1
    # Z3: from a state where the kept set holds, no step breaks the first; one breaks the last
    kept = [c for c in [*found.live, first, last] if c.name in keep]
    for c, verdict in ((first, z3.unsat), (last, z3.sat)):
        path = Path(enc, 0)
        path.add_invariants([*kept, c], {*keep, c.name})
        goal = z3.Bool("goal")
        path.sol.add(z3.Implies(goal, z3.Not(c.build(flat(path.un.states[1])))))
        assert path.sol.check(*enc.en.values(), *path.live_lits(), goal) == verdict, c.name


def _true_on_the_box(term: z3.BoolRef, rel_off: int = -1) -> bool:
    """Whether ``term`` is true on every value of the box (``x <= n + rel_off``)."""
    X, N, K, M, M2 = _vars()
    for xv, nv, kv, mv, m2v in itertools.product(range(7), range(1, 7), range(4), (False, True), (False, True)):
        if xv > nv + rel_off:
            continue
        sub = [(X, z3.IntVal(xv)), (N, z3.IntVal(nv)), (K, z3.IntVal(kv)), (M, z3.BoolVal(mv)), (M2, z3.BoolVal(m2v))]
        if not z3.is_true(z3.simplify(z3.substitute(term, *sub))):
            return False
    return True


def test_a_term_is_shown_true_only_where_every_value_makes_it_true() -> None:
    """``Differences.always`` (the step pass's question): a Boolean term shown true holds on
    every value of the box; a term that needs a case split is shown only when the split is
    allowed; the false ones are refused.  The shape of ``object-ids-fresh``: a card whose zone
    changed has an id at least the next free one, and not its old one."""
    X, N, K, M, M2 = _vars()
    with symbolic():
        ids, _ = new_objects(N, [M, M2])
    zone, zone_after = K, z3.If(M, K + 1, K)
    oid_after = z3.If(M, ids[0], X)
    cases = [
        (z3.Implies(zone != zone_after, z3.And(oid_after >= N, oid_after != X)), 1, True),  # the property
        (z3.Implies(zone != zone_after, z3.And(oid_after >= N, oid_after != X)), 0, False),  # needs the split
        (z3.If(M, X + 1, X) >= X, 1, True),
        (X != N, 0, True),  # x <= n - 1, read through the relation
        (X + K < N, 3, False),  # k may be 3
        (z3.If(M, N, X) > X, 3, False),  # false when m is
        (z3.Implies(M, z3.If(z3.And(M, M2), N + 1, N) >= N), 2, True),
        (z3.If(M2, ids[1], X) != X, 3, False),  # unmoved, the same id
    ]
    for term, splits, expected in cases:
        dag = Dag([term])
        env = {N.get_id(): (1, 6), X.get_id(): (0, 6), K.get_id(): (0, 3)}
        shown = Differences(dag, env, {X.get_id(): (N.get_id(), -1)}).always(term, splits)
        assert shown == expected, (term, splits)
        assert not shown or _true_on_the_box(term), term
    assert not _true_on_the_box(z3.If(M, N, X) > X) and not _true_on_the_box(X + K < N)
