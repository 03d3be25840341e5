"""One substitution of terms, applied many times through Z3's C API.

Why not ``z3.substitute``: z3py rebuilds its argument list and checks the sort of every
pair, in Python, on every call (each check makes two sort objects).  The checker substitutes
the same variables again and again: the unrolling's step ``k`` for every term it asserts,
the renumbering's template for every move, the renumbering lemma's ``sigma`` (hundreds of
pairs) for every fact.  On ``examples/scale/04-plot-14`` those checks were a fifth of the
check's Python time.  Z3's own ``Z3_substitute`` checks the sorts too (a mismatch is an
error, as in z3py), so nothing is lost; the pairs' arrays are built once.
"""

from __future__ import annotations

from typing import Any, Sequence

import z3

from mtgcheck.model.logic import ast_array


def expr(ast: Any, ctx: z3.Context) -> Any:
    """A term made through Z3's C API as z3py's object of its sort, as z3py makes it (a
    Boolean, an integer, an integer numeral; any other sort as a plain term)."""
    kind = z3.Z3_get_sort_kind(ctx.ref(), z3.Z3_get_sort(ctx.ref(), ast))
    if kind == z3.Z3_BOOL_SORT:
        return z3.BoolRef(ast, ctx)
    if kind == z3.Z3_INT_SORT:
        numeral = z3.Z3_get_ast_kind(ctx.ref(), ast) == z3.Z3_NUMERAL_AST
        return z3.IntNumRef(ast, ctx) if numeral else z3.ArithRef(ast, ctx)
    return z3.ExprRef(ast, ctx)


class Substitution:
    """``froms[i] := tos[i]``, for every term it is applied to (``tos`` may be given later
    instead, :meth:`with_values`).  Z3's C function reads ``n`` entries of both arrays, so
    they are checked to be as long as each other (z3py builds both from one list of pairs)."""

    def __init__(self, froms: Sequence[Any], tos: Sequence[Any] | None = None) -> None:
        self._froms = list(froms)  # kept alive: the array holds raw pointers
        self.n, self.froms_ast = len(self._froms), ast_array(self._froms)
        self._tos: list[Any] = []
        self.tos_ast: Any = None
        if tos is not None:
            self._set_values(tos)

    @classmethod
    def of(cls, pairs: Sequence[tuple[Any, Any]]) -> "Substitution":
        return cls([p[0] for p in pairs], [p[1] for p in pairs])

    def with_values(self, tos: Sequence[Any]) -> "Substitution":
        """The same variables substituted by ``tos`` (their array built once)."""
        out = Substitution.__new__(Substitution)
        out._froms, out.n, out.froms_ast = self._froms, self.n, self.froms_ast
        out._set_values(tos)
        return out

    def _set_values(self, tos: Sequence[Any]) -> None:
        if len(tos) != self.n:
            raise ValueError(f"substitution of {self.n} terms given {len(tos)} values")
        self._tos = list(tos)  # kept alive, as the variables are
        self.tos_ast = ast_array(self._tos)

    def __call__(self, term: Any) -> Any:
        if not self.n:
            return term
        if self.tos_ast is None:
            raise ValueError("substitution applied before its values were given (with_values)")
        ctx = term.ctx
        return expr(z3.Z3_substitute(ctx.ref(), term.as_ast(), self.n, self.froms_ast, self.tos_ast), ctx)


__all__ = ["Substitution", "expr"]
