"""The checker's substitution through Z3's C API gives z3py's terms, and refuses what z3py refuses."""

from __future__ import annotations

import pytest
import z3

from mtgcheck.checkers.z3bmc.substitution import Substitution


def test_the_same_term_as_z3py_and_sorts_still_checked() -> None:
    x, y, b = z3.Int("sub.x"), z3.Int("sub.y"), z3.Bool("sub.b")
    term = z3.If(b, x + 2 * y, y - x) >= x
    pairs = [(x, y + 1), (y, z3.IntVal(3)), (b, x > y)]
    sub = Substitution.of(pairs)
    assert sub(term).eq(z3.substitute(term, *pairs))
    assert isinstance(sub(term), z3.BoolRef)  # the sort's own class, as z3py returns it
    # the same variables, other values: their array built anew, the variables' kept
    other = sub.with_values([z3.IntVal(0), x, z3.BoolVal(False)])
    assert other(term).eq(z3.substitute(term, (x, z3.IntVal(0)), (y, x), (b, z3.BoolVal(False))))
    assert sub(term).eq(z3.substitute(term, *pairs))  # the first unchanged
    assert Substitution([])(term).eq(term)
    five = Substitution.of([(x, z3.IntVal(2)), (y, z3.IntVal(3))])(x + y)
    assert isinstance(five, z3.ArithRef) and z3.simplify(five).as_long() == 5
    assert Substitution.of([(x, z3.IntVal(7))])(x).as_long() == 7  # a numeral, as z3py gives it
    with pytest.raises(z3.Z3Exception):
        Substitution.of([(x, b)])(term)  # an Int for a Bool: Z3 refuses it, as z3py does
    # Z3's C function reads as many values as variables: a list of another length is refused
    # before it is read, and so is a substitution whose values were never given
    with pytest.raises(ValueError, match="3 terms given 2 values"):
        sub.with_values([x, y])
    with pytest.raises(ValueError, match="before its values"):
        Substitution([x, y, b])(term)
