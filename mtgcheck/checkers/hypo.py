"""Hypothesis stateful testing: a RuleBasedStateMachine generated from the action catalogue.

One rule draws a legal action of the catalogue (see :func:`machine_for`); the properties
are checked after every step (state properties as invariants, transition properties on the
step taken).  A failure is shrunk by Hypothesis to a short trace and reported with it, as
actions that replay on the interpreter.  Runs are seeded (``--seed``) and never use the
example database: a stored counterexample is a file, not a cache entry.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Sequence

from hypothesis import HealthCheck, Phase, seed as hseed, settings, strategies as st
from hypothesis.errors import Flaky
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from mtgcheck import coverage
from mtgcheck.cache import keep_hypothesis_in_cache
from mtgcheck.configs import CheckConfig
from mtgcheck.model.actions import Action, Transition, catalogue, legal_transitions
from mtgcheck.model.setup import build
from mtgcheck.model.state import State
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


#: The number a step draws: read modulo the number of the catalogue's verbs for the verb, and
#: the rest modulo that verb's legal actions for the action.  One strategy, built once; its least
#: value (what the shrinker tends to) is the first action of the first verb.  The range
#: starts at 2**40 on purpose: Hypothesis now and then draws an integer literal found in the
#: source of the local modules the process has loaded, and a Dask worker or a pytest worker
#: loads other modules than the CLI, so a range holding such literals made one seed draw
#: other games in another process (a shard's printed seed then did not replay).  No module
#: writes a number near 2**40; Hypothesis's own constants there are the same everywhere.
_PICK_BASE = 2**40
_PICK = st.integers(_PICK_BASE, _PICK_BASE + 2**16 - 1)


def unmoored_integers(lo: int, hi: int) -> st.SearchStrategy[int]:
    """``st.integers(lo, hi)`` drawn from the range :data:`_PICK_BASE` above it, for the reason
    given there: the same seed then draws the same numbers whatever local modules are loaded
    (and whatever literals a change adds to them).  For a generator that does not shrink."""
    return st.integers(_PICK_BASE + lo, _PICK_BASE + hi).map(lambda v: v - _PICK_BASE)


#: Entries each memo of a run keeps (then it starts again empty): a few thousand states is
#: what 200 examples visit, so this bounds memory on a configuration that asks for millions.
_MEMO = 200_000


def _swarm(verbs: Sequence[str]) -> st.SearchStrategy[frozenset[str]]:
    """The verbs an example leaves out: each one with even odds, none once shrunk."""
    return st.fixed_dictionaries({v: st.booleans() for v in verbs}).map(
        lambda off: frozenset(v for v, out in off.items() if out))


def machine_for(conf: CheckConfig, props: Sequence[Property], tally: Tally, *, variant: str | None = None,
                disabled: frozenset[str] = frozenset()) -> type[RuleBasedStateMachine]:
    """The configuration's rules as a state machine with one rule, ``act`` (after ``swarm``,
    an initialize rule).

    ``act`` reads a verb with a legal action, then one of that verb's legal actions, from one
    number Hypothesis draws and shrinks (:func:`pick_verb`; so a verb with many actions, such
    as ``cast``, is not drawn more often than a rare one).  Once no action is legal (the game
    is over or the configuration's bound is reached) it starts a new game from the position
    instead: Hypothesis runs a fixed number of steps per example, and they used to idle after
    the end of a game (nine steps in ten on ``costs``).  The trace kept is the current
    game's, so a violation replays from the position; the shrinker drops the earlier games,
    which cannot matter to it.

    Swarm testing, as Hypothesis does it for a machine with one rule per verb: each example
    first draws the verbs it leaves out (``off``: each verb with even odds, none once
    shrunk), and ``act`` picks among the other legal verbs while there is one.  Without it a
    concession ends nearly every game before a plotted card can be cast on a later turn
    (measured on ``plot``: no such cast in 200 examples; with it, 22 to 32).  One rule with
    one plain argument, no precondition and no ``st.data()``: Hypothesis's own cost per step
    is then about a third of what those cost (measured on a machine that does nothing).  The
    guards are evaluated once per state, and the state properties once per new state.
    """
    cfg, s0 = build(conf.position, variant=variant, disabled=disabled)
    verbs = catalogue(cfg).verbs
    state_props = [p for p in props if p.kind == "state"]
    trans_props = [p for p in props if p.kind == "transition"]

    # What a state's guards and properties give, and a step's successor, are functions of the
    # state (and the action): kept for the run (up to _MEMO entries each), since Hypothesis
    # replays the same prefixes over and over as it mutates and shrinks examples.
    legal: dict[State, dict[str, list[tuple[Action, Transition]]]] = {}
    after: dict[tuple[State, Action], State] = {}
    verdicts: dict[Any, tuple[list[str], str | None]] = {}

    def judge(key: Any, props: Sequence[Property], *args: Any) -> str | None:
        """Count the witnesses of ``props`` on ``args`` (a state, or a step) and return the
        first that fails, as evaluating them in turn does (the outcome kept under ``key``)."""
        seen = verdicts.get(key)
        if seen is None:
            if len(verdicts) >= _MEMO:
                verdicts.clear()
            witnessed, failing = [], None
            for p in props:
                if p.triggered(cfg, *args):
                    witnessed.append(p.id)
                if not p.holds(cfg, *args):
                    failing = p.id
                    break
            seen = verdicts[key] = (witnessed, failing)
        for pid in seen[0]:
            tally.witnesses[pid] = tally.witnesses.get(pid, 0) + 1
        return seen[1]

    def moves_of(s: State, steps: int) -> dict[str, list[tuple[Action, Transition]]]:
        """The legal actions by verb, in legal_actions' order; none at the bound."""
        if s.turn > conf.max_turn or steps >= conf.depth * 4:
            return {}
        by_verb = legal.get(s)
        if by_verb is None:
            if len(legal) >= _MEMO:
                legal.clear()
            by_verb = {}
            for a, t in legal_transitions(cfg, s).items():
                by_verb.setdefault(a.verb, []).append((a, t))
            legal[s] = by_verb
        return by_verb

    def pick_verb(pick: int, moves: dict[str, Any], off: frozenset[str]) -> str:
        """The verb ``pick`` names (modulo the catalogue's verbs) if it has a legal action and
        is not left out; else one of those that are (or, if none is, that have a legal
        action), chosen by the rest of ``pick``.  A number names the same verb in every state
        where it can, so the shrinker can delete the steps before it (passes and a plot stay
        passes and a plot)."""
        named = verbs[pick % len(verbs)]
        if named in moves and named not in off:
            return named
        on = [v for v in moves if v not in off] or list(moves)
        return on[pick // len(verbs) % len(on)]

    class RulesMachine(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            tally.check_time()
            tally.examples += 1
            self._off: frozenset[str] = frozenset()  # set by ``swarm``, which runs first
            self._start()

        def _start(self) -> None:
            self.s = s0
            self.trace: list[Action] = []
            self._moves = moves_of(s0, 0)
            self._checked: State | None = None

        @initialize(off=_swarm(verbs))
        def swarm(self, off: frozenset[str]) -> None:
            self._off = off

        @rule(pick=_PICK)
        def act(self, pick: int) -> None:
            pick -= _PICK_BASE
            tally.check_time()  # one example may be long (a configuration's hypothesis_steps)
            if not self._moves:
                self._start()  # the game is over or the bound is reached: play again
                return
            choices = self._moves[pick_verb(pick, self._moves, self._off)]
            a, t = choices[pick // len(verbs) % len(choices)]
            s2 = after.get((self.s, a))
            if s2 is None:
                if len(after) >= _MEMO:
                    after.clear()
                s2 = after[(self.s, a)] = t.effect(self.s)
            self.trace.append(a)
            tally.steps += 1
            tally.fired[t.rule] = tally.fired.get(t.rule, 0) + 1
            tally.actions[a.verb] = tally.actions.get(a.verb, 0) + 1
            bad = judge(("step", self.s, a), trans_props, self.s, t, s2)
            if bad is not None:
                tally.failing = True
                raise PropertyViolation(bad, list(self.trace))
            self.s = s2
            self._moves = moves_of(s2, len(self.trace))

        @invariant()
        def state_properties(self) -> None:
            if self._checked is self.s:
                return
            bad = judge(("state", self.s), state_props, self.s)
            if bad is not None:
                tally.failing = True
                raise PropertyViolation(bad, list(self.trace))
            self._checked = self.s

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
    keep_hypothesis_in_cache()
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
