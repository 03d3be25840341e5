"""What the explore page shows, computed from the reference model (no web code here).

Why stateless: the page holds the trace (a list of actions in the scenario vocabulary) and
sends it with every request; the server replays it from the opened position.  Replaying a
trace of a few dozen steps costs far less than a millisecond per step, the trace in the URL
reopens the same position, and branching from an earlier step is only a shorter trace.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Sequence

from mtgcheck.errors import FormatError, UsageError
from mtgcheck.model.actions import Action, catalogue, enabled_transition, legal_transitions
from mtgcheck.model.observe import EXPECTATION_KEYS, observe
from mtgcheck.model.payment import pool_text
from mtgcheck.model.setup import Position, build
from mtgcheck.model.state import ABILITIES, STACK, ZONES, State
from mtgcheck.model.vocabulary import Transition
from mtgcheck.properties.catalogue import PROPERTIES
from mtgcheck.scenario_format import ActionSpec, Scenario
from mtgcheck.scenario_run import describe, refusal_of, to_action
from mtgcheck.scenario_write import action_doc, setup_of

#: Keys of a trace entry that are not the action's arguments.
_NOT_ARGS = ("player", "do", "expect", "rule")


@dataclass
class Opened:
    """A position to explore: where it came from, its rules and the trace to start with."""

    source: str
    name: str
    rules: tuple[str, ...]
    position: Position
    variant: str | None = None
    disabled: frozenset[str] = frozenset()
    max_x: int = 3
    trace: list[dict[str, Any]] = field(default_factory=list)
    at: int = 0
    violates: str | None = None
    target: str = "reference"


def open_source(arg: str | None) -> Opened:
    """Read FILE: a scenario, a configuration file, a stored counterexample, or a built-in name."""
    from mtgcheck import configs

    known = {c.name: c for c in (*configs.BUILTIN, *configs.SMALL.values())}
    if arg is None:
        arg = configs.BUILTIN[0].name
    if arg in known and not os.path.exists(arg):
        c = known[arg]
        return Opened(f"built-in {c.name}", c.name, (), c.position)
    if not os.path.isfile(arg):
        raise UsageError(f"FILE: expected a scenario, configuration or counterexample file, or one of "
                         f"{', '.join(known)}, got {arg!r}")
    from mtgcheck.jsonread import read as read_json

    doc = read_json(arg, what="a readable JSON file")
    fmt = doc.get("format") if isinstance(doc, dict) else None
    if fmt == "mtgcheck.counterexample/1":
        return _counterexample(arg)
    if fmt == configs.CONFIG_FORMAT:
        c = configs.load_config(arg)
        return Opened(_shown(arg), c.name, (), c.position)
    from mtgcheck.scenario_run import load

    sc = load(arg)
    return Opened(_shown(arg), sc.name, tuple(sc.rules), sc.setup, variant=sc.variant, max_x=_max_x(sc.actions),
                  trace=[_spec_doc(a) for a in sc.actions], at=len(sc.actions))


def _max_x(actions: Sequence[ActionSpec]) -> int:
    """The configuration's bound on X: the largest X a cast of the file names, at least 3 (as
    ``mtgcheck scenario`` builds it, so the same actions exist)."""
    return max([3, *(a.args.get("x", 0) for a in actions if a.verb == "cast")])


def _shown(path: str) -> str:
    """A file as the page names it: relative to the working folder when it is below it."""
    p = Path(path).resolve()
    try:
        return str(p.relative_to(Path.cwd()))
    except ValueError:
        return str(p)


def _spec_doc(spec: ActionSpec) -> dict[str, Any]:
    return {"player": spec.player, "do": spec.verb, **spec.args}


def _counterexample(path: str) -> Opened:
    from mtgcheck.replay import load as load_cx
    from mtgcheck.show import walk

    cx = load_cx(path)
    sc = cx.scenario
    # An engine's divergence is walked under the rules themselves (as ``mtgcheck show`` does):
    # its target names the engine, not a rule set.
    rules = cx.rules if cx.violates != "divergence" else None
    _, _, broke, _ = walk(cx)
    trace = [_spec_doc(a) for a in sc.actions]
    return Opened(_shown(path), sc.name, tuple(sc.rules), sc.setup,
                  variant=rules.variant if rules else sc.variant,
                  disabled=rules.disabled if rules else frozenset(), max_x=_max_x(sc.actions), trace=trace,
                  at=len(trace) if broke is None else broke, violates=cx.violates,
                  target=cx.target if rules else "reference")


class BadRequest(ValueError):
    """A request the page should never send (a malformed trace): answered 400 with this text."""


@dataclass
class Step:
    """One entry of the replayed trace: the action, whether the rules allowed it, and why not."""

    doc: dict[str, Any]
    text: str
    legal: bool
    cr: str | None
    why: str | None
    refusal: str | None  # the words `mtgcheck scenario` prints: "CR 702.170d: ..." (with the card when it is its rule)


class EngineBeside:
    """An engine played beside the model (``--engine SPEC``): the first divergence of a trace.

    The trace is replayed on the engine from the setup at each request, with validate's own
    driver (:class:`mtgcheck.validate.Driver`), which compares legality, the listed actions and
    the position after every step and stops at the first divergence: every step before it, the
    engine answered as the rules do.  One engine process, so one request at a time."""

    def __init__(self, spec: str, setup: dict[str, Any]) -> None:
        import threading

        from mtgcheck.validate import Driver

        self.driver = Driver(spec)
        self.setup = setup
        self.lock = threading.Lock()

    @property
    def name(self) -> str:
        return f"{self.driver.info.name} {self.driver.info.version}"

    def compare(self, docs: Sequence[dict[str, Any]]) -> dict[str, Any]:
        from mtgcheck.divergence import wire
        from mtgcheck.engines.base import EngineRefused
        from mtgcheck.validate import scripted

        acts = [wire(d) for d in docs]
        with self.lock:
            try:
                tr = self.driver.play(self.setup, scripted(acts, self.setup), source="(explore)", steps=len(acts) + 1)
            except EngineRefused as exc:
                return {"engine": self.name, "declined": str(exc), "divergence": None}
        d = tr.divergence
        return {"engine": self.name, "declined": None, "divergence": None if d is None else {
            "step": d.step, "kind": d.kind, "field": d.field, "rule": d.rule, "why": d.why}}

    def close(self) -> None:
        self.driver.close()


class Explorer:
    """The opened position, its configuration, and the views of any trace from it."""

    def __init__(self, opened: Opened, engine: str | None = None) -> None:
        self.opened = opened
        self.engine = None if engine is None else EngineBeside(engine, setup_of(opened.position))
        self.cfg, self.s0 = build(opened.position, max_x=opened.max_x, variant=opened.variant,
                                  disabled=opened.disabled)
        catalogue(self.cfg)
        self._stub = Scenario(path="(page)", name=opened.name, rules=opened.rules, description=None,
                              variant=opened.variant, setup=opened.position, actions=(), expect=None, raw={})

    def close(self) -> None:
        """End the engine beside the model, if any."""
        if self.engine is not None:
            self.engine.close()

    @cached_property
    def every_action(self) -> tuple[Action, ...]:
        """Every action of the configuration's catalogue, once each, in a stable order."""
        return tuple(catalogue(self.cfg).by_action)

    def action_of(self, i: int, doc: object, s: State) -> Action:
        if not isinstance(doc, dict) or not isinstance(doc.get("do"), str) or not isinstance(doc.get("player"), int):
            raise BadRequest(f"trace[{i}]: expected an action object with 'player' and 'do'")
        spec = ActionSpec(i, doc["player"], doc["do"], None, {k: v for k, v in doc.items() if k not in _NOT_ARGS})
        try:
            return to_action(self.cfg, self._stub, spec, s)
        except (FormatError, KeyError, ValueError, TypeError, IndexError) as exc:
            raise BadRequest(f"trace[{i}]: not an action of this position ({exc})") from None

    def replay(self, trace: Sequence[object]) -> tuple[list[Step], list[State], list[Transition | None]]:
        """Each step's verdict, the states after each (an illegal action changes nothing) and
        the transition taken into each state (None for the first and after a refusal)."""
        s = self.s0
        steps: list[Step] = []
        states: list[State] = [s]
        taken: list[Transition | None] = [None]
        for i, doc in enumerate(trace):
            a = self.action_of(i, doc, s)
            refusal = refusal_of(self.cfg, s, a)
            t = enabled_transition(self.cfg, s, a) if refusal is None else None
            clean = action_doc(self.cfg, a)
            clean.pop("expect")
            steps.append(Step(clean, describe(self.cfg, a), t is not None,
                              None if refusal is None else refusal.cr, None if refusal is None else refusal.why,
                              None if refusal is None else refusal.text()))
            if t is not None:
                s = t.effect(s)
            states.append(s)
            taken.append(t)
        return steps, states, taken

    def view(self, trace: Sequence[object], at: int | None = None, illegal: bool = False) -> dict[str, Any]:
        """Everything the page draws for the state after ``trace[:at]``."""
        steps, states, taken = self.replay(trace)
        at = len(steps) if at is None else at
        if not 0 <= at <= len(steps):
            raise BadRequest(f"at: expected 0..{len(steps)}, got {at}")
        s = states[at]
        legal = legal_transitions(self.cfg, s)
        out: dict[str, Any] = {
            "name": self.opened.name, "source": self.opened.source, "target": self.opened.target,
            "violates": self.opened.violates, "at": at,
            "trace": [{"doc": st.doc, "text": st.text, "legal": st.legal, "cr": st.cr, "why": st.why,
                       "refusal": st.refusal} for st in steps],
            "position": self.position(s),
            "observed": observe(self.cfg, s),
            "legal": [{"doc": _bare(action_doc(self.cfg, a)), "text": describe(self.cfg, a)} for a in legal],
            "properties": self.verdicts(states[at - 1] if at else None, taken[at], s),
        }
        if illegal:
            out["illegal"] = self.illegal(s, legal)
        if self.engine is not None:
            out["engine"] = self.engine.compare([st.doc for st in steps[:at]])
        return out

    def illegal(self, s: State, legal: Any) -> list[dict[str, Any]]:
        """Every action of the catalogue the rules refuse here, with the CR rule and its reason
        (the words ``mtgcheck scenario`` prints)."""
        out = []
        for a in self.every_action:
            if a in legal:
                continue
            r = refusal_of(self.cfg, s, a)
            if r is not None:
                out.append({"doc": _bare(action_doc(self.cfg, a)), "text": describe(self.cfg, a),
                            "cr": r.cr, "why": r.why, "refusal": r.text()})
        return out

    def verdicts(self, before: State | None, t: Transition | None, s: State) -> list[dict[str, Any]]:
        """Each property on the current state (a transition property on the step into it):
        ``holds``, ``violated``, or ``idle`` when its antecedent is false or no step was taken."""
        out = []
        for p in PROPERTIES:
            if p.kind == "state":
                args: tuple[Any, ...] = (self.cfg, s)
            elif t is None or before is None:
                out.append({"id": p.id, "rules": list(p.rules), "statement": p.statement, "verdict": "idle"})
                continue
            else:
                args = (self.cfg, before, t, s)
            verdict = "violated" if not p.pred(*args) else "holds" if p.triggered(*args) else "idle"
            out.append({"id": p.id, "rules": list(p.rules), "statement": p.statement, "verdict": verdict,
                        "broken": p.id == self.opened.violates})
        return out

    def position(self, s: State) -> dict[str, Any]:
        """The position by player and zone, with each card's marks, and the stack in order."""
        cfg = self.cfg
        ids = [sl.id for sl in cfg.slots]

        def ref(v: int) -> str | None:
            return None if v < 0 else f"player {v}" if v < cfg.players else ids[v - cfg.players]

        players = []
        for p in range(cfg.players):
            zones: dict[str, list[dict[str, Any]]] = {z: [] for z in ZONES if z not in ("stack", "outside")}
            players.append({"player": p, "life": s.life[p], "mana": s.mana[p], "in_game": bool(s.in_game[p]),
                            "pool": pool_text(cfg, s, p), "zones": zones})
        stack: list[tuple[int, dict[str, Any]]] = []
        for j, sl in enumerate(cfg.slots):
            z = ZONES[s.zone[j]]
            card = {"id": sl.id, "name": sl.card.name, "plotted": s.plotted[j], "flashback": bool(s.fb_exile[j]),
                    "granted_flashback": bool(s.granted_fb[j]), "damage": s.damage[j],
                    "bonus": [s.power_bonus[j], s.toughness_bonus[j]], "pos": s.pos[j], "tapped": bool(s.tapped[j])}
            if s.zone[j] == STACK:
                stack.append((s.pos[j], {**card, "controller": sl.owner, "target": ref(s.target[j]),
                                         "x": s.x[j], "kicked": bool(s.kicked[j])}))
            elif z in players[sl.owner]["zones"]:
                players[sl.owner]["zones"][z].append(card)
        for a in range(cfg.ability_slots):
            if s.ab_kind[a]:
                stack.append((s.ab_pos[a], {"id": f"ability:{ABILITIES[s.ab_kind[a]]}",
                                            "name": f"{ABILITIES[s.ab_kind[a]]} (from {ids[s.ab_src[a]]})",
                                            "controller": s.ab_ctrl[a], "target": ref(s.ab_target[a])}))
        for pl in players:
            pl["zones"]["library"].sort(key=lambda c: c["pos"])
        obs = observe(cfg, s)
        return {
            "players": players, "stack": [c for _, c in sorted(stack, key=lambda x: -x[0])],
            "turn": s.turn, "active": s.active, "step": obs["step"], "priority": s.priority,
            "game_over": bool(s.game_over), "plane": obs["plane"], "plane_counters": obs["plane_counters"],
            "planar_controller": obs["planar_controller"], "extra_turns": obs["extra_turns"],
            "pending": obs["pending"],
            "bound_hit": bool(s.overflow),
        }

    def scenario(self, trace: Sequence[object], marks: Sequence[object], expect_keys: Sequence[object],
                 name: str, rules: Sequence[str]) -> dict[str, Any]:
        """The trace as a scenario file: each action with the verdict the user marked (the
        model's by default, with the refusing rule for an illegal one) and the chosen final
        expectations, read from the position the trace reaches."""
        from mtgcheck.scenario_format import FORMAT

        steps, states, _ = self.replay(trace)
        if len(marks) != len(steps) or any(m not in ("legal", "illegal") for m in marks):
            raise BadRequest("marks: expected 'legal' or 'illegal' for each action of the trace")
        obs = observe(self.cfg, states[-1])
        keys = [k for k in expect_keys if isinstance(k, str)]
        unknown = sorted(set(keys) - set(EXPECT_KEYS))
        if unknown:
            raise BadRequest(f"expect: {unknown[0]!r} is not one of {', '.join(EXPECT_KEYS)}")
        actions = []
        for st, mark in zip(steps, marks, strict=True):
            d = {**st.doc, "expect": mark}
            if mark == "illegal" and not st.legal and st.cr:
                d["rule"] = st.cr
            actions.append(d)
        expect: dict[str, Any] = {}
        for k in EXPECT_KEYS:
            if k in keys:
                expect[k] = obs[k] if k != "not_plotted" else sorted(set(obs["zones"]) - set(obs["plotted"]))
        for k in ("planar_controller", "plane_counters"):  # without a plane these say nothing (and are no integers)
            if k in expect and expect[k] is None:
                del expect[k]
        doc: dict[str, Any] = {"format": FORMAT, "name": name or self.opened.name or "explored",
                               "rules": list(rules) or list(self.opened.rules) or _rules_of(steps)}
        if self.opened.variant:
            doc["variant"] = self.opened.variant
        doc["setup"] = setup_of(self.opened.position)
        doc["actions"] = actions
        if expect:
            doc["expect"] = expect
        from mtgcheck.model import cards as pool
        from mtgcheck.model.config import VARIANTS
        from mtgcheck.scenario_format import parse_scenario

        try:  # what is saved must load as a scenario: refuse here what the file would refuse
            parse_scenario(doc, source="scenario", known_cards=pool.card_names(), known_planes=pool.plane_names(),
                           known_variants=tuple(VARIANTS))
        except FormatError as exc:
            raise BadRequest(str(exc)) from None
        return doc


#: The final expectations a saved scenario may state (the scenario format's ``expect`` keys).
EXPECT_KEYS = EXPECTATION_KEYS


def _bare(d: dict[str, Any]) -> dict[str, Any]:
    d.pop("expect", None)
    return d


def _rules_of(steps: Sequence[Step]) -> list[str]:
    """The CR rules a saved trace is about when the user named none: those that refused its
    actions, else the turn-structure rule every trace exercises."""
    crs = list(dict.fromkeys(st.cr for st in steps if st.cr))
    return crs or ["117.3d"]


def save(path: str, doc: dict[str, Any], *, overwrite: bool) -> Path:
    """Write ``doc`` to ``path``, an absolute path the user gave.  Without ``overwrite`` an
    existing file is never replaced, even one made between the check and the write: the text
    goes to a temporary file that is then hard-linked to ``path`` (which fails if it exists)."""
    import tempfile

    from mtgcheck.atomic import write_text
    from mtgcheck.errors import OutputError

    p = Path(path).expanduser()
    if not p.is_absolute():
        raise BadRequest(f"path: expected an absolute path, got {path!r}")
    if not p.parent.is_dir():
        raise BadRequest(f"path: the folder {str(p.parent)!r} does not exist")
    text = json.dumps(doc, indent=1) + "\n"
    try:
        if overwrite:
            write_text(p, text)
            return p
        if p.exists() or p.is_symlink():
            raise FileExistsError(str(p))
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name[:200]}.", suffix=".tmp", dir=p.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.link(tmp, p)  # atomic, and refuses to replace a file
        finally:
            os.unlink(tmp)
    except FileExistsError:
        raise
    except (OSError, OutputError) as exc:
        raise BadRequest(f"path: could not write {str(p)!r}: {exc}") from None
    return p


__all__ = ["Explorer", "Opened", "open_source", "save", "BadRequest", "EXPECT_KEYS"]
