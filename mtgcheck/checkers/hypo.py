"""Hypothesis stateful testing: a RuleBasedStateMachine generated from the action catalogue.

One rule per verb of the catalogue draws one of that verb's legal actions; the properties
are checked after every step (state properties as invariants, transition properties on the
step taken).  A failure is shrunk by Hypothesis to a short trace and reported with it, as
actions that replay on the interpreter.  Runs are seeded (``--seed``) and never use the
example database: a stored counterexample is a file, not a cache entry.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Sequence

from hypothesis import HealthCheck, Phase, seed as hseed, settings, strategies as st
from hypothesis.errors import Flaky
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test

from mtgcheck import coverage
from mtgcheck.configs import CheckConfig
from mtgcheck.model.actions import Action, Transition, catalogue, enabled_transition, legal_transitions
from mtgcheck.model.setup import build
from mtgcheck.properties.base import Property

from .result import HOLDS, UNKNOWN, VACUOUS, VIOLATED, Verdict


class _TimeUp(KeyboardInterrupt):
    """The run's deadline passed: stop Hypothesis now, whatever its example budget.

    A KeyboardInterrupt because that is how Hypothesis is cancelled: it re-raises one at
    once, without retrying or shrinking it (any other exception is a failure to shrink, and
    replaying one that depends on the clock is reported as flaky).
    """


class PropertyViolation(AssertionError):
    def __init__(self, prop: str, trace: list[Action]) -> None:
        super().__init__(f"{prop} violated after {len(trace)} actions")
        self.prop, self.trace = prop, trace


@dataclass
class Tally:
    examples: int = 0
    steps: int = 0
    witnesses: dict[str, int] = field(default_factory=dict)
    fired: dict[str, int] = field(default_factory=dict)
    actions: dict[str, int] = field(default_factory=dict)  # action verb -> times fired
    #: When to stop (time.monotonic()); None: no deadline.
    deadline: float | None = None
    #: Set once a property failed in the current run: Hypothesis is then shrinking it, and
    #: is left to finish (its shrinking is bounded on its own), so the violation is kept.
    failing: bool = False

    def check_time(self) -> None:
        """Stop the run if the deadline passed (unless a failure is being shrunk)."""
        if self.deadline is not None and not self.failing and time.monotonic() > self.deadline:
            raise _TimeUp()


def machine_for(conf: CheckConfig, props: Sequence[Property], tally: Tally, *, variant: str | None = None,
                disabled: frozenset[str] = frozenset()) -> type[RuleBasedStateMachine]:
    cfg, s0 = build(conf.position, variant=variant, disabled=disabled)
    verbs = sorted({t.action.verb for t in catalogue(cfg).transitions})
    state_props = [p for p in props if p.kind == "state"]
    trans_props = [p for p in props if p.kind == "transition"]

    class RulesMachine(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.s = s0
            self.trace: list[Action] = []
            tally.check_time()
            tally.examples += 1

        def _moves(self) -> tuple[dict[str, list[Action]], dict[Action, Transition]]:
            """The legal actions of the current state by verb (in legal_actions' order), and
            the transition of each: the guards are evaluated once per state."""
            c = getattr(self, "_cached", None)
            if c is None or c[0] is not self.s or c[3] != len(self.trace):
                moves: dict[Action, Transition] = {}
                if not (self.s.turn > conf.max_turn or len(self.trace) >= conf.depth * 4):
                    moves = legal_transitions(cfg, self.s)
                by_verb: dict[str, list[Action]] = {}
                for a in moves:
                    by_verb.setdefault(a.verb, []).append(a)
                self._cached = (self.s, by_verb, moves, len(self.trace))
            return self._cached[1], self._cached[2]

        def _legal(self, verb: str) -> list[Action]:
            return self._moves()[0].get(verb, [])

        def _do(self, a: Action) -> None:
            tally.check_time()  # one example may be long (a configuration's hypothesis_steps)
            t = self._moves()[1].get(a) or enabled_transition(cfg, self.s, a)
            assert t is not None
            s2 = t.effect(self.s)
            self.trace.append(a)
            tally.steps += 1
            tally.fired[t.rule] = tally.fired.get(t.rule, 0) + 1
            tally.actions[a.verb] = tally.actions.get(a.verb, 0) + 1
            for p in trans_props:
                if p.triggered(cfg, self.s, t, s2):
                    tally.witnesses[p.id] = tally.witnesses.get(p.id, 0) + 1
                if not p.holds(cfg, self.s, t, s2):
                    tally.failing = True
                    raise PropertyViolation(p.id, list(self.trace))
            self.s = s2

        @invariant()
        def state_properties(self) -> None:
            for p in state_props:
                if p.triggered(cfg, self.s):
                    tally.witnesses[p.id] = tally.witnesses.get(p.id, 0) + 1
                if not p.holds(cfg, self.s):
                    tally.failing = True
                    raise PropertyViolation(p.id, list(self.trace))

    for verb in verbs:
        def make(verb: str):  # type: ignore[no-untyped-def]
            def act(self, data) -> None:  # type: ignore[no-untyped-def]
                self._do(data.draw(st.sampled_from(self._legal(verb)), label=verb))
            act.__name__ = f"do_{verb}"
            return precondition(lambda self: bool(self._legal(verb)))(rule(data=st.data())(act))
        setattr(RulesMachine, f"do_{verb}", make(verb))

    def at_rest(self) -> None:  # type: ignore[no-untyped-def]
        """The game is over or the bound is reached: nothing more to do."""
    setattr(RulesMachine, "at_rest", precondition(  # noqa: B010 - a generated rule, named at run time
        lambda self: not any(self._legal(v) for v in verbs))(rule()(at_rest)))
    RulesMachine.__name__ = f"RulesMachine_{conf.name}"
    return RulesMachine


def check(conf: CheckConfig, props: Sequence[Property], *, seed: int = 0, examples: int | None = None,
          timeout: float = 120.0, variant: str | None = None,
          disabled: frozenset[str] = frozenset()) -> list[Verdict]:
    """Run the state machine; re-run without each violated property so every property gets
    its own verdict.

    ``timeout`` bounds the whole call, within a run too (a configuration may ask for
    millions of examples): what time cuts short is ``unknown``, saying how many examples
    ran, never ``holds``.
    """
    t0 = time.monotonic()
    remaining = list(props)
    violated: dict[str, list[Action]] = {}
    tally = Tally(deadline=t0 + timeout)
    n = examples or conf.hypothesis_examples
    interrupted = ""  # why the run stopped before its examples were done ("": it did not)
    while remaining:
        machine = machine_for(conf, remaining, tally, variant=variant, disabled=disabled)
        hseed(seed)(machine)
        cfg_settings = settings(max_examples=n, stateful_step_count=conf.hypothesis_steps, database=None,
                                deadline=None, derandomize=False, print_blob=False,
                                phases=[Phase.generate, Phase.shrink],
                                suppress_health_check=list(HealthCheck))
        tally.failing = False
        try:
            run_state_machine_as_test(machine, settings=cfg_settings)
            break
        except PropertyViolation as exc:
            violated[exc.prop] = exc.trace
            remaining = [p for p in remaining if p.id != exc.prop]
        except _TimeUp:
            interrupted = f"time ran out after {timeout:g} s"
            break
        except Flaky:  # pragma: no cover - the model is deterministic
            interrupted = "Hypothesis found the run flaky"
            break
        if time.monotonic() - t0 > timeout:
            interrupted = f"time ran out after {timeout:g} s"
            break
    secs = time.monotonic() - t0
    fired = coverage.counts(build(conf.position, variant=variant, disabled=disabled)[0], tally.fired, tally.actions)
    out = []
    for p in props:
        stats = {"examples": tally.examples, "steps": tally.steps, "witnesses": tally.witnesses.get(p.id, 0),
                 "coverage": fired}
        if p.id in violated:
            v = Verdict("hypothesis", p.id, conf.name, VIOLATED, depth=len(violated[p.id]), trace=violated[p.id],
                        stats=stats)
        elif interrupted:
            v = Verdict("hypothesis", p.id, conf.name, UNKNOWN,
                        f"{interrupted}: {tally.examples} of {n} examples", stats=stats)
        elif tally.witnesses.get(p.id, 0) == 0:
            v = Verdict("hypothesis", p.id, conf.name, VACUOUS, "its antecedent never held in the examples",
                        stats=stats)
        else:
            v = Verdict("hypothesis", p.id, conf.name, HOLDS, f"{n} examples, seed {seed}",
                        depth=conf.hypothesis_steps, stats=stats)
        v.seconds = secs
        out.append(v)
    return out
