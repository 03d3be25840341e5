"""Rule coverage: how often each rule of the action catalogue fired, and the gate on it.

A property that holds says little if the rules it is about never ran.  The graph search and
Hypothesis fire concrete transitions, so each counts, per configuration, how often every
rule (``Transition.rule``) and every action verb fired; the counts start at zero for every
rule of the configuration's catalogue, so a rule that never fired shows as 0 instead of
being absent.  The counts travel in ``Verdict.stats["coverage"]`` (plain dicts: they cross
process boundaries and land in JSON), shared by the verdicts of one unit.

``mtgcheck check`` merges them across configurations and checkers and fails when a rule of
the catalogue never fired under the checkers that ran, unless the allowlist
(``mtgcheck/data/coverage-exempt.json``) says why it cannot.  The gate needs the whole
default run: on a subset of the configurations (``--config``) a rule missing from the
subset may be another configuration's, so a subset is reported, not gated (the manifest,
:mod:`mtgcheck.manifest`, gates subsets on what it recorded for the units that ran).
Z3 fires no concrete transition and is not counted.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from mtgcheck.errors import FormatError
from mtgcheck.model.actions import catalogue
from mtgcheck.model.config import Config

EXEMPT_FILE = Path(__file__).parent / "data" / "coverage-exempt.json"
EXEMPT_FORMAT = "mtgcheck.coverage-exempt/1"
LEAST = 5  # how many least-fired rules the summary names

Counts = dict[str, dict[str, int]]  # {"rules": {rule: n}, "actions": {verb: n}}


# --- counting, inside a checker -----------------------------------------------------------

def counts(cfg: Config, rules: Mapping[str, int], actions: Mapping[str, int]) -> Counts:
    """A unit's counts: every rule and verb of the configuration's catalogue, 0 where it never
    fired (a fired rule outside the catalogue is kept, never dropped)."""
    cat = catalogue(cfg)
    out: Counts = {"rules": dict.fromkeys(sorted({t.rule for t in cat.transitions}), 0),
                   "actions": dict.fromkeys(cat.verbs, 0)}
    for kind, fired in (("rules", rules), ("actions", actions)):
        for name, n in fired.items():
            out[kind][name] = out[kind].get(name, 0) + n
    return out


# --- merging, in ``mtgcheck check`` -------------------------------------------------------

@dataclass
class Coverage:
    """Counts merged across configurations: ``rules[rule][checker]`` and ``actions[verb][checker]``;
    ``units[(checker, config)]`` keeps each unit's own counts (the manifest records them)."""

    checkers: tuple[str, ...]  # the counting checkers that ran
    rules: dict[str, dict[str, int]] = field(default_factory=dict)
    actions: dict[str, dict[str, int]] = field(default_factory=dict)
    units: dict[tuple[str, str], Counts] = field(default_factory=dict)
    ran: tuple[str, ...] = ()  # every checker that ran
    counting: tuple[str, ...] = ()  # the checkers that count (whether they ran or not)

    def fired(self, rule: str, checker: str | None = None) -> int:
        per = self.rules.get(rule, {})
        return per.get(checker, 0) if checker else sum(per.values())

    def rules_fired(self, checker: str | None = None) -> list[str]:
        return [r for r in self.rules if self.fired(r, checker) > 0]


def added(parts: Iterable[Counts]) -> Counts:
    """The counts of several shards of one unit (seed slots), summed rule by rule."""
    out: Counts = {"rules": {}, "actions": {}}
    for part in parts:
        for kind in ("rules", "actions"):
            for name, n in part.get(kind, {}).items():
                out[kind][name] = out[kind].get(name, 0) + n
    return out


def collect(verdicts: Iterable[Any]) -> dict[tuple[str, str], Counts]:
    """Each unit's counts, once (the verdicts of a unit share one counts dict)."""
    out: dict[tuple[str, str], Counts] = {}
    for v in verdicts:
        counts = v.stats.get("coverage")
        if counts is not None:
            out.setdefault((v.checker, v.config), counts)
    return out


def merge(units: Mapping[tuple[str, str], Counts], checkers: Sequence[str],
          counting: Sequence[str] | None = None) -> Coverage:
    """Sum the units' counts per rule and per verb, per checker (every rule of every catalogue
    present, with 0 where it never fired).

    ``checkers``: those that ran; ``counting``: those that fire concrete transitions (the
    registry's ``counts_rules``, which ``mtgcheck check`` passes; by default the checkers that
    reported counts)."""
    counts_rules = tuple(counting) if counting is not None else tuple(dict.fromkeys(c for c, _ in units))
    ran = tuple(c for c in checkers if c in counts_rules)
    cov = Coverage(ran, units=dict(units), ran=tuple(checkers), counting=counts_rules)
    for (checker, _config), counts in sorted(units.items()):
        for kind, into in (("rules", cov.rules), ("actions", cov.actions)):
            for name, n in counts[kind].items():
                per = into.setdefault(name, dict.fromkeys(ran, 0))
                per[checker] = per.get(checker, 0) + n
    cov.rules = dict(sorted(cov.rules.items()))
    cov.actions = dict(sorted(cov.actions.items()))
    return cov


# --- the allowlist and the gate -----------------------------------------------------------

def load_exempt(path: Path | None = None) -> dict[str, str]:
    """The rules allowed never to fire in the default run, each with its reason."""
    path = Path(path or EXEMPT_FILE)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise FormatError(str(path), "(file)", "a readable JSON file", str(exc)) from None
    if not isinstance(doc, dict) or doc.get("format") != EXEMPT_FORMAT:
        raise FormatError(str(path), "format", repr(EXEMPT_FORMAT), doc.get("format") if isinstance(doc, dict) else doc)
    rules = doc.get("rules")
    if not isinstance(rules, dict) or not all(isinstance(r, str) and isinstance(why, str) and why.strip()
                                              for r, why in rules.items()):
        raise FormatError(str(path), "rules", "an object of rule id -> non-empty reason", rules)
    return dict(rules)


@dataclass
class Gate:
    """The gate's outcome: ``applied`` only on the whole default run with a counting checker."""

    applied: bool
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.failures)


def gate(cov: Coverage, exempt: Mapping[str, str], full: bool) -> Gate:
    """Fail on every rule of the catalogue that no counting checker fired in any configuration
    (unless exempt); note exemptions that no longer apply, so the allowlist stays short."""
    never = [r for r in cov.rules if cov.fired(r) == 0]
    g = Gate(applied=full and bool(cov.checkers))
    if not g.applied:
        if missed := [r for r in never if r not in exempt]:
            g.notes.append("coverage: a subset of the configurations, not gated; never fired here: "
                           + ", ".join(missed))
        return g
    under = ", ".join(cov.checkers)
    for r in never:
        if r not in exempt:
            g.failures.append(f"coverage: rule {r} never fired under {under} in any configuration "
                              f"(not in {EXEMPT_FILE.name})")
    for r in exempt:
        if r in cov.rules and cov.fired(r) > 0:
            g.notes.append(f"coverage: exempt rule {r} fired {cov.fired(r)} times: remove it from {EXEMPT_FILE.name}")
        elif r not in cov.rules:
            g.notes.append(f"coverage: exempt rule {r} is in no configuration's catalogue: remove it from "
                           f"{EXEMPT_FILE.name}")
    return g


# --- reporting ------------------------------------------------------------------------------

def summary(cov: Coverage, exempt: Mapping[str, str]) -> list[str]:
    """A few lines: rules fired over rules in the catalogue (in all and per checker), actions,
    the least-fired rules, the exempt rules that did not fire."""
    if not cov.checkers:
        ran = ", ".join(cov.ran) or "no checker"
        return [f"coverage: not measured (only {ran} ran; {' and '.join(cov.counting) or 'no checker'}"
                " count the rules they fire)"]
    n = len(cov.rules)
    per = ", ".join(f"{c} {len(cov.rules_fired(c))}" for c in cov.checkers)
    verbs = [v for v in cov.actions if sum(cov.actions[v].values()) > 0]
    lines = [f"coverage: {len(cov.rules_fired())}/{n} rules of the catalogue fired ({per}); "
             f"{len(verbs)}/{len(cov.actions)} actions"]
    fired = sorted(cov.rules_fired(), key=lambda r: (cov.fired(r), r))[:LEAST]
    if fired:
        lines.append("coverage: least fired: " + ", ".join(
            f"{r} ({', '.join(f'{c} {cov.fired(r, c)}' for c in cov.checkers)})" for r in fired))
    quiet = [r for r in cov.rules if cov.fired(r) == 0 and r in exempt]
    if quiet:
        lines.append("coverage: never fired, exempt: " + ", ".join(quiet))
    return lines


def to_json(cov: Coverage, g: Gate, exempt: Mapping[str, str]) -> dict[str, Any]:
    """The ``coverage`` section of ``mtgcheck check --json``."""
    by_config: dict[str, dict[str, dict[str, int]]] = {}
    for (checker, config), counts in sorted(cov.units.items()):
        by_config.setdefault(config, {})[checker] = counts["rules"]
    return {"checkers": list(cov.checkers), "catalogue": len(cov.rules), "fired": len(cov.rules_fired()),
            "rules": cov.rules, "actions": cov.actions, "by_config": by_config,
            "never_fired": [r for r in cov.rules if cov.fired(r) == 0],
            "exempt": {r: why for r, why in exempt.items()},
            "gate": ("failed" if g.failed else "passed") if g.applied else "not applied",
            "failures": g.failures}
