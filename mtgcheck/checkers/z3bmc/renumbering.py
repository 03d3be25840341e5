"""State properties that hold after every step because every step ends by renumbering the
stack (:func:`after_every_step`): ``stack-ordered`` (CR 405.2) proved for any number of slots
by a lemma about ``compact``, not by a case split of the step case that grows with them.

**The lemma.**  ``model/zones.py:compact`` gives each stack entry ``x`` (a card on the stack,
an ability in its slot) a rank ``out_x``: the count of the entries ``f`` on the stack below it,
``S_x = sum_f If(below[f][x], 1, 0)``, where "below" is a strict total order (raw position,
then cards before abilities, then slot).  Ranks under a strict total order are a permutation
of ``0..size-1``, for *any* input.  Asked of Z3 in one query, that is out of any limit tried
(200M on 12 entries); asked a pair of entries at a time it is proved at a cost that grows
about 3.7x for every two entries (``bench/stack_order_proof.py --design compact``): Z3 finds
the transitivity of "below" anew under every case split of the sums.  So the proof is cut
into queries that each read a few terms:

1. *Facts about the model's terms* (each a query over the atoms of two or three entries):
   ``link_x``: on the stack, ``out_x == S_x``; ``order(e, g)``: when ``e`` is below ``g``,
   every ``f`` below ``e`` is below ``g``, and ``g`` is not below ``e`` (transitivity and
   asymmetry); ``total(e, g)``: of two entries on the stack one is below the other;
   ``bound_x``: only entries on the stack count; ``size``: ``size == #entries on the stack``.
2. *An abstract theorem* over fresh variables: ``O[x]`` and ``B[f][x]`` (Booleans standing
   for "on the stack" and the "below" conditions), ``R[x]`` (ranks), ``Sz`` (size).  From the facts of step 1 written
   over them (``link``, ``order``, ``total``, ``bound``, ``size`` with ``B``, ``R``, ``Sz``):
   per pair, ``R_e != R_g``; per entry, ``0 <= R_x < Sz``; then the property itself over
   ``R`` and ``Sz``.  With the sums over free Booleans these are linear arithmetic, tens
   of thousands of rlimit units each (no rediscovery of transitivity: it is a hypothesis).
3. *Instantiation.*  Each abstract statement is proved valid; substituting ``B := below``,
   ``R := out``, ``Sz := size`` into a valid formula leaves it valid.  The hypotheses so
   instantiated are exactly the facts of step 1 (built by that substitution, then proved),
   so the property of ``compact(t)`` holds for every ``t``; the module checks that the
   instantiated property is the very term the property builds on ``compact(t)``.
4. *Every step.*  ``model/settle.py:settle`` ends with ``compact``: the relation's state
   after any step is ``compact(pre)`` for the state ``pre`` the rules left.  Substituting
   the template ``t := pre`` gives the property of the state after the step (checked to be
   the same term), for every transition and every state before it: no induction hypothesis.
   With the initial states (the base case, as for any k = 0 proof), the property holds in
   every reachable state.

Nothing is trusted: a step that is not proved, a term that is not in the expected form
(a mutant that does not renumber the stack, say), or an instance that is not the term the
property builds leaves the property to k-induction, as before.  The cost is about ``L^2 / 2``
queries for ``L`` stack entries (``total``), each over the terms of two entries, or of one entry
against the others (``greatest``); step 2's statements alike for every pair or entry are
asked once and renamed (:class:`Symmetric`), and so are step 1's ``order`` facts, cut into
one per pair (asymmetry) and one per third entry (transitivity), alike up to a renaming
of the entries' variables (:class:`Renamed`): 246 queries and 2.2M on 18 entries
(``examples/scale/04-plot-14`` when every card slot was an entry; 522 and 6.7M with a query per
ordered pair over every entry, 707 and 22.2M when every pair of step 2 was asked), where the
pair-at-a-time proof took 294M on 16.  The entries are the cards that can be on the stack
(``model/zones.py``'s ``stack_slots``: no land) and the ability slots: 12 on plot-14, 137
queries and 0.58M (the figures below that name 18 entries were measured on all 14 slots)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

import z3

from mtgcheck.model.config import Config
from mtgcheck.model.logic import mk_and, mk_implies, mk_not, mk_or, symbolic
from mtgcheck.model.state import State, flat, symbolic_state
from mtgcheck.model.zones import COMPACT_READS, COMPACT_WRITES, compact, stack_entries, stack_slots
from mtgcheck.properties.base import Property

from .budget import Budget
from .intervals import unchecked
from .substitution import Substitution

if TYPE_CHECKING:
    from .relation import Encoding


#: The fields ``compact`` reads and writes: a state property that reads no other field is
#: decided by the renumbering alone, and may be proved here.
FIELDS = frozenset(COMPACT_READS + COMPACT_WRITES)


@dataclass
class Renumbering:
    """The lemma's facts for one configuration, proved once (:meth:`prove_facts`), and the
    properties proved from them (:meth:`prove`)."""

    cfg: Config
    budget: Budget
    facts: list[Any] = field(default_factory=list)  # abstract facts proved from the hypotheses
    ready: bool | None = None  # None: not tried yet; False: a step failed (``why``)
    why: str = ""
    queries: int = 0
    rlimit: int = 0
    renamed: int = 0  # abstract statements proved by renaming one proved (:class:`Symmetric`)

    def __post_init__(self) -> None:
        self.canonical = Canonical()
        self.sigma: Substitution | None = None  # the abstract variables := the model's terms
        with symbolic():
            self.t = symbolic_state(self.cfg, "renum")
            self.out = compact(self.cfg, self.t)

    def _prove(self, goal: Any, hyps: list[Any], what: str) -> bool:
        """One query: ``hyps`` imply ``goal`` (a fresh solver: the queries stay small; in the
        terms' own context: a context of its own per query, the terms translated into it,
        was a third of the lemma's seconds on ``examples/scale/04-plot-14``)."""
        sol = z3.Solver(ctx=goal.ctx)
        sol.add(*hyps)
        sol.add(mk_not(goal))
        before = len(self.budget.queries)
        res = self.budget.check(sol, what=f"renumbering: {what}")
        self.queries += 1
        self.rlimit += self.budget.queries[before][2] if len(self.budget.queries) > before else 0
        if res != z3.unsat:
            self.why = f"{what}: {res}"
        return res == z3.unsat

    def prove_facts(self) -> bool:
        """Steps 1 and 2 of the module's proof: the facts about ``compact``'s terms and the
        abstract pair and range statements.  Once per configuration."""
        if self.ready is not None:
            return self.ready
        self.ready = False
        cfg, t, out = self.cfg, self.t, self.out
        on_t = [on for on, _ in stack_entries(cfg, t)]
        ranks = [_term(x) for x in (*(out.pos[j] for j in stack_slots(cfg)), *out.ab_pos)]
        below = _below(on_t, ranks)
        if below is None:
            self.why = "compact's ranks are not counts of the entries below (not renumbered?)"
            return False
        L = len(on_t)
        # "on the stack" abstracted too: the abstract queries are then Boolean and linear
        # over 0/1 terms, with no arithmetic on the zones (3x cheaper on 18 entries)
        on = [z3.Bool(f"renum.O{x}") for x in range(L)]
        B = [[z3.Bool(f"renum.B{f}_{x}") for x in range(L)] for f in range(L)]
        R = [z3.Int(f"renum.R{x}") for x in range(L)]
        Sz = z3.Int("renum.size")
        to_on = list(zip(on, on_t, strict=True))
        sigma = [(B[f][x], below[f][x]) for f in range(L) for x in range(L) if f != x] + to_on
        sigma += list(zip(R, ranks, strict=True)) + [(Sz, _term(out.stack_size))]
        one = lambda c: z3.If(c, 1, 0)  # noqa: E731

        def S(x: int) -> Any:
            return z3.Sum([one(B[f][x]) for f in range(L) if f != x])

        link = [z3.Implies(on[x], R[x] == S(x)) for x in range(L)]
        # (the L^3 terms of ``order`` and ``greatest`` through Z3's C API: ``model/logic.py``)
        order = {(e, g): mk_implies(mk_and([on[e], B[e][g]]), mk_and(
            [*[mk_implies(B[f][e], B[f][g]) for f in range(L) if f not in (e, g)], mk_not(B[g][e])]))
            for e in range(L) for g in range(L) if e != g}
        total = {(e, g): mk_implies(mk_and([on[e], on[g]]), mk_or([B[e][g], B[g][e]]))
                 for e in range(L) for g in range(e + 1, L)}
        bound = [mk_and([mk_implies(B[f][x], on[f]) for f in range(L) if f != x]) for x in range(L)]
        size = Sz == z3.Sum([one(o) for o in on])
        # Step 1: every hypothesis, instantiated, is a fact about the model's terms.  ``order``
        # is the conjunction of a fact per pair (asymmetry) and one per third entry
        # (transitivity), each over the terms of two or three entries: those alike up to a
        # renaming of the entries' variables are proved once (:class:`Renamed`).
        hyps = [(f"link {x}", h) for x, h in enumerate(link)]
        hyps += [(f"total {k}", h) for k, h in total.items()] + [(f"bound {x}", h) for x, h in enumerate(bound)]
        hyps.append(("size", size))
        self.sigma = Substitution.of(sigma)
        for what, h in hyps:
            if not self._prove(self.sigma(h), [], what):
                return False
        # (built from the terms themselves: what substituting ``sigma`` into the abstract
        # statement gives, without passing all of ``sigma`` for each of L^3 facts)
        renamed = Renamed(self, [entry_vars(cfg, t, x) for x in range(L)], self.canonical)
        for e, g in order:
            parts = (("on", on_t[e], (e,)), ("below", below[e][g], (e, g)), ("below", below[g][e], (g, e)))
            if not renamed.prove_by_parts((e, g), "order", parts, lambda e=e, g=g: z3.Implies(
                    z3.And(on_t[e], below[e][g]), z3.Not(below[g][e]))):
                return False
            for f in range(L):
                if f in (e, g):
                    continue
                parts = (("on", on_t[e], (e,)), ("below", below[e][g], (e, g)), ("below", below[f][e], (f, e)),
                         ("below", below[f][g], (f, g)))
                if not renamed.prove_by_parts((f, e, g), "order", parts, lambda f=f, e=e, g=g: z3.Implies(
                        z3.And(on_t[e], below[e][g], below[f][e]), below[f][g])):
                    return False
        # Step 2: the abstract statements, each from the few hypotheses it needs; those
        # stated alike for every pair or every entry are proved on one and renamed
        # (:class:`Symmetric`).
        facts = [size]
        sym = Symmetric(self, on, B, R, self.canonical)
        for (e, g), h in total.items():
            distinct = z3.Implies(z3.And(on[e], on[g]), R[e] != R[g])
            if not sym.prove((e, g), distinct, [link[e], link[g], order[e, g], order[g, e], h], "distinct"):
                return False
            facts.append(distinct)
        for x in range(L):
            in_range = z3.Implies(on[x], z3.And(R[x] >= 0, R[x] < Sz))
            if not sym.prove((x,), in_range, [link[x], bound[x], size], "range"):
                return False
            facts.append(in_range)
        # The top: a finite strict total order has a greatest element, found along the
        # entries one at a time (``greatest(k)``: among entries 0..k, none on the stack or
        # one above every other), each step from the last with the order's facts; the
        # greatest entry's rank counts every other entry, so it is size - 1.
        def greatest(k: int) -> Any:
            return mk_or([mk_and([mk_not(on[f]) for f in range(k + 1)]),
                          *[mk_and([on[x], *[mk_implies(on[f], B[f][x]) for f in range(k + 1) if f != x]])
                            for x in range(k + 1)]])

        chain = greatest(0)
        for k in range(1, L):
            pair = [order[x, k] for x in range(k)] + [order[k, x] for x in range(k)] + [total[x, k] for x in range(k)]
            if not self._prove(greatest(k), [chain, *pair], f"greatest {k}"):
                return False
            chain = greatest(k)
        top = [mk_implies(mk_and([on[x], *[mk_implies(on[f], B[f][x]) for f in range(L) if f != x]]), R[x] == Sz - 1)
               for x in range(L)]
        for x in range(L):
            if not sym.prove((x,), top[x], [link[x], bound[x], size], "top"):
                return False
        facts += [chain, *top]
        self.renamed = sym.renamed + renamed.renamed
        # the facts with "on the stack" instantiated: the property reads the zones' atoms
        self.facts = [Substitution.of(to_on)(f) for f in facts]
        # (a card that is never on the stack keeps its position's term: no entry, no rank)
        cards = len(stack_slots(cfg))
        pos = list(out.pos)
        for x, j in enumerate(stack_slots(cfg)):
            pos[j] = R[x]
        self.abstract = t.replace(pos=tuple(pos), ab_pos=tuple(R[cards:]), stack_size=Sz)
        self.ready = True
        return True

    def prove(self, p: Property, after: State, pre: State) -> bool:
        """``p`` holds of ``after == compact(pre)`` for every ``pre`` (step 3 and 4): the
        abstract property from the abstract facts, then two checks that the instances are
        the terms the property builds on ``compact(t)`` and on the state after a step."""
        if p.kind != "state" or not self.prove_facts():
            return False
        with symbolic():
            abstract = _bool(p.pred(self.cfg, self.abstract))
            on_compact = _bool(p.pred(self.cfg, self.out))
            on_after = _bool(p.pred(self.cfg, after))
        assert self.sigma is not None  # (prove_facts set it)
        if not self.sigma(abstract).eq(on_compact):
            self.why = f"{p.id}: its term on compact(t) is not the lemma's instance"
            return False
        to_pre = list(zip(flat(self.t), map(_term, flat(pre)), strict=True))
        if not Substitution.of(to_pre)(on_compact).eq(on_after):
            self.why = f"{p.id}: the state after a step is not compact's output"
            return False
        return self._prove(abstract, self.facts, f"{p.id} from the ranks")


class Symmetric:
    """Step 2's statements that are stated alike for every pair of entries (``distinct``) or
    every entry (``range``, ``top``): each is proved by a query for one representative, the
    entries ``(0, 1)`` or ``(0,)``, and for the others by renaming.

    Why it is sound: the abstract variables ``O[x]``, ``B[f][x]``, ``R[x]`` are free, and a
    permutation ``p`` of the entries renames them (``O[x] -> O[p(x)]``, ``B[f][x] ->
    B[p(f)][p(x)]``, ``R[x] -> R[p(x)]``, ``Sz`` kept).  Renaming free variables one for one
    maps a valid formula to a valid formula.  So if ``hyps(0, 1) -> goal(0, 1)`` is valid (the
    query), its renaming is too; and each pair's own implication *is* that renaming, which is
    checked, not assumed: the two terms must be equal up to the order of the arguments of
    ``And``, ``Or`` and ``+`` (:class:`Canonical`), else that pair gets its own query.  The
    hypotheses of each pair are still facts proved in step 1, each on its own.

    The cost: on ``examples/scale/04-plot-14`` (18 entries) the 153 ``distinct`` queries were
    16.5M of the lemma's 22M, growing with the square of the entries; now one query, and a
    renaming and a comparison of small terms per pair."""

    def __init__(self, lemma: "Renumbering", on: list[Any], B: list[list[Any]], R: list[Any],
                 canonical: Canonical | None = None) -> None:
        self.lemma, self.on, self.B, self.R = lemma, on, B, R
        self.canonical = canonical if canonical is not None else Canonical()
        self.proved: dict[str, tuple[tuple[int, ...], Any]] = {}  # kind -> (entries, implication)
        self.renamed = 0

    def prove(self, key: tuple[int, ...], goal: Any, hyps: list[Any], kind: str) -> bool:
        claim = z3.Implies(z3.And(*hyps), goal)
        rep = self.proved.get(kind)
        if rep is not None and rep[0] != key:
            if self.canonical(self._rename(rep[1], rep[0], key)) == self.canonical(claim):
                self.renamed += 1
                return True
        if not self.lemma._prove(goal, hyps, f"{kind} {' '.join(map(str, key))}"):
            return False
        self.proved.setdefault(kind, (key, claim))
        return True

    def _rename(self, term: Any, src: tuple[int, ...], dst: tuple[int, ...]) -> Any:
        """``term`` with the entries renamed by a permutation taking ``src`` to ``dst`` (the
        other entries in their order)."""
        L = len(self.on)
        rest = [x for x in range(L) if x not in dst]
        p = dict(zip(src, dst, strict=True)) | dict(zip([x for x in range(L) if x not in src], rest, strict=True))
        pairs = [(self.on[x], self.on[p[x]]) for x in range(L) if p[x] != x]
        pairs += [(self.R[x], self.R[p[x]]) for x in range(L) if p[x] != x]
        pairs += [(self.B[f][x], self.B[p[f]][p[x]]) for f in range(L) for x in range(L)
                  if f != x and (p[f], p[x]) != (f, x)]
        return Substitution.of(pairs)(term)


class Renamed:
    """Step 1's facts about the order of two or three entries (``order``'s asymmetry and
    transitivity), each proved by a query for one entry tuple of its kind and for the
    others by renaming the entries' variables (``zone``, ``pos`` of a card; ``ab_kind``,
    ``ab_pos`` of an ability).

    Why it is sound: each fact is a formula over the state's variables with no hypothesis,
    valid for every value of them.  Renaming its variables one for one (distinct variables
    to distinct variables) maps a valid formula to a valid one.  A tuple's fact is taken as
    proved only if it reads no variable but its entries', and *is* the renaming of a fact
    proved for another tuple (checked term by term up to the order of ``And``, ``Or`` and
    ``+``, :class:`Canonical`), else it gets its own query.  The entries' kinds and the
    order of their slots decide the constants a fact's terms hold (a card before an
    ability at the same position, a lower slot first), so a fact is compared with the one
    proved for a tuple of the same kinds and order.

    The cost: on ``examples/scale/04-plot-14`` (18 entries) the 306 ``order`` queries, each
    over every entry, were 4.2M of the lemma's 6.7M, growing with the cube of the entries in
    work; now a query per kind of tuple, and a renaming and a comparison of small terms for
    each of the 306 pairs and 18 entries, the triples read from them
    (:meth:`prove_by_parts`: the lemma's facts on plot-14 went from 3.8 s to 3.2 s)."""

    def __init__(self, lemma: "Renumbering", entry_vars: list[list[Any]], canonical: Canonical | None = None) -> None:
        self.lemma, self.vars = lemma, entry_vars
        self.canonical = canonical if canonical is not None else Canonical()
        self.proved: dict[tuple[Any, ...], tuple[tuple[int, ...], Any, Any]] = {}  # kind -> (tuple, fact, canonical)
        self.renamed = 0
        self._own = [{v.get_id() for v in vs} for vs in entry_vars]
        self._reads = _Reads()
        self._templates: set[tuple[Any, ...]] = set()  # kinds of key proved with uniform parts
        self._parts: dict[tuple[str, tuple[int, ...], int], bool] = {}  # (label, entries, term id) -> uniform
        self._keep: list[Any] = []
        self._part_reps: dict[tuple[Any, ...], tuple[tuple[int, ...], Any]] = {}  # kind -> (entries, term)

    def prove(self, key: tuple[int, ...], fact: Any, kind: str, reads: frozenset[int] | None = None) -> bool:
        """Whether ``fact`` (about the entries ``key``) is proved, by renaming or by a query;
        ``reads``: the ids of the variables it reads, if known."""
        shape = self._shape(kind, key)
        rep = self.proved.get(shape)
        own = set().union(*(self._own[x] for x in key))
        local = (reads if reads is not None else {c.get_id() for c in _variables(fact)}) <= own
        if rep is not None and local:
            renamed = self._rename(fact, key, rep[0])
            # the same term (Z3 shares equal terms: one comparison), else equal up to the
            # order of the arguments of And, Or and + (a walk of both terms)
            if renamed.eq(rep[1]) or self.canonical(renamed) == rep[2]:
                self.renamed += 1
                return True
        if not self.lemma._prove(fact, [], f"{kind} {key}"):
            return False
        if local and rep is None:
            self.proved[shape] = (key, fact, self.canonical(fact))
        return True

    def prove_by_parts(self, key: tuple[int, ...], kind: str, parts: Sequence[tuple[str, Any, tuple[int, ...]]],
                       build: Any) -> bool:
        """Whether the fact ``build()`` about the entries ``key`` is proved, where the fact is
        one template, the same for every key of this ``kind``, over ``parts``: (label, term,
        entries), a term of the model about some of ``key``'s entries, the entries taken at
        the same places of ``key`` for every key.

        Why: transitivity is a fact per triple of entries, ``L^3`` of them (4,896 on 18
        entries), and building, renaming and comparing each triple's term cost more than
        the lemma's queries.  Its terms are made of ``L^2`` pair terms and ``L`` entry terms.
        If each part is the renaming of one representative part of its label and kind of
        entries (:meth:`_uniform`), and the fact of one key of this kind whose parts are so
        was proved, then every such key's fact is the renaming of that one: the renaming of
        the key's entries onto the proved key's, applied to each part, is the composition of
        the two parts' renamings from their representative (each reads only its own
        entries' variables, checked), and the template applied to renamed parts is the
        renamed template.  Renaming variables one for one keeps a formula valid (the class
        docstring), so the fact holds.  Else the fact is built and proved as :meth:`prove`
        does."""
        shape = self._shape(kind, key)
        uniform = all(self._uniform(label, term, entries) for label, term, entries in parts)
        if uniform and shape in self._templates:
            self.renamed += 1
            return True
        fact = build()
        if not self.prove(key, fact, kind, self._reads(*(term for _, term, _ in parts))):
            return False
        if uniform:
            self._templates.add(shape)
        return True

    def _uniform(self, label: str, term: Any, entries: tuple[int, ...]) -> bool:
        """Whether ``term`` (labelled ``label``, about ``entries``) reads only the entries'
        variables and is the renaming of the first such term of its label and kind of
        entries (:meth:`_shape`), up to the order of ``And``, ``Or`` and ``+``."""
        memo = (label, entries, term.get_id())
        if memo not in self._parts:
            self._keep.append(term)  # (its id is not another term's while in the memo)
            ok = self._reads(term) <= set().union(*(self._own[x] for x in entries))
            if ok:
                cls = self._shape(label, entries)
                rep = self._part_reps.setdefault(cls, (entries, term))
                if rep[0] != entries:
                    renamed = self._rename(rep[1], rep[0], entries)
                    ok = renamed.eq(term) or self.canonical(renamed) == self.canonical(term)
            self._parts[memo] = ok
        return self._parts[memo]

    def _shape(self, kind: str, key: tuple[int, ...]) -> tuple[Any, ...]:
        """What two tuples of entries must share for a fact of one to be compared with the
        other's: the kind of fact, the entries' variables' counts, their slots' order and
        which are abilities."""
        return (kind, tuple(len(self.vars[x]) for x in key), tuple(sorted(range(len(key)), key=lambda i: key[i])),
                tuple(self._is_ability(x) for x in key))

    def _rename(self, term: Any, src: tuple[int, ...], dst: tuple[int, ...]) -> Any:
        """``term`` with the variables of the entries ``src`` renamed to those of ``dst``,
        place by place (at once: a variable renamed is not renamed again)."""
        pairs = [(v, w) for x, y in zip(src, dst, strict=True) for v, w in zip(self.vars[x], self.vars[y], strict=True)
                 if not v.eq(w)]
        return Substitution.of(pairs)(term)

    def _is_ability(self, x: int) -> bool:
        return x >= len(stack_slots(self.lemma.cfg))


def entry_vars(cfg: Config, t: State, x: int) -> list[Any]:
    """The variables of stack entry ``x`` that ``compact`` reads (:func:`model.zones.stack_entries`)."""
    cards = stack_slots(cfg)
    if x < len(cards):
        return [t.zone[cards[x]], t.pos[cards[x]]]
    return [t.ab_kind[x - len(cards)], t.ab_pos[x - len(cards)]]


class _Reads:
    """The ids of the variables some terms read, each term's walked once."""

    def __init__(self) -> None:
        self.memo: dict[int, frozenset[int]] = {}

    def __call__(self, *terms: Any) -> frozenset[int]:
        out: set[int] = set()
        for term in terms:
            key = term.get_id()
            if key not in self.memo:
                self.memo[key] = frozenset(c.get_id() for c in _variables(term))
            out |= self.memo[key]
        return frozenset(out)


def _variables(term: Any) -> list[Any]:
    from .relation import constants

    return constants([term])


#: Operators whose arguments' order does not change a term's value (:class:`Canonical`).
_AC = (z3.Z3_OP_AND, z3.Z3_OP_OR, z3.Z3_OP_ADD)


class Canonical:
    """A term's form up to the order of the arguments of ``And``, ``Or`` and ``+``, as a
    number: two terms with the same number are equal up to the order of those arguments, so
    equivalent.  Each distinct form gets the next number (``forms``: a node's kind, name,
    leaf text and its arguments' numbers, sorted under an AC operator).

    One memo for every term compared in a lemma: the claims of the pairs and their renamings
    share their leaves and the facts of each entry, walked once each (on 18 entries, 99,000
    nodes walked one claim at a time, 3.8 s of the lemma's 9 s).  The terms walked are kept
    (``_keep``): a term's id is reused only once the term is freed, never while its number
    is in the memo."""

    def __init__(self) -> None:
        self.memo: dict[int, int] = {}
        self.forms: dict[tuple[Any, ...], int] = {}
        self._keep: list[Any] = []

    def __call__(self, term: Any) -> int:
        memo, forms = self.memo, self.forms
        self._keep.append(term)
        # the term read through Z3's C functions (``intervals.unchecked`` says why)
        ctx = term.ctx.ref()
        ast_id, num_args, app_arg, app_decl, decl_kind, decl_name, symbol, ast_kind, numeral = map(unchecked, (
            z3.Z3_get_ast_id, z3.Z3_get_app_num_args, z3.Z3_get_app_arg, z3.Z3_get_app_decl, z3.Z3_get_decl_kind,
            z3.Z3_get_decl_name, z3.Z3_get_symbol_string, z3.Z3_get_ast_kind, z3.Z3_get_numeral_string))

        def walk(t: Any) -> int:
            key = ast_id(ctx, t)
            got = memo.get(key)
            if got is None:
                kids = [walk(app_arg(ctx, t, i)) for i in range(num_args(ctx, t))]
                decl = app_decl(ctx, t)
                kind = decl_kind(ctx, decl)
                if kind in _AC:
                    kids.sort()
                leaf = "" if kids else numeral(ctx, t) if ast_kind(ctx, t) == z3.Z3_NUMERAL_AST else "const"
                form = (kind, symbol(ctx, decl_name(ctx, decl)), leaf, tuple(kids))
                got = memo[key] = forms.setdefault(form, len(forms))
            return got

        return walk(term.as_ast())


def stack_top(cfg: Config, s: State) -> Any:
    """A non-empty stack has an entry at its top position, ``size - 1`` (what passing
    priority with every player passed resolves: CR 608.1).  Not a property of the
    catalogue but a fact of every state after a step, which ``no-deadlock``'s step case
    needs (some ``pass`` is enabled), and which Z3 does not find on its own: it is a
    pigeonhole argument over the stack's entries."""
    from mtgcheck.model.logic import And, Implies, Or

    return Implies(s.stack_size > 0, Or(*[And(on, p == s.stack_size - 1) for on, p in stack_entries(cfg, s)]))


#: :func:`stack_top` as a state predicate the lemma proves after every step.
STACK_TOP = Property("renumbering:stack-top", ("405.2", "608.1"), "A non-empty stack has an entry at its top.",
                     "state", stack_top)


def after_every_step(cfg: Config, budget: Budget, props: Sequence[Property], after: State, pre: State,
                     post: State) -> tuple[list[Property], list[Any], Renumbering]:
    """The state properties among ``props`` proved to hold after every step (``after ==
    compact(pre)``), by the renumbering lemma; only those that read no field but
    :data:`FIELDS` are tried, the lemma's facts proved once for all of them.  Also the
    facts of every state after a step, as terms over ``post`` (the relation's state after
    the step, equal to ``after``): :data:`STACK_TOP`, if proved, whenever a state property
    is to be proved (``no-deadlock`` needs it, and reads other fields)."""
    lemma = Renumbering(cfg, budget)
    proved = [p for p in props if p.kind == "state" and _about_ranks(_reads(cfg, p, lemma.t))
              and lemma.prove(p, after, pre)]
    facts = []
    if any(p.kind == "state" for p in props) and lemma.prove(STACK_TOP, after, pre):
        with symbolic():
            facts.append(_bool(stack_top(cfg, post)))
    return proved, facts, lemma


def prove_renumbered(enc: Encoding, budget: Budget,
                     props: Sequence[Property]) -> tuple[list[Property], Renumbering | None]:
    """:func:`after_every_step` on the relation ``enc``: the properties it proves, and its
    lemma; the facts of every step it proves are conjoined to
    the relation (``Encoding.add_step_fact``).  Nothing if the relation does not end with
    the renumbering."""
    if enc.settled is None or enc.renumbered_from is None:
        return [], None
    done, facts, lemma = after_every_step(enc.cfg, budget, props, enc.settled, enc.renumbered_from, enc.b)
    for fact in facts:
        enc.add_step_fact(fact)
    return done, lemma


def _about_ranks(reads: frozenset[str]) -> bool:
    """Whether the lemma may prove a property that reads the fields ``reads``: none but
    those ``compact`` reads and writes, and some it writes (or none at all: a property true
    outright).  One that reads only what ``compact`` leaves as it was (``every-card-in-one-zone``
    reads the zones) holds after the step only if it held before: the lemma's query has a
    counterexample (0.1M to 0.5M on ``examples/scale/04-plot-14``), and k-induction proves it."""
    return reads <= FIELDS and (not reads or not reads.isdisjoint(COMPACT_WRITES))


def _reads(cfg: Config, p: Property, t: State) -> frozenset[str]:
    """The fields of the state the property's term reads."""
    from .relation import fields_read

    with symbolic():
        term = _bool(p.pred(cfg, t))
    return fields_read(term, [t])


def _below(on: list[Any], ranks: list[Any]) -> list[list[Any]] | None:
    """``below[f][x]``: the condition of ``f``'s term in ``x``'s rank, read from the rank's
    branch for "``x`` on the stack" (a sum of ``If(c, 1, 0)``, ``c`` a conjunction that names
    ``on[f]``); None if a rank is not in that form, or leaves an entry out.

    Terms are matched by AST id (equal ids are equal terms, ``Z3_is_eq_ast``), with one
    table from ``on[f]``'s id to ``f``: comparing every child of every condition with every
    ``on[f]`` was L^3 calls of z3py's ``eq`` (0.9 s of ``examples/scale/04-plot-14``'s lemma
    under the profiler, L = 17)."""
    L = len(on)
    entry = {o.get_id(): f for f, o in enumerate(on)}
    numerals = (z3.IntVal(1), z3.IntVal(0))  # (held: an id is only its AST's while the AST lives)
    one, zero = (v.get_id() for v in numerals)
    below: list[list[Any]] = [[None] * L for _ in range(L)]
    for x in range(L):
        branch = _branch(ranks[x], on[x])
        if branch is None:
            return None
        for term in _summands(branch):
            if not z3.is_app_of(term, z3.Z3_OP_ITE):
                return None
            c, then, other = term.children()
            if then.get_id() != one or other.get_id() != zero:
                return None
            names = {f for ch in c.children() if (f := entry.get(ch.get_id(), x)) != x}
            if len(names) != 1:
                return None
            f = names.pop()
            if below[f][x] is not None:
                return None
            below[f][x] = c
        if any(below[f][x] is None for f in range(L) if f != x):
            return None
    return below


def _branch(term: Any, guard: Any) -> Any:
    """The ``then`` branch of the ``If`` in ``term`` whose condition is ``guard`` (each shared
    subterm walked once)."""
    want, seen, todo = guard.get_id(), set(), [term]
    while todo:
        x = todo.pop()
        if x.get_id() in seen:
            continue
        seen.add(x.get_id())
        if z3.is_app_of(x, z3.Z3_OP_ITE):
            c, a, b = x.children()
            if c.get_id() == want:
                return a
            todo += [a, b]
    return None


def _summands(term: Any) -> list[Any]:
    out, todo = [], [term]
    while todo:
        x = todo.pop()
        if z3.is_app_of(x, z3.Z3_OP_ADD):
            todo += x.children()
        else:
            out.append(x)
    return out


def _term(v: Any) -> Any:
    return v if isinstance(v, z3.ExprRef) else z3.IntVal(int(v))


def _bool(v: Any) -> Any:
    return v if isinstance(v, z3.ExprRef) else z3.BoolVal(bool(v))
