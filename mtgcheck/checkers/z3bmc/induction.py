"""k-induction, smallest k first, one property at a time (:class:`Induction`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Collection, Sequence

import z3

from mtgcheck.model.actions import Action
from mtgcheck.model.state import State
from mtgcheck.properties.base import Property

from .budget import Budget
from .closure import Closure
from .lemmas import strengthen_with_lemmas
from .path import Path
from .relation import Encoding
from .renumbering import Renumbering, prove_renumbered


#: Largest k tried by k-induction; the base case is the BMC run, so k is also at most the
#: depth BMC reached for the property.  On the built-ins k = 2 proved nothing that k = 1
#: did not (at about 10 million per configuration), so the default stops at 1.
MAX_K = 1


@dataclass
class Proof:
    """How a property was proved: the k of k-induction and what the proof rests on."""

    k: int
    core: list[str]


class Induction:
    """k-induction, smallest k first, one property at a time; a proved property is assumed
    (on every state and step) by every later attempt, at every k.

    k is tried only up to the depth BMC reached for the property (the base case; k = 0 needs
    only the initial states).  At k = 0 the step case may assume the invariant candidates
    (``invariants``, true in every initial state); a proof counts only once the candidates
    its core names are closed into an inductive set (:class:`Closure`), and is retried
    without any candidate found not to be.  At k >= 1 the candidates proven so far are
    assumed.  Opt-in (``strengthen``), after k = 0: the hand-written lemmas true initially
    whose Houdini fixpoint is inductive are proved, assumed like properties, and k = 0 is
    tried again.  Every query has the same resource limit; one stopped by the wall clock
    proves nothing (``budget.cut``).

    ``hints`` (candidate names): k = 0 is first tried with only these candidates live.
    Checking a set that closes is one query per member, where finding it drops the others
    one counterexample at a time (531 queries against 364 on ``flashback``, 157 s against
    45 s).  What that proves stands (its sets were closed); if a property is left, k = 0 is
    tried again with every candidate, the ones proven so far kept, since a candidate
    dropped under the hints alone may be inductive with the others.

    :meth:`run` may be called for k = 0, then again for k >= 1 once BMC has run."""

    def __init__(self, enc: Encoding, props: Sequence[Property], budget: Budget, *, init_of: Any = None,
                 strengthen: bool = False, invariants: Sequence[Any] = (), hints: Collection[str] = (),
                 split_hints: Collection[str] = (), hinted_props: Collection[str] | None = None) -> None:
        self.enc, self.props, self.budget = enc, props, budget
        #: The properties tried under the hints alone (None: all): those the run the hints
        #: came from proved.  The others go straight to the closure of every candidate, not
        #: through a failing attempt under the hints first (two on ``plot-12``, 10M each).
        self.hinted_props = None if hinted_props is None else frozenset(hinted_props)
        self.init_of, self.strengthen = init_of, strengthen
        self.invariants, self.hints, self.split_hints = invariants, hints, split_hints
        self.proved: dict[str, Proof] = {}
        self.done: list[Property] = []
        self.closure: Closure | None = None
        self.ctis: dict[str, tuple[State, Action]] = {}
        self.hinted: dict[str, Any] = {}
        self.renumbering: Renumbering | None = None

    def run(self, reached: dict[str, int], ks: range) -> None:
        for k in ks:
            todo = [p for p in self.props if p.id not in self.proved and reached[p.id] >= k]
            if not todo or self.budget.cut:
                break
            if k == 0:
                todo = self._renumbered(todo)
                if todo:
                    self._k0(todo)
                continue
            path = Path(self.enc, k)
            if self.closure is not None:
                path.add_invariants(self.closure.proven_candidates(), self.closure.proven)
            for f in self.done:
                path.assume(f)
            prove_each(path, todo, self.budget, self.proved, self.done)

    def _renumbered(self, todo: list[Property]) -> list[Property]:
        """The state properties the final renumbering of every step decides
        (``renumbering.py``: ``stack-ordered``) are proved by its lemma, with no induction
        hypothesis, before any invariant is mined for them; the others are left."""
        done, self.renumbering = prove_renumbered(self.enc, self.budget, todo)
        for p in done:
            self.proved[p.id] = Proof(0, ["renumbering lemma"])
            self.done.append(p)
        return [p for p in todo if p.id not in self.proved]

    def _k0(self, todo: list[Property]) -> None:
        enc, budget = self.enc, self.budget
        carried: list[str] = []
        if self.invariants and self.hints:
            names = set(self.hints)
            given = [c for c in self.invariants if c.name in names]
            # the hinted bounds, against a constant or another entry, by the passes first
            # (:mod:`.bound_pass`): without, the chunks' queries made a second plot-10
            # position reusing the first's names cost 10.6M against 5.6M from scratch; with, 6.1M
            self.closure = Closure(enc, given, budget, todo, split_first=self.split_hints, intervals=True)
            for f in self.done:  # proved already (the renumbering lemma's): facts of every step
                self.closure.path.assume(f)
            hinted = [p for p in todo if self.hinted_props is None or p.id in self.hinted_props]
            # With every hinted candidate closed by the passes (no query), each property is
            # first tried on them, as from scratch: proved so, its hypothesis is no member for
            # the chunks to ask (a second plot-14 position reusing the first's names asked the
            # six state properties' step cases in one query, 6.4M and 6.8M more to trim its
            # core, where each conjunct's own query costs a few 0.1M: 9.1 s, 7.9 from scratch,
            # 7.0 so).  With hints a query must close (planechase's), those first tries mostly
            # fail before the chunks close what they need: planechase-3p's second position
            # took 7.7 s so, 6.8 with the chunks first.
            passes_closed = self.closure.live <= self.closure.proven
            for p in hinted if passes_closed else []:
                first = self.closure.on_closed(p) if not budget.cut else None
                if first is not None:
                    self.proved[p.id] = Proof(0, first)
                    self.done.append(p)
                    self.closure.proved_on_closed(p)
            hinted = [p for p in hinted if p.id not in self.proved]
            self.closure.close_all()
            prove_each(self.closure.path, hinted, budget, self.proved, self.done, self.closure)
            todo = [p for p in todo if p.id not in self.proved]
            self.hinted = {"hints": len(names), "hints_mined": len(given), "hints_queries": self.closure.queries,
                           "hints_sufficed": not todo}
            if not todo:
                return
            carried = [c.name for c in self.closure.proven_candidates()]
        if self.invariants:
            self.closure = Closure(enc, self.invariants, budget, todo, proven=carried, intervals=True)
            path = self.closure.path
        else:
            path = Path(enc, 0)
        for f in self.done:
            path.assume(f)
        prove_each(path, todo, budget, self.proved, self.done, self.closure)
        self.ctis.update(path.ctis)
        if self.strengthen and not budget.cut:
            for lemma in strengthen_with_lemmas(enc, path, self.init_of, budget):
                self.done.append(lemma)
                path.assume(lemma)
            prove_each(path, [p for p in todo if p.id not in self.proved], budget, self.proved, self.done,
                        self.closure)

    def summary(self) -> dict[str, Any]:
        """The invariants' use (and ``ctis``: the step case's counterexample of each property
        left unproved at k = 0)."""
        lemma = self.renumbering
        renum = {} if lemma is None else {"renumbering": {
            "facts_proved": lemma.ready is True, "queries": lemma.queries, "rlimit": lemma.rlimit,
            "renamed": lemma.renamed,
            **({"why_not": lemma.why} if lemma.why else {})}}
        return {**(self.closure.summary() if self.closure is not None else {}), **self.hinted, **renum,
                "ctis": {pid: cti for pid, cti in self.ctis.items() if pid not in self.proved}}


def prove_by_induction(enc: Encoding, props: Sequence[Property], reached: dict[str, int], budget: Budget,
               max_k: int = MAX_K, **kw: Any) -> tuple[dict[str, Proof], dict[str, Any]]:
    """:class:`Induction` for k = 0..max_k at once: the proofs and the invariants' use."""
    ind = Induction(enc, props, budget, **kw)
    ind.run(reached, range(max_k + 1))
    return ind.proved, ind.summary()


def prove_each(path: Path, todo: Sequence[Property], budget: Budget, proved: dict[str, Proof],
                done: list[Property], closure: Closure | None = None) -> None:
    """Try each property alone at the path's k; what is proved is assumed from then on.
    With ``closure``, a proof whose core names invariant candidates counts only once they
    are closed into an inductive set; otherwise it is retried without the dropped one, first
    among the members proven and the support its last proof named (:meth:`Closure.step_case`).
    It is first tried on the candidates closed so far alone (:meth:`Closure.on_closed`).  A
    step case with a counterexample is tried again if that breaks some candidate set aside
    by its first, smaller limit (:meth:`Closure.reinstate`)."""
    for p in todo:
        first = closure.on_closed(p) if closure is not None and not budget.cut else None
        if first is not None:  # inductive relative to a set already closed: nothing to close
            proved[p.id] = Proof(path.k, first)
            done.append(p)
            path.assume(p)
            continue
        while not budget.cut and p.id not in proved:
            res, _, core = closure.step_case(p) if closure is not None else path.attempt([p], budget)
            if res == z3.sat and path.last_cti is not None:
                path.ctis[p.id] = path.last_cti
            if res != z3.unsat:
                if closure is not None and res == z3.sat and closure.reinstate(p, path.sol.model()):
                    continue  # again, with the candidates set aside that the counterexample breaks
                if closure is not None and res == z3.unknown and not budget.cut and closure.give_back_reading(p):
                    continue  # again, with the candidates set aside over the fields it reads
                if closure is not None:  # not inductive at k = 0: nothing may rest on it
                    closure.drop_property(p)
                break
            if closure is not None:
                own = f"hyp:{p.id}"
                if own in closure.props:  # its step case is the query just made
                    closure.support[own], closure.prop_core[own] = frozenset(path.last_support), core
                    ok = closure.close([own])
                else:
                    ok = closure.close(path.last_support)
                if not ok:
                    continue  # a member it rests on is not inductive: dropped, try again without it
                # every property closed with it is proved too (the whole set is inductive)
                for q in closure.proven_properties():
                    name = f"hyp:{q.id}"
                    # (closed by :meth:`Closure.close_all`, it has no core of its own yet:
                    # its own attempt, later in ``todo``, gives one)
                    if name != own and q.id not in proved and name in closure.prop_core:
                        proved[q.id] = Proof(0, closure.prop_core[name])
                        done.append(q)
                        path.assume(q)
            proved[p.id] = Proof(path.k, core)
            done.append(p)
            path.assume(p)
