"""Verdicts every checker reports, in one vocabulary.

``proved`` (k-induction; or the graph search's fixpoint: every reachable state of the
position seen, with no turn bound), ``holds`` (to a stated bound: exhaustive within it for the graph
search, a depth for BMC, a number of examples for Hypothesis), ``violated`` (with a trace),
``vacuous`` (the property's antecedent never held: nothing was checked), ``unknown`` (time
or a bound ran out before an answer).  A checker never turns unknown into holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mtgcheck.model.actions import Action

PROVED, HOLDS, VIOLATED, VACUOUS, UNKNOWN = "proved", "holds", "violated", "vacuous", "unknown"
#: The scope of a search that reached its fixpoint (graph search): what ``proved`` and
#: ``vacuous`` then cover, and what combining across configurations reads.
EVERY_REACHABLE_STATE = "every reachable state of the position"


@dataclass
class Verdict:
    checker: str
    property: str
    config: str
    status: str
    detail: str = ""
    depth: int | None = None  # BMC/BFS depth reached, or trace length when violated
    k: int | None = None  # induction depth when proved
    trace: list[Action] = field(default_factory=list)
    seconds: float = 0.0
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return self.status == VIOLATED

    @property
    def inconclusive(self) -> bool:
        return self.status in (UNKNOWN, VACUOUS)

    def summary(self) -> str:
        if self.status == PROVED:
            if self.k is None:  # the graph search's fixpoint
                return "proved (" + str(self.stats.get("scope") or self.detail) + ")"
            return f"proved (k={self.k})"
        if self.status == HOLDS:
            return f"holds to depth {self.depth}" + (f" ({self.detail})" if self.detail else "")
        if self.status == VIOLATED:
            return f"violated at depth {self.depth}"
        return f"{self.status}" + (f" ({self.detail})" if self.detail else "")
