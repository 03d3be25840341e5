"""The invariant closure: candidates mined on the configuration, kept only inside an inductive set."""

from __future__ import annotations

from typing import Any, Collection, Sequence

import z3

from mtgcheck.configs import CheckConfig
from mtgcheck.model.logic import symbolic
from mtgcheck.model.state import State, equal_states, symbolic_state
from mtgcheck.properties.base import Property

from .budget import Budget
from .initial import placements
from .path import Path
from .relation import Encoding, fields_read
from .renumbering import prove_renumbered


#: Reachable states the invariant templates are mined from (breadth-first from the
#: configuration's position and from a few other initial placements).
SAMPLE_CAP = 3000


#: Members of the invariant closure checked by one query (:meth:`Closure.close_all`).
CLOSE_CHUNK = 32
#: The limit of a chunk's query split by transition, as a multiple of :data:`RLIMIT` (the
#: two splits of ``flashback``'s hints spend 4.4M and 12.0M); past it the members go one by
#: one, so a chunk never costs much more than asking its members one by one would.
CHUNK_SPLIT_RLIMITS = 5
#: One candidate's consecution query gets ``1/CANDIDATE_SHARE`` of :data:`RLIMIT`.  On
#: ``examples/scale/03-plot-12`` from scratch, the 236 that were proved cost 2.2M at most
#: (25.6M in all), while the 9 that ran out of the whole 10M were 90M of the closure's 166M
#: and proved nothing: a candidate out of its limit is dropped, as one with a counterexample is.
CANDIDATE_SHARE = 3
#: ... but first it gets ``1/FIRST_CANDIDATE_SHARE`` (0.125M).  On ``examples/scale/04-plot-14``
#: from scratch, half of the 459 candidates proved cost under 0.1M and 80 % under 0.2M, while
#: the 89 that ran out of 3.3M were 294M of the 575M: mostly coincidences of the sample about
#: the stack's positions (``zone[looting0] == 2 -> pos[looting0] == 0``), whose consecution goes
#: through the renumbering's counting terms.  A candidate out of the first limit is set aside,
#: not dropped: a property whose step case then fails gets back those its counterexample breaks,
#: with the whole share (:meth:`Closure.reinstate`).  The induction's rlimit on that position:
#: 360M with a first share of 20, 272M with 40; with 80, ``object-ids-fresh`` was left unproved.
#: Not for a bound the layout declares (:meth:`Closure._whole`): no coincidence to weed out;
#: with those given the whole share, and a counterexample that breaks a candidate set aside
#: dropping nothing (:meth:`Closure._give_back_broken`), a first share of 80 (125,000 units)
#: proves all 27 on every rung of the ladder (``bench/z3_scale.py``, before
#: :meth:`Closure.step_case`): plot-12 53.5M and plot-14 136.6M against 61.3M and 163.0M
#: with 40, 480M on the six; with 160, 512M (plot-14 123M, but planechase-4p 207M against
#: 144M), and without the give-back,
#: ``planar-controller-in-game`` was left unproved on both planechase rungs.
FIRST_CANDIDATE_SHARE = 80
#: A step case among the proven after a proof with every live candidate
#: (:meth:`Closure.step_case`) gets ``AMONG_FACTOR`` times that proof's rlimit, at least
#: ``AMONG_FLOOR``: out of it, the whole query is asked again.
AMONG_FACTOR = 2
AMONG_FLOOR = 250_000
#: Other initial placements the sample starts from (besides the configuration's position).
SAMPLE_STARTS = 16
#: Initial placements added to the states the templates are mined from, not walked from.
#: Why: a candidate must hold in every initial state, and Z3 finds the placements that break
#: one a model at a time (:func:`.invariants.initially_true`); a thousand placements drawn at
#: random and read in the mining's own pass rule most of them out first.  On
#: ``examples/scale/03-plot-12`` from scratch, initiation went from 40 queries and 2.5M
#: rlimit to one query and 0.6M (200 placements: 15 and 1.6M).
INITIAL_SAMPLE = 1000
#: Whether a closure that runs the passes gives its path the step pass too
#: (:mod:`.step_pass`): the transitions of a transition property's step case it shows are
#: not asked of Z3.
STEP_PASS = True


def closed_invariants(enc: Encoding, conf: CheckConfig, todo: Sequence[Property], init_of: Any, budget: Budget,
                       hints: Collection[str], sample_cap: int,
                       split_hints: Collection[str] = ()) -> "Closure | None":
    """The candidates found on the configuration (only the ``hints``, if given) closed into
    an inductive set, the state properties of ``todo`` taking part as members (each true in
    every initial state: :meth:`.bmc.Bmc.initially` asked that first), those that close proved with them
    (:meth:`Closure.proven_properties`): what :func:`constrain` may assume without the
    induction having run.  None if the candidates could not all be checked initially true,
    or ``budget`` ran out first."""
    found = find_invariants(enc, conf, init_of, budget, cap=sample_cap)
    if not found.complete:
        return None
    names = set(hints)
    # What the renumbering lemma proves after every step (``stack-ordered``) needs no
    # closing, and the top of the stack is a fact of every step, as for the induction
    # (:meth:`.induction.Induction._renumbered`).  Without it, closing ``stack-ordered`` from
    # hints mined for proofs that never needed it took 24 s of ``plot``'s 60 s BMC budget, and
    # failed.
    lemma, _ = prove_renumbered(enc, budget, todo)
    # No candidate set aside by a smaller first limit: no property's counterexample to
    # induction would give it back here (:meth:`Closure.reinstate`), and a state property
    # resting on it would be left out of BMC's constraints.
    closure = Closure(enc, [c for c in found.live if not names or c.name in names], budget,
                       [p for p in todo if p not in lemma], split_first=split_hints, intervals=not names,
                       set_aside=False)
    closure.assume_proved(lemma)
    closure.close_all()
    # The properties too: their consecution was asked with the chunks (``close_all``), so
    # closing them mostly reads the supports already found.
    while not budget.cut and not closure.close(sorted(closure.live) + sorted(closure.path.hyp_live)):
        pass  # a member was dropped: close what is left
    closure.prove_steps(todo)
    return None if budget.cut else closure


def find_invariants(enc: Encoding, conf: CheckConfig, init_of: Any, budget: Budget, *,
                    cap: int = SAMPLE_CAP) -> Any:
    """Candidate invariants of the configuration: template instances true in every state the
    explicit-state search reaches (from the position and a few other placements) and in
    every initial state (:mod:`.invariants`).  Not yet trusted: :class:`Closure` keeps one
    only inside an inductive set."""
    from .. import invariants as inv

    cfg = enc.cfg
    starts = [enc.init] + (placements(cfg, enc.init, SAMPLE_STARTS) if init_of is not None else [])
    states = inv.sample(cfg, starts, cap=cap, max_turn=conf.max_turn)
    if init_of is not None:  # every placement is an initial state: reachable, so sampled too
        seen = set(states)
        states += [s for s in placements(cfg, enc.init, INITIAL_SAMPLE, seed=1) if s not in seen]

    def init(st: State) -> Any:
        with symbolic():
            return init_of(st) if init_of is not None else equal_states(st, enc.init)

    def check(sol: z3.Solver, *assumptions: Any, what: str = "") -> Any:
        return budget.check(sol, *assumptions, what=what)

    return inv.find(cfg, states, init, lambda tag: symbolic_state(cfg, tag), check)


class Closure:
    """Houdini, restricted to what the proofs use.

    A proof's unsat core names the candidates it assumed; each must be inductive, and the
    consecution query of a candidate (every live candidate in a state, one step, the
    candidate false after it) either has a counterexample, and the candidate is dropped for
    good, or is unsatisfiable, and its unsat core names the candidates it rests on, which
    must be inductive in turn.  A set closed this way holds in every initial state and is
    inductive, so every reachable state satisfies it: only then does a proof that used it
    count.  The cores are kept (a core stays valid while its members live), so junk that no
    proof touches is never examined."""

    def __init__(self, enc: Encoding, cands: Sequence[Any], budget: Budget, props: Sequence[Property] = (),
                 proven: Collection[str] = (), split_first: Collection[str] = (), intervals: bool = False,
                 set_aside: bool = True) -> None:
        self.enc, self.budget = enc, budget
        #: Members whose chunk an earlier run had to split (the manifest's ``split``): such a
        #: chunk is asked one transition at a time at once, not first whole to run out of its
        #: limit (two such chunks were 20M of ``flashback``'s 80M).  The members of every chunk
        #: split in this run (``split``) are what the next run is told.
        self.split_first = frozenset(split_first)
        self.split: set[str] = set()
        self.cands = {c.name: c for c in cands}
        self.live: set[str] = set(self.cands)
        self.support: dict[str, frozenset[str]] = {}
        #: Candidates closed into an inductive set (``proven``: by an earlier closure, with
        #: the properties then proved, which this one's path assumes).
        self.proven: set[str] = set(proven) & self.live
        self.dropped = 0
        self.proved_outside: list[Property] = []
        self.proved_steps: list[Property] = []  # transition properties (:meth:`prove_steps`)
        #: The candidates out of their first limit (:data:`FIRST_CANDIDATE_SHARE`), set
        #: aside: not live, not refuted; and those given back, whose consecution gets the
        #: whole share (:data:`CANDIDATE_SHARE`) from then on (:meth:`reinstate`).
        #: ``set_aside=False``: the whole share at once, for a closure with no property's
        #: counterexample to give a candidate back (:func:`closed_invariants`).
        self.set_aside: set[str] = set()
        self.whole_share: set[str] = set()
        self.first_share = FIRST_CANDIDATE_SHARE if set_aside else CANDIDATE_SHARE
        self._last_support: dict[str, frozenset[str]] = {}  # property -> its last proof's support
        self._whole_cost: dict[str, int] = {}  # property -> rlimit of its last proof with every candidate
        self._closed_tried: dict[str, int] = {}  # property -> len(proven) when last tried on it alone
        self.queries = 0
        self.path = Path(enc, 0)
        self.path.add_invariants(cands, self.live)
        # The state properties to prove are members too (``hyp:ID``), whose consecution is
        # their step case: a candidate may need the very property it helps prove (a trigger
        # above the spell that caused it needs the stack's positions distinct).
        self.props = {f"hyp:{p.id}": p for p in props if p.kind == "state"}
        self.path.add_hypotheses(list(self.props.values()))
        self.prop_core: dict[str, list[str]] = {}  # hyp:ID -> its step case's core (shown)
        self._goal: dict[str, Any] = {}
        self._post: dict[str, Any] = {}
        #: ``intervals``: the bound candidates interval arithmetic shows inductive together
        #: (:mod:`.intervals`, a set closed without a query: each one's support is the set) are
        #: proven at once.  For a closure of every candidate, whose members are otherwise asked
        #: one query each; a closure of hints asks them 32 to a query, cheaply enough.
        self.interval_stats: dict[str, Any] = {}
        self.by_intervals: set[str] = set()
        #: Every member a closure walked from a proof (:meth:`close`): the interval-proven
        #: ones among them are what the proofs used, the next run's hints.
        self.visited: set[str] = set()
        if intervals:
            from .bound_pass import inductive_bounds
            from .step_pass import StepPass

            self.by_intervals, self.interval_stats = inductive_bounds(enc, [self.cands[n] for n in sorted(self.live)])
            self.proven |= self.by_intervals
            self.support.update({n: frozenset() for n in self.by_intervals})  # no query's support
            # what the passes kept holds in every reachable state: the step cases' own pass
            # may assume it (:mod:`.step_pass`)
            if STEP_PASS:
                self.path.step_pass = StepPass(enc, [self.cands[n] for n in sorted(self.by_intervals)])

    def _after(self, name: str) -> Any:
        from ..invariants import flat

        if name not in self._post:
            after = self.path.un.states[1]
            self._post[name] = self.enc.state_term(self.props[name], after) if name in self.props else \
                self.cands[name].build(flat(after))
        return self._post[name]

    def _consecution(self, name: str) -> frozenset[str] | None:
        """The candidates ``name``'s consecution rests on, or None (dropped).

        A counterexample starts from a state where every live candidate holds, so every
        candidate false after its step is in no inductive subset of the live ones: all of
        them are dropped at once (Houdini's step).  A property's consecution is its step
        case (k = 0, asked by :meth:`step_case`)."""
        if name in self.props:
            p = self.props[name]
            res, _, core = self.step_case(p, member=True)
            if res == z3.unsat:
                self.prop_core[name] = core
                return frozenset(self.path.last_support)
            if res == z3.sat and self.path.last_cti is not None:
                self.path.ctis[p.id] = self.path.last_cti
            return None
        if name not in self._goal:
            lit = z3.Bool(f"goal:{name}")
            self.path.sol.add(z3.Implies(lit, z3.Not(self._after(name))))
            self._goal[name] = lit
        while True:
            self.queries += 1
            assumptions = [*self.enc.en.values(), *self.path.facts.values(), *self.path.live_lits(), self._goal[name]]
            share = CANDIDATE_SHARE if self._whole(name) else self.first_share
            res = self.budget.check(self.path.sol, *assumptions, what=f"invariant {name}", share=share)
            if res == z3.unsat:
                return self._support_of(self.path.trimmed_core(assumptions, self.budget, f"invariant {name}", share))
            if res == z3.sat:
                m = self.path.sol.model()
                # A state that breaks a candidate set aside (not refuted) may be unreachable:
                # it drops nothing, those it breaks are given back and the query asked again.
                if self._give_back_broken(m):
                    continue
                for other in sorted(self.live | self.path.hyp_live):
                    if other != name and not z3.is_true(m.eval(self._after(other), model_completion=True)):
                        self._drop(other)
            elif not self._whole(name) and self.first_share != CANDIDATE_SHARE and not self.budget.cut:
                self.set_aside.add(name)  # out of its first limit: not refuted
            return None

    def step_case(self, p: Property, member: bool = False) -> tuple[Any, list[Property], list[str]]:
        """``p``'s step case at k = 0 (:meth:`.path.Path.attempt`), first among the members
        proven so far and the support its last proof named (and every property still to
        prove), then, unless that is unsat, with every live candidate.

        Why: with every live candidate assumed, the unsat core may name any of them, and the
        walk that closes it (:meth:`close`) then asks their consecution.  Those that run out
        of their first limit are set aside, the walk fails, and the step case is asked again,
        and its new core names others.  On ``examples/scale/04-plot-14`` from scratch,
        ``one-alternative-cost`` was asked 11 times so (28.1M); among the proven it is one
        query (6.7M), whose core names nothing left to close.  The ladder's rlimit
        (``bench/z3_scale.py``): 415M against 480M; plot-14 93.3M against 136.6M, plot-08
        to plot-12 and planechase-3p 3 to 24 % less, planechase-4p 7 % more (154.5M: six
        smaller queries with a counterexample that breaks a live candidate, 19M).

        The first query of a property not yet proved on this path is with every live
        candidate in :func:`.induction.prove_each`, after :meth:`on_closed`: asked among
        the proven there too, three properties of plot-14 ran out of the whole limit, 30M.
        As a member of a walk (``member``: the property's consecution), it is among the
        proven from the first.

        Sound: the smaller query assumes a subset of the live candidates, so its unsat core
        names only live ones, closed as any core is; its counterexample is one of the whole
        query only if its first state satisfies every live candidate (each evaluated in the
        model; ``tests/test_invariants.py``).  If it breaks some, the whole query is asked at
        once, not the smaller one again with those added: on ``06-planechase-4p`` that took 41
        counterexamples (77.9M), and the rung 177.5M against 128.9M with one, measured on a
        build otherwise the same.  A smaller query out of its limit is followed by the whole
        one too."""
        path = self.path
        if member or p.id in self._last_support:
            among = self.proven | self._last_support.get(p.id, frozenset())
            cost = self._whole_cost.get(p.id)
            share = None if cost is None else max(1, self.budget.rlimit // max(AMONG_FLOOR, AMONG_FACTOR * cost))
            res, broken, core = path.attempt([p], self.budget, among=among, proven=self.proven, among_share=share)
            if res == z3.unsat:
                self._last_support[p.id] = frozenset(path.last_support)
                return res, broken, core
            if res == z3.sat and not self._broken(path.sol.model(), self.live - among):
                return res, broken, core
            if self.budget.cut:
                return z3.unknown, [], []
        before = len(self.budget.queries)
        res, broken, core = path.attempt([p], self.budget, proven=self.proven)
        if res == z3.unsat:
            self._last_support[p.id] = frozenset(path.last_support)
            self._whole_cost[p.id] = sum(q[2] for q in self.budget.queries[before:])
        return res, broken, core

    def _broken(self, model: z3.ModelRef, names: Collection[str]) -> set[str]:
        """The candidates among ``names`` false in the first state of ``model``."""
        from ..invariants import flat

        first = flat(self.path.un.states[0])
        return {n for n in sorted(names) if not z3.is_true(model.eval(self.cands[n].build(first), model_completion=True))}

    def _give_back_broken(self, model: z3.ModelRef) -> bool:
        """Whether some candidate set aside is false in the first state of ``model`` (a
        counterexample, to a candidate's consecution or a property's step case): those are
        live again, with the whole share from then on.

        Houdini drops what a counterexample breaks only because its first state satisfies
        every candidate not refuted; one set aside is not refuted, so a state that breaks it
        may be unreachable.  Without this, a candidate set aside could cost another its place
        for good: with a first share of 1/160, ``planar-controller-in-game`` was left
        unproved on ``examples/scale/05-planechase-3p`` and ``06-planechase-4p``."""
        back = self._broken(model, self.set_aside)
        self.set_aside -= back
        self.live |= back
        self.whole_share |= back
        return bool(back)

    def _whole(self, name: str) -> bool:
        """Whether ``name``'s consecution gets the whole share at once: given back
        (:meth:`reinstate`), or a bound the layout declares against another entry
        (``Candidate.declared``: ``oid[x] <= next_oid-1``), which is no coincidence of the
        sample for a small first limit to weed out.  On ``examples/scale/04-plot-14`` from
        scratch, the object ids' bounds cost 0.2M to 0.5M each, at the first limit's edge:
        set aside, they left ``object-ids-fresh``'s step case out of its limit, whole and
        split, and won back only by counterexamples and :meth:`give_back_reading`, the
        property took 115M of the run's 294M; with the whole share at once, 21M (the run
        185M; ``examples/scale/03-plot-12`` 65M -> 72M, the smaller rungs 8-22 % less; all
        measured with the first share then, 1/40)."""
        return name in self.whole_share or self.cands[name].declared

    def on_closed(self, p: Property) -> list[str] | None:
        """The core of ``p``'s step case assuming only the members proven so far (a set
        closed into an inductive one), or None if that is not unsat within
        :data:`.path.CLOSED_SHARE` of the limit.  Asked again only once more are proven.

        Unsat, ``p`` needs nothing more closed: asked first (:func:`.induction.prove_each`),
        it spares the closing of what a query with every candidate live would name.  On
        ``04-plot-14`` from scratch, 19 of the 27 properties were proved so (the induction's
        rlimit 225M against 272M).  Not asked for a property's step case as a member of the
        closure: there it changed which members were closed, and ``object-ids-fresh``, whose
        step case is near the limit, was left unproved on ``04-plot-14``."""
        if not self.proven or self._closed_tried.get(p.id) == len(self.proven):
            return None
        self._closed_tried[p.id] = len(self.proven)
        res, _, core = self.path.attempt([p], self.budget, closed=self.proven, proven=self.proven)
        if res != z3.unsat:
            return None
        # what the proof used, as a walk would have named it: the interval-proven among them
        # are recorded for the next run (the manifest's hints; ``summary``)
        self.visited.update(self.path.last_support)
        return core

    def reinstate(self, p: Property, cti: z3.ModelRef) -> bool:
        """``p``'s step case has the counterexample ``cti`` (a model of the path): whether
        some candidate set aside is false in its first state.  Those are live again, with
        the whole share from then on, and ``p`` is worth another try: one of them may rule
        the counterexample out (the others cannot).  Only those: giving back every candidate
        set aside (on ``04-plot-14``, 195) had the retried proof's core name dozens of them,
        each out of the whole share too.  Dropping a candidate is always sound, and so is
        giving it back: a proof counts only once what it used is closed."""
        if not self._give_back_broken(cti):
            return False
        if f"hyp:{p.id}" in self.props:
            self.path.hyp_live.add(f"hyp:{p.id}")
        return True

    def give_back_reading(self, p: Property) -> bool:
        """``p``'s step case ran out of its limit (no counterexample to read): whether some
        candidate set aside reads only fields ``p`` reads.  Those are live again, with the
        whole share, and ``p`` is worth another try.  A candidate out of its first, small
        limit is not refuted, and the ones ``p``'s own fields bound are those its proof may
        need: on ``examples/scale/04-plot-14``, ``object-ids-fresh`` needs ``oid[x] <
        next_oid`` for each card, out of the first limit there (a fortieth then), and its
        step case then ran out of the whole limit instead of showing a counterexample that would have
        given them back (:meth:`reinstate`), so the property was left unproved.  Sound for the
        reason :meth:`reinstate` is."""
        from ..invariants import flat

        if not self.set_aside:
            return False
        un = self.path.un
        states = [*un.states[:2], *un.mids[:1]]
        own = fields_read(self.path.holds(p, 1) if p.kind == "state" else un.violation(p, 0), states)
        first = flat(un.states[0])
        back = {n for n in self.set_aside if fields_read(self.cands[n].build(first), states[:1]) <= own}
        if not back:
            return False
        self.set_aside -= back
        self.live |= back
        self.whole_share |= back
        return True

    def close_all(self, rounds: int = 20) -> None:
        """The consecution of every live member, :data:`CLOSE_CHUNK` members per query: is
        some member of the chunk false after one step from a state where every live
        candidate and hypothesis holds?  Unsat: the query's unsat core is the support of each
        member of the chunk (what :meth:`close` would have asked one member at a time).  Sat:
        every member false after that step is in no inductive subset of the live ones and is
        dropped (Houdini's step); the members left without a live support are asked again.
        Out of its limit: the same query one transition at a time (:meth:`Path._split`), and
        if that runs out too, the chunk's members are left to :meth:`close`, one each.  For
        a set that closes (the manifest's hints), one query per chunk instead of one per
        member."""
        for _ in range(rounds):
            todo = [n for n in sorted(self.live) + sorted(self.path.hyp_live)
                    if n not in self.proven and not self._supported(n)]
            dropped = False
            for c in range(0, len(todo), CLOSE_CHUNK):
                if self.budget.cut:
                    return
                chunk = [n for n in todo[c:c + CLOSE_CHUNK] if n in self.live or n in self.path.hyp_live]
                if not chunk:  # all dropped by an earlier chunk's counterexample
                    continue
                self.queries += 1
                # A literal of its own (the number of the query): a chunk's goal is never
                # another's, nor is the split's cache of cores (keyed by ``what``) shared.
                lit = z3.Bool(f"goal:chunk:{self.queries}")
                self.path.sol.add(z3.Implies(lit, z3.Or([z3.Not(self._after(n)) for n in chunk])))
                what = f"invariants: {len(chunk)} at once (query {self.queries})"
                assumptions = [*self.enc.en.values(), *self.path.facts.values(), *self.path.live_lits(), lit]
                # Out of its limit whole, asked one transition of the step at a time, as a
                # property's step case is (on ``flashback``'s hints, 64M of rlimit where
                # asking the chunk's members one by one took 78M); asked so at once if an
                # earlier run had to split a chunk holding one of its members.
                if self.split_first.intersection(chunk):
                    self.path.split_first.add(what)
                res, core = self.path.ask(assumptions, self.budget, what, 1, CHUNK_SPLIT_RLIMITS)
                if what in self.path.split_first:
                    self.split.update(chunk)
                if res == z3.unsat:
                    sup = self._support_of(core)
                    for n in chunk:
                        self.support[n] = sup - {n}
                elif res == z3.sat:
                    m = self.path.sol.model()
                    for n in sorted(self.live | self.path.hyp_live):
                        if not z3.is_true(m.eval(self._after(n), model_completion=True)):
                            self._drop(n)
                    dropped = True
            if not dropped:
                return

    def _supported(self, name: str) -> bool:
        sup = self.support.get(name)
        return sup is not None and self.path.still_live({x if x.startswith("hyp:") else f"inv:{x}" for x in sup})

    @staticmethod
    def _support_of(core: Sequence[str]) -> frozenset[str]:
        """The candidates and hypotheses an unsat core (literal names) names."""
        return frozenset([n[4:] for n in core if n.startswith("inv:")] + [n for n in core if n.startswith("hyp:")])

    def proven_candidates(self) -> list[Any]:
        """The candidates proven inductive (the proven set also names the properties closed
        with them, ``hyp:ID``, which are no candidates)."""
        return [self.cands[n] for n in sorted(self.proven) if n in self.cands]

    def proven_properties(self) -> list[Property]:
        """The state properties closed into the inductive set with the candidates: true in
        every initial state (the caller's check) and after every step from the set, so in
        every reachable state; those proved otherwise (:meth:`assume_proved`); and the
        transition properties every step from the set keeps (:meth:`prove_steps`)."""
        closed = [self.props[n] for n in self.proven if n in self.props]
        return sorted(self.proved_outside + closed + self.proved_steps, key=lambda p: p.id)

    def prove_steps(self, props: Sequence[Property]) -> None:
        """Of the transition properties among ``props``, those whose step case at k = 0 is unsat
        on the members proven so far alone (:meth:`on_closed`): every step from a state of
        the inductive set keeps them, so every step of every run from an initial state
        does.  Asked once each, within :data:`.path.CLOSED_SHARE` of the limit: one that
        runs out, or has a counterexample (an unreachable state, or a real violation), is
        simply not among them.  On ``costs``' hints, 16 of the 17 in 1.0 s."""
        for p in props:
            if p.kind == "transition" and p not in self.proved_steps and self.on_closed(p) is not None:
                self.proved_steps.append(p)

    def assume_proved(self, props: Sequence[Property]) -> None:
        """Properties proved without the closure (the renumbering lemma's): facts of every
        step of the path, and among :meth:`proven_properties`."""
        for p in props:
            self.path.assume(p)
        self.proved_outside.extend(props)

    def proved_on_closed(self, p: Property) -> None:
        """``p`` proved by :meth:`on_closed`: inductive relative to the closed set, so its
        hypothesis is a closed member (:meth:`close_all` does not ask it) and ``p`` a fact of
        every step of the path."""
        self.path.assume(p)
        if f"hyp:{p.id}" in self.props:
            self.proven.add(f"hyp:{p.id}")

    def drop_property(self, p: Property) -> None:
        """``p``'s own step case failed at k = 0: nothing may rest on it any more."""
        if f"hyp:{p.id}" in self.props:
            self._drop(f"hyp:{p.id}")

    def _drop(self, name: str) -> None:
        if name in self.proven:  # a proved property: true after any step the proof covers
            return
        if name in self.props:
            self.path.hyp_live.discard(name)
        else:
            self.dropped += name in self.live and name not in self.set_aside
            self.live.discard(name)
        self.support.pop(name, None)

    def close(self, names: Sequence[str]) -> bool:
        """Whether the candidates ``names`` lie in an inductive set of live candidates (then
        all of it is proven); on False some candidate was dropped and the caller retries.

        A member that fails does not end the walk: the others named are asked too, so that
        the retry goes without every member that fails, not one at a time (a proof of
        ``one-alternative-cost`` on ``04-plot-14`` was retried 44 times at 2.2M each, one
        dropped candidate at a time; 12 times so)."""
        todo, seen, failed = sorted(names, reverse=True), set(), False
        while todo:
            if self.budget.cut:
                return False
            n = todo.pop()
            self.visited.add(n)
            if n in seen or n in self.proven:
                continue
            seen.add(n)
            if not self._supported(n):
                sup = self._consecution(n)
                if sup is None:
                    self._drop(n)
                    failed = True
                    continue
                self.support[n] = sup
            todo.extend(sorted(self.support[n], reverse=True))
        if failed:
            return False
        self.proven |= seen
        return True

    def summary(self) -> dict[str, Any]:
        return {"live": len(self.live), "proven": len(self.proven - set(self.props)), "dropped": self.dropped,
                "set_aside": len(self.set_aside), "reinstated": len(self.whole_share),
                "consecution_queries": self.queries, **self.interval_stats,
                **(self.path.step_pass.stats if self.path.step_pass is not None else {}),
                "names": [c.name for c in self.proven_candidates()
                          if c.name not in self.by_intervals or c.name in self.visited],
                "split": sorted(self.split & set(self.cands))}
