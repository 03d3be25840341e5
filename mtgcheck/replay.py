"""Counterexample files: make them from a checker's verdict, load them, replay them.

A counterexample (``mtgcheck.counterexample/1``) is a scenario plus what it violates, who
found it, the rule set it was found on (``target``: ``reference``, ``variant-NAME``, or a
mutant), and the seed.  Replaying it re-runs its actions on a rule set and re-checks the
property after every step: on its target the violation must reproduce; on the reference
model it must not (every stored counterexample is a regression test).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from mtgcheck.checkers.registry import finders
from mtgcheck.checkers.result import Verdict
from mtgcheck.errors import FormatError
from mtgcheck.jsonread import read as read_json
from mtgcheck.model import cards as pool
from mtgcheck.model.actions import enabled_transition
from mtgcheck.model.config import VARIANTS
from mtgcheck.model.setup import Position, build
from mtgcheck.model.vocabulary import cited
from mtgcheck.properties.catalogue import BY_ID, PROPERTIES
from mtgcheck.rulesets import REFERENCE, RuleSet
from mtgcheck.errors import display
from mtgcheck.formats import Said, checked, field_path, shown_value
from mtgcheck.scenario_format import Scenario, parse_scenario
from mtgcheck.scenario_run import position_of, to_action
from mtgcheck.scenario_write import scenario_from_trace
from mtgcheck.store import FORMAT, content_hash

#: The schema of the format (``mtgcheck/data/counterexample-1.schema.json``).
SCHEMA = "counterexample-1"


def from_verdict(v: Verdict, position: Position, *, seed: int, rules: RuleSet = REFERENCE) -> dict[str, Any]:
    """The counterexample document of a violated verdict under ``rules`` (not yet stored);
    its ``target`` is the rule set's name in the one grammar (mtgcheck.rulesets)."""
    pos = v.stats.get("initial_position", position)
    cfg, _ = build(pos, variant=rules.variant, disabled=rules.disabled)
    prop = BY_ID[v.property]
    scenario = scenario_from_trace(f"{v.property} violated on {v.config}", prop.rules, pos, cfg, v.trace,
                                   variant=rules.variant, description=prop.statement)
    return {"format": FORMAT, "violates": v.property, "found_by": v.checker, "target": str(rules),
            "seed": seed, "trace_length": len(v.trace), "scenario": scenario}


@dataclass
class Counterexample:
    path: str
    violates: str
    found_by: str
    target: str
    seed: int | None
    scenario: Scenario
    doc: dict[str, Any]

    @property
    def rules(self) -> RuleSet:
        """The rule set it was found on (its ``target``; checked when it was read)."""
        return RuleSet.parse(self.target)


def load(path: str | Path) -> Counterexample:
    """Read and check a counterexample file; a malformed one is a one-line FormatError."""
    p = str(path)
    # The strict JSON reader: a duplicate key, NaN or a 5,000-digit integer is refused here
    # as in a scenario file, not read leniently (or raised as a ValueError).
    return from_doc(read_json(p, what="a readable counterexample file"), p)


def from_doc(doc: object, path: str) -> Counterexample:
    """Check and type a counterexample already read (``path`` names it in errors).

    First against the format's schema (``scenario`` aside: the scenario loader checks it,
    with the pool's card names), then what a schema cannot say: a known property and
    target, the hash of the content, a divergence only for ``violates: "divergence"``.
    """
    p = path
    shown = display(p)
    raw = doc  # as stored: what its hash covers
    doc = checked(doc, shown, "", schema=SCHEMA, what="a counterexample", skip=("scenario",))
    if not isinstance(doc, dict) or not isinstance(raw, dict):
        raise FormatError(shown, "(root)", "a JSON object", type(doc).__name__)
    if doc.get("format") != FORMAT:
        raise FormatError(shown, "format", repr(FORMAT), shown_value(doc.get("format")))
    keys = ("format", "violates", "found_by", "target", "seed", "trace_length", "minimized_from", "scenario", "hash",
            "divergence")
    extra = set(doc) - set(keys)
    if extra:
        raise FormatError(shown, field_path("", [min(extra)]),
                          f"one of the keys of a counterexample: {', '.join(keys)}", Said("an unknown key"))
    violates = doc.get("violates")
    if not isinstance(violates, str) or (violates not in BY_ID and violates != "divergence"):
        raise FormatError(shown, "violates", "a property id or 'divergence'", shown_value(doc.get("violates")))
    if doc.get("found_by") not in finders():
        raise FormatError(shown, "found_by", "one of " + ", ".join(finders()), shown_value(doc.get("found_by")))
    target = doc.get("target")
    if violates == "divergence":
        _check_divergence(shown, doc)
    else:
        if "divergence" in doc:
            raise FormatError(shown, "divergence", "no divergence object unless violates is 'divergence'",
                              Said("an object"))
        try:
            variant = RuleSet.parse(target).variant if isinstance(target, str) else None
        except ValueError:
            variant = None
            target = None
        if not isinstance(target, str) or (variant is not None and variant not in VARIANTS):
            raise FormatError(shown, "target", "reference, variant-NAME or mutant-IDS", shown_value(doc.get("target")))
    seed = doc.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise FormatError(shown, "seed", "an integer or null", seed)
    length = doc.get("trace_length", 0)
    if not isinstance(length, int) or isinstance(length, bool) or length < 0:
        raise FormatError(shown, "trace_length", "an integer >= 0", shown_value(length))
    counts = doc.get("minimized_from", {})
    if not isinstance(counts, dict) or any(
            key not in ("actions", "cards", "players") or not isinstance(n, int) or isinstance(n, bool) or n < 0
            for key, n in counts.items()):
        raise FormatError(shown, "minimized_from", "an object of counts (actions, cards, players: integers >= 0)",
                          shown_value(counts))
    if raw.get("hash") != content_hash(raw):
        raise FormatError(shown, "hash", "the SHA-256 of the content (the file was changed after it was stored)",
                          shown_value(raw.get("hash")))
    sc = parse_scenario(raw.get("scenario"), source=p, known_cards=pool.card_names(),
                        known_planes=pool.plane_names(), known_variants=tuple(VARIANTS), prefix="scenario")
    # An engine's name from a file is shown escaped, as the engine's own hello is (engines/pipe.py).
    return Counterexample(p, doc["violates"], doc["found_by"], display(target), seed, sc, raw)


_DIVERGENCE_KEYS = {"kind": str, "step": int, "field": str, "rule": str, "why": str}


def _check_divergence(shown: str, doc: dict[str, Any]) -> None:
    """An engine's divergence: found by differential testing, target ``<engine>-<version>``."""
    target = doc.get("target")
    if not isinstance(target, str) or not target or target == "reference" or target.startswith(("variant-", "mutant-")):
        raise FormatError(shown, "target", "an engine's name-version for a divergence", shown_value(target))
    if doc.get("found_by") != "differential":
        raise FormatError(shown, "found_by", "'differential' for a divergence", shown_value(doc.get("found_by")))
    d = doc.get("divergence")
    if not isinstance(d, dict):
        raise FormatError(shown, "divergence", "an object (kind, step, field, rule, rules_say, engine_says, why)",
                          shown_value(d))
    for key, typ in _DIVERGENCE_KEYS.items():
        if not isinstance(d.get(key), typ) or isinstance(d.get(key), bool):
            raise FormatError(shown, f"divergence.{key}", f"a{'n integer' if typ is int else ' string'}",
                              shown_value(d.get(key)))
    from mtgcheck.divergence import KINDS

    if d["kind"] not in KINDS:
        raise FormatError(shown, "divergence.kind", "one of " + ", ".join(KINDS), shown_value(d["kind"]))
    also = d.get("also", [])
    if not isinstance(also, list) or any(not isinstance(x, dict) or not isinstance(x.get("field"), str)
                                         or not isinstance(x.get("rule"), str) for x in also):
        raise FormatError(shown, "divergence.also", "a list of objects (field, rule, rules_say, engine_says)",
                          shown_value(also))
    if "card" in d and (not isinstance(d["card"], str) or not d["card"]):
        raise FormatError(shown, "divergence.card", "a card name (a non-empty string)", shown_value(d["card"]))
    unknown = set(d) - set(_DIVERGENCE_KEYS) - {"rules_say", "engine_says", "also", "card"}
    if unknown:
        raise FormatError(shown, field_path("divergence", [min(unknown)]), "no such key in a divergence",
                          Said("an unknown key"))


def divergence_card(cx: Counterexample) -> str:
    """The card whose own effect a stored divergence's rule is ("" for a rule of the game):
    its ``card``, or, for a divergence stored before divergences named it, the card read
    again from the trace (the transition the rules take, or the refusal they give, at the
    step where the engine parted from them)."""
    from mtgcheck.divergence import card_of_step
    from mtgcheck.model.actions import why_illegal
    from mtgcheck.scenario_format import ActionSpec
    from mtgcheck.scenario_run import start

    d = cx.doc.get("divergence") or {}
    if d.get("card") or not d.get("rule"):
        return str(d.get("card", ""))
    sc = cx.scenario
    step, kind = d["step"], d["kind"]
    try:
        cfg, s = start(sc)
        before, t = s, None
        # The actions played before the one at stake (up to ``step`` included for the lists).
        played = sc.actions[:step + 1] if kind in ("missing-action", "extra-action") else sc.actions[:step]
        for spec in played:
            a = to_action(cfg, sc, spec, s)
            t = enabled_transition(cfg, s, a)
            if t is not None:
                before, s = s, t.effect(s)
        if kind == "observation":
            return card_of_step(cfg, before, t, d["field"]) if t is not None else ""
        if kind in ("missing-action", "extra-action"):
            doc = d["rules_say"] if kind == "missing-action" else d["engine_says"]
            spec = ActionSpec(-1, doc["player"], doc["do"], None,
                              {k: v for k, v in doc.items() if k not in ("player", "do")})
        else:
            spec = sc.actions[step]
        a = to_action(cfg, sc, spec, s)
        t = enabled_transition(cfg, s, a)
        refusal = why_illegal(cfg, s, a) if t is None else None
        return t.card if t is not None else refusal.card if refusal is not None else ""
    except (FormatError, KeyError, IndexError, TypeError, ValueError):
        return ""  # a trace the rules cannot read back names no card


@dataclass
class Replay:
    reproduces: bool  # every action legal and some property violated
    refused_at: int | None  # index of the first action the rule set refused
    violated: list[str]  # properties violated along the way
    final: Any


def replay(cx: Counterexample, rules: RuleSet) -> Replay:
    """Run the counterexample's actions under a rule set, checking every property."""
    cfg, s = build(position_of(cx.scenario.setup), max_x=max([3] + [a.args.get("x", 0) for a in cx.scenario.actions]),
                   variant=rules.variant, disabled=rules.disabled)
    violated: list[str] = []
    for p in PROPERTIES:
        if p.kind == "state" and not p.holds(cfg, s):
            violated.append(p.id)
    for spec in cx.scenario.actions:
        a = to_action(cfg, cx.scenario, spec, s)
        t = enabled_transition(cfg, s, a)
        if t is None:
            return Replay(False, spec.index, violated, s)
        s2 = t.effect(s)
        for p in PROPERTIES:
            if p.id in violated:
                continue
            ok = p.holds(cfg, s, t, s2) if p.kind == "transition" else p.holds(cfg, s2)
            if not ok:
                violated.append(p.id)
        s = s2
    return Replay(cx.violates in violated, None, violated, s)


def replay_property(cx: Counterexample, strict: bool = True) -> tuple[bool, str]:
    """Replay on the target rule set and on the reference model; ok when it reproduces on its
    target and the reference violates nothing.

    A counterexample that no longer reproduces is no regression test any more (the rules
    changed under it), so ``mtgcheck replay`` and the pytest plugin's replay items fail it;
    ``strict=False`` asks only that the reference violates nothing."""
    on_target = replay(cx, cx.rules)
    on_ref = replay(cx, REFERENCE)
    target = "reproduces" if on_target.reproduces else "does NOT reproduce"
    ref = ("clean" + (f" (refuses action #{on_ref.refused_at})" if on_ref.refused_at is not None else "")
           if not on_ref.violated else "VIOLATES " + ", ".join(on_ref.violated))
    line = f"{cx.violates} on {cx.target}: {target}; reference: {ref}"
    if not on_target.reproduces:
        why = (f"{cx.target} refuses action #{on_target.refused_at}" if on_target.refused_at is not None
               else f"no step of the trace violates {cx.violates} on {cx.target}")
        line += f"; the counterexample no longer reproduces: {why}"
    ok = not on_ref.violated and (on_target.reproduces or not strict)
    return ok, line


def replay_divergence(cx: Counterexample, driver: Any = None,
                      on_engine: Callable[[Any, Counterexample], tuple[Any, bool | None]] | None = None
                      ) -> tuple[bool, str]:
    """The rules' verdicts recorded in the file must hold on the model; then, with an engine, replay it there.

    ``driver`` is the engine (a :class:`mtgcheck.validate.Driver`) and ``on_engine`` replays
    the counterexample on it (:func:`mtgcheck.validate.replay_on_engine`): the first
    divergence now (None: none) and whether it is the stored one (None: the engine declined the
    position, so nothing was compared: not a pass).  Passed in, not imported:
    validate reads counterexamples through this module.
    """
    from mtgcheck.scenario_run import run as run_scenario

    d = cx.doc["divergence"]
    rules = run_scenario(cx.scenario)
    line = (f"divergence on {cx.target} ({d['kind']}, {d['field']}, {cited(d['rule'], display(divergence_card(cx)))}): "
            "reference "
            + ("agrees with the recorded verdicts" if rules.passed else "DISAGREES with the recorded verdicts"))
    if driver is None:
        return rules.passed, line
    assert on_engine is not None, "an engine to replay on needs on_engine"
    now, same = on_engine(driver, cx)
    where = f"{driver.info.name} {driver.info.version}"
    if now is None and same is None:
        return False, line + f"; {where}: NOT COMPARED (the engine declined the position)"
    if now is None:
        return rules.passed, line + f"; {where}: no longer diverges"
    if same:
        return False, line + f"; {where}: STILL DIVERGES"
    at = f"after action #{now.step}" if now.step >= 0 else "at the setup"
    return False, (line + f"; {where}: DIVERGES ELSEWHERE ({now.kind}, {now.field}, CR {now.rule or '-'}, {at}: "
                   f"{now.why}; stored: {d['kind']}, {d['field']}, CR {d['rule'] or '-'} after action #{d['step']})")
