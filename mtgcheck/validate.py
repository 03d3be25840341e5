"""``mtgcheck validate``: differential testing of a rules engine against the reference model.

The engine and the model are driven through the same actions from the same position, and
compared after every step: the legality of the action (the engine must accept exactly
what the rules allow, and refuse what they forbid), the list of legal actions (when the
engine says it lists them all), and the observation keys the engine declares.  Traces
come from every scenario in ``tests/scenarios/``, every stored counterexample, and
Hypothesis-generated games from the built-in positions (projected onto the cards the
engine supports).  The first divergence of a trace ends it; distinct divergences are
minimized (delta debugging, replaying on the engine) and stored as counterexamples under
``counterexamples/<engine>-<version>/``, each with the CR rule at stake and who is right.

An engine that crashes, hangs or answers garbage is a finding too: it is reported with
the trace that provoked it, and the harness carries on with a fresh engine.
"""

from __future__ import annotations

import json
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from mtgcheck.engines import open_engine
from mtgcheck.engines.base import OBSERVABLE, Engine, EngineError, EngineInfo, EngineRefused, Support
from mtgcheck.engines.vocab import Session, wire_action
from mtgcheck.errors import FormatError, MtgcheckError, OutputError
from mtgcheck.model.actions import Action, catalogue, enabled_transition, legal_actions, why_illegal
from mtgcheck.model.config import Config
from mtgcheck.model.observe import observe
from mtgcheck.model.state import HOWS, State
from mtgcheck.scenario_write import setup_of

#: What the engine got wrong, in words (the report's first column).
KINDS = {
    "legal-refused": "refused an action the rules allow",
    "illegal-accepted": "accepted an action the rules forbid",
    "missing-action": "did not list an action the rules allow",
    "extra-action": "listed an action the rules forbid",
    "bad-action": "listed an action that is not well-formed",
    "observation": "reached a different position",
    "crash": "crashed",
    "hang": "hung",
    "garbage": "answered something that is not JSON",
    "protocol": "broke the protocol",
}
FAULTS = ("crash", "hang", "garbage", "protocol")


@dataclass(frozen=True)
class Divergence:
    """The first point where the engine and the rules part, with the rule at stake."""

    kind: str
    step: int  # index of the last action played when it showed (-1: at the setup, before any action)
    field: str  # "legality", "actions", "zones.show", ... or the fault kind
    rule: str  # the CR rule at stake ("" for engine faults)
    rules_say: Any
    engine_says: Any
    why: str

    def key(self) -> tuple[str, str, str]:
        """Two divergences with the same key are the same bug for reporting and storing."""
        return self.kind, self.field.split(".")[0], self.rule

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "step": self.step, "field": self.field, "rule": self.rule,
                "rules_say": self.rules_say, "engine_says": self.engine_says, "why": self.why}


@dataclass
class Trace:
    setup: dict[str, Any]
    actions: list[dict[str, Any]] = field(default_factory=list)
    divergence: Divergence | None = None
    source: str = ""


Chooser = Callable[[int, Config, State, list[Action]], "Action | None"]


def in_scope(support: Support, a: Action) -> bool:
    """Is the action one the engine declared it implements?"""
    if a.verb not in support.verbs:
        return False
    return a.verb != "cast" or (HOWS[a.how] in support.hows and a.x <= support.max_x)


def _jsonable(v: Any) -> Any:
    return json.loads(json.dumps(v, sort_keys=True, default=list))


def _compare_observations(support: Support, model: dict[str, Any], engine: dict[str, Any]) -> tuple[str, Any, Any] | None:
    """The first declared observation key on which they differ: (field, rules say, engine says)."""
    for key in sorted(support.observe & set(OBSERVABLE)):
        want = _jsonable(model.get(key))
        if key not in engine:
            return key, want, "(missing)"
        got = _jsonable(engine[key])
        if key == "plotted" and isinstance(got, list):
            got = sorted(got, key=str)
        if key == "zones" and isinstance(got, dict) and isinstance(want, dict):
            for cid in sorted(want):
                if got.get(cid) != want[cid]:
                    return f"zones.{cid}", want[cid], got.get(cid, "(missing)")
            continue
        if got != want:
            return key, want, got
    return None


def _describe(cfg: Config, a: Action) -> str:
    from mtgcheck.scenario_run import describe

    return describe(cfg, a)


class Driver:
    """Plays traces on one engine and the reference model side by side."""

    def __init__(self, spec: str, *, call_timeout: float = 10.0, max_steps: int = 30) -> None:
        self.spec = spec
        self.call_timeout = call_timeout
        self.max_steps = max_steps
        self.engine: Engine = open_engine(spec, call_timeout=call_timeout)
        try:
            self.info: EngineInfo = self.engine.hello()
        except EngineError as exc:
            self.engine.close()
            raise MtgcheckError(f"--engine {spec}: the engine failed at hello ({exc.kind}): {exc}") from None
        self.steps = 0
        self.restarts = 0

    @property
    def support(self) -> Support:
        return self.info.support

    def restart(self) -> None:
        """A fresh engine after a fault (the old one may be dead or in any state)."""
        self.engine.close()
        self.engine = open_engine(self.spec, call_timeout=self.call_timeout)
        self.restarts += 1

    def close(self) -> None:
        self.engine.close()

    def play(self, setup: dict[str, Any], choose: Chooser, *, source: str = "") -> Trace:
        """One trace: setup, then actions from ``choose`` until it says stop or they diverge.

        Raises EngineRefused when the engine declines the position (not a divergence).
        """
        tr = Trace(setup, source=source)
        se = Session.begin(setup, source=source or "(validate)", max_x=self.support.max_x)
        cfg, s = se.cfg, se.start
        try:
            self.engine.setup(setup)
            tr.divergence = self._compare(cfg, s, -1, None)
            for i in range(self.max_steps):
                if tr.divergence is not None:
                    break
                legal = [a for a in legal_actions(cfg, s) if in_scope(self.support, a)]
                if self.support.lists_actions:  # seen after action i - 1 (-1: at the setup)
                    tr.divergence = self._compare_lists(se, s, i - 1, legal)
                    if tr.divergence is not None:
                        break
                a = choose(i, cfg, s, legal)
                if a is None:
                    break
                tr.actions.append(wire_action(cfg, a))
                self.steps += 1
                s, tr.divergence = self._apply(cfg, s, i, a)
        except EngineError as exc:
            step = len(tr.actions) - 1
            tr.divergence = Divergence(exc.kind, step, exc.kind, "", None, str(exc),
                                       f"the engine {KINDS[exc.kind]}: {exc}")
            self.restart()
        return tr

    def _apply(self, cfg: Config, s: State, i: int, a: Action) -> tuple[State, Divergence | None]:
        t = enabled_transition(cfg, s, a)
        answer = self.engine.apply(wire_action(cfg, a))
        text = _describe(cfg, a)
        if t is None and answer.legal:
            r = why_illegal(cfg, s, a)
            assert r is not None
            return s, Divergence("illegal-accepted", i, "legality", r.cr, "illegal", "legal",
                                 f"{text}: the engine accepted it, but CR {r.cr} forbids it ({r.why})")
        if t is not None and not answer.legal:
            return s, Divergence("legal-refused", i, "legality", t.cr, "legal", f"illegal: {answer.reason}".strip(": "),
                                 f"{text}: the engine refused it ({answer.reason or 'no reason given'}), "
                                 f"but it is legal (CR {t.cr})")
        if t is None:
            return s, None
        s2 = t.effect(s)
        return s2, self._compare(cfg, s2, i, (text, t.cr))

    def _compare(self, cfg: Config, s: State, i: int, after: tuple[str, str] | None) -> Divergence | None:
        diff = _compare_observations(self.support, observe(cfg, s), self.engine.observe())
        if diff is None:
            return None
        fld, want, got = diff
        if after is None:
            return Divergence("observation", i, fld, "", want, got,
                              f"at the start the engine shows {fld} = {got!r}, the position given has {want!r}")
        text, cr = after
        return Divergence("observation", i, fld, cr, want, got,
                          f"after {text}: {fld} is {got!r} in the engine, {want!r} under the rules (CR {cr})")

    def _compare_lists(self, se: Session, s: State, i: int, legal: list[Action]) -> Divergence | None:
        cfg = se.cfg
        docs = self.engine.actions()
        try:
            listed = se.to_model(docs, s, source=f"{self.info.name} reply", field="actions")
        except FormatError as exc:
            return Divergence("bad-action", i, "actions", "", None, _jsonable(docs)[:20], str(exc))
        listed_set = {a for a in listed if a.verb in self.support.verbs}
        missing = [a for a in legal if a not in listed_set]
        if missing:
            a = missing[0]
            t = enabled_transition(cfg, s, a)
            cr = t.cr if t is not None else ""
            return Divergence("missing-action", i, "actions", cr, wire_action(cfg, a), None,
                              f"{_describe(cfg, a)} is legal (CR {cr}) but the engine does not list it")
        extra = [a for a in listed if a not in set(legal)]
        if extra:
            a = extra[0]
            r = why_illegal(cfg, s, a)
            cr, why = (r.cr, r.why) if r else ("", "outside the declared scope")
            return Divergence("extra-action", i, "actions", cr, None, wire_action(cfg, a),
                              f"the engine lists {_describe(cfg, a)}, but CR {cr} forbids it ({why})")
        return None


# -- where traces come from ------------------------------------------------------------

def scripted(docs: Sequence[dict[str, Any]], setup: dict[str, Any]) -> Chooser:
    """A chooser that plays given action objects in order (legal or not)."""
    se = Session.begin(setup, source="(trace)")

    def choose(i: int, cfg: Config, s: State, legal: list[Action]) -> Action | None:
        if i >= len(docs):
            return None
        return se.to_model([docs[i]], s, source="(trace)", field=f"actions[{i}]")[0]

    return choose


def illegal_in_scope(support: Support, cfg: Config, s: State) -> list[Action]:
    """Actions of the engine's scope that the rules forbid here (to probe for lies)."""
    seen: dict[Action, None] = {}
    for t in catalogue(cfg).transitions:
        a = t.action
        if a not in seen and in_scope(support, a) and enabled_transition(cfg, s, a) is None:
            seen[a] = None
    return list(seen)


def supported_setup(support: Support, setup: dict[str, Any]) -> dict[str, Any] | None:
    """The position projected onto the engine's scope (its unsupported cards removed), or None."""
    if setup["players"] not in support.players:
        return None
    out = dict(setup)
    out["cards"] = [c for c in setup["cards"] if c["card"] in support.cards]
    pc = setup.get("planechase")
    if pc is not None:
        names = {pc["plane"]["name"], *(n for d in pc["decks"] for n in d)}
        if not names <= support.planes:
            return None
    if not out["cards"]:
        return None
    return out


def scenario_traces(support: Support, files: Sequence[Path], *,
                    warn: Callable[[str], None] | None = None) -> list[tuple[str, dict[str, Any], list[dict[str, Any]]]]:
    """(source, setup, actions) of every scenario or counterexample wholly inside the scope.

    Each file is read once, by the strict reader (at most 1 MiB).  A FIFO, a device or a
    broken symbolic link among them is skipped with a one-line warning (``warn``, default
    stderr) and never opened: reading one would block the run or never end.
    """
    from mtgcheck import jsonread
    from mtgcheck.model import cards as pool
    from mtgcheck.model.config import VARIANTS
    from mtgcheck.replay import from_doc
    from mtgcheck.scenario_format import parse_scenario

    def say(line: str) -> None:
        if warn is not None:
            warn(line)
        else:
            print(f"mtgcheck: warning: {line}", file=sys.stderr)

    out = []
    for f in files:
        kind = jsonread.non_regular(f)
        if kind is not None:
            say(f"{jsonread.display(str(f))}: skipped: {kind}, not a regular file")
            continue
        try:
            raw = jsonread.read(f, what="a readable scenario file")
            if isinstance(raw, dict) and "scenario" in raw:
                sc = from_doc(raw, str(f)).scenario
            else:
                sc = parse_scenario(raw, source=str(f), known_cards=pool.card_names(),
                                    known_planes=pool.plane_names(), known_variants=tuple(VARIANTS))
        except (MtgcheckError, KeyError, TypeError):
            continue  # malformed files are the business of `mtgcheck scenario` / `replay`
        assert isinstance(raw, dict)  # both parsers say so
        doc = raw.get("scenario", raw)
        if sc.variant or any(a.verb not in support.verbs for a in sc.actions):
            continue
        if any(a.verb == "cast" and a.args.get("how") not in support.hows for a in sc.actions):
            continue
        setup = doc["setup"]
        if supported_setup(support, setup) != setup:
            continue
        acts = [{k: v for k, v in a.items() if k != "expect"} for a in doc["actions"]]
        out.append((str(f), setup, acts))
    return out


def builtin_setups(support: Support) -> list[dict[str, Any]]:
    """The built-in and small positions, projected onto the engine's scope, without repeats."""
    from mtgcheck.configs import BUILTIN, SMALL

    seen: dict[str, dict[str, Any]] = {}
    for conf in (*BUILTIN, *SMALL.values()):
        s = supported_setup(support, setup_of(conf.position))
        if s is not None:
            seen.setdefault(json.dumps(s, sort_keys=True), s)
    return list(seen.values())


# -- minimizing and storing ------------------------------------------------------------

def reproduces(driver: Driver, setup: dict[str, Any], docs: Sequence[dict[str, Any]], key: tuple[str, str, str]) -> bool:
    """Does this trace still end in a divergence with the same key?

    The actions are checked against the setup first: a candidate that names a card the
    setup no longer has is not a trace at all, whatever a flaky engine does with it.
    """
    from mtgcheck.engines.vocab import parse

    try:
        parse(setup, docs, source="(minimizing)")
        tr = driver.play(setup, scripted(docs, setup), source="(minimizing)")
    except (EngineRefused, MtgcheckError, KeyError, IndexError):
        return False
    return tr.divergence is not None and tr.divergence.key() == key


def minimize(driver: Driver, tr: Trace, *, budget: int = 150) -> Trace:
    """Fewer actions, then fewer cards, replaying each candidate on the engine (at most ``budget`` replays)."""
    from mtgcheck.minimize import ddmin

    assert tr.divergence is not None
    key = tr.divergence.key()
    if tr.divergence.kind == "hang":
        return tr  # every replay would cost a full timeout
    left = [budget]

    def test(setup: dict[str, Any], docs: Sequence[dict[str, Any]]) -> bool:
        if left[0] <= 0:
            return False
        left[0] -= 1
        return reproduces(driver, setup, docs, key)

    docs = ddmin(list(tr.actions), lambda c: test(tr.setup, c))
    cards = ddmin(list(tr.setup["cards"]), lambda cs: test({**tr.setup, "cards": cs}, docs))
    setup = {**tr.setup, "cards": cards}
    try:
        final = driver.play(setup, scripted(docs, setup), source=tr.source)
    except (EngineRefused, MtgcheckError):
        return tr
    if final.divergence is None or final.divergence.key() != key:
        return tr  # the engine is not deterministic on this trace: keep what was found
    final.source = tr.source
    return final


def counterexample_doc(info: EngineInfo, tr: Trace, seed: int | None) -> dict[str, Any]:
    """The counterexample file of a divergence: a scenario whose verdicts are the rules'."""
    from mtgcheck.store import FORMAT

    d = tr.divergence
    assert d is not None
    se = Session.begin(tr.setup, source="(store)")
    cfg, s = se.cfg, se.start
    actions = []
    for i, doc in enumerate(tr.actions):
        a = se.to_model([doc], s, source="(store)", field=f"actions[{i}]")[0]
        t = enabled_transition(cfg, s, a)
        actions.append({**doc, "expect": "legal" if t is not None else "illegal"})
        if t is not None:
            s = t.effect(s)
    scenario = {"format": "mtgcheck.scenario/1", "name": f"{info.name} {KINDS[d.kind]} ({d.field})",
                "rules": [d.rule] if d.rule else [], "description": d.why, "setup": tr.setup, "actions": actions}
    return {"format": FORMAT, "violates": "divergence", "found_by": "differential", "target": info.target,
            "seed": seed, "trace_length": len(actions), "divergence": d.to_json(), "scenario": scenario}


# -- the campaign ----------------------------------------------------------------------

@dataclass
class Report:
    engine: str
    version: str
    seed: int
    budget: int
    traces: int = 0
    diverged: int = 0  # traces that ended in a divergence (of any of the distinct kinds found)
    steps: int = 0
    refused: int = 0
    restarts: int = 0
    seconds: float = 0.0
    sources: dict[str, int] = field(default_factory=dict)
    found: list[tuple[Trace, Path | None, bool]] = field(default_factory=list)  # trace, stored at, new
    #: The first divergence that could not be stored (the others are then not tried).
    write_error: OutputError | None = None

    def to_json(self) -> dict[str, Any]:
        return {"format": "mtgcheck.validate-report/1", "engine": self.engine, "version": self.version,
                "seed": self.seed, "budget": self.budget, "traces": self.traces, "diverged": self.diverged, "steps": self.steps,
                "refused_positions": self.refused, "engine_restarts": self.restarts,
                "seconds": round(self.seconds, 2), "sources": self.sources,
                "divergences": [{**tr.divergence.to_json(), "source": tr.source, "actions": tr.actions,
                                 "stored": str(p) if p else None, "new": new}
                                for tr, p, new in self.found if tr.divergence is not None]}


def run(spec: str, *, budget: int, seed: int, store_dir: str | None, scenario_files: Sequence[Path],
        call_timeout: float = 10.0, max_steps: int = 30, probe_rate: int = 8,
        progress: Callable[[str], None] | None = None, warn: Callable[[str], None] | None = None) -> Report:
    """Drive the engine through scenarios, stored counterexamples and ``budget`` generated games.

    A divergence that cannot be stored (a write error, a symbolic link for the engine's
    folder) is kept in ``Report.write_error`` and the run carries on: the caller writes its
    report first, then fails with it (exit 2).
    """
    t0 = time.monotonic()
    driver = Driver(spec, call_timeout=call_timeout, max_steps=max_steps)
    rep = Report(driver.info.name, driver.info.version, seed, budget)
    first: dict[tuple[str, str, str], Trace] = {}

    def record(tr: Trace) -> None:
        rep.traces += 1
        if tr.divergence is not None:
            rep.diverged += 1
            first.setdefault(tr.divergence.key(), tr)

    try:
        scripted_traces = scenario_traces(driver.support, scenario_files, warn=warn)
        for source, setup, acts in scripted_traces:
            try:
                record(driver.play(setup, scripted(acts, setup), source=source))
                rep.sources["scenarios"] = rep.sources.get("scenarios", 0) + 1
            except EngineRefused:
                rep.refused += 1
        setups = builtin_setups(driver.support) + [s for _, s, _ in scripted_traces]
        if setups and budget > 0:
            _generated(driver, setups, budget, seed, probe_rate, record, rep)
        if progress:
            progress(f"{rep.traces} traces, {driver.steps} steps, {len(first)} distinct divergences; minimizing")
        for _key, tr in sorted(first.items()):
            small = minimize(driver, tr)
            path, new = None, False
            if store_dir is not None and rep.write_error is None:
                from mtgcheck.store import store

                try:
                    path, new = store(store_dir, counterexample_doc(driver.info, small, seed))
                except OutputError as exc:
                    rep.write_error = exc
            rep.found.append((small, path, new))
    finally:
        rep.steps = driver.steps
        rep.restarts = driver.restarts
        driver.close()
        rep.seconds = time.monotonic() - t0
    return rep


def _generated(driver: Driver, setups: list[dict[str, Any]], budget: int, seed: int, probe_rate: int,
               record: Callable[[Trace], None], rep: Report) -> None:
    """``budget`` games drawn by Hypothesis (seeded, no database, no shrinking: ddmin minimizes)."""
    from hypothesis import HealthCheck, Phase, given, settings, strategies as st
    from hypothesis import seed as hseed

    @hseed(seed)
    @settings(max_examples=budget, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def one(data: st.DataObject) -> None:
        setup = setups[data.draw(st.integers(0, len(setups) - 1), label="position")]
        # Long games (a divergence ends one early anyway): short ones rarely get past the first step.
        length = data.draw(st.integers(max(1, driver.max_steps // 2), driver.max_steps), label="length")
        # Choices come from a generator seeded by Hypothesis: uniform over the legal actions
        # (Hypothesis's own integer draws favour the first ones, here always "pass").
        rnd = random.Random(data.draw(st.integers(0, 2**32 - 1), label="choices"))

        def choose(i: int, cfg: Config, s: State, legal: list[Action]) -> Action | None:
            if i >= length:
                return None
            if probe_rate and rnd.randrange(probe_rate) == 0:
                wrong = illegal_in_scope(driver.support, cfg, s)
                if wrong:
                    return rnd.choice(wrong)
            # Leaving ends a two-player game at once and is legal at every step for everyone:
            # drawn like any action it would cut most games short.
            staying = [a for a in legal if a.verb != "leave"]
            pool = staying if staying and rnd.randrange(8) else legal
            return rnd.choice(pool) if pool else None

        try:
            record(driver.play(setup, choose, source=f"generated (seed {seed})"))
            rep.sources["generated"] = rep.sources.get("generated", 0) + 1
        except EngineRefused:
            rep.refused += 1

    one()
