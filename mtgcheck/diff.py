"""The shortest scenario on which two rule sets disagree (``mtgcheck diff A B``).

Breadth-first search over the states both rule sets reach *together* (each step legal
under both, with the same result); the first state where they part (an action legal under
one only, or one action with two different results) is reached by a shortest common
history.  Rule sets (:mod:`mtgcheck.rulesets`): ``reference``, a variant (``116.2k``), a
mutant (``mutant-ID``) or conditions switched off (``mutant-COND[+COND...]``).

A search answers a :class:`Difference`, or None when it compared every state both rule sets
reach within the configuration's bounds and found none; a search its budget cut short
raises :class:`SearchCut` instead, so that "no difference" is never claimed for states it
never looked at.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from mtgcheck.checkers.symmetry import canonical
from mtgcheck.configs import CheckConfig
from mtgcheck.errors import UsageError
from mtgcheck.model.actions import Action, Transition, catalogue, step, why_illegal
from mtgcheck.model.setup import build
from mtgcheck.model.state import State
from mtgcheck.rulesets import RuleSet, RuleSetError, RuleSetLike
from mtgcheck.scenario_write import action_doc, scenario_from_trace


def parse_rule_set(name: RuleSetLike) -> RuleSet:
    """The rule set a command line names (a one-line usage error otherwise)."""
    try:
        return RuleSet.of(name)
    except RuleSetError as exc:
        raise UsageError(str(exc)) from None


def _built(conf: CheckConfig, rules: RuleSet) -> tuple[Any, State]:
    return build(conf.position, variant=rules.variant, disabled=rules.disabled)


class SearchCut(Exception):
    """The search stopped at its budget before it had compared every reachable state.

    Raised, not returned: a checker's ``separate`` (:mod:`mtgcheck.checkers.registry`)
    answers a Difference or None, and None must keep meaning that the whole search found
    none.  ``compared`` says what was compared before the cut, ``budget`` what cut it.
    """

    def __init__(self, compared: str, budget: str) -> None:
        super().__init__(f"cut by {budget} after comparing {compared}")
        self.compared = compared
        self.budget = budget


@dataclass
class Difference:
    trace: list[Action]
    action: Action
    legal_a: bool
    legal_b: bool
    why: str
    states: int


def _enabled(cfg: Any, s: State) -> dict[Action, Transition]:
    out: dict[Action, Transition] = {}
    for t in catalogue(cfg).transitions:
        if t.action not in out and t.enabled(s):
            out[t.action] = t
    return out


def _within(conf: CheckConfig, s: State) -> bool:
    """A state whose actions the search compares: inside the turn bound, game not over."""
    return s.turn <= conf.max_turn and not s.game_over


def find(conf: CheckConfig, a: RuleSetLike, b: RuleSetLike, *, max_states: int = 200_000) -> Difference | None:
    """The shortest difference, or None once every state within the bounds was compared
    (:class:`SearchCut` when ``max_states`` states were reached with some still to compare)."""
    cfg_a, s0 = _built(conf, parse_rule_set(a))
    cfg_b, _ = _built(conf, parse_rule_set(b))
    seen = {canonical(cfg_a, s0)}
    queue: deque[tuple[State, list[Action]]] = deque([(s0, [])])
    compared = 0
    left_out = False  # a new state within the bounds found with the budget full
    while queue:
        if len(seen) >= max_states:
            # The budget stops the search; a queued state outside the bounds would only be
            # skipped, so it is a cut only if some state was still to be compared.
            if left_out or any(_within(conf, q) for q, _ in queue):
                raise SearchCut(f"{compared:,} states ({len(seen):,} reached)", f"its budget of {max_states:,} states")
            return None
        s, path = queue.popleft()
        if not _within(conf, s):
            continue
        compared += 1
        ea, eb = _enabled(cfg_a, s), _enabled(cfg_b, s)
        only = sorted(set(ea) ^ set(eb))
        if only:
            act = only[0]
            ref = why_illegal(cfg_a if act in eb else cfg_b, s, act)
            why = f"CR {ref.cr}: {ref.why}" if ref else ""
            return Difference(path, act, act in ea, act in eb, why, len(seen))
        for act in sorted(ea):
            sa, sb = ea[act].effect(s), eb[act].effect(s)
            if sa != sb:
                return Difference(path, act, True, True, "the same action has different results", len(seen))
            k = canonical(cfg_a, sa)
            if k not in seen:
                if len(seen) >= max_states:  # the budget is full: the state is not kept
                    left_out |= _within(conf, sa)
                    continue
                seen.add(k)
                queue.append((sa, path + [act]))
    return None


def as_scenario(conf: CheckConfig, a: str | RuleSet, b: str | RuleSet, d: Difference) -> dict[str, Any]:
    """The difference as a scenario that passes under rule set ``b`` (its variant).

    ``a`` and ``b`` are the rule sets as the user spelled them: the scenario names them so."""
    ra, rb = parse_rule_set(a), parse_rule_set(b)
    vb = rb.variant
    cfg, _ = _built(conf, rb)
    rules = ["702.170a", "116.2k"] if "116.2k" in (ra.variant, vb) else ["117.1"]
    doc = scenario_from_trace(f"{a} and {b} disagree", rules, conf.position, cfg, d.trace, variant=vb,
                              description=f"Shortest common history after which the rule sets {a} and {b} part: "
                                          f"the last action is {'legal' if d.legal_a else 'illegal'} under {a} "
                                          f"and {'legal' if d.legal_b else 'illegal'} under {b}. {d.why}".strip())
    last = action_doc(cfg, d.action)
    last["expect"] = "legal" if d.legal_b else "illegal"
    doc["actions"].append(last)
    return doc


def find_z3(conf: CheckConfig, a: RuleSetLike, b: RuleSetLike, *, max_depth: int = 6,
            timeout: float = 300.0) -> Difference | None:
    """:func:`_find_z3` in a fresh Z3 context (the same answer whatever the process ran before)."""
    from mtgcheck.checkers.z3bmc import fresh_context

    with fresh_context():
        return _find_z3(conf, a, b, max_depth=max_depth, timeout=timeout)


def _find_z3(conf: CheckConfig, a: RuleSetLike, b: RuleSetLike, *, max_depth: int,
             timeout: float) -> Difference | None:
    """The same search with Z3: BMC over histories legal under both rule sets with the same
    results, iterative deepening, until some transition is enabled under one rule set only
    or gives two different successors.  The trace is checked on the interpreter.

    None only when no common history goes past the last depth checked (so every reachable
    state was compared); :class:`SearchCut` when the time budget, an unknown from Z3 or
    ``max_depth`` stops it first."""
    import time

    import z3

    from mtgcheck.checkers.z3bmc import Encoding, Unroller, flat
    from mtgcheck.model.logic import symbolic
    from mtgcheck.model.state import equal_states, symbolic_state

    cfg_a, s0 = _built(conf, parse_rule_set(a))
    cfg_b, _ = _built(conf, parse_rule_set(b))
    enc_a, enc_b = Encoding.build(cfg_a, s0), Encoding.build(cfg_b, s0)
    if enc_a.actions != enc_b.actions:  # pragma: no cover - rule sets share the action catalogue
        raise UsageError("the two rule sets have different action catalogues")
    deadline = time.monotonic() + timeout
    sol = z3.Solver()
    un = Unroller(enc_a, sol, "d")
    with symbolic():
        sol.add(equal_states(un.states[0], s0))
    enables = list({**enc_a.en, **enc_b.en}.values())
    fb = flat(enc_b.a), flat(enc_b.b)

    def sub_b(term: Any, k: int) -> Any:
        pairs = list(zip(fb[0], flat(un.states[k]), strict=True)) + list(zip(fb[1], flat(un.states[k + 1]), strict=True))
        return z3.substitute(term, *pairs)

    for k in range(max_depth + 1):
        # State k+1: the candidate successor(s) at the frontier, and the next common state.
        un.states.append(symbolic_state(cfg_a, f"d{k + 1}"))
        parts = []
        for i in range(len(enc_a.rels)):
            ga, gb = un.sub(enc_a.guards[i], k), sub_b(enc_b.guards[i], k)
            parts.append(z3.Xor(ga, gb))  # legal under one rule set only
            parts.append(z3.And(ga, gb, un.sub(enc_a.rels[i], k), z3.Not(sub_b(enc_b.rels[i], k))))  # two results
        lit = z3.Bool(f"diff:{k}")
        sol.add(z3.Implies(lit, z3.Or(parts)))
        sol.set("timeout", max(1, int((deadline - time.monotonic()) * 1000)))
        res = sol.check(*enables, lit)
        if res == z3.sat:
            model = sol.model()
            trace = un.trace(model, k)
            idx = next(i for i in range(len(enc_a.rels))
                       if z3.is_true(model.eval(parts[2 * i], model_completion=True))
                       or z3.is_true(model.eval(parts[2 * i + 1], model_completion=True)))
            act = enc_a.actions[idx]
            la = z3.is_true(model.eval(un.sub(enc_a.guards[idx], k), model_completion=True))
            lb = z3.is_true(model.eval(sub_b(enc_b.guards[idx], k), model_completion=True))
            s = s0
            for x in trace:  # the common history replays on the interpreter (or raises)
                s = step(cfg_a, s, x)
            ref = why_illegal(cfg_a if lb else cfg_b, s, act) if la != lb else None
            why = f"CR {ref.cr}: {ref.why}" if ref else ("" if la != lb else "the same action has different results")
            return Difference(trace, act, la, lb, why, 0)
        if res == z3.unknown or time.monotonic() >= deadline:
            done = k if res == z3.unsat else k - 1  # the deepest step known to have no difference
            raise SearchCut(_histories(done), "an unknown from Z3" if res == z3.unknown and time.monotonic() < deadline
                            else f"its time budget of {timeout:g} s")
        # No difference yet: one more common step, legal under both with the same successor.
        sels = [z3.Bool(f"dsel{k}_{i}") for i in range(len(enc_a.rels))]
        for i, sel in enumerate(sels):
            sol.add(z3.Implies(sel, z3.And(un.sub(enc_a.rels[i], k), sub_b(enc_b.rels[i], k))))
        sol.add(z3.Or(sels))
        un.sels.append(sels)
    # Every common history of up to max_depth actions compared: the search ended only if
    # none of them goes on (else a difference may lie deeper).
    sol.set("timeout", max(1, int((deadline - time.monotonic()) * 1000)))
    res = sol.check(*enables)
    if res == z3.unsat:
        return None
    raise SearchCut(_histories(max_depth), f"its depth bound of {max_depth} common action{'s' if max_depth != 1 else ''}" if res == z3.sat
                    else "an unknown from Z3" if time.monotonic() < deadline else f"its time budget of {timeout:g} s")


def _histories(depth: int) -> str:
    """What the Z3 search compared once no difference is possible after ``depth`` common actions."""
    if depth < 0:
        return "nothing (Z3 did not finish the first step)"
    if depth == 0:
        return "the initial position only"
    return f"every common history of up to {depth} action{'s' if depth != 1 else ''}"
