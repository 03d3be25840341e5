"""The shortest scenario on which two rule sets disagree (``mtgcheck diff A B``).

Breadth-first search over the states both rule sets reach *together* (each step legal
under both, with the same result); the first state where they part (an action legal under
one only, or one action with two different results) is reached by a shortest common
history.  Rule sets: ``reference``, a variant name (``116.2k``), or ``mutant-IDS``.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from mtgcheck.checkers.symmetry import canonical
from mtgcheck.configs import CheckConfig
from mtgcheck.errors import UsageError
from mtgcheck.model.actions import Action, Transition, catalogue, why_illegal
from mtgcheck.model.config import VARIANTS
from mtgcheck.model.setup import build
from mtgcheck.model.state import State
from mtgcheck.scenario_write import action_doc, scenario_from_trace


def parse_rule_set(name: str) -> tuple[str | None, frozenset[str]]:
    if name in ("reference", "702.170a"):
        return None, frozenset()
    if name in VARIANTS:
        return name, frozenset()
    if name.startswith("mutant-"):
        return None, frozenset(name[len("mutant-"):].split("+"))
    raise UsageError(f"rule set: expected reference, one of {', '.join(VARIANTS)}, or mutant-IDS, got {name!r}")


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


def find(conf: CheckConfig, a: str, b: str, *, max_states: int = 200_000) -> Difference | None:
    va, da = parse_rule_set(a)
    vb, db = parse_rule_set(b)
    cfg_a, s0 = build(conf.position, variant=va, disabled=da)
    cfg_b, _ = build(conf.position, variant=vb, disabled=db)
    seen = {canonical(cfg_a, s0)}
    queue: deque[tuple[State, list[Action]]] = deque([(s0, [])])
    while queue and len(seen) < max_states:
        s, path = queue.popleft()
        if s.turn > conf.max_turn or s.game_over:
            continue
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
                seen.add(k)
                queue.append((sa, path + [act]))
    return None


def as_scenario(conf: CheckConfig, a: str, b: str, d: Difference) -> dict[str, Any]:
    """The difference as a scenario that passes under rule set ``b`` (its variant)."""
    vb, db = parse_rule_set(b)
    cfg, _ = build(conf.position, variant=vb, disabled=db)
    doc = scenario_from_trace(f"{a} and {b} disagree", ["702.170a", "116.2k"] if "116.2k" in (a, b) else ["117.1"],
                              conf.position, cfg, d.trace, variant=vb,
                              description=f"Shortest common history after which the rule sets {a} and {b} part: "
                                          f"the last action is {'legal' if d.legal_a else 'illegal'} under {a} "
                                          f"and {'legal' if d.legal_b else 'illegal'} under {b}. {d.why}".strip())
    last = action_doc(cfg, d.action)
    last["expect"] = "legal" if d.legal_b else "illegal"
    doc["actions"].append(last)
    return doc
