"""The rules' dual helpers build their Z3 terms through Z3's C API (``model/logic.py``):
the very terms z3py builds (Z3 shares equal terms, so ``eq`` is identity), z3py's classes,
and Z3's sort checks kept."""

from __future__ import annotations

import pytest
import z3

from mtgcheck.checkers.z3bmc import fresh_context
from mtgcheck.model import logic
from mtgcheck.model.logic import And, Count, If, Implies, Not, Or, Sum, constant, mk_eq, symbolic


def test_the_helpers_build_z3pys_terms() -> None:
    with fresh_context(), symbolic():
        x, y = z3.Ints("x y")
        p, q = z3.Bools("p q")
        cases = [
            (And(p, True, q), z3.And(p, q)),
            (Or(p, False, q), z3.Or(p, q)),
            (And(p, q), z3.And(p, q)),
            (Not(p), z3.Not(p)),
            (Implies(p, q), z3.Or(z3.Not(p), q)),
            (If(p, x, 3), z3.If(p, x, 3)),
            (If(p, 3, x), z3.If(p, 3, x)),
            (If(p, True, False), z3.If(p, z3.BoolVal(True), z3.BoolVal(False))),
            (If(p, q, p), z3.If(p, q, p)),
            (Sum([x, 2, y]), z3.Sum([x, z3.IntVal(2), y])),
            (Count([p, q, x > 1]), z3.Sum([z3.If(p, 1, 0), z3.If(q, 1, 0), z3.If(x > 1, 1, 0)])),
            (mk_eq(x, 4), x == 4),
        ]
        for ours, theirs in cases:
            assert ours.eq(theirs), (ours, theirs)
            assert type(ours) is type(theirs) or isinstance(ours, type(theirs)), (type(ours), type(theirs))
        assert isinstance(If(p, x, 3) + 1, z3.ArithRef) and isinstance(And(p, q) == p, z3.BoolRef)
        # concrete arguments take the plain path, as before
        assert And(True, 1) is True and If(True, 1, 2) == 1 and Sum([1, 2]) == 3


def test_mixed_sorts_are_z3pys_terms_or_its_error_and_constants_belong_to_their_context() -> None:
    with fresh_context(), symbolic():
        p, x = z3.Bool("p"), z3.Int("x")
        for ours, theirs in [(If(p, x, p), z3.If(p, x, p)), (If(p, p, x), z3.If(p, p, x)),
                             (Sum([x, p]), z3.Sum([x, p])), (mk_eq(x, p), x == p)]:
            assert ours.eq(theirs) and type(ours) is type(theirs), (ours, theirs)
        for bad in (lambda: And(p, x), lambda: Or(x), lambda: Or(x, p), lambda: And(x, True), lambda: Not(x), lambda: If(x, p, p)):
            with pytest.raises(z3.Z3Exception):
                bad()
        one = constant(1, x.ctx)
        assert constant(1, x.ctx) is one and constant(True, x.ctx) is not one
    other = z3.Context()
    y = z3.Int("y", other)
    with symbolic():
        assert constant(1, other).ctx is other and Sum([y, 1]).eq(z3.Sum([y, z3.IntVal(1, other)]))
    assert logic.constant(1, x.ctx).eq(one)  # made again in its context, the same term


def test_a_choice_of_one_value_is_that_value() -> None:
    """``If(c, a, a)`` is ``a``: Z3 would build ``ite(c, a, a)`` as asked, and a branch of two
    states (``state.branch``) that both leave an entry alone made one per entry."""
    with fresh_context(), symbolic():
        p, x, y = z3.Bool("p"), z3.Int("x"), z3.Int("y")
        assert If(p, x, x) is x and If(p, x + 1, x + 1).eq(x + 1) and If(p, 2, 2) == 2
        assert not z3.is_app_of(If(p, x + 1, x + 1), z3.Z3_OP_ITE)
        assert z3.is_app_of(If(p, x, y), z3.Z3_OP_ITE)  # two values: a choice, as before
        assert If(p, True, True) is True


def test_a_concrete_conjunct_or_disjunct_is_read_at_once() -> None:
    """A false conjunct makes the conjunction ``False`` and a true one is left out (a true
    disjunct, a false one, likewise); one term left is that term: Z3 would build
    ``and(x, true)`` as asked."""
    with fresh_context(), symbolic():
        p, q = z3.Bools("p q")
        assert And(p, False, q) is False and Or(p, True) is True
        assert And(p, True) is p and Or(False, q) is q
        assert And(p, q).eq(z3.And(p, q)) and Or(p, q).eq(z3.Or(p, q))
        assert Implies(p, False).eq(z3.Not(p)) and Implies(p, True) is True
