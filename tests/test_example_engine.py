"""The example ``cmd:`` engine (tests/engines/example_engine.py) against the model, and the
protocol's JSON Schema (mtgcheck/data/engine-protocol-1.schema.json).

The engine is driven over the real pipe, beside ``open_engine("model")``, through the same
actions; at every step both lists of legal actions (compared as model actions, so spelling
and order don't matter) and every observation key the engine declares must agree.  Its
``--broken`` flag breaks one rule (CR 702.170d: a plotted card cast on the turn it was
plotted), and the same comparison must catch it.  Every line of every session is checked
against the schema.
"""

from __future__ import annotations

import ast
import json
import random
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from mtgcheck.divergence import wire
from mtgcheck.engines import Engine, EngineRefused, open_engine
from mtgcheck.engines.base import Support
from mtgcheck.engines.model_engine import ModelEngine
from mtgcheck.engines.vocab import wire_action
from mtgcheck.model.actions import catalogue
from mtgcheck.model.state import HOWS
from mtgcheck.model.turns import MAX_HAND_SIZE
from mtgcheck.scenario_format import verdict_of

from .conftest import ROOT, SCENARIOS

ENGINE = ROOT / "tests" / "engines" / "example_engine.py"
DATA = ROOT / "mtgcheck" / "data"
PROTOCOL_ID = "urn:mtgcheck:schema:engine-protocol-1"
STEPS = ("beginning", "main1", "combat", "main2", "end")
SEED = 20260417


# --- the schema ------------------------------------------------------------------------

def _schemas() -> Registry:
    docs = [json.loads((DATA / name).read_text()) for name in ("engine-protocol-1.schema.json",
                                                               "scenario-1.schema.json")]
    return Registry().with_resources([(d["$id"], Resource.from_contents(d)) for d in docs])


REGISTRY = _schemas()


def _validator(pointer: str = "") -> Draft202012Validator:
    return Draft202012Validator({"$ref": PROTOCOL_ID + pointer}, registry=REGISTRY)


def test_the_supports_enums_are_the_harness_tables() -> None:
    """What the schema lets a hello reply declare is what the harness knows: each enum of
    ``supports`` is one table of the code (a value added to one and not the other would be
    refused by one reader and accepted by the other)."""
    from mtgcheck.engines.base import FEATURES, OBSERVABLE, VERBS
    from mtgcheck.model.state import HOWS

    props = json.loads((DATA / "engine-protocol-1.schema.json").read_text())["$defs"]["supports"]["properties"]
    enum = {key: props[key]["items"]["enum"] for key in ("verbs", "hows", "observe", "lacks")}
    assert sorted(enum["verbs"]) == sorted(VERBS)
    assert sorted(enum["hows"]) == sorted(HOWS[1:])  # HOWS[0]: not cast
    assert sorted(enum["observe"]) == sorted(OBSERVABLE)
    assert sorted(enum["lacks"]) == sorted(FEATURES)


REQUEST = _validator()
REPLY = {op: _validator(f"#/$defs/{op}Reply") for op in ("hello", "setup", "actions", "apply", "observe", "quit")}


def schema_problems(request: Any, reply: Any) -> list[str]:
    """What the schema finds wrong with one exchange (the reply is read by its request's op)."""
    errs = [f"request {request!r:.80}: {e.message}" for e in REQUEST.iter_errors(request)]
    op = request.get("op") if isinstance(request, dict) else None
    reply_schema = REPLY.get(op) if isinstance(op, str) else None
    reply_schema = reply_schema or _validator("#/$defs/error")
    errs += [f"reply to {op}: {reply!r:.80}: {e.message}" for e in reply_schema.iter_errors(reply)]
    return errs


def check_log(log: Path) -> int:
    """Validate every exchange the engine logged (each distinct one once: most repeat);
    return how many exchanges there were."""
    lines = log.read_text().splitlines()
    exchanges = [json.loads(line) for line in set(lines)]
    problems = [p for x in exchanges for p in schema_problems(x["request"], x["reply"])]
    assert not problems, "\n".join(problems[:10])
    return len(lines)


def doc_session() -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    """The example session of docs/engine-protocol.md: (request, reply shown or None)."""
    doc = (ROOT / "docs" / "engine-protocol.md").read_text()
    found = re.search(r"## A session\n\n```\n(.*?)```", doc, re.DOTALL)
    assert found is not None
    out: list[tuple[dict[str, Any], dict[str, Any] | None]] = []
    for line in found.group(1).splitlines():
        if line.startswith("> "):
            out.append((json.loads(line[2:]), None))
        else:
            assert line.startswith("< ") and out[-1][1] is None, line
            out[-1] = (out[-1][0], json.loads(line[2:]))
    return out


def test_schema_is_a_valid_schema_and_the_doc_session_fits_it() -> None:
    Draft202012Validator.check_schema(json.loads((DATA / "engine-protocol-1.schema.json").read_text()))
    assert "mtgcheck/data/engine-protocol-1.schema.json" in (ROOT / "docs" / "engine-protocol.md").read_text()
    session = doc_session()
    assert [r["op"] for r, _ in session] == ["hello", "setup", "actions", "apply", "apply", "observe", "quit"]
    for req, rep in session:
        assert not schema_problems(req, {"ok": True} if rep is None else rep)


def test_the_example_engine_answers_the_doc_session(tmp_path: Path) -> None:
    """The page's session is a real one: the engine gives the replies shown (its hello
    declares more, and its observation reports more keys)."""
    log = tmp_path / "doc.jsonl"
    engine = example(log)
    try:
        for req, shown in doc_session()[1:-1]:
            got = engine.call(req)  # type: ignore[attr-defined]  # the pipe's raw call
            assert shown is not None
            if "observation" in shown:
                got["observation"] = {k: got["observation"][k] for k in shown["observation"]}
            if "reason" in got:  # free text: the page shows its beginning
                assert got["reason"].startswith(shown.get("reason", "(none shown)"))
                got["reason"] = shown["reason"]
            assert got == shown, req
    finally:
        engine.close()
    assert check_log(log) == 7  # the client greets a fresh process with hello, then the page's 6 requests


@pytest.mark.parametrize("request_, reply", [
    ({"op": "hello", "protocol": "mtgcheck.engine/2"}, {"ok": True, "name": "e", "version": "1", "supports": {"cards": []}}),
    ({"op": "hello", "protocol": "mtgcheck.engine/1"}, {"ok": True, "name": "e", "version": "1", "supports": {}}),
    ({"op": "setup", "setup": {"players": 2}}, {"ok": True}),
    ({"op": "setup", "setup": {"players": 2, "turn": 1, "active": 0, "step": "main1", "cards": []}},
     {"ok": False, "unsupported": "yes", "error": "x"}),
    ({"op": "actions"}, {"ok": True, "actions": [{"player": 0, "do": "pass", "expect": "legal"}]}),
    ({"op": "apply", "action": {"player": 0, "do": "dance"}}, {"ok": True, "legal": True}),
    ({"op": "apply", "action": {"player": 0, "do": "pass"}}, {"ok": True, "legal": "yes"}),
    ({"op": "observe"}, {"ok": True, "observation": {"step": "upkeep"}}),
    ({"op": "observe"}, {"ok": False}),
    ({"op": "quit", "now": True}, {"ok": True}),
])
def test_schema_rejects_malformed_lines(request_: Any, reply: Any) -> None:
    assert schema_problems(request_, reply)


def test_the_models_replies_fit_the_schema() -> None:
    """The reference speaks the whole vocabulary (abilities, planes, every verb): the schema
    must accept what the model would answer, at every step of every scenario."""
    model = ModelEngine()
    hello = model.hello()
    assert not schema_problems({"op": "hello", "protocol": "mtgcheck.engine/1"},
                               {"ok": True, "name": hello.name, "version": hello.version,
                                "supports": hello.support.to_json()})
    checked = 0
    for path in SCENARIOS[::4]:
        doc = json.loads(path.read_text())
        if doc.get("variant"):
            continue
        model.setup(doc["setup"])
        for act in doc["actions"] + [None]:
            assert not schema_problems({"op": "actions"}, {"ok": True, "actions": model.actions()})
            obs = {k: v for k, v in model.observe().items() if k != "bound_hit"}
            assert not schema_problems({"op": "observe"}, {"ok": True, "observation": obs})
            if act is not None:
                sent = wire(act)
                r = model.apply(sent)
                assert not schema_problems({"op": "apply", "action": sent},
                                           {"ok": True, "legal": r.legal, "reason": r.reason})
            checked += 1
    assert checked > 50


# --- the engine beside the model ---------------------------------------------------------------

def example(log: Path, broken: bool = False) -> Engine:
    """The example engine over the pipe, as ``--engine "cmd:..."`` starts it."""
    argv = [sys.executable, str(ENGINE), "--log", str(log)] + (["--broken"] if broken else [])
    return open_engine("cmd:" + shlex.join(argv))


#: The faithful engine, the broken one, the model, the declared scope, the faithful one's log.
Engines = tuple[Engine, Engine, ModelEngine, Support, Path]


@pytest.fixture
def engines(tmp_path: Path) -> Iterator[Engines]:
    """The faithful engine, the broken one, the model, the declared scope, and the log."""
    log = tmp_path / "session.jsonl"
    good, bad = example(log), example(tmp_path / "broken.jsonl", broken=True)
    support = good.hello().support
    assert bad.hello().support == support
    model = open_engine("model")
    assert isinstance(model, ModelEngine)
    yield good, bad, model, support, log
    good.close()
    bad.close()


def in_scope(support: Support, doc: dict[str, Any]) -> bool:
    s = doc["setup"]
    return (not doc.get("variant") and s["players"] in support.players and not s.get("planechase")
            and not s.get("left") and not s.get("extra_turns")
            and {c["card"] for c in s["cards"]} <= support.cards
            # the engine's docstring: no player owning more cards than the maximum hand size
            # (it has no cleanup discard)
            and all(sum(c["owner"] == p for c in s["cards"]) <= MAX_HAND_SIZE for p in range(s["players"]))
            and all(a["do"] in support.verbs and a.get("how", "normal") in support.hows for a in doc["actions"]))


def scoped(support: Support, acts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The model's actions the engine declared it implements (the model also lists ``leave``)."""
    return [a for a in acts if a["do"] in support.verbs and a.get("how", "normal") in support.hows]


def _same(key: str, mine: Any, ref: Any) -> bool:
    """Plotted cards and the players in the game may be listed in any order."""
    if key in ("plotted", "in_game") and isinstance(mine, list):
        return sorted(mine) == sorted(ref)
    return bool(mine == ref)


def divergence(engine: Engine, model: ModelEngine, support: Support) -> str | None:
    """Compare the legal actions and the declared observations now; None if they agree."""
    se = model.session
    assert se is not None

    def as_model(acts: list[dict[str, Any]], who: str) -> set[Any]:
        return set(se.to_model(acts, model.state, source=who, field="actions"))

    mine, ref = as_model(engine.actions(), "(engine)"), as_model(scoped(support, model.actions()), "(model)")
    if mine != ref:
        def show(acts: set[Any]) -> list[str]:
            return sorted(json.dumps(wire_action(se.cfg, a)) for a in acts)
        return f"actions: engine only {show(mine - ref)}, model only {show(ref - mine)}"
    eo, mo = engine.observe(), model.observe()
    assert not mo["bound_hit"], "the position went past the model's bounds"
    diff = {k: (eo.get(k), mo[k]) for k in sorted(support.observe) if not _same(k, eo.get(k), mo[k])}
    return f"observation (engine, model): {diff}" if diff else None


def step_both(engine: Engine, model: ModelEngine, action: dict[str, Any]) -> tuple[bool, str | None]:
    """Apply on both: (the engine's verdict, a divergence or None)."""
    mine, ref = engine.apply(action), model.apply(action)
    if mine.legal != ref.legal:
        return mine.legal, (f"apply {json.dumps(action)}: engine legal={mine.legal} ({mine.reason}), "
                            f"model {ref.legal} ({ref.reason})")
    return mine.legal, None


def replay(engine: Engine, model: ModelEngine, support: Support, doc: dict[str, Any]) -> tuple[int, str | None]:
    """Play a scenario's timeline on both; (steps compared, the first divergence or None).
    The engine's verdicts must also be the ones the scenario file expects."""
    engine.setup(doc["setup"])
    model.setup(doc["setup"])
    for i, act in enumerate(doc["actions"]):
        found = divergence(engine, model, support)
        if found:
            return i, found
        legal, found = step_both(engine, model, wire(act))
        if found:
            return i, found
        assert (verdict_of(act) or "legal") == ("legal" if legal else "illegal"), (doc["name"], i)
    return len(doc["actions"]), divergence(engine, model, support)


def random_setup(rng: random.Random) -> dict[str, Any]:
    """A position inside the example's scope.  At most one Show-Off a player keeps the
    model's four stack slots for triggered abilities enough; a few lands in each library
    keep most games from ending at the first draw."""
    turn = rng.randint(1, 3)
    cards: list[dict[str, Any]] = []
    for p in (0, 1):
        spells = (["Slickshot Show-Off"] if rng.random() < 0.8 else []) + \
            [rng.choice(["Test Plotted Shock", "Lightning Bolt"]) for _ in range(rng.randint(0, 2))]
        for name in spells + [rng.choice(["Island", "Forest"]) for _ in range(rng.randint(1, 3))]:
            zone = rng.choice(["library", "hand", "hand", "exile", "battlefield", "graveyard"]) \
                if name in spells else "library"
            card = {"id": f"c{len(cards)}", "card": name, "owner": p, "zone": zone}
            if zone == "exile" and rng.random() < 0.8:
                card["plotted_turn"] = rng.randint(1, turn)
            cards.append(card)
    rng.shuffle(cards)
    return {"players": 2, "turn": turn, "active": rng.randrange(2), "step": rng.choice(STEPS),
            "life": [rng.choice([20, 20, 3]) for _ in (0, 1)], "mana": [rng.randint(0, 4) for _ in (0, 1)],
            "cards": cards}


def random_trace(engine: Engine, model: ModelEngine, support: Support, rng: random.Random,
                 length: int = 25) -> tuple[int, str | None]:
    """Play ``length`` random legal actions of the model (one in five instead any action the
    scope can name, legal or not, to compare refusals too)."""
    setup = random_setup(rng)
    engine.setup(setup)
    model.setup(setup)
    assert model.session is not None
    cfg = model.session.cfg
    every = scoped(support, [wire_action(cfg, a) for a in catalogue(cfg).by_action
                                    if a.verb != "cast" or HOWS[a.how] in support.hows])
    for i in range(length):
        found = divergence(engine, model, support)
        legal = scoped(support, model.actions())
        if found or not legal:
            return i, found
        _, found = step_both(engine, model, rng.choice(every if rng.random() < 0.2 else legal))
        if found:
            return i, found
    return length, divergence(engine, model, support)


def in_scope_scenarios(support: Support) -> list[dict[str, Any]]:
    docs = [json.loads(p.read_text()) for p in SCENARIOS]
    return [d for d in docs if in_scope(support, d)]


def test_the_engine_imports_nothing_from_mtgcheck() -> None:
    tree = ast.parse(ENGINE.read_text())
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert imported and not any(m.split(".")[0] == "mtgcheck" for m in imported), imported


def test_bad_requests_get_error_replies(tmp_path: Path) -> None:
    """A request the engine can't answer gets ``"ok": false`` and a message, never silence."""
    log = tmp_path / "bad.jsonl"
    lines = ["not json", '{"op": "actions"}', '{"op": "hello", "protocol": "mtgcheck.engine/9"}',
             '{"op": "dance"}', '{"op": "hello", "protocol": "mtgcheck.engine/1"}', '{"op": "quit"}']
    out = subprocess.run([sys.executable, str(ENGINE), "--log", str(log)], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, timeout=30, check=True).stdout.splitlines()
    replies = [json.loads(line) for line in out]
    assert [r["ok"] for r in replies] == [False, False, False, False, True, True]
    assert all(r["error"] for r in replies[:4])
    exchanges = [json.loads(line) for line in log.read_text().splitlines()]
    assert [REQUEST.is_valid(x["request"]) for x in exchanges] == [False, True, False, False, True, True]
    assert [p for x in exchanges for p in schema_problems(x["request"], x["reply"]) if p.startswith("reply")] == []


def test_setups_outside_the_scope_are_refused(engines: Engines) -> None:
    good, _, _, support, log = engines
    base = {"players": 2, "turn": 1, "active": 0, "step": "main1",
            "cards": [{"id": "a", "card": "Slickshot Show-Off", "owner": 0, "zone": "hand"}]}
    outside = [{**base, "players": 3},
               {**base, "cards": [{"id": "o", "card": "Omniscience", "owner": 0, "zone": "hand"}]},
               {**base, "left": [1]}, {**base, "extra_turns": [1]}]
    assert "Omniscience" not in support.cards and 3 not in support.players
    for setup in outside:
        with pytest.raises(EngineRefused):
            good.setup(setup)
    good.setup(base)  # still answering, and in scope now
    assert good.observe()["zones"] == {"a": "hand"}
    assert check_log(log) >= 7


def test_scenarios_in_scope_agree_with_the_model(engines: Engines) -> None:
    good, _, model, support, log = engines
    docs = in_scope_scenarios(support)
    assert len(docs) >= 8
    compared = 0
    for doc in docs:
        steps, found = replay(good, model, support, doc)
        assert found is None, f"{doc['name']}, after {steps} actions: {found}"
        compared += steps + 1
    assert compared > 60
    assert check_log(log) > 3 * compared


def test_random_traces_agree_with_the_model(engines: Engines) -> None:
    good, _, model, support, log = engines
    rng = random.Random(SEED)
    compared = 0
    for t in range(30):
        steps, found = random_trace(good, model, support, rng)
        assert found is None, f"trace {t}, after {steps} actions: {found}"
        compared += steps + 1
    assert compared > 400  # the traces are not cut short by lost games
    assert check_log(log) > 3 * compared


def test_the_broken_engine_is_caught(engines: Engines) -> None:
    good, bad, model, support, log = engines
    waits = next(d for d in in_scope_scenarios(support) if d["rules"] == ["702.170d"] and "waits" in d["name"])
    steps, found = replay(bad, model, support, waits)
    assert steps == 1 and found is not None and '"how": "plotted"' in found, found
    assert replay(good, model, support, waits)[1] is None
    # Random play finds it too (the first traces the faithful engine plays without a
    # divergence), and nothing else: every first divergence is that rule.
    rng = random.Random(SEED)
    caught = [f for _, f in (random_trace(bad, model, support, rng) for _ in range(15)) if f]
    assert caught
    for f in caught:
        assert f.startswith("actions: engine only [") and f.endswith("model only []") and '"how": "plotted"' in f, f
    assert check_log(log) > 0 and check_log(log.with_name("broken.jsonl")) > 0
