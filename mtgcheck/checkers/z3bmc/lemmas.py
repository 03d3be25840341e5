"""Hand-written strengthening lemmas (opt-in): proved initial and inductive by Houdini, then assumed."""

from __future__ import annotations

from typing import Any, Sequence

import z3

from mtgcheck.model.config import Config
from mtgcheck.model.logic import And, Implies, Or, symbolic
from mtgcheck.model.state import equal_states, symbolic_state
from mtgcheck.properties.base import Property

from .budget import Budget
from .path import Path
from .relation import Encoding


def lemmas(cfg: Config) -> list[tuple[str, Any]]:
    """Candidate strengthening invariants (state predicates), besides the state properties.

    None is trusted: each must hold in every initial state and survive the Houdini
    fixpoint in :func:`strengthen_with_lemmas` before any proof may assume it."""
    from mtgcheck.model.logic import Count
    from mtgcheck.model.state import EXILE, STACK
    from mtgcheck.model.zones import stack_entries

    n, K = cfg.n, len(cfg.planes)
    return [
        ("lemma:oids-below-next", lambda s: And(*[s.oid[j] < s.next_oid for j in range(n)],
                                                *[s.pl_oid[k] < s.next_oid for k in range(K)])),
        ("lemma:plotted-not-in-future", lambda s: And(*[s.plotted[j] <= s.turn for j in range(n)])),
        ("lemma:plotted-only-exiled", lambda s: And(*[Implies(s.plotted[j] != 0, s.zone[j] == EXILE)
                                                      for j in range(n)])),
        ("lemma:stack-size", lambda s: s.stack_size == Count(on for on, _ in stack_entries(cfg, s))),
        ("lemma:off-stack-unmarked", lambda s: And(*[Implies(s.zone[j] != STACK, And(s.fb_exile[j] == 0, s.how[j] == 0))
                                                     for j in range(n)])),
        ("lemma:fb-mark-boolean", lambda s: And(*[Or(s.fb_exile[j] == 0, s.fb_exile[j] == 1) for j in range(n)])),
        ("lemma:in-game-boolean", lambda s: And(*[Or(s.in_game[p] == 0, s.in_game[p] == 1) for p in range(cfg.players)])),
        ("lemma:active-is-player", lambda s: And(s.active >= 0, s.active < cfg.players)),
    ]


def lemma_props(cfg: Config) -> list[Property]:
    """The candidate lemmas as state properties, so that one mechanism proves both."""
    return [Property(name, (), "strengthening lemma", "state", (lambda c, s, f=f: f(s)))
            for name, f in lemmas(cfg)]


def initially_true(enc: Encoding, cands: Sequence[Property], init_of: Any, budget: Budget) -> list[Property]:
    """The candidates that hold in every initial state (the base case of a lemma)."""
    sol = z3.Solver()
    with symbolic():
        s = symbolic_state(enc.cfg, "h0")
        sol.add(init_of(s) if init_of is not None else equal_states(s, enc.init))
        return [p for p in cands if budget.check(sol, z3.Not(enc.state_term(p, s)), what=f"init {p.id}") == z3.unsat]


def houdini(path: Path, cands: list[Property], budget: Budget, rounds: int) -> tuple[list[Property], list[str]]:
    """The largest subset (found in at most ``rounds`` queries) that is k-inductive as a
    whole: each counterexample drops what it breaks.  Empty if the budget runs out."""
    for _ in range(rounds):
        if not cands or budget.cut:
            break
        res, broken, core = path.attempt(cands, budget)
        if res == z3.unsat:
            return cands, core
        if res != z3.sat or not broken:
            break
        cands = [p for p in cands if p not in broken]
    return [], []


def strengthen_with_lemmas(enc: Encoding, path: Path, init_of: Any, budget: Budget) -> list[Property]:
    """Lemmas proved initial and inductive (together, assuming what is already proved)."""
    cands = initially_true(enc, lemma_props(enc.cfg), init_of, budget)
    return houdini(path, cands, budget, len(cands) + 1)[0]
