"""What a property is: an id, its CR rules, a statement, and a predicate.

A predicate is written with the model's dual helpers, over a state (``kind="state"``) or
over a transition ``(s, t, s2)`` (``kind="transition"``; ``t`` is the model's Transition,
whose action is concrete, so a predicate may branch on the action in plain Python).  The
same predicate is evaluated by the graph search and Hypothesis on concrete states, and by
Z3 on symbolic ones.  ``witness`` is the antecedent: a property whose antecedent is never
true in a run holds vacuously, and the checkers say so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from mtgcheck.model.actions import Transition
from mtgcheck.model.config import Config
from mtgcheck.model.state import State

StatePred = Callable[[Config, State], Any]
TransPred = Callable[[Config, State, Transition, State], Any]


@dataclass(frozen=True)
class Property:
    id: str
    rules: tuple[str, ...]
    statement: str
    kind: str  # "state" or "transition"
    pred: Callable[..., Any]
    # The antecedent (same signature as pred): when it holds, the property says something.
    witness: Callable[..., Any] | None = None

    def holds(self, cfg: Config, s: State, t: Transition | None = None, s2: State | None = None) -> Any:
        if self.kind == "state":
            return self.pred(cfg, s2 if s2 is not None else s)
        assert t is not None and s2 is not None
        return self.pred(cfg, s, t, s2)

    def triggered(self, cfg: Config, s: State, t: Transition | None = None, s2: State | None = None) -> Any:
        if self.witness is None:
            return True
        if self.kind == "state":
            return self.witness(cfg, s2 if s2 is not None else s)
        assert t is not None and s2 is not None
        return self.witness(cfg, s, t, s2)
