"""The step case of k-induction: k+1 steps of the relation from an arbitrary state (:class:`Path`)."""

from __future__ import annotations

from typing import Any, Collection, Sequence

import z3

from mtgcheck.model.actions import Action
from mtgcheck.model.logic import mk_and, mk_implies, symbolic, term
from mtgcheck.model.state import State
from mtgcheck.properties.base import Property

from .budget import Budget
from .relation import Encoding, state_from_model
from .step_pass import StepPass
from .unroll import Unroller


#: The limit of a k >= 1 attempt, as a fraction of :data:`RLIMIT`: the proofs k >= 1 makes
#: on the built-ins are cheap (below 0.5 million: the path's first steps already pin the
#: state down), while a failing attempt spends its whole limit.
STEP_SHARE = 4
#: A step case that runs out of its limit is tried again one transition at a time (a case
#: split on the action variable): on ``flashback`` the whole relation at once exhausts the
#: limit on ``stack-ordered``, while each transition alone is unsat well within it (66
#: queries in 4.6 s; on ``plot``, 100 in 12 s with invariants Houdini later drops).  The split stops,
#: unknown, once its queries together have spent this many times :data:`RLIMIT`.
SPLIT_RLIMITS = 20
#: The limit of a property's first try on the candidates closed so far alone
#: (:meth:`Path.attempt` with ``closed``), as a fraction of :data:`RLIMIT`.
CLOSED_SHARE = 10
#: A first try on the closed set out of its limit is asked again one transition at a time
#: (:meth:`Path._split`, each within the same limit), until the split has spent this many
#: times :data:`RLIMIT`.  Why: unsat there, the proof rests on the closed set alone, with
#: nothing to walk; the query with every candidate that follows a failed try names dozens
#: of candidates to close, by Z3's seed.  On ``examples/scale/04-plot-14``, ``no-deadlock``'s
#: 179 transitions were 3.6M to 4.1M in all, where the walk had cost 4M to 16M; the rung's rlimit over
#: three seeds 21.1/28.7/17.4M to 18.7/20.5/18.0M, ``06-planechase-4p`` 109.2/110.2/98.6M to
#: 78.6/106.7/88.0M.  Each transition within a twentieth instead: a transition of
#: ``no-deadlock``'s split ran out on two seeds of three, and plot-14 went to 22.5/34.1/24.0M.
CLOSED_SPLIT = 0.5
#: A first try on the closed set goes on past a conjunct it does not show, up to this many
#: (:meth:`Path.attempt`): the others shown there need no candidate closed.
CLOSED_MISSES = 2
#: The name a step case's core gives the step pass (:mod:`.step_pass`), for the proof's report.
PASS = "pass:step"
#: A split (:meth:`Path._split`) asks up to this many transitions of one verb in one query
#: first, and one at a time only those of a group that runs out.  Why: a query has a cost of
#: its own (the assumptions' propagation), whatever it asks: ``no-deadlock``'s closed split on
#: ``examples/scale/04-plot-14`` was 179 queries and 4.1M, 125 of them casts at 0.015M each;
#: by groups, 9 queries and 0.6M to 1.3M by Z3's seed.
SPLIT_GROUP = 32
#: An unsat core naming more candidates and hypotheses than this is asked again with only
#: those (:meth:`Path.trimmed_core`), at most this many rounds.
TRIM_FROM = 8
TRIM_ROUNDS = 2
#: Whether a property's step case is asked one conjunct at a time (:meth:`Path.conjuncts`).
SPLIT_CONJUNCTS = True


class Path:
    """The step case of k-induction: k+1 steps of the relation from an *arbitrary* state,
    in one incremental solver.  Proved properties are asserted (behind a literal each, so
    that the unsat core says which a proof used) on every state and step: they hold on
    every reachable path, so this only removes unreachable paths."""

    def __init__(self, enc: Encoding, k: int) -> None:
        self.enc, self.k = enc, k
        self.sol = z3.Solver()
        self.un = Unroller(enc, self.sol, f"k{k}.")
        self.facts: dict[str, Any] = {}  # literal name -> literal
        self.inv_lits: dict[str, Any] = {}  # invariant candidate -> literal
        self.last_cti: tuple[State, Action] | None = None  # the last counterexample to induction
        self.ctis: dict[str, tuple[State, Action]] = {}  # property -> its counterexample, if any
        self.live: set[str] = set()
        self._cands: dict[str, Any] = {}
        #: Candidate -> literal ``post:NAME``: the candidate on the path's last state
        #: (:meth:`posts`, only for candidates closed into an inductive set).
        self.post_lits: dict[str, Any] = {}
        #: ``hyp:ID`` -> literal: state property ID (not proved yet) on the first state, a
        #: member of the closure like a candidate (joint induction; k = 0 only).
        self.hyp_lits: dict[str, Any] = {}
        self.hyp_live: set[str] = set()
        self.last_support: list[str] = []  # the last unsat core's candidates and hypotheses
        self.queries = 0
        #: (query, conjunct) -> the unsat core of that goal's query (:meth:`attempt`), its own
        #: literal left out: the goal is shown again by any query assuming all of it.
        self.goal_cores: dict[tuple[str, int], set[str]] = {}
        self._names: dict[int, str] = {}  # literal AST id -> its name (:meth:`_name`)
        #: (query, transition) -> the unsat core of that transition's query in a case split.
        self.split_cores: dict[tuple[str, int], set[str]] = {}
        self.split_first: set[str] = set()  # queries that ran out whole: asked split from then on
        #: Transition properties' parts shown per transition without a query (k = 0;
        #: :mod:`.step_pass`): set by a closure whose passes kept the bounds it assumes.
        self.step_pass: StepPass | None = None
        with symbolic():
            for _ in range(k + 1):
                self.un.extend()

    def holds(self, p: Property, upto: int) -> Any:
        """``p`` on states 0..upto (state property) or on steps 0..upto-1 (transition)."""
        if p.kind == "state":
            first = self.enc.state_term(p, self.un.states[0])
            return z3.And(first, *[self.un.sub(self.enc.prop_terms(p)[0], i) for i in range(upto)])
        return z3.And(*[z3.Not(self.un.violation(p, i)) for i in range(upto)])

    def assume(self, p: Property) -> None:
        lit = z3.Bool(f"fact:{p.id}")
        self.sol.add(z3.Implies(lit, self.holds(p, self.k + 1)))
        self.facts[str(lit)] = lit

    def add_invariants(self, invs: Sequence[Any], live: set[str]) -> None:
        """Invariant candidates, each behind a literal ``inv:NAME``, on states 0..k (the
        step case's first states are then ones they allow); only those named in ``live``
        are assumed (the set may shrink: :class:`Closure`)."""
        from ..invariants import flat

        states = [flat(st) for st in self.un.states[:self.k + 1]]
        for c in invs:
            lit = z3.Bool(f"inv:{c.name}")
            self.sol.add(mk_implies(lit, mk_and([term(c.build(f), lit.ctx) for f in states])))
            self.inv_lits[c.name] = lit
            self._cands[c.name] = c
        self.live = live

    def posts(self, proven: Collection[str]) -> list[Any]:
        """Literals asserting the candidates ``proven`` on the path's last state too.

        Only for candidates closed into an inductive set (with the properties it rests on,
        proved and assumed as facts on every state): such a set holds after a step from any
        state where it and the facts hold, which every query assumes of the first state, so
        the literal adds a consequence of the query's own assumptions and changes no answer.
        Why: Z3 need not derive it again through the relation.  A property whose step case
        follows from bounds the interval pass proved (``every-card-in-one-zone``: every
        ``zone`` between 0 and 6) then follows from the bounds on the last state; on
        ``examples/scale/04-plot-14`` that property's first try ran out of its limit, and
        the proof with every candidate named a hundred for the closure to walk."""
        from ..invariants import flat

        out = []
        last = flat(self.un.states[self.k + 1])
        for n in sorted(proven):
            c = self._cands.get(n)
            if c is None:
                continue  # a property closed with the candidates (``hyp:ID``): a fact already
            if n not in self.post_lits:
                lit = z3.Bool(f"post:{n}")
                self.sol.add(z3.Implies(lit, c.build(last)))
                self.post_lits[n] = lit
            out.append(self.post_lits[n])
        return out

    def add_hypotheses(self, props: Sequence[Property]) -> None:
        """The state properties still to prove, each behind a literal ``hyp:ID`` on the first
        state: a proof or a candidate's consecution may rest on them, and the closure then
        owes their own step case (:class:`Closure`)."""
        for p in props:
            if p.kind == "state":
                lit = z3.Bool(f"hyp:{p.id}")
                self.sol.add(z3.Implies(lit, self.enc.state_term(p, self.un.states[0])))
                self.hyp_lits[str(lit)] = lit
                self.hyp_live.add(str(lit))

    def live_lits(self) -> list[Any]:
        return [lit for n, lit in self.inv_lits.items() if n in self.live] + \
            [lit for n, lit in self.hyp_lits.items() if n in self.hyp_live]

    def still_live(self, names: Any) -> bool:
        """Whether every candidate and hypothesis named in an unsat core is still live."""
        return all(n[4:] in self.live if n.startswith("inv:") else n in self.hyp_live if n.startswith("hyp:")
                   else True for n in names)  # (``post:``: proven, never dropped)

    def attempt(self, cands: Sequence[Property], budget: Budget,
                closed: Collection[str] | None = None,
                among: Collection[str] | None = None,
                proven: Collection[str] = (), among_share: int | None = None) -> tuple[Any, list[Property], list[str]]:
        """One query: the candidates, assumed on the first k steps, all hold on step k.

        Returns the result, the candidates a counterexample to induction breaks (sat), and
        the unsat core's names (unsat): guard conditions with their CR rules, and facts.

        ``closed``: the query assumes only these invariant candidates (a set already closed
        into an inductive one) and no property still to prove, with a smaller limit
        (:data:`CLOSED_SHARE`; out of it, split by transition within :data:`CLOSED_SPLIT`):
        a first try, which needs no closing if it is unsat.

        ``among``: the query assumes only those of these invariant candidates still live, and
        every property still to prove, with the whole limit (or ``1/among_share`` of it) and
        no split (:meth:`.closure.Closure.step_case`).

        ``proven``: candidates closed into an inductive set, assumed on the last state too
        (:meth:`posts`)."""
        self.queries += 1
        viol = {p.id: self.un.violation(p, self.k) for p in cands}
        what = f"k={self.k} {'+'.join(p.id for p in cands)}"
        share = 1 if self.k == 0 else STEP_SHARE
        after = self.posts(proven)
        hyp = z3.And(*[self.holds(p, self.k) for p in cands])
        parts = self.conjuncts(cands[0]) if len(cands) == 1 and SPLIT_CONJUNCTS else None
        goals = [(z3.Or(list(viol.values())), "")] if parts is None else \
            [(v, f" (conjunct {j})") for j, v in enumerate(parts)]
        assumptions, mode = self._assumptions(closed, among, after)
        if mode is not None and among_share is not None and among is not None:
            mode = (mode[0], among_share)
        named = {self._name(lit) for lit in assumptions}
        left = self._left_by_pass(cands, parts is not None)
        passed = [] if left is None or self.step_pass is None else \
            [f"inv:{n}" for n in sorted(self.step_pass.assumed(cands[0], parts is not None))]
        res, shown, misses = z3.unsat, set[str](), 0
        for j, (goal, tag) in enumerate(goals):
            if left is not None:  # Z3 is asked about the transitions the pass left only
                todo = left[j] if j < len(left) else []
                if len(todo) < len(self.enc.actions):  # the pass showed some: the proof rests on it
                    shown |= {PASS, *passed}
                if not todo:
                    continue
                if len(todo) < len(self.enc.actions):
                    goal = z3.And(goal, z3.Or([self.un.acts[self.k] == i for i in todo]))
            known = self.goal_cores.get((what, j))
            if known is not None and known <= named:  # shown before on assumptions made here too
                shown |= known
                continue
            go = z3.Bool(f"go:{self.k}:{self.queries}:{j}")
            self.sol.add(z3.Implies(go, z3.And(hyp, goal)))
            r, c = self._query([*assumptions, go], what + tag, budget, share, mode, todo if left is not None else None)
            if r == z3.unsat:
                self.goal_cores[(what, j)] = mine = {n for n in c if n != str(go)}
                shown |= mine
                continue
            res = r  # a counterexample to one conjunct is one to the property
            misses += 1
            if closed is None or misses >= CLOSED_MISSES or budget.cut:
                break
            res = z3.unknown  # the closed try goes on (its model is not kept)
        core = sorted(shown) if res == z3.unsat else []
        self.last_support = [n[4:] for n in core if n.startswith("inv:")] + [n for n in core if n.startswith("hyp:")] + \
            [n[5:] for n in core if n.startswith("post:")]
        if res == z3.sat:
            m = self.sol.model()
            self.last_cti = (state_from_model(self.enc.cfg, m, self.un.states[self.k]), self.un.trace(m, self.k + 1)[-1])
            return res, [p for p in cands if z3.is_true(m.eval(viol[p.id], model_completion=True))], []
        if res == z3.unsat:
            return res, [], self._core(core)
        return res, [], []

    def _name(self, lit: Any) -> str:
        """A literal's name, printed once (Z3's printer took 5.7 s of ``costs``' 25 s of
        step cases, naming the 2,000 literals of each query)."""
        key = lit.get_id()
        name = self._names.get(key)
        if name is None:
            name = self._names[key] = str(lit)
        return name

    def _left_by_pass(self, cands: Sequence[Property], conjuncts: bool) -> list[list[int]] | None:
        """Per goal of the step case, the transitions the step pass does not show (None:
        no pass here, or not one transition property at k = 0).  The pass assumes only bounds
        and relations true in every reachable state, so the goal's other transitions need
        no query, whatever the query assumes."""
        if self.step_pass is None or self.k != 0 or len(cands) != 1 or cands[0].kind != "transition":
            return None
        return self.step_pass.open_transitions(cands[0], conjuncts)

    def conjuncts(self, p: Property) -> list[Any] | None:
        """The property's violation on the path's last step, one per conjunct of its
        predicate (a state property's; a transition property's when every transition has
        the same one), or None if it is no conjunction.

        A property of every card slot (``object-ids-fresh``, ``one-alternative-cost``) is a
        conjunction, one conjunct per slot; its step case is asked one conjunct at a time,
        each with the same assumptions: unsat for each, the conjunction holds on the last
        step (the cores together are the proof's); a counterexample to one is one to the
        property.  Each conjunct's query has the limit the whole one would have (so the step
        case may spend it once per conjunct); the first that is not unsat ends the attempt.
        Why: Z3 then refutes one slot's violation at a time rather than the disjunction of
        them all, and the cost is a sum over the slots.  On
        ``examples/scale/04-plot-14`` from scratch, ``one-alternative-cost`` went from 6.2M to
        1.6M and ``object-ids-fresh`` from 8.1M to 6.2M (the whole run 63.1M to 52.1M; the
        median of three seeds, 63.1M to 61.6M; plot-12 28.6M to 26.0M)."""
        terms = self.enc.prop_terms(p)
        if p.kind != "state" and len({t.get_id() for t in terms}) != 1:
            return None
        t = terms[0]
        if not z3.is_and(t) or t.num_args() < 2:
            return None
        return [z3.Not(self.un.sub(c, self.k)) for c in t.children()]

    def _assumptions(self, closed: Collection[str] | None, among: Collection[str] | None,
                     after: Sequence[Any]) -> tuple[list[Any], tuple[str, int] | None]:
        """What a query of :meth:`attempt` assumes besides its goal, and (tag, share) for a
        first try on the closed set or among the proven (None: every live candidate, split
        by transition if it runs out)."""
        if closed is None and among is None:
            return [*self.enc.en.values(), *self.facts.values(), *self.live_lits(), *after], None
        if closed is not None:
            names, hyps, mode = set(closed), [], ("closed", CLOSED_SHARE)
        else:
            names = {n for n in among or () if n in self.live}
            hyps = [lit for n, lit in self.hyp_lits.items() if n in self.hyp_live]
            mode = ("among the proven", 0)
        return [*self.enc.en.values(), *self.facts.values(),
                *[lit for n, lit in self.inv_lits.items() if n in names], *hyps, *after], mode

    def _query(self, assumptions: Sequence[Any], what: str, budget: Budget, share: int,
               mode: tuple[str, int] | None, only: Sequence[int] | None = None) -> tuple[Any, list[str]]:
        """One goal's query (its literal last among ``assumptions``): its result and its
        unsat core's literal names.  ``only``: the transitions the goal may take (the others
        need no query of a split)."""
        if mode is None:
            return self.ask(assumptions, budget, what, share, only=only)
        tag, part = mode
        res = budget.check(self.sol, *assumptions, what=f"{what} ({tag})", share=part or share)
        if res == z3.unknown and tag == "closed" and CLOSED_SPLIT and not budget.cut:
            # one transition at a time (:data:`CLOSED_SPLIT`)
            return self._split(assumptions, budget, f"{what} ({tag})", part, CLOSED_SPLIT, only, singles=False)
        return res, ([str(lit) for lit in self.sol.unsat_core()] if res == z3.unsat else [])

    def ask(self, assumptions: Sequence[Any], budget: Budget, what: str, share: int,
            limits: int | None = None, only: Sequence[int] | None = None) -> tuple[Any, list[str]]:
        """One query, whole; if it runs out of its limit, split by transition (:meth:`_split`,
        within ``limits``).  Returns the result and the unsat core's literal names.  A query
        that ran out whole once (the same ``what``) is split at once from then on."""
        if what in self.split_first:
            return self._split(assumptions, budget, what, share, limits, only)
        res = budget.check(self.sol, *assumptions, what=what, share=share)
        core = self.trimmed_core(assumptions, budget, what, share) if res == z3.unsat else []
        if res == z3.unknown and not budget.cut:
            self.split_first.add(what)
            res, core = self._split(assumptions, budget, what, share, limits, only)
        return res, core

    def trimmed_core(self, assumptions: Sequence[Any], budget: Budget, what: str, share: int) -> list[str]:
        """The unsat core of the query just asked (``assumptions``), asked again assuming,
        of the candidates and hypotheses, only those its core named, while that names fewer
        (at most :data:`TRIM_ROUNDS` times, and only for a core naming more than
        :data:`TRIM_FROM`).

        Why: Z3's core is any set of assumptions its refutation touched, not a least one, and
        the closure asks the consecution of each candidate a core names, whose cores name
        more (:meth:`.closure.Closure.close`).  With thousands of candidates assumed, a core
        named 70 on ``examples/scale/04-plot-14`` (and the walk 87 to 276 queries, 2 to 9 s,
        by Z3's seed) where a handful were needed.  Asked with fewer assumptions, Z3 touches
        fewer.  Z3's own core minimization (``core.minimize``) does this one assumption at a
        time, outside the query's resource limit: it doubled the check's seconds.  Trimmed,
        plot-14's walk was gone on each of three seeds, each run in a process of its own
        (Z3's seconds 5.6/13.1/3.2 to 4.5/3.7/3.5); on ``05-planechase-3p`` and
        ``06-planechase-4p``, whose proofs need many candidates, seed 0's rlimit moved by 5 %
        or less.  (Which cores are large follows Z3's term ids, so the process's history: in
        ``bench/z3_scale.py``'s one process, plot-14 had no walk either way, plot-12 three
        cores trimmed.)

        Sound: each query assumes a subset of the first's, so an unsat core of it is an
        unsat core of the first; a query that is not unsat keeps the core before it."""
        core = [str(lit) for lit in self.sol.unsat_core()]
        for _ in range(TRIM_ROUNDS):
            named = {n for n in core if n.startswith(("inv:", "hyp:"))}
            if len(named) <= TRIM_FROM:
                break
            fewer = [lit for lit in assumptions if not (n := self._name(lit)).startswith(("inv:", "hyp:")) or n in named]
            if len(fewer) == len(assumptions) or budget.check(self.sol, *fewer, what=f"{what} (trimmed)",
                                                                share=share) != z3.unsat:
                break
            smaller = [str(lit) for lit in self.sol.unsat_core()]
            if len(smaller) >= len(core):
                break
            core, assumptions = smaller, fewer
        return core

    def _split(self, assumptions: Sequence[Any], budget: Budget, what: str, share: int,
               limits: float | None = None, only: Sequence[int] | None = None,
               singles: bool = True) -> tuple[Any, list[str]]:
        """The same query, one transition of the last step at a time, or rather a group of
        transitions of one verb at a time (:data:`SPLIT_GROUP`), then one at a time those of
        a group out of its limit (``singles``; else the split gives up there, as the first
        try on the closed set does: the query with every candidate follows it).  A group of
        every transition the query covers is the query itself, out of its limit already:
        its transitions go one at a time at once.

        Unsat when every query is (the core is the union of theirs); sat at the first that
        is (its model is the solver's); unknown if one is, or the split's total limit
        (``limits`` times the budget's; :data:`SPLIT_RLIMITS`, read at the call, if None) is
        spent."""
        limits = SPLIT_RLIMITS if limits is None else limits
        act, spent, core = self.un.acts[self.k], 0, set[str]()
        todo = []
        for i in range(len(self.enc.actions)):
            if only is not None and i not in only:
                continue  # the goal excludes it (the step pass showed it)
            # A transition proved before with assumptions still made is not asked again
            # (facts only grow; the invariants its core named are still live).
            known = self.split_cores.get((what, i))
            if known is not None and self.still_live(known):
                core |= known
                continue
            todo.append(i)
        groups: list[list[int]] = []
        for i in todo:
            verb = self.enc.actions[i].verb
            if SPLIT_GROUP > 1 and groups and len(groups[-1]) < SPLIT_GROUP and \
                    self.enc.actions[groups[-1][-1]].verb == verb:
                groups[-1].append(i)
            else:
                groups.append([i])
        # a group of every transition the query covers is the query itself, out of its limit
        whole = len(groups) == 1 and len(groups[0]) == (len(self.enc.actions) if only is None else len(only))

        def one_query(members: list[int], sel: Any, label: str) -> Any:
            nonlocal spent
            res = budget.check(self.sol, *assumptions, sel, what=f"{what} [{label}]", share=share)
            spent += budget.queries[-1][2]
            if res == z3.unsat:
                mine = {str(lit) for lit in self.sol.unsat_core() if not lit.eq(sel)}
                for i in members:
                    self.split_cores[(what, i)] = mine
                core.update(mine)
            return res

        for group in groups:
            verb = self.enc.actions[group[0]].verb
            if len(group) > 1 and not whole:
                if spent >= limits * budget.rlimit:
                    return z3.unknown, []
                res = one_query(group, z3.Or([act == i for i in group]), f"{verb} #{group[0]}..{group[-1]}")
                if res == z3.unsat:
                    continue
                if res == z3.sat or not singles:  # (out of its limit, the first try gives up)
                    return res, []
            for i in group:
                if spent >= limits * budget.rlimit:
                    return z3.unknown, []
                res = one_query([i], act == i, f"{verb} #{i}")
                if res != z3.unsat:
                    return res, []
        return z3.unsat, sorted(core)

    def _core(self, names: Sequence[str]) -> list[str]:
        rules = sorted({f"CR {self.enc.en_cr[n[3:]]} ({n[3:]})" for n in names if n.startswith("en:")})
        facts = sorted(n[5:] for n in names if n.startswith("fact:"))
        invs = sorted({n.split(":", 1)[1] for n in names if n.startswith(("inv:", "post:"))})
        joint = sorted(n[4:] for n in names if n.startswith("hyp:"))
        rules += ["the step pass's bounds and guards on the transitions it shows"] if PASS in names else []
        return rules + ([f"proved {', '.join(facts)}"] if facts else []) + \
            ([f"proved together with {', '.join(joint)}"] if joint else []) + [f"invariant {n}" for n in invs]
