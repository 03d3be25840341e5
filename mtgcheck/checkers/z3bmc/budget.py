"""Every induction query's fixed resource limit, and the run's wall-clock safety net."""

from __future__ import annotations

import time
from typing import Any, Sequence

import z3

from mtgcheck.model.logic import ast_array


#: Resource limit of one induction query: Z3's ``rlimit`` counter, which counts solver work
#: deterministically, so what is proved does not depend on the machine's load (a wall-clock
#: limit per query made the proved count move with it).  Measured on the built-ins
#: (``stats["induction_queries"]``): Z3 does 1 to 5 million a second depending on the load,
#: so the former 8 s was 8 to 40 million; every k = 0 proof there costs under 7 million,
#: and a failing attempt spends the whole limit, hence 10 million.
RLIMIT = 10_000_000


class Budget:
    """Per-query resource limit, and the overall wall-clock deadline as a safety net only.

    A query stopped by the deadline sets ``cut``: whatever it would have decided is then
    unknown (the caller reports it so), never a proof and never a silent "holds"."""

    def __init__(self, rlimit: int, deadline: float) -> None:
        self.rlimit, self.deadline = rlimit, deadline
        self.cut = False
        self.queries: list[tuple[str, str, int, float]] = []  # (what, result, rlimit used, seconds)

    def check(self, sol: z3.Solver, *assumptions: Any, what: str = "", share: int = 1) -> z3.CheckSatResult:
        """One query, with ``1/share`` of the resource limit."""
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            self.cut = True
            return z3.unknown
        sol.set("rlimit", max(1, self.rlimit // share))
        sol.set("timeout", max(1, int(remaining * 1000)))
        before, t0 = rlimit_count(sol), time.monotonic()
        res = check_assumptions(sol, assumptions)
        self.queries.append((what, str(res), rlimit_count(sol) - before, time.monotonic() - t0))
        # The reason Z3 gives does not tell the two limits apart ("canceled" for both in the
        # incremental core): a query that ends unknown at the deadline was stopped by the clock.
        if res == z3.unknown and time.monotonic() >= self.deadline - 0.25:
            self.cut = True
        return res

    def summary(self) -> dict[str, Any]:
        return {"induction_queries": [f"{w}: {r} ({n / 1e6:.1f}M, {s:.1f} s)" for w, r, n, s in self.queries],
                "induction_rlimit": sum(n for _, _, n, _ in self.queries),
                "induction_seconds": round(sum(s for *_, s in self.queries), 2), "rlimit_per_query": self.rlimit}


def rlimit_count(sol: z3.Solver) -> int:
    """The solver's ``rlimit`` counter so far (Z3's deterministic work count)."""
    st = sol.statistics()
    return int(st.get_key_value("rlimit count")) if "rlimit count" in st.keys() else 0  # noqa: SIM118 (not a dict)


def check_assumptions(sol: z3.Solver, assumptions: Sequence[Any]) -> z3.CheckSatResult:
    """``sol.check(*assumptions)`` for Boolean terms, without z3py's coercion of each one.

    An induction query passes a literal for every live candidate (2,300 on ``plot``), and
    ``Solver.check`` casts each to Bool one by one, asking Z3 for its sort: on ``plot`` from
    scratch that was 1.5 million casts, 21 s of a 64 s profiled unit against 17 s inside
    Z3's check.  The terms here are Boolean already (literals and comparisons), so they go
    to Z3's C API as they are; Z3 still checks their sort and fails on a wrong one."""
    return z3.CheckSatResult(z3.Z3_solver_check_assumptions(sol.ctx.ref(), sol.solver, len(assumptions),
                                                            ast_array(assumptions)))

