"""States s0..sk and the relation between consecutive ones, in one solver (:class:`Unroller`)."""

from __future__ import annotations

from typing import Any, Callable

import z3

from mtgcheck.model.actions import Action
from mtgcheck.model.state import State, flat, symbolic_state
from mtgcheck.properties.base import Property

from .relation import Encoding, as_term
from .substitution import Substitution


class Unroller:
    """States s0..sk and the relation between consecutive ones, added to one solver."""

    def __init__(self, enc: Encoding, solver: z3.Solver, tag: str, each: bool = False) -> None:
        """``each``: the relation with each transition's final renumbering its own
        (``Encoding.step_rel_each``, BMC's), else the one with it shared."""
        self.enc, self.solver, self.tag = enc, solver, tag
        self.each = each
        self.states = [symbolic_state(enc.cfg, f"{tag}0")]
        self.mids: list[State] = []
        self.acts: list[Any] = []
        self.sels: list[list[Any]] = []
        self._fa, self._fb = flat(enc.a), flat(enc.b)
        self._fm = flat(enc.m) if enc.m is not None else []
        self._pairs: dict[int, Substitution] = {}
        self._viol: dict[str, Any] = {}  # property -> its violation over (a, m, act, b)
        self._constraints: list[Callable[[State], Any]] = []
        self._step_constraints: list[Callable[[int], Any]] = []

    def sub(self, term: Any, k: int) -> Any:
        """``term`` over (a, m, act, b) as a term over step k's states and action."""
        sub = self._pairs.get(k)
        if sub is None:
            pairs = list(zip(self._fa, flat(self.states[k]), strict=True)) + \
                list(zip(self._fb, flat(self.states[k + 1]), strict=True))
            if k < len(self.mids) and self._fm:
                pairs += list(zip(self._fm, flat(self.mids[k]), strict=True))
            if k < len(self.acts):
                pairs.append((self.enc.act, self.acts[k]))
            sub = Substitution.of([(x, as_term(y)) for x, y in pairs])
            if k < len(self.acts):
                self._pairs[k] = sub  # step k is complete: its pairs no longer change
        return sub(term)

    def constrain(self, fact: Callable[[State], Any]) -> None:
        """Assert ``fact`` on every state, those unrolled so far and those to come.  Only
        for what holds in every reachable state (invariants proved initial and inductive):
        it removes no run from the initial states, only the unreachable states a solver
        would otherwise have to rule out at each depth."""
        self._constraints.append(fact)
        for st in self.states:
            self.solver.add(fact(st))

    def constrain_steps(self, fact: Callable[[int], Any]) -> None:
        """Assert ``fact(k)`` on every step k, those unrolled so far and those to come: only
        for what every step from a reachable state keeps (a transition property proved at
        k = 0 on invariants proved), as :meth:`constrain` is for states."""
        self._step_constraints.append(fact)
        for k in range(len(self.acts)):
            self.solver.add(fact(k))

    def extend(self) -> int:
        k = len(self.states) - 1
        self.states.append(symbolic_state(self.enc.cfg, f"{self.tag}{k + 1}"))
        for fact in self._constraints:
            self.solver.add(fact(self.states[-1]))
        if self._fm:
            self.mids.append(symbolic_state(self.enc.cfg, f"{self.tag}m{k}"))
        act = z3.Int(f"{self.tag}act{k}")
        self.acts.append(act)
        self.solver.add(self.sub(self.enc.step_rel_each if self.each else self.enc.step_rel, k))
        self.sels.append([act == i for i in range(len(self.enc.actions))])
        for step_fact in self._step_constraints:
            self.solver.add(step_fact(k))
        return k

    def violation(self, p: Property, k: int) -> Any:
        """A formula: the property fails on step k (transition) or in state k+1 (state)."""
        terms = self.enc.prop_terms(p)
        if p.kind == "state":
            return z3.Not(self.sub(terms[0], k))
        if k < len(self.acts):  # one substitution of the whole disjunction, not one per transition
            if p.id not in self._viol:
                self._viol[p.id] = self.enc.violation_term(p)
            return self.sub(self._viol[p.id], k)
        return z3.Or([z3.And(sel, z3.Not(self.sub(term, k))) for sel, term in zip(self.sels[k], terms, strict=True)
                      if not z3.is_true(term)] or [z3.BoolVal(False)])

    def trace(self, model: z3.ModelRef, upto: int) -> list[Action]:
        """The actions of steps 0..upto-1 (read from the action variable, or from the
        selector literals of steps a caller such as ``mtgcheck diff`` added itself)."""
        out = []
        for k in range(upto):
            if k < len(self.acts):
                out.append(self.enc.actions[model.eval(self.acts[k], model_completion=True).as_long()])
                continue
            for i, sel in enumerate(self.sels[k]):
                if z3.is_true(model.eval(sel, model_completion=True)):
                    out.append(self.enc.actions[i])
                    break
        return out
