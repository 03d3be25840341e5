"""An unsat core asked again with only the candidates it named (``Path.trimmed_core``): the
closure walks every candidate a core names, so a core that names fewer saves their queries;
what is kept is always the core of a query that was unsat."""

from __future__ import annotations

from typing import Any, Callable

import z3

from mtgcheck.checkers.z3bmc import path as path_mod
from mtgcheck.checkers.z3bmc.path import Path


class _Solver:
    """Answers each query with the core ``core_of`` gives for its assumptions' names."""

    def __init__(self, core_of: Callable[[list[str]], list[str] | None]) -> None:
        self.core_of, self.asked = core_of, []  # type: ignore[var-annotated]
        self.core: list[Any] = []
        self.lits: dict[str, Any] = {}

    def check(self, *assumptions: Any) -> Any:
        names = [str(a) for a in assumptions]
        self.asked.append(names)
        core = self.core_of(names)
        if core is None:
            return z3.unknown
        self.core = [self.lits[n] for n in core]
        return z3.unsat

    def unsat_core(self) -> list[Any]:
        return self.core


class _Budget:
    def check(self, sol: _Solver, *assumptions: Any, what: str = "", share: int = 1) -> Any:
        return sol.check(*assumptions)


def _path(core_of: Callable[[list[str]], list[str] | None]) -> tuple[Path, _Solver, list[Any]]:
    names = ["en:rule", "fact:p", *[f"inv:c{i}" for i in range(30)], "hyp:q", "go:1"]
    lits = [z3.Bool(n) for n in names]
    sol = _Solver(core_of)
    sol.lits = {str(x): x for x in lits}
    p = Path.__new__(Path)
    p.sol, p._names = sol, {}  # type: ignore[assignment]
    return p, sol, lits


def test_a_large_core_is_asked_again_with_its_candidates_only() -> None:
    first = ["en:rule", "go:1", "hyp:q", *[f"inv:c{i}" for i in range(20)]]

    def core_of(names: list[str]) -> list[str]:
        return first if len(names) == 34 else ["go:1", "inv:c3", "inv:c7"]
    p, sol, lits = _path(core_of)
    sol.check(*lits)
    core = p.trimmed_core(lits, _Budget(), "k=0 x", 1)  # type: ignore[arg-type]
    assert core == ["go:1", "inv:c3", "inv:c7"]
    again = sol.asked[1]
    # every assumption that is no candidate or hypothesis is kept; of those, the core's only
    assert {"en:rule", "fact:p", "go:1"} <= set(again)
    assert {n for n in again if n.startswith(("inv:", "hyp:"))} == {n for n in first if n.startswith(("inv:", "hyp:"))}
    assert len(sol.asked) == 2  # three names left: no third round


def test_a_query_not_unsat_or_no_smaller_keeps_the_core_before_it() -> None:
    big = [f"inv:c{i}" for i in range(12)]
    p, sol, lits = _path(lambda names: big if len(names) == 34 else None)
    sol.check(*lits)
    assert p.trimmed_core(lits, _Budget(), "x", 1) == big  # type: ignore[arg-type]
    p, sol, lits = _path(lambda names: big)
    sol.check(*lits)
    assert p.trimmed_core(lits, _Budget(), "x", 1) == big and len(sol.asked) == 2  # type: ignore[arg-type]


def test_a_small_core_is_not_asked_again() -> None:
    small = [f"inv:c{i}" for i in range(path_mod.TRIM_FROM)]
    p, sol, lits = _path(lambda names: small)
    sol.check(*lits)
    assert p.trimmed_core(lits, _Budget(), "x", 1) == small and len(sol.asked) == 1  # type: ignore[arg-type]
