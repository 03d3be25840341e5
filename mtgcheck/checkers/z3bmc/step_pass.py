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

One part for the transitions that leave a conjunct's card alone (:meth:`StepPass._frame_parts`).
A conjunct of a per-slot property (``object-ids-fresh``'s card ``j``) is a different term on
nearly every transition, though most transitions leave card ``j`` alone: what differs is
what the state-based actions read of the rest (which other cards moved first, so which ids
are next).  Read one by one, the parts were transitions x slots: on
``examples/scale/04-plot-14``, 2,213 of ``object-ids-fresh``'s 2,506 (transition, conjunct)
pairs left the conjunct's card alone, and still gave 509 distinct terms to evaluate.  So
each conjunct is first read once over a *frame state* ``g`` in place of ``m``: ``g`` has the
entries of ``a`` the conjunct itself reads (its card's), every other entry a fresh variable
(any value), except that a scalar the conjunct reads that no transition decreases
(``next_oid``) is ``a``'s plus a fresh variable at least 0.  Shown so, the conjunct is shown
on every transition whose effect leaves those entries of its card as ``a`` has them (the
same terms): that transition's part is the frame part with the fresh variables replaced by
the transition's own values, which are values the frame part allows (the scalar's increase
is shown by the same evaluation, once per transition).  The transitions that write those
entries are read the same way, one frame part per distinct set of values they write (the
card's casts write it onto the stack alike, whatever their target): on plot-14 every pair of
``object-ids-fresh`` is shown by its conjunct's few frame parts.  The first frame part of a
conjunct that is not shown ends its frame parts (a frame is weaker than a transition's own
part: more of them would mostly fail too, at a cost), and its pairs are read one by one as
above.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

import z3

from mtgcheck.model.logic import symbolic
from mtgcheck.model.state import SCALAR, flat
from mtgcheck.properties.base import Property

from ..invariants import entries
from .bound_pass import assumed_by
from .substitution import Substitution
from .differences import Differences
from .intervals import VAR, Dag
from .relation import Encoding, as_term, constants

#: How many conditions the evaluation of one part may split on, along one branch.  On
#: ``examples/scale/03-plot-12`` every part of ``object-ids-fresh`` is shown with 10 (with 6,
#: 16 of its 1,452 (transition, conjunct) pairs are not).
SPLITS = 10
#: Whether each transition's part is read under its guard (``If(guard, part, True)``).
GUARDS = True
#: Whether a per-slot conjunct is first read over its frame state (:meth:`StepPass._frame_parts`).
FRAMES = True


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
        self._raw_ids: list[list[int]] = []  # per transition, its effect's entries (AST addresses)
        self._a_ids: list[int] = []  # ``a``'s entries (AST addresses)
        self._effects: list[list[Any]] = []  # per transition, its effect's entries (terms)
        self._onto_m: Substitution | None = None  # ``m``'s variables, substituted (built once)
        self._frame: list[Any] = []  # the frame state's own variables (:meth:`_frame_parts`)
        #: Scalar entry -> the places of the terms showing that no transition's effect
        #: decreases it, or None if one is not shown (:meth:`_increasing`).
        self._increases: dict[int, list[int] | None] = {}
        #: Figures: parts shown on every transition, (transition, part) pairs shown and not
        #: (of those shown, how many by a frame part: :meth:`_frame_parts`), and the pass's seconds.
        self.stats = {"step_pass_parts": 0, "step_pass_shown": 0, "step_pass_left": 0, "step_pass_framed": 0,
                      "step_pass_seconds": 0.0}

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
            self._onto_m = onto = Substitution(middle)
            effects = [[as_term(x) for x in flat(effect)] for effect in enc.raw]
            self._onto_a = [onto.with_values(e) for e in effects]
            self._effects = effects
            # (the AST's address: one term is one address, and it costs no call into Z3)
            self._raw_ids = [[x.as_ast().value for x in e] for e in effects]
            self._a_ids = [x.as_ast().value for x in flat(enc.a)]
        guards = enc.plain_guards if GUARDS else []
        roots: list[int] = []
        frames: list[_Frame] = []  # per conjunct, its frame part's reading (:meth:`_frame_parts`)
        if FRAMES and conjuncts and onto_m is not None and len(terms) > 1 and \
                len({t.get_id() for t in terms}) == 1 and z3.is_and(terms[0]):
            with symbolic():
                over_m[terms[0].get_id()] = onto_m(terms[0])
                frames = self._frame_parts(terms[0], over_m[terms[0].get_id()])
        with symbolic():
            for i, term in enumerate(terms):
                if z3.is_true(term):
                    parts.append([])
                    continue
                if term.get_id() not in over_m:
                    over_m[term.get_id()] = term if onto_m is None else onto_m(term)
                alone = {j for j, f in enumerate(frames) if self._framed(f, i, roots)}
                if len(alone) == term.num_args():  # every conjunct shown by its frame part
                    pieces: list[Any] = [None] * term.num_args()
                else:
                    composed = self._onto_a[i](over_m[term.get_id()])
                    if not conjuncts:
                        pieces = [composed]
                    elif not z3.is_and(composed) or composed.num_args() != term.num_args():
                        pieces = [z3.BoolVal(False)] * term.num_args()  # not read part by part: claim nothing
                    else:
                        pieces = [None if j in alone else composed.arg(j) for j in range(term.num_args())]
                guard = guards[i] if guards else z3.BoolVal(True)
                parts.append([(None if j in alone else self._simplify(x), guard) for j, x in enumerate(pieces)])
        dag, shown = self._dag, self._shown
        dag.add([x for ps in parts for x, _ in ps if x is not None])
        width = max((len(ps) for ps in parts), default=0)
        out: list[list[int]] = [[] for _ in range(width)]
        for i, ps in enumerate(parts):
            for j, (x, guard) in enumerate(ps):
                if x is None:  # shown by the conjunct's frame part (:meth:`_frame_parts`)
                    self.stats["step_pass_shown"] += 1
                    continue
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

    def _frame_parts(self, term: Any, over_m: Any) -> list["_Frame"]:
        """Per conjunct of ``term`` (the predicate over ``a`` and ``b``; ``over_m`` the same
        over ``a`` and ``m``, the state-based actions read in), what its frame parts keep of
        a transition's effect (the module docstring); none if ``over_m`` is not read part by part."""
        enc = self.enc
        assert enc.m is not None
        if not z3.is_and(over_m) or over_m.num_args() != term.num_args():
            return []
        before, middle = flat(enc.a), flat(enc.m)
        if not self._frame:
            self._frame = [z3.Int(f"frame.{k}") for k in range(len(middle))]
        column = {x.get_id(): k for k, x in enumerate(before)}
        es = entries(enc.cfg)
        assert len(es) == len(before)
        out = []
        for conjunct, composed in zip(term.children(), over_m.children(), strict=True):
            read = sorted({column[c.get_id()] for c in constants([conjunct]) if c.get_id() in column})
            keep, grows = [], []
            for k in read:
                places = self._increasing(k) if es[k].decl.index == SCALAR else None
                if places is None:
                    keep.append(k)
                else:
                    grows.append((k, places))
            frame = list(self._frame)
            for k, _ in grows:
                step = z3.Int(f"frame.up.{k}")
                self.env[step.get_id()] = (0, math.inf)
                frame[k] = before[k] + step
            out.append(_Frame(composed, keep, frame, [q for _, places in grows for q in places]))
        return out

    def _framed(self, f: "_Frame", i: int, roots: list[int]) -> bool:
        """Whether transition ``i``'s part of the conjunct ``f`` reads is shown by a frame
        part: the one whose kept entries are the transition's effect's (its card's entries as
        the transition leaves them), read once for every transition that leaves them alike.
        Appends to ``roots`` the places that frame part and the scalars' increases read."""
        if f.failed:
            return False
        effect = self._raw_ids[i]
        key = tuple(effect[k] for k in f.keep)
        if key not in f.shown:
            frame = list(f.frame)
            for k in f.keep:
                frame[k] = self._effects[i][k]
            assert self._onto_m is not None
            part = self._simplify(self._onto_m.with_values(frame)(f.composed))
            self._dag.add([part])
            place = self._dag.index[part.get_id()]
            f.shown[key] = place if self._shown.always(part, SPLITS) else None
            if f.shown[key] is None:
                f.failed = True  # (a frame part too weak once is not read again: module docstring)
                return False
            roots.append(place)
            roots.extend(f.grows)
        # (a key once not shown ended the frame parts above: ``f.failed``)
        self.stats["step_pass_framed"] += 1
        return True

    def _increasing(self, k: int) -> list[int] | None:
        """The places of the terms showing that no transition's effect decreases scalar entry
        ``k`` of the state (``m[k] >= a[k]``, from the bounds assumed), or None if one is not shown."""
        if k not in self._increases:
            before = flat(self.enc.a)[k]
            places: list[int] = []
            shown = True
            for effect, terms in zip(self._raw_ids, self._effects, strict=True):
                if effect[k] == self._a_ids[k]:
                    continue  # left as it was
                x = self._simplify(terms[k] >= before)
                self._dag.add([x])
                if not self._shown.always(x, SPLITS):
                    shown = False
                    break
                places.append(self._dag.index[x.get_id()])
            self._increases[k] = places if shown else None
        return self._increases[k]


@dataclass
class _Frame:
    """One conjunct's frame parts (:meth:`StepPass._frame_parts`): the conjunct over ``a`` and
    ``m``, the entries of ``a`` it reads that its frame part takes from the transition's
    effect, the frame state (fresh variables; an increasing scalar ``a``'s plus one at least
    0), the places showing those scalars' increases, and per kept values (AST addresses)
    the place of the frame part shown, or None if it is not."""

    composed: Any
    keep: list[int]
    frame: list[Any]
    grows: list[int]
    shown: dict[tuple[int, ...], int | None] = field(default_factory=dict)
    failed: bool = False


__all__ = ["StepPass", "SPLITS"]
