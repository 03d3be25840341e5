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

# The divergence vocabulary lives apart (replay reads it too); re-exported here.
from mtgcheck import hidden_draws
from mtgcheck.divergence import FAULTS, KINDS, Divergence, Trace, card_of_step, wire
from mtgcheck.engines import open_engine
from mtgcheck.engines.base import OBSERVABLE, Engine, EngineError, EngineInfo, EngineRefused, Support
from mtgcheck.engines.vocab import Session, another_spend_was_legal, legal_with_another_spend, without_spend, wire_action
from mtgcheck.errors import FormatError, MtgcheckError, OutputError
from mtgcheck.model.card_rules import face_rules, plane_rules
from mtgcheck.model.actions import Action, catalogue, enabled_transition, legal_actions, why_illegal
from mtgcheck.model.config import Config
from mtgcheck.model.observe import observe
from mtgcheck.model.state import HOWS, LEFT, PENDING_RULES, PENDINGS, ZONES, State
from mtgcheck.model.vocabulary import cited
from mtgcheck.scenario_format import FORMAT as SCENARIO_FORMAT
from mtgcheck.scenario_write import setup_of

Chooser = Callable[[int, Config, State, list[Action]], "Action | None"]


def in_scope(support: Support, a: Action) -> bool:
    """Is the action one the engine declared it implements?"""
    if a.verb not in support.verbs:
        return False
    return a.verb != "cast" or (HOWS[a.how] in support.hows and a.x <= support.max_x)


def _jsonable(v: Any) -> Any:
    return json.loads(json.dumps(v, sort_keys=True, default=list))


#: The order differing fields are reported in: cause before consequence (what was put on or
#: taken off the stack, who got priority, where cards went, then life and who is still in).
FIELD_ORDER = ("stack", "priority", "pending", "zones", "plotted", "planar_controller", "plane", "plane_counters", "extra_turns",
               "turn", "active", "step", "mana", "life", "in_game", "game_over")


def _field_rank(fld: str) -> int:
    base = fld.split(".")[0]
    return FIELD_ORDER.index(base) if base in FIELD_ORDER else len(FIELD_ORDER)


def _compare_observations(support: Support, model: dict[str, Any],
                          engine: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """Every declared observation key on which they differ, (field, rules say, engine says),
    ordered cause before consequence (:data:`FIELD_ORDER`); a card's zone is one field each."""
    out: list[tuple[str, Any, Any]] = []
    keys = support.observe & set(OBSERVABLE)
    if model.get("pending") is not None:
        # A resolving spell waits for a choice: no player has priority (CR 608.2; CR 117.3b
        # gives it once the spell has resolved), whatever each side keeps in that field.
        keys -= {"priority"}
    # A game both say is over (CR 104.2a: the last player in it has won) is played no more: no
    # player has priority, and whether the loser's cards left the game with them (CR 800.4a,
    # "outside") is moot; an engine that ends a two-player game leaves them where they were.
    over = model.get("game_over") is True and engine.get("game_over") is True
    if over:
        keys -= {"priority"}
    for key in sorted(keys):
        want = _jsonable(model.get(key))
        if key not in engine:
            out.append((key, want, "(missing)"))
            continue
        got = _jsonable(engine[key])
        if key == "plotted" and isinstance(got, list):
            got = sorted(got, key=str)
        if key == "zones" and isinstance(got, dict) and isinstance(want, dict):
            for cid in sorted(want):
                if got.get(cid) != want[cid] and not (over and want[cid] == "outside"):
                    out.append((f"zones.{cid}", want[cid], got.get(cid, "(missing)")))
            continue
        if got != want:
            out.append((key, want, got))
    out.sort(key=lambda d: _field_rank(d[0]))  # stable: keys, then card ids, within one rank
    return out


def _zone_name(z: Any) -> str:
    return ZONES[z] if isinstance(z, int) and 0 <= z < len(ZONES) else "outside"


def cause(cfg: Config, s: State, t: Any, s2: State, a: Action, fld: str, engine_says: Any = None) -> str:
    """The CR rule whose effect on ``fld`` differs, read from the transition the model took
    (``t`` from ``s`` to ``s2`` by ``a``): which move put the card where it is, which rule
    gave priority, which state-based action removed a player.  Falls back to the rule of
    the step (``t.cr``) when the field did not change under the rules."""
    base, _, sub = fld.partition(".")
    resolving = int(t.rule[len("pass.resolve.card"):]) if t.rule.startswith("pass.resolve.card") else None
    # The face that resolves (a split card's half, CR 709.3): its registry entry says what it does.
    face = None
    if resolving is not None:
        card = cfg.slots[resolving].card
        face = card.faces[1] if card.is_split and s.half[resolving] != LEFT else card.faces[0]  # as resolve_card reads it
    # The card was the resolving spell's target (the model's own record of what it targets).
    targeted = resolving is not None and sub in [sl.id for sl in cfg.slots] and \
        s.target[resolving] == cfg.players + [sl.id for sl in cfg.slots].index(sub)
    left = [p for p in range(cfg.players) if s.in_game[p] and not s2.in_game[p]]
    if base == "zones":
        ids = [sl.id for sl in cfg.slots]
        if sub not in ids:
            return t.cr
        j = ids.index(sub)
        z0, z1 = _zone_name(s.zone[j]), _zone_name(s2.zone[j])
        if z0 == z1:
            return t.cr
        if z1 == "outside":
            return "800.4a"  # its owner left the game with everything they own
        if z1 == "stack":
            return "601.2a"
        if z0 == "stack":
            if z1 == "exile" and s.fb_exile[j]:
                return "702.34a"  # a flashback spell leaving the stack is exiled
            if resolving == j:
                return "608.3" if z1 == "battlefield" else "608.2n"
            if targeted:
                return "701.6a"  # a spell that targets a spell and moves it off the stack counters it
            if z1 == "exile" and t.rule.startswith("pass.resolve.ability"):
                return "702.170c"  # Aven Interrupter exiles the spell; it becomes plotted
            return t.cr
        if z0 == "battlefield" and z1 == "graveyard":
            if t.rule == "choose.legend":
                return "704.5j"
            if targeted and face is not None and face_rules(face.name).destroys:
                return "701.8a"  # destroyed (a burn spell's target dies by 704.5g instead)
            if a.verb == "cast" and a.sacrifice == j:
                return "118.8"
            return "704.5g"
        if z0 == "library" and z1 == "hand":
            return "702.170c" if t.rule == "choose.luck" else "121.2"
        if z1 == "exile" and a.verb == "plot":
            return "702.170a" if a.source != "library" else t.cr
        if z1 == "exile" and t.rule == "choose.luck":
            return "702.170c"
        if z0 == "hand" and z1 == "graveyard":
            return "701.9a"
        return t.cr
    if base == "life":
        ps = [p for p in range(cfg.players) if s2.life[p] != (engine_says[p] if isinstance(engine_says, list)
                                                               and p < len(engine_says) else None)]
        p = ps[0] if ps else 0
        if s.life[p] != s2.life[p]:
            return "119.4" if a.verb == "cast" else "120.3"
        if s2.life[p] <= 0:
            return "704.5a"
        return t.cr
    if base == "in_game":
        for p in left:
            if a.verb == "leave" and a.player == p:
                return "104.3a"
            if s2.life[p] <= 0:
                return "704.5a"
            if s2.drew_empty[p]:
                return "704.5b"
            return "800.4a"
        return "704.5a" if any(s2.in_game[p] and s2.life[p] <= 0 for p in range(cfg.players)) else t.cr
    if base == "game_over":
        return "104.2a"
    if base == "priority":
        if isinstance(engine_says, int) and not isinstance(engine_says, bool) and 0 <= engine_says < cfg.players \
                and not s2.in_game[engine_says]:
            return "800.4j"  # a player who left can't receive priority
        if a.verb in ("cast", "plot", "roll"):
            natural = a.player
            rule = "117.3c"
        elif t.rule == "pass.priority":
            natural, rule = (a.player + 1) % cfg.players, "117.3d"
        elif a.verb == "leave":
            natural, rule = s.priority, "800.4a"
        else:
            natural, rule = s2.active, "117.3b"
        if left or not s2.in_game[natural]:
            return "800.4j"
        return rule
    if base == "stack":
        if left:
            return "800.4a"
        if t.rule.startswith("pass.resolve"):
            return "608.2"
        if a.verb == "cast":
            want = observe(cfg, s2)["stack"]
            got = engine_says if isinstance(engine_says, list) else []
            first = next((i for i in range(max(len(want), len(got)))
                          if (want[i] if i < len(want) else None) != (got[i] if i < len(got) else None)), 0)
            entry = want[first] if first < len(want) else got[first] if first < len(got) else ""
            return "603.3" if str(entry).startswith("ability:") else "601.2a"
        return t.cr
    if base == "plotted":
        differ = set(observe(cfg, s2)["plotted"]) ^ (set(engine_says) if isinstance(engine_says, list) else set())
        moved = [j for j, sl in enumerate(cfg.slots) if sl.id in differ and s.zone[j] != s2.zone[j] and s.plotted[j]]
        if moved:
            return "400.7"  # a card that changes zones is a new object, no longer plotted
        if a.verb == "plot":
            return "702.170a"
        if t.rule == "choose.luck" or t.rule.startswith("pass.resolve.ability"):
            return "702.170c"
        return "702.170d"
    if base == "planar_controller":
        return "901.6"
    if base == "pending":
        # A choice asked (or still waiting): the resolving object's instructions, followed in
        # order (CR 608.2c), or the rule that asks it (the legend rule, the cleanup discard).
        return next((PENDING_RULES[PENDINGS[x]] for x in (s2.pending, s.pending) if PENDINGS[x] in PENDING_RULES),
                    "608.2c")
    return t.cr


def _refused_for(cfg: Config, s: State, a: Action) -> str:
    """The id of the condition that refuses ``a`` ("" if it is legal)."""
    r = why_illegal(cfg, s, a)
    return r.cond if r is not None else ""


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
        self.fired: dict[str, int] = {}  # how often each rule of the catalogue fired (Transition.rule)
        self.seen: dict[str, Any] = {}  # the engine's last observation

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

    def unfired(self, cfg: Config, s: State, legal: list[Action]) -> list[Action]:
        """The actions whose rule has not fired yet in this run: half of the choices go to one,
        so that rare rules (a plotted cast, a fourth trigger on the stack) are reached."""
        return [a for a in legal if (t := enabled_transition(cfg, s, a)) is not None and not self.fired.get(t.rule)]

    def play(self, setup: dict[str, Any], choose: Chooser, *, source: str = "",
             probe: random.Random | None = None, steps: int | None = None, dealt: bool = False,
             follow_draws: bool = False) -> Trace:
        """One trace: setup, then actions from ``choose`` until it says stop or they diverge.

        With ``probe`` (a generator) and an engine that does not list its actions, every step
        first tries the actions the rules forbid by a single condition (:func:`probes`): the
        engine must refuse each (a refused probe changes nothing and is left out of the trace).
        ``steps`` bounds the actions (default ``max_steps``; a scripted trace passes its length + 1).
        Raises EngineRefused when the engine declines the position (not a divergence).
        ``dealt``: the engine already holds the game it dealt (``setup`` is what it showed; mtgcheck.dealt).
        ``follow_draws``: the setup's library order is a guess (the engine hides it): a card the
        engine draws is taken as an observation (:func:`mtgcheck.hidden_draws.follow_draws`), and
        ``Trace.setup`` ends with the library order the engine's draws showed.
        """
        tr = Trace(setup, source=source)
        se = Session.begin(setup, source=source or "(validate)", max_x=self.support.max_x)
        cfg, s = se.cfg, se.start
        pool_guessed: tuple[Any, Any] | None = None  # the step whose pool colours the engine chose
        try:
            if not dealt:
                self.engine.setup(setup)
            tr.divergence = self._compare(cfg, s, -1, None)
            for i in range(self.max_steps if steps is None else steps):
                if tr.divergence is not None:
                    break
                legal = [a for a in legal_actions(cfg, s) if in_scope(self.support, a)]
                if self.support.lists_actions:  # seen after the last action (-1: at the setup)
                    tr.divergence = self._compare_lists(se, s, len(tr.actions) - 1, legal)
                    if tr.divergence is not None:
                        break
                elif probe is not None:
                    for w in probes(self.support, cfg, s, probe):
                        if "spend" in self.support.lacks and legal_with_another_spend(cfg, s, w):
                            continue  # the engine pays as it likes: legal to it (vocab.legal_with_another_spend)
                        if pool_guessed == (s.turn, s.step) and _refused_for(cfg, s, w) == "cost.colours":
                            continue  # the pool's colours are the engine's choice (vocab.another_spend_was_legal)
                        tr.actions.append(wire_action(cfg, w))
                        self.steps += 1
                        s, tr.divergence = self._apply(cfg, s, len(tr.actions) - 1, w)
                        if tr.divergence is not None:
                            break
                        tr.actions.pop()  # refused, as the rules say: nothing happened
                    if tr.divergence is not None:
                        break
                a = choose(i, cfg, s, legal)
                if a is None:
                    break
                tr.actions.append(wire_action(cfg, a))
                self.steps += 1
                before = s
                if "spend" in self.support.lacks and another_spend_was_legal(a, legal):
                    pool_guessed = (s.turn, s.step)
                s, tr.divergence = self._apply(cfg, s, len(tr.actions) - 1, a)
                if follow_draws and "library_top" in self.seen and (tr.divergence is None or tr.divergence.kind == "observation"):
                    s, tr.divergence, tr.setup = hidden_draws.follow_look(self, cfg, se.start, before, s, a,
                                                                          len(tr.actions) - 1, tr.setup, tr.divergence)
                if follow_draws and tr.divergence is not None and tr.divergence.kind == "observation":
                    s, tr.divergence, tr.setup = hidden_draws.follow_draws(self, cfg, se.start, before, s, a, tr.setup,
                                                                           tr.divergence)
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
                                 f"{text}: the engine accepted it, but {cited(r.cr, r.card)} forbids it ({r.why})",
                                 card=r.card)
        if t is not None and not answer.legal:
            return s, Divergence("legal-refused", i, "legality", t.cr, "legal", f"illegal: {answer.reason}".strip(": "),
                                 f"{text}: the engine refused it ({answer.reason or 'no reason given'}), "
                                 f"but it is legal ({cited(t.cr, t.card)})", card=t.card)
        if t is None:
            return s, None
        self.fired[t.rule] = self.fired.get(t.rule, 0) + 1
        s2 = t.effect(s)
        return s2, self._compare(cfg, s2, i, (text, s, t, a))

    def _compare(self, cfg: Config, s: State, i: int,
                 after: tuple[str, State, Any, Action] | None) -> Divergence | None:
        """Compare the positions; ``after`` is (the action's text, the state before it, the
        transition taken, the action) or None at the setup."""
        self.seen = self.engine.observe()
        diffs = _compare_observations(self.support, observe(cfg, s), self.seen)
        if not diffs:
            return None
        if after is None:
            rules = [""] * len(diffs)
        else:
            _, before, t, a = after
            rules = [cause(cfg, before, t, s, a, fld, got) for fld, _, got in diffs]
        also = tuple({"field": fld, "rule": r, "rules_say": want, "engine_says": got}
                     for (fld, want, got), r in zip(diffs[1:], rules[1:], strict=True))
        (fld, want, got), cr = diffs[0], rules[0]
        more = f" (and {len(also)} more: {', '.join(d['field'] for d in also)})" if also else ""
        if after is None:
            return Divergence("observation", i, fld, "", want, got,
                              f"at the start the engine shows {fld} = {got!r}, the position given has {want!r}{more}",
                              also)
        text, before, t, _ = after
        card = card_of_step(cfg, before, t, fld)
        return Divergence("observation", i, fld, cr, want, got,
                          f"after {text}: {fld} is {got!r} in the engine, {want!r} under the rules "
                          f"({cited(cr, card)}){more}", also, card)

    def _compare_lists(self, se: Session, s: State, i: int, legal: list[Action]) -> Divergence | None:
        cfg = se.cfg
        docs = self.engine.actions()
        try:
            listed = se.to_model(docs, s, source=f"{self.info.name} reply", field="actions")
        except FormatError as exc:
            return Divergence("bad-action", i, "actions", "", None, _jsonable(docs)[:20], str(exc))
        if "spend" in self.support.lacks:  # projected sets (vocab.legal_with_another_spend)
            listed, legal = [without_spend(a) for a in listed], list(dict.fromkeys(without_spend(a) for a in legal))
        listed_set = {a for a in listed if a.verb in self.support.verbs}
        missing = [a for a in legal if a not in listed_set]
        if missing:
            a = missing[0]
            t = enabled_transition(cfg, s, a)
            cr, card = (t.cr, t.card) if t is not None else ("", "")
            return Divergence("missing-action", i, "actions", cr, wire_action(cfg, a), None,
                              f"{_describe(cfg, a)} is legal ({cited(cr, card)}) but the engine does not list it",
                              card=card)
        extra = [a for a in listed if a not in set(legal)]
        if extra:
            a = extra[0]
            r = why_illegal(cfg, s, a)
            cr, why, card = (r.cr, r.why, r.card) if r else ("", "outside the declared scope", "")
            return Divergence("extra-action", i, "actions", cr, None, wire_action(cfg, a),
                              f"the engine lists {_describe(cfg, a)}, but {cited(cr, card)} forbids it ({why})",
                              card=card)
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


def probes(support: Support, cfg: Config, s: State, rnd: random.Random) -> list[Action]:
    """One illegal action of the scope per condition that alone forbids it here.

    An action whose transition fails exactly one condition is what an engine that forgets
    that one check would accept (plotting outside a main phase, casting a plotted card the
    turn it was plotted, X above 0 on a free cast, a way to cast the card does not have
    now...).  Grouped by the failing condition, one of each group is drawn, so every check
    the rules make here is tried at every step, at the cost of a handful of calls.
    """
    groups: dict[str, list[Action]] = {}
    for t in catalogue(cfg).transitions:
        if not in_scope(support, t.action):
            continue
        failing = [c.id for c in t.conds if not c.test(s)]
        if len(failing) == 1:
            groups.setdefault(failing[0], []).append(t.action)
    out: dict[Action, None] = {}
    for cid in sorted(groups):
        cands = sorted(a for a in set(groups[cid]) if a not in out and enabled_transition(cfg, s, a) is None)
        if cands:
            out[rnd.choice(cands)] = None
    return list(out)


def in_scope_rules(support: Support, cfg: Config) -> set[str]:
    """The rules (``Transition.rule``) of the catalogue whose action is in the engine's scope."""
    return {t.rule for t in catalogue(cfg).transitions if in_scope(support, t.action)}


def supported_setup(support: Support, setup: dict[str, Any]) -> dict[str, Any] | None:
    """The position projected onto the engine's scope (its unsupported cards removed), or None."""
    if setup["players"] not in support.players:
        return None
    out = dict(setup)
    out["cards"] = [c for c in setup["cards"] if c["card"] in support.cards]
    pc = setup.get("planechase")
    names = set() if pc is None else {pc["plane"]["name"], *(n for d in pc["decks"] for n in d)}
    if not names <= support.planes:
        return None
    if "extra_turns" in support.lacks and (setup.get("extra_turns") or any(
            plane_rules(n).gives_extra_turns for n in names)):
        return None  # CR 500.7: a position that has or can make extra turns
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
        except (MtgcheckError, KeyError, TypeError) as exc:
            # Malformed: `mtgcheck scenario` / `replay` say why; here, one line that it is skipped.
            # The message without its file (this line names it once); another error by its kind.
            why = str(exc).removeprefix(f"{exc.file}: ") if isinstance(exc, FormatError) else \
                f"{type(exc).__name__}: {exc}"
            say(f"{jsonread.display(str(f))}: skipped: {jsonread.one_line(why)}")
            continue
        assert isinstance(raw, dict)  # both parsers say so
        doc = raw.get("scenario", raw)
        if sc.variant or any(a.verb not in support.verbs for a in sc.actions):
            continue
        if any(a.verb == "cast" and a.args.get("how") not in support.hows for a in sc.actions):
            continue
        setup = doc["setup"]
        if supported_setup(support, setup) != setup:
            continue
        acts = [wire(a) for a in doc["actions"]]
        out.append((str(f), setup, acts))
    return out


def validation_positions() -> list[Any]:
    """Positions of validation only, besides the checkers' own (whose state spaces must stay
    small): the situations those never reach, each small enough for random play to get there.

    A player a Bolt away from losing, with two and three players (CR 704.5a, 800.4a, 800.4j,
    104.2a; a player with an empty library, 704.5b); Counterspell and Remand against spells
    cast from hand and with flashback (701.6a, 702.34a); four Slickshot Show-Offs, so that a
    noncreature spell puts four triggers on the stack (every ability slot, 603.3); two copies of
    a legend (704.5j); Fblthp letting its owner plot the top of the library (702.170f); Aven
    Interrupter and Snapcaster Mage choosing targets for their triggers (603.3d).
    """
    from mtgcheck.configs import library_of as _lib
    from mtgcheck.model.setup import CardPlacement as C, Position

    def pos(players: int, life: tuple[int, ...], mana: tuple[int, ...], *cards: C, step: str = "main1") -> Position:
        return Position(players=players, turn=1, active=0, step=step, life=life, mana=mana, cards=tuple(cards))

    return [
        pos(2, (20, 3), (2, 2), C("bolt", "Lightning Bolt", 0, "hand"), C("shock", "Test Plotted Shock", 0, "hand"),
            C("show", "Slickshot Show-Off", 0, "hand"), C("bolt1", "Lightning Bolt", 1, "hand"), *_lib(0, 1), *_lib(1, 1)),
        pos(3, (3, 3, 20), (1, 1, 1), C("bolt", "Lightning Bolt", 0, "hand"), C("bolt1", "Lightning Bolt", 1, "hand"),
            C("shock2", "Test Plotted Shock", 2, "hand"), *_lib(0, 1), *_lib(1, 1)),
        pos(2, (20, 20), (4, 4), C("twice", "Think Twice", 0, "hand"), C("twice2", "Think Twice", 0, "graveyard"),
            C("counter", "Counterspell", 1, "hand"), C("remand", "Remand", 1, "hand"), *_lib(0, 3), *_lib(1, 2)),
        *(pos(2, (20, 20), (1, 0), *(C(f"show{k}", "Slickshot Show-Off", 0, "battlefield") for k in range(4)),
              *(spells if first else spells[::-1]), *_lib(0, 1), *_lib(1, 1))
          for spells in [(C("bolt", "Lightning Bolt", 0, "hand"), C("shock", "Test Plotted Shock", 0, "hand"))]
          for first in (True, False)),
        pos(2, (20, 20), (6, 0), C("lilah", "Lilah, Undefeated Slickshot", 0, "hand"),
            C("lilah2", "Lilah, Undefeated Slickshot", 0, "hand"), *_lib(0, 1), *_lib(1, 1)),
        pos(2, (20, 20), (3, 0), C("fblthp", "Fblthp, Lost on the Range", 0, "battlefield"),
            C("top", "Lightning Bolt", 0, "library"), *_lib(0, 1), *_lib(1, 1)),
        pos(2, (20, 20), (2, 0), C("snap", "Snapcaster Mage", 0, "hand"), C("twice", "Think Twice", 0, "graveyard"),
            *_lib(0, 2), *_lib(1, 1)),
        pos(2, (20, 20), (2, 3), C("twice", "Think Twice", 0, "hand"), C("aven", "Aven Interrupter", 1, "hand"),
            *_lib(0, 2), *_lib(1, 1)),
    ]


def builtin_setups(support: Support) -> list[dict[str, Any]]:
    """The built-in, small and validation positions, projected onto the engine's scope, without repeats."""
    from mtgcheck.configs import BUILTIN, SMALL

    seen: dict[str, dict[str, Any]] = {}
    for position in (*(c.position for c in (*BUILTIN, *SMALL.values())), *validation_positions()):
        s = supported_setup(support, setup_of(position))
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
        tr = driver.play(setup, scripted(docs, setup), source="(minimizing)", steps=len(docs) + 1)
    except (EngineRefused, MtgcheckError, KeyError, IndexError):
        return False
    return tr.divergence is not None and tr.divergence.key() == key


def replay_on_engine(driver: Driver, cx: Any) -> tuple[Divergence | None, bool | None]:
    """Replay a stored divergence's whole trace on the engine, comparing everything at every
    step: the first divergence now (None: none), and whether it is the stored one (the same
    kind, field and rule); (None, None) when the engine declines the position: not compared."""
    d = cx.doc["divergence"]
    key = (d["kind"], d["field"].split(".")[0], d["rule"])
    doc = cx.doc["scenario"]
    acts = [wire(a) for a in doc["actions"]]
    try:
        tr = driver.play(doc["setup"], scripted(acts, doc["setup"]), source=str(cx.path), steps=len(acts) + 1)
    except EngineRefused:
        return None, None
    if tr.divergence is None:
        return None, False
    return tr.divergence, tr.divergence.key() == key


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
        final = driver.play(setup, scripted(docs, setup), source=tr.source, steps=len(docs) + 1)
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
    scenario = {"format": SCENARIO_FORMAT, "name": f"{info.name} {KINDS[d.kind]} ({d.field})",
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
    #: How many traces ended in each distinct divergence (by key), and the shortest found before minimizing.
    seen: dict[tuple[str, str, str], tuple[int, int]] = field(default_factory=dict)
    #: Rule coverage: the in-scope rules of the generated positions' catalogues, and how often each fired.
    coverage: dict[str, Any] = field(default_factory=dict)
    #: Why the run ended early ("stopped: N identical faults ..."), or None.
    stopped: str | None = None
    #: The first divergence that could not be stored (the others are then not tried).
    write_error: OutputError | None = None

    def keep(self, info: EngineInfo, tr: Trace, store_dir: str | None) -> None:
        """Report a divergence, stored first (unless not storing, or a write already failed)."""
        path, new = None, False
        if store_dir is not None and self.write_error is None:
            from mtgcheck.store import store

            try:
                path, new = store(store_dir, counterexample_doc(info, tr, self.seed))
            except OutputError as exc:
                self.write_error = exc
        self.found.append((tr, path, new))

    def to_json(self) -> dict[str, Any]:
        def one(tr: Trace, p: Path | None, new: bool) -> dict[str, Any]:
            assert tr.divergence is not None
            n, shortest = self.seen.get(tr.divergence.key(), (1, len(tr.actions)))
            return {**tr.divergence.to_json(), "source": tr.source, "actions": tr.actions,
                    "stored": str(p) if p else None, "new": new, "traces": n, "shortest_found": shortest}

        return {"format": "mtgcheck.validate-report/1", "engine": self.engine, "version": self.version,
                "seed": self.seed, "budget": self.budget, "traces": self.traces, "diverged": self.diverged, "steps": self.steps,
                "refused_positions": self.refused, "engine_restarts": self.restarts,
                "seconds": round(self.seconds, 2), "sources": self.sources, "coverage": self.coverage,
                "stopped": self.stopped,
                "divergences": [one(tr, p, new) for tr, p, new in self.found if tr.divergence is not None]}


#: How many of the shortest traces of each distinct divergence are minimized (the shortest
#: minimized one is kept): ddmin is 1-minimal, not minimal, so a longer trace may shrink further.
KEEP = 2


def _size(tr: Trace) -> tuple[int, int]:
    return len(tr.actions), len(tr.setup.get("cards", []))


def _fault_signature(d: Divergence) -> tuple[str, str]:
    """Two faults are identical when their kind and message agree (the engine's stderr aside)."""
    return d.kind, str(d.engine_says).split(" (stderr:")[0]


def run(spec: str, *, budget: int, seed: int, store_dir: str | None, scenario_files: Sequence[Path],
        call_timeout: float = 10.0, max_steps: int = 30, probe_rate: int = 8,
        progress: Callable[[str], None] | None = None, warn: Callable[[str], None] | None = None,
        max_faults: int = 3, show_progress: bool = False) -> Report:
    """Drive the engine through scenarios, stored counterexamples and ``budget`` generated games.

    Each distinct divergence keeps its shortest traces (:data:`KEEP`), which are minimized;
    the shortest result is reported and stored.  After ``max_faults`` identical engine faults
    (0: never) the run stops: an engine that hangs on every trace would cost a full call
    timeout per trace.  ``show_progress`` draws a progress bar on stderr (for a terminal).

    A divergence that cannot be stored (a write error, a symbolic link for the engine's
    folder) is kept in ``Report.write_error`` and the run carries on: the caller writes its
    report first, then fails with it (exit 2).
    """
    t0 = time.monotonic()
    driver = Driver(spec, call_timeout=call_timeout, max_steps=max_steps)
    rep = Report(driver.info.name, driver.info.version, seed, budget)
    kept: dict[tuple[str, str, str], list[Trace]] = {}
    faults: dict[tuple[str, str], int] = {}
    bar = _Bar(show_progress)

    def record(tr: Trace) -> None:
        rep.traces += 1
        d = tr.divergence
        if d is not None:
            rep.diverged += 1
            key = d.key()
            n, shortest = rep.seen.get(key, (0, len(tr.actions)))
            rep.seen[key] = (n + 1, min(shortest, len(tr.actions)))
            best = kept.setdefault(key, [])
            best.append(tr)
            best.sort(key=_size)  # stable: of two as short, the first found stays first
            del best[KEEP:]
            if d.kind in FAULTS and max_faults > 0:
                sig = _fault_signature(d)
                faults[sig] = faults.get(sig, 0) + 1
                if faults[sig] >= max_faults and rep.stopped is None:
                    rep.stopped = f"stopped: {max_faults} identical faults ({d.kind}: {sig[1]})"
        bar.advance(f"{len(kept)} distinct divergences")

    try:
        scripted_traces = scenario_traces(driver.support, scenario_files, warn=warn)
        setups = builtin_setups(driver.support)
        bar.start(len(scripted_traces) + (budget if setups or scripted_traces else 0))
        for source, setup, acts in scripted_traces:
            if rep.stopped:
                break
            try:
                record(driver.play(setup, scripted(acts, setup), source=source, steps=len(acts) + 1))
                rep.sources["scenarios"] = rep.sources.get("scenarios", 0) + 1
            except EngineRefused:
                rep.refused += 1
                bar.advance()
        generated_from = setups + [s for _, s, _ in scripted_traces]
        per_setup = [in_scope_rules(driver.support, Session.begin(s, source="(coverage)", max_x=driver.support.max_x).cfg)
                     for s in setups]
        if generated_from and budget > 0 and not rep.stopped:
            _generated(driver, generated_from, budget, seed, probe_rate, record, rep, bar, per_setup)
        bar.stop()
        if progress:
            progress(f"{rep.traces} traces, {driver.steps} steps, {len(kept)} distinct divergences"
                     + (f"; {rep.stopped}" if rep.stopped else "") + "; minimizing")
        universe = set().union(*per_setup)
        fired = {r: n for r, n in sorted(driver.fired.items())}
        rep.coverage = {"rules_reached": len(universe & set(fired)), "rules_in_catalogue": len(universe),
                        "missing": sorted(universe - set(fired)),
                        "fired": {r: fired.get(r, 0) for r in sorted(universe | set(fired))}}
        for _key, trs in sorted(kept.items()):
            rep.keep(driver.info, min((minimize(driver, tr) for tr in trs), key=_size), store_dir)
    finally:
        bar.stop()
        rep.steps = driver.steps
        rep.restarts = driver.restarts
        driver.close()
        rep.seconds = time.monotonic() - t0
    return rep


class _Bar:
    """A progress bar on stderr (rich), or nothing: off unless asked for (a terminal, not CI)."""

    def __init__(self, on: bool) -> None:
        self.on = on
        self.progress: Any = None
        self.task: Any = None

    def start(self, total: int) -> None:
        if not self.on or total <= 0:
            return
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.progress = Progress(TextColumn("validating"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                 TextColumn("{task.description}"), console=Console(stderr=True), transient=True)
        self.progress.start()
        self.task = self.progress.add_task("", total=total)

    def advance(self, what: str | None = None) -> None:
        if self.progress is not None:
            self.progress.update(self.task, advance=1, **({"description": what} if what else {}))

    def stop(self) -> None:
        if self.progress is not None:
            self.progress.stop()
            self.progress = None


def _generated(driver: Driver, setups: list[dict[str, Any]], budget: int, seed: int, probe_rate: int,
               record: Callable[[Trace], None], rep: Report, bar: _Bar,
               rules_of: Sequence[set[str]] = ()) -> None:
    """``budget`` games drawn by Hypothesis (seeded, no database, no shrinking: ddmin minimizes).

    Coverage-guided: half of the games start from a position whose catalogue (``rules_of``,
    one set per leading position) still has a rule that never fired, and half of the choices
    go to an action that fires such a rule when there is one, so that rare rules (a fourth
    trigger on the stack, the legend rule) are reached within a small budget.
    """
    from hypothesis import HealthCheck, Phase, given, settings, strategies as st
    from hypothesis import seed as hseed

    from mtgcheck.cache import keep_hypothesis_in_cache
    from mtgcheck.checkers.hypo import unmoored_integers

    keep_hypothesis_in_cache()

    @hseed(seed)
    @settings(max_examples=budget, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def one(data: st.DataObject) -> None:
        # Every number is drawn out of the reach of the literals of the project's modules
        # (unmoored_integers): a seed draws the same games whatever a change adds to them.
        index = data.draw(unmoored_integers(0, len(setups) - 1), label="position")
        # Long games (a divergence ends one early anyway): short ones rarely get past the first step.
        length = data.draw(unmoored_integers(max(1, driver.max_steps // 2), driver.max_steps), label="length")
        # Choices come from a generator seeded by Hypothesis: uniform over the legal actions
        # (Hypothesis's own integer draws favour the first ones, here always "pass").
        rnd = random.Random(data.draw(unmoored_integers(0, 2**32 - 1), label="choices"))
        if rep.stopped:
            return  # the remaining examples cost nothing (drawn all the same: Hypothesis replays draws)
        # A position the engine declined once is declined again: the budget goes to the others
        # (a declined position whose rules never fire would otherwise draw the coverage-guided
        # half of the games: a quarter of phase's, with the cleanup discard's positions).
        unfired = [k for k, rules in enumerate(rules_of)
                   if k not in declined and any(not driver.fired.get(r) for r in rules)]
        if unfired and rnd.randrange(2) == 0:
            index = rnd.choice(unfired)
        playable = [k for k in range(len(setups)) if k not in declined]
        if index in declined and playable:
            index = rnd.choice(playable)
        setup = setups[index]

        def choose(i: int, cfg: Config, s: State, legal: list[Action]) -> Action | None:
            if i >= length:
                return None
            if probe_rate and rnd.randrange(probe_rate) == 0:
                wrong = illegal_in_scope(driver.support, cfg, s)
                if wrong:
                    return rnd.choice(wrong)
            # Leaving ends a two-player game at once and is legal at every step for everyone:
            # drawn like any action it would cut most games short.
            if rnd.randrange(2) == 0:
                new = driver.unfired(cfg, s, legal)
                if new:
                    return rnd.choice(new)
            staying = [a for a in legal if a.verb != "leave"]
            pool = staying if staying and rnd.randrange(8) else legal
            return rnd.choice(pool) if pool else None

        try:
            record(driver.play(setup, choose, source=f"generated (seed {seed})", probe=random.Random(rnd.random())))
            rep.sources["generated"] = rep.sources.get("generated", 0) + 1
        except EngineRefused:
            rep.refused += 1
            declined.add(index)
            bar.advance()

    declined: set[int] = set()
    one()
