"""Bounded model checking: iterative deepening over every initial placement."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Sequence

import z3

from mtgcheck.configs import CheckConfig
from mtgcheck.model.actions import Action, catalogue, enabled_transition, legal_actions
from mtgcheck.model.config import Config
from mtgcheck.model.logic import symbolic
from mtgcheck.model.state import State, equal_states
from mtgcheck.properties.base import Property

from ..result import UNKNOWN, VIOLATED, Verdict
from .initial import initial_placements
from .relation import Encoding, state_from_model
from .unroll import Unroller

if TYPE_CHECKING:
    from .closure import Closure


#: States :func:`witness` expands at most looking for a run of the depth BMC asks.
WITNESS_CAP = 20_000


#: Options of BMC's solver: Z3's simplex-based arithmetic solver (``smt.arith.solver`` 2),
#: not its default (6).  A BMC query is a long run of integer entries each equal to a choice
#: over the entries before it; on ``flashback`` (the 22 properties to depth 10 from every
#: placement, states constrained, two alternated runs each) it took 34.7 and 48.5 s where
#: the default took 65.0 and 73.7 s.  The induction's queries keep the default: the closing
#: of ``flashback``'s invariants took 20.0 and 21.7 s with it, 20.6 and 13.4 s without.
BMC_OPTIONS = {"smt.arith.solver": 2}


def replays(enc: Encoding, p: Property, trace: Sequence[Action], start: State) -> bool:
    """The Z3 trace, run on the interpreter from the solver's initial state, is legal and
    breaks the property."""
    s = start
    for a in trace:
        t = enabled_transition(enc.cfg, s, a)
        if t is None:
            return False
        s2 = t.effect(s)
        if p.kind == "transition" and not p.holds(enc.cfg, s, t, s2):
            return True
        s = s2
    return p.kind == "state" and not p.holds(enc.cfg, s)


def violated_verdict(enc: Encoding, conf: CheckConfig, prop: Property, model: z3.ModelRef, un: Unroller,
               steps: int) -> Verdict:
    """The verdict of a BMC model that breaks ``prop`` within ``steps``: violated, with the
    trace and its initial state, once the trace replays on the interpreter."""
    from mtgcheck.model.observe import observe
    from mtgcheck.model.setup import position_of_state

    trace = un.trace(model, steps)
    start = state_from_model(enc.cfg, model, un.states[0])
    if not replays(enc, prop, trace, start):
        return Verdict("z3", prop.id, conf.name, UNKNOWN, "the solver's counterexample does not replay "
                       "on the interpreter (an encoding bug)", trace=trace)
    v = Verdict("z3", prop.id, conf.name, VIOLATED, depth=steps, trace=trace)
    v.stats["initial_state"] = observe(enc.cfg, start)
    v.stats["initial_position"] = position_of_state(enc.cfg, conf.position, start)
    return v


def witness(cfg: Config, s0: State, steps: int, cap: int = WITNESS_CAP) -> list[int] | None:
    """A run of ``steps`` steps from ``s0`` on the interpreter, as the indices of its
    transitions in the catalogue (depth first, at most ``cap`` states expanded), or None.
    Only a hint for the solver, which checks it (:meth:`Bmc.run_exists`)."""
    index = {id(t): i for i, t in enumerate(catalogue(cfg).transitions)}
    todo: list[tuple[State, tuple[int, ...]]] = [(s0, ())]
    while todo and cap > 0:
        s, path = todo.pop()
        if len(path) == steps:
            return list(path)
        cap -= 1
        for a in reversed(legal_actions(cfg, s)):
            t = enabled_transition(cfg, s, a)
            if t is not None:
                todo.append((t.effect(s), (*path, index[id(t)])))
    return None


def constrain(un: Unroller, enc: Encoding, closure: "Closure | None", proved: Sequence[Property]) -> int:
    """Constrain BMC's states by the candidates ``closure`` proved inductive and by the
    state properties ``proved``, and its steps by the transition properties ``proved``:
    facts of every reachable state and of every step from one, so BMC's verdicts are the
    same, and its queries need not rule out the unreachable states they exclude (on
    ``costs``, with the 273 candidates of the manifest, depth 9 in 41 to 50 s where the
    plain relation reached 6 in 60 s).  A transition property so asserted is still asked at
    every depth, but its query is then settled at once: on ``costs``, constrained BMC's
    depth in 60 s went from 7 to 9 to 12 (``bench/check_figures.py``), where
    ``make-your-own-luck-plots-at-most-one-nonland`` alone had taken 10 s of depth 8's query.  Returns how many facts constrain each
    state or step."""
    from ..invariants import flat as flat_entries

    invs = closure.proven_candidates() if closure is not None else []
    if invs:
        un.constrain(lambda st: z3.And([c.build(flat_entries(st)) for c in invs]))
    on_states = [p for p in proved if p.kind == "state"]
    on_steps = [p for p in proved if p.kind == "transition"]
    if on_states:
        un.constrain(lambda st: z3.And([enc.state_term(p, st) for p in on_states]))
    if on_steps:
        un.constrain_steps(lambda k: z3.And([z3.Not(un.violation(p, k)) for p in on_steps]))
    return len(invs) + len(proved)


class Bmc:
    """BMC of one configuration's properties from its initial states (every placement, or
    the position alone), in one incremental solver: the state properties asked in the
    initial states (:meth:`initially`), then one query per depth for every property still
    open (:meth:`deepen`), narrowed down only on a violation.  ``status`` holds the verdicts
    it decided, ``reached`` the depth to which each property holds."""

    def __init__(self, enc: Encoding, conf: CheckConfig, props: Sequence[Property], deadline: float,
                 symbolic_init: bool) -> None:
        self.enc, self.conf, self.props, self.deadline = enc, conf, props, deadline
        cfg, s0 = enc.cfg, enc.init
        self.enables = list(enc.en.values())
        self.sol = z3.Solver()
        self.sol.set(**BMC_OPTIONS)
        self.un = Unroller(enc, self.sol, "s", each=True)
        with symbolic():
            if symbolic_init:
                self.sol.add(initial_placements(cfg, s0, self.un.states[0]))
            else:
                self.sol.add(equal_states(self.un.states[0], s0))
        self.status: dict[str, Verdict] = {}
        self.reached: dict[str, int] = {p.id: 0 for p in props}
        self.vacuous = False  # no run of one step at all
        self.runs: list[Any] = []  # runs[k]: whether a run of k+1 steps exists (z3.sat), once asked
        self.at_position = z3.Bool("at-position")
        with symbolic():
            self.sol.add(z3.Implies(self.at_position, equal_states(self.un.states[0], s0)))

    def _timeout(self) -> None:
        self.sol.set("timeout", max(1, int((self.deadline - time.monotonic()) * 1000)))

    def initially(self) -> None:
        """Each state property in the initial states: violated at depth 0, or unknown (then
        induction may not prove it, nor rest on it: it has no base case)."""
        sol, name = self.sol, self.conf.name
        for p in self.props:
            if p.kind == "state":
                sol.push()
                sol.add(z3.Not(self.enc.state_term(p, self.un.states[0])))
                res = sol.check(*self.enables)
                if res == z3.sat:
                    self.status[p.id] = Verdict("z3", p.id, name, VIOLATED, depth=0)
                elif res != z3.unsat:
                    self.status[p.id] = Verdict("z3", p.id, name, UNKNOWN,
                                                f"solver: {sol.reason_unknown()} on the initial states", depth=0)
                sol.pop()

    def run_exists(self, k: int) -> Any:
        """Unroll to k+1 steps and ask whether any run that long exists; if none, no deeper
        bound differs, and at k = 0 the relation is vacuous.  A run the interpreter plays
        from the position (:func:`witness`) is asked first, its steps given: the solver
        confirms it at a fraction of the open question's cost (a fifth to a tenth at depth
        8 to 10 on ``costs``), and the open question is asked only if it does not."""
        sol, runs = self.sol, self.runs
        while len(runs) <= k:
            self.un.extend()
            self._timeout()
            played = witness(self.enc.cfg, self.enc.init, len(runs) + 1)
            res = z3.unknown if played is None else \
                sol.check(*self.enables, self.at_position, *[self.un.acts[i] == t for i, t in enumerate(played)])
            runs.append(res if res == z3.sat else sol.check(*self.enables))
            if runs[-1] == z3.unsat:
                self.vacuous = len(runs) == 1
        return runs[k]

    def deepen(self, todo: Sequence[Property], depth: int, first_violation: bool = False) -> None:
        """BMC to ``depth`` for ``todo``: one query per depth for all of them at once,
        narrowed down only on a violation (``first_violation``: stop after the first depth
        at which some property fails)."""
        sol, status, reached = self.sol, self.status, self.reached
        if all(p.id in status for p in todo):
            # Nothing left to check (k = 0 proved the rest): the runs' existence would be
            # asked for nothing, depth after depth (5.5 s of a ``plot`` unit from scratch).
            return
        for k in range(depth):
            if self.deadline - time.monotonic() <= 0:
                break
            if self.run_exists(k) == z3.unsat:
                for p in todo:
                    reached[p.id] = max(reached[p.id], k)
                break  # no run of length k+1: every deeper bound is the same
            lits, viols = {}, {}
            for p in todo:
                if p.id not in status:
                    lits[p.id] = z3.Bool(f"viol:{p.id}:{k}")
                    viols[p.id] = self.un.violation(p, k)
                    sol.add(z3.Implies(lits[p.id], viols[p.id]))
            while lits:
                self._timeout()
                any_lit = z3.Bool(f"any:{k}:{len(lits)}")
                sol.add(z3.Implies(any_lit, z3.Or(list(lits.values()))))
                res = sol.check(*self.enables, any_lit)
                if res == z3.unsat:
                    for pid in lits:
                        reached[pid] = k + 1
                        # What the query just showed, kept: no run reaching step k breaks these
                        # here (removes no run; the deeper queries need not rediscover it).
                        sol.add(z3.Not(viols[pid]))
                    break
                if res == z3.unknown:
                    for pid in lits:
                        status[pid] = Verdict("z3", pid, self.conf.name, UNKNOWN, f"solver: {sol.reason_unknown()}",
                                              depth=k)
                    break
                model = sol.model()
                pid = next(q for q, lit in lits.items() if z3.is_true(model.eval(lit, model_completion=True)))
                status[pid] = violated_verdict(self.enc, self.conf, next(q for q in self.props if q.id == pid), model,
                                         self.un, k + 1)
                del lits[pid]
            if first_violation and any(v.status == VIOLATED for v in status.values()):
                break
