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

from .config import EFFECT_CLAUSES, Config
from .errors import UnknownConditionError
from .state import State
# The vocabulary, re-exported: callers outside the model import it from here.
from .card_rules import ON_CHANGE
from .vocabulary import GUARD_CONDITIONS, Action, Cond, IllegalAction, Refusal, Transition

__all__ = ["Action", "Cond", "Transition", "Refusal", "IllegalAction", "Catalogue", "catalogue", "legal_actions",
           "legal_transitions", "enabled_transition", "why_illegal", "step"]


@dataclass(slots=True)
class Catalogue:
    """All transitions of a configuration, indexed by user action."""

    cfg: Config
    transitions: tuple[Transition, ...]
    by_action: dict[Action, tuple[Transition, ...]] = field(default_factory=dict)
    #: The indices of the transitions enabled in a concrete state, in catalogue order
    #: (:func:`compile_enabled`): what the interpreter's hot loops (legal_transitions, the
    #: graph search, the invariant sample) call instead of every guard in turn.
    enabled: Callable[[State], list[int]] = field(default=lambda s: [])
    #: The verbs of its actions, sorted (coverage counts them; a swarm leaves some out).
    verbs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        idx: dict[Action, list[Transition]] = {}
        for t in self.transitions:
            idx.setdefault(t.action, []).append(t)
        self.by_action = {a: tuple(ts) for a, ts in idx.items()}
        self.enabled = compile_enabled(self.transitions)
        self.verbs = tuple(sorted({t.action.verb for t in self.transitions}))


def compile_enabled(transitions: tuple[Transition, ...]) -> Callable[[State], list[int]]:
    """One function of a concrete state that lists the enabled transitions (their indices,
    in order), testing each condition object at most once.

    The guards form a tree: transitions whose conditions begin with the same condition
    *objects* (the shared constructors of :mod:`.common` return one object per argument)
    share a branch, so "the game is on", "player 0 has priority"... are tested once per
    state instead of once per transition, and a false one skips its whole branch.  Sharing is
    by identity, never by name, so two conditions merge only when they are the same test.
    Each guard still holds exactly when all its conditions do, as ``Transition.enabled``
    says (a test compares the two on reachable states).
    """
    root: _Branch = ({}, [])
    for i, t in enumerate(transitions):
        node = root
        for c in t.conds:
            node = node[0].setdefault(id(c), (c, ({}, [])))[1]
        node[1].append(i)
    env: dict[str, Any] = {}
    lines = ["def enabled(s):", " out = []"]

    def emit(node: _Branch, depth: int) -> None:
        pad = " " * depth
        lines.extend(f"{pad}out.append({i})" for i in node[1])
        for c, child in node[0].values():
            name = f"c{len(env)}"
            env[name] = c.test
            lines.append(f"{pad}if {name}(s):")
            emit(child, depth + 1)

    emit(root, 1)
    lines += [" out.sort()", " return out"]
    exec("\n".join(lines), env)  # noqa: S102 - code generated above from the catalogue only
    return env["enabled"]


#: A branch of the guard tree: the conditions that follow (by object id) and the
#: transitions whose guard ends here.
_Branch = tuple[dict[int, tuple[Cond, Any]], list[int]]


def gather(cfg: Config) -> Iterable[Transition]:
    # The card registry's entries first: the rule modules read them as they build.
    from . import card_texts, casting, lands, leaving, legend, planechase, plot, resolution, turns  # noqa: F401

    for mod in (turns, plot, casting, resolution, legend, planechase, leaving, lands):
        yield from mod.transitions(cfg)


def unknown_conditions(ids: Iterable[str]) -> str | None:
    """What is wrong with condition ids a rule set switches off, or None: each must be a
    declared guard condition (``GUARD_CONDITIONS``) or effect clause (``EFFECT_CLAUSES``).
    The one check behind ``RuleSet.parse`` and :func:`catalogue`."""
    unknown = sorted(set(ids) - GUARD_CONDITIONS - set(EFFECT_CLAUSES))
    if not unknown:
        return None
    return (f"{', '.join(map(repr, unknown))} is no guard condition nor effect clause (expected one of: "
            f"{', '.join(sorted(GUARD_CONDITIONS | set(EFFECT_CLAUSES)))})")


@lru_cache(maxsize=64)
def catalogue(cfg: Config) -> Catalogue:
    """Build (once per configuration) every transition, with disabled conditions dropped."""
    from .settle import settle

    unknown = unknown_conditions(cfg.disabled)
    if unknown:  # switching off what does not exist would check the reference rules unawares
        raise UnknownConditionError(f"rule set mutant-{'+'.join(sorted(cfg.disabled))}: {unknown}")
    out = []
    for t in gather(cfg):
        conds = tuple(c for c in t.conds if c.id not in cfg.disabled)
        eff = t.effect
        out.append(Transition(t.action, t.rule, t.cr, conds, (lambda e: lambda s: settle(cfg, e(s)))(eff), t.card))
    return Catalogue(cfg, tuple(out))


def legal_transitions(cfg: Config, s: State) -> dict[Action, Transition]:
    """Every action legal in ``s`` (in :func:`legal_actions`' order) with the transition that
    :func:`step` takes for it: one pass over the guards serves both."""
    out: dict[Action, Transition] = {}
    cat = catalogue(cfg)
    for i in cat.enabled(s):
        t = cat.transitions[i]
        if t.action not in out:
            out[t.action] = t
    return out


def legal_actions(cfg: Config, s: State) -> list[Action]:
    """Every action legal in ``s``, each once, in a stable order."""
    return list(legal_transitions(cfg, s))


def enabled_transition(cfg: Config, s: State, a: Action) -> Transition | None:
    for t in catalogue(cfg).by_action.get(a, ()):
        if t.enabled(s):
            return t
    return None


def why_illegal(cfg: Config, s: State, a: Action) -> Refusal | None:
    """None if ``a`` is legal in ``s``; else the refusal of the transition that got furthest."""
    ts = catalogue(cfg).by_action.get(a, ())
    best: tuple[int, Cond] | None = None
    card = ""
    for t in ts:
        f = t.first_failure(s)
        if f is None:
            return None
        if best is None or f[0] > best[0]:
            best, card = f, t.card
    if best is None:
        return _no_such_action(a)
    return Refusal(best[1].cr, best[1].why, best[1].id, card)


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


# A change of the card registry (a test's scratch copy) invalidates the built catalogues.
ON_CHANGE.append(catalogue.cache_clear)
