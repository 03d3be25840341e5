"""Transition properties shown one transition at a time by the difference pass (:class:`StepPass`).

Why: ``object-ids-fresh`` says that a card changing zones gets an id no object had (CR
400.7), one conjunct per card slot.  Its reason is plain arithmetic: a moving card's new id
is ``next_oid + i``, ``next_oid`` never decreases, and every id in use is below it.  Asked of
Z3 over the whole relation, each conjunct's step case cost 0.1M to 1M on
``examples/scale/04-plot-14`` (179 transitions), and when one ran out of its limit on the
candidates closed so far, the query with every candidate named a hundred for the closure to
walk: the property was 6M to 15M of that position's 25M to 40M, by Z3's seed.

The pass reads the step as :mod:`.differences` does, with one difference: a whole Boolean
term is evaluated, not one relation.  For each transition ``i`` whose predicate is not
``True``, the property's term over the states before and after the step, ``P(a, b)``, is
composed with the step itself: ``b`` is the state-based actions' result over ``m``
(``Encoding.settled``) and ``m`` is transition ``i``'s effect over ``a``
(``Encoding.raw[i]``), so the term reads only ``a`` and the transition's own choices; Z3's
``simplify`` then removes the choices whose two sides are the same term.  The term is
evaluated with linear forms and intervals (:meth:`.differences.Differences.always`) given
the bounds and relations the interval and difference passes kept (:mod:`.bound_pass`),
splitting on the conditions the undecided part reads, at most :data:`SPLITS` deep.  Each
part is read under its transition's guard, ``If(guard, part, True)`` (the guard with every
rule's switch on, as every query assumes them: ``Encoding.plain_guards``), so that the
first split assumes the guard's conjuncts: a property restating a guard
(``plot-only-main-phase-empty-stack``) is shown where the guard decides it.  A part is
first read without its guard: shown so, it is shown under any guard, and most parts are
one term on many transitions (a card slot the transition leaves alone), which the
evaluation's memo reads once.  On ``examples/scale/04-plot-14``, 5,483 guarded parts were
687 distinct terms without their guards: the pass's seconds went from 4.9 to 2.4.

Soundness: the bounds and relations assumed hold in every reachable state (they are
inductive and initially true), each rule of the evaluation over-approximates (the
module docstrings of :mod:`.intervals` and :mod:`.differences`), the splits cover every
value of their condition, ``simplify`` gives an equivalent term, and a step takes ``i``
only where its guard holds.  So a part shown for transition ``i`` holds on every step that
takes ``i`` from a reachable state.  The step case
(:meth:`.path.Path.attempt`) then asks Z3 about the other transitions only; a part shown on
every transition needs no query at all.
"""

from __future__ import annotations

import time
from typing import Any, Sequence

import z3

from mtgcheck.model.logic import symbolic
from mtgcheck.model.state import flat
from mtgcheck.properties.base import Property

from .bound_pass import assumed_by
from .substitution import Substitution
from .differences import Differences
from .intervals import VAR, Dag
from .relation import Encoding, as_term

#: How many conditions the evaluation of one part may split on, along one branch.  On
#: ``examples/scale/03-plot-12`` every part of ``object-ids-fresh`` is shown with 10 (with 6,
#: 16 of its 1,452 (transition, conjunct) pairs are not).
SPLITS = 10
#: Whether each transition's part is read under its guard (``If(guard, part, True)``).
GUARDS = True


class StepPass:
    """Which transitions of a transition property's step case the pass leaves to Z3, per
    part (module docstring), given bound and relation candidates ``cands`` that hold in
    every reachable state (those the passes of :mod:`.bound_pass` kept)."""

    def __init__(self, enc: Encoding, cands: Sequence[Any]) -> None:
        self.enc = enc
        self.env, self.rel = assumed_by(enc, cands)
        self._by_variable: dict[int, list[str]] = {}  # AST id -> the candidates bounding it
        before = flat(enc.a)
        for c in cands:
            if getattr(c, "bound", None) is None and getattr(c, "relation", None) is None:
                continue  # (a value excluded: implied by the bounds, read through them)
            col = c.bound[0] if c.bound is not None else c.relation[0]
            self._by_variable.setdefault(before[col].get_id(), []).append(c.name)
        #: One Dag and one evaluation for every property: the state after a transition's step
        #: (the state-based actions over its effect) is read in, and evaluated, once for all.
        self._dag = Dag([])
        self._shown = Differences(self._dag, self.env, self.rel)
        self._open: dict[tuple[str, bool], list[list[int]]] = {}
        self._onto_a: list[Substitution] | None = None
        self._simplified: dict[int, tuple[Any, Any]] = {}
        self._read: dict[tuple[str, bool], set[str]] = {}
        #: Figures: parts shown on every transition, (transition, part) pairs shown and not,
        #: and the pass's seconds.
        self.stats = {"step_pass_parts": 0, "step_pass_shown": 0, "step_pass_left": 0, "step_pass_seconds": 0.0}

    def open_transitions(self, p: Property, conjuncts: bool) -> list[list[int]]:
        """Per part of ``p``'s step case (its predicate's conjuncts, as
        :meth:`.path.Path.conjuncts` numbers them, if ``conjuncts``; else the whole predicate),
        the transitions on which the pass does not show it."""
        key = (p.id, conjuncts)
        if key not in self._open:
            t0 = time.monotonic()
            self._open[key] = self._evaluate(p, conjuncts)
            self.stats["step_pass_seconds"] = round(self.stats["step_pass_seconds"] + time.monotonic() - t0, 2)
        return self._open[key]

    def _simplify(self, x: Any) -> Any:
        """``z3.simplify(x)``, once per term: a part is mostly the same term on the
        transitions that leave its slot alone (the term is kept: its id is not reused)."""
        got = self._simplified.get(x.get_id())
        if got is None:
            got = self._simplified[x.get_id()] = (x, z3.simplify(x))
        return got[1]

    def assumed(self, p: Property, conjuncts: bool) -> set[str]:
        """The candidates whose bounds the parts shown read (what the proof rests on: the
        manifest's hints name them, for a run without the pass)."""
        self.open_transitions(p, conjuncts)
        return self._read[(p.id, conjuncts)]

    def _evaluate(self, p: Property, conjuncts: bool) -> list[list[int]]:
        enc = self.enc
        terms = enc.prop_terms(p)
        after = flat(enc.b)
        settled = [as_term(x) for x in flat(enc.settled)] if enc.m is not None else None
        middle = flat(enc.m) if enc.m is not None else after
        over_m: dict[int, Any] = {}  # the predicate over ``m`` (one per distinct term)
        parts: list[list[Any]] = []  # per transition, its parts over ``a`` (none: its predicate is True)
        onto_m = Substitution(after, settled) if settled is not None else None
        if self._onto_a is None:  # each transition's effect, substituted for ``m``: built once
            onto = Substitution(middle)
            self._onto_a = [onto.with_values([as_term(x) for x in flat(effect)]) for effect in enc.raw]
        guards = enc.plain_guards if GUARDS else []
        with symbolic():
            for i, term in enumerate(terms):
                if z3.is_true(term):
                    parts.append([])
                    continue
                if term.get_id() not in over_m:
                    over_m[term.get_id()] = term if onto_m is None else onto_m(term)
                composed = self._onto_a[i](over_m[term.get_id()])
                pieces = composed.children() if conjuncts else [composed]
                if conjuncts and (not z3.is_and(composed) or len(pieces) != term.num_args()):
                    pieces = [z3.BoolVal(False)] * term.num_args()  # not read part by part: claim nothing
                guard = guards[i] if guards else z3.BoolVal(True)
                parts.append([(self._simplify(x), guard) for x in pieces])
        dag, shown = self._dag, self._shown
        dag.add([x for ps in parts for x, _ in ps])
        width = max((len(ps) for ps in parts), default=0)
        out: list[list[int]] = [[] for _ in range(width)]
        roots = []
        for i, ps in enumerate(parts):
            for j, (x, guard) in enumerate(ps):
                # Shown without its guard, shown under it (module docstring).
                if not shown.always(x, SPLITS) and not z3.is_true(guard):
                    x = z3.If(guard, x, True)
                    dag.add([x])
                if shown.always(x, SPLITS):
                    self.stats["step_pass_shown"] += 1
                    roots.append(dag.index[x.get_id()])
                else:
                    self.stats["step_pass_left"] += 1
                    out[j].append(i)
        self.stats["step_pass_parts"] += sum(not o for o in out)
        read = {dag.arg[q] for q in shown.cone(roots) if dag.code[q] == VAR}
        read |= {self.rel[v][0] for v in read if v in self.rel}  # a relation reads its reference's bounds
        self._read[(p.id, conjuncts)] = {n for v in read for n in self._by_variable.get(v, ())}
        return out


__all__ = ["StepPass", "SPLITS"]
