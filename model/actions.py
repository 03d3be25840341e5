"""The action catalogue and the interpreter: ``legal_actions(state)`` and ``step(state, action)``.

Each rule module contributes :class:`Transition` objects: a user-visible :class:`Action`,
a guard made of named :class:`Cond` (each with its CR number and a reason), and an effect.
Guards and effects are written with the dual helpers (:mod:`.logic`), so the Z3 encoding
is the disjunction of the very same transitions over symbolic states.  Several internal
transitions may share one user action (``pass`` either hands priority on, resolves the top
of the stack, or ends the step); their guards are mutually exclusive.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Iterable

from mtgcheck.errors import MtgcheckError

from .config import Config
from .state import State


@dataclass(frozen=True, slots=True, order=True)
class Action:
    """A player's action, as a user (or a scenario file) names it."""

    verb: str
    player: int
    card: int = -1
    how: int = 0
    x: int = 0
    kicker: int = 0
    half: int = 0
    flashback: int = 0
    target: int = -1  # -1 none; 0..P-1 player; P + j card slot j
    sacrifice: int = -1
    cards: tuple[int, ...] = ()
    result: str = ""
    source: str = ""  # plot: "hand" or "library"


@dataclass(frozen=True, slots=True)
class Cond:
    """One named condition of a guard: what it enforces, and the rule that says so."""

    id: str
    cr: str
    why: str
    # Called with a state only; ``...`` admits the guards that bind their loop variables as
    # defaults (``lambda s, k=k: ...``), the cure for late binding (ruff B023).
    test: Callable[..., Any]


@dataclass(frozen=True, slots=True)
class Transition:
    action: Action
    rule: str  # the rule id, e.g. "cast", "plot", "pass.resolve"
    cr: str
    conds: tuple[Cond, ...]
    effect: Callable[..., State]  # called with a state only (see Cond.test)

    def enabled(self, s: State) -> bool:
        return all(c.test(s) for c in self.conds)

    def first_failure(self, s: State) -> tuple[int, Cond] | None:
        for i, c in enumerate(self.conds):
            if not c.test(s):
                return i, c
        return None


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why an action is illegal: the rule and the reason (python-chess style: by cause)."""

    cr: str
    why: str
    cond: str = ""


class IllegalAction(MtgcheckError):
    exit_code = 1

    def __init__(self, action: Action, refusal: Refusal) -> None:
        self.action, self.refusal = action, refusal
        super().__init__(f"illegal {action.verb} by player {action.player}: CR {refusal.cr}: {refusal.why}")


@dataclass(slots=True)
class Catalogue:
    """All transitions of a configuration, indexed by user action."""

    cfg: Config
    transitions: tuple[Transition, ...]
    by_action: dict[Action, tuple[Transition, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        idx: dict[Action, list[Transition]] = {}
        for t in self.transitions:
            idx.setdefault(t.action, []).append(t)
        self.by_action = {a: tuple(ts) for a, ts in idx.items()}


def _gather(cfg: Config) -> Iterable[Transition]:
    from . import casting, leaving, legend, planechase, plot, resolution, turns

    for mod in (turns, plot, casting, resolution, legend, planechase, leaving):
        yield from mod.transitions(cfg)


@lru_cache(maxsize=64)
def catalogue(cfg: Config) -> Catalogue:
    """Build (once per configuration) every transition, with disabled conditions dropped."""
    from .settle import settle

    out = []
    for t in _gather(cfg):
        conds = tuple(c for c in t.conds if c.id not in cfg.disabled)
        eff = t.effect
        out.append(Transition(t.action, t.rule, t.cr, conds, (lambda e: lambda s: settle(cfg, e(s)))(eff)))
    return Catalogue(cfg, tuple(out))


def legal_actions(cfg: Config, s: State) -> list[Action]:
    """Every action legal in ``s``, each once, in a stable order."""
    seen: dict[Action, None] = {}
    for t in catalogue(cfg).transitions:
        if t.action not in seen and t.enabled(s):
            seen[t.action] = None
    return list(seen)


def enabled_transition(cfg: Config, s: State, a: Action) -> Transition | None:
    for t in catalogue(cfg).by_action.get(a, ()):
        if t.enabled(s):
            return t
    return None


def why_illegal(cfg: Config, s: State, a: Action) -> Refusal | None:
    """None if ``a`` is legal in ``s``; else the refusal of the transition that got furthest."""
    ts = catalogue(cfg).by_action.get(a, ())
    best: tuple[int, Cond] | None = None
    for t in ts:
        f = t.first_failure(s)
        if f is None:
            return None
        if best is None or f[0] > best[0]:
            best = f
    if best is None:
        return _no_such_action(a)
    return Refusal(best[1].cr, best[1].why, best[1].id)


def _no_such_action(a: Action) -> Refusal:
    crs = {"cast": "601.2", "plot": "702.170a", "choose": "601.2c", "roll": "901.9",
           "pass": "117.3d", "leave": "104.3a"}
    return Refusal(crs.get(a.verb, "117.1"), "no such action exists in this configuration "
                   "(the card or the option cannot be used this way)", "catalogue")


def step(cfg: Config, s: State, a: Action) -> State:
    """The unique successor of ``s`` by the legal action ``a``; :class:`IllegalAction` otherwise."""
    t = enabled_transition(cfg, s, a)
    if t is None:
        raise IllegalAction(a, why_illegal(cfg, s, a) or _no_such_action(a))
    return t.effect(s)
