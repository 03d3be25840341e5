"""The counterexample store (atomic, deduplicated) and replay of every stored counterexample."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mtgcheck.errors import FormatError
from mtgcheck.replay import load, replay
from mtgcheck.rulesets import REFERENCE, RuleSet
from mtgcheck.store import content_hash, store, stored

from .conftest import ROOT

STORED = stored(ROOT / "counterexamples")
# Property counterexamples (a rule set breaks a property) and engines' divergences.
PROPERTY_CX = [p for p in STORED if json.loads(p.read_text())["violates"] != "divergence"]
DIVERGENCES = [p for p in STORED if p not in PROPERTY_CX]


def _doc(seed: int = 0) -> dict:  # type: ignore[type-arg]
    src = json.loads(PROPERTY_CX[0].read_text())
    src.pop("hash")
    src["seed"] = seed
    return src


def test_there_are_stored_counterexamples() -> None:
    assert PROPERTY_CX


@pytest.mark.parametrize("path", DIVERGENCES, ids=[f"{p.parent.name}/{p.stem}" for p in DIVERGENCES])
def test_stored_divergence_holds_on_the_rules(path: Path) -> None:
    """An engine's divergence records the rules' verdict for each action: the model still gives them."""
    from mtgcheck.scenario_run import run

    cx = load(path)
    rep = run(cx.scenario)
    assert rep.passed, [v.text for v in rep.verdicts if not v.ok]


@pytest.mark.parametrize("path", PROPERTY_CX, ids=[p.stem for p in PROPERTY_CX])
def test_stored_counterexample_replays(path: Path) -> None:
    """On its target it reproduces, identically each time; on the reference it violates nothing."""
    cx = load(path)
    a = replay(cx, cx.rules)
    b = replay(cx, cx.rules)
    assert a.reproduces and a.final == b.final and a.violated == b.violated
    ref = replay(cx, REFERENCE)
    assert not ref.violated


def test_same_counterexample_stored_once(tmp_path: Path) -> None:
    p1, new1 = store(tmp_path, _doc(seed=1))
    p2, new2 = store(tmp_path, _doc(seed=2))  # another finder, another seed: the same counterexample
    assert p1 == p2 and new1 and not new2
    assert len(stored(tmp_path)) == 1


def _writer(args: tuple[str, int]) -> str:
    root, seed = args
    return str(store(root, _doc(seed))[0])


def test_concurrent_writers_leave_one_file(tmp_path: Path) -> None:
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        paths = pool.map(_writer, [(str(tmp_path), i) for i in range(16)])
    assert len(set(paths)) == 1
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) == 1 and json.loads(files[0].read_text())["hash"] == content_hash(json.loads(files[0].read_text()))


def test_interrupted_writer_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*a: object, **k: object) -> None:
        raise KeyboardInterrupt  # killed between writing the temporary file and publishing it

    monkeypatch.setattr(os, "link", boom)
    with pytest.raises(KeyboardInterrupt):
        store(tmp_path, _doc())
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


def test_killed_writer_never_leaves_a_partial_file(tmp_path: Path) -> None:
    """SIGKILL a writer at random moments: there is either no file or a whole, valid one."""
    code = ("import json,sys; from mtgcheck.store import store; "
            "doc=json.loads(sys.stdin.read()); [store(sys.argv[1], dict(doc, seed=i)) for i in range(10**6)]")
    proc = subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stdin=subprocess.PIPE, cwd=ROOT)
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(_doc()).encode())
    proc.stdin.close()
    try:
        proc.wait(timeout=1.5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    for f in stored(tmp_path):
        load(f)  # whole and valid (hash checked)


def test_tampered_file_is_refused(tmp_path: Path) -> None:
    path, _ = store(tmp_path, _doc())
    doc = json.loads(path.read_text())
    doc["scenario"]["setup"]["mana"] = [9, 9]
    path.write_text(json.dumps(doc))
    with pytest.raises(FormatError, match="hash"):
        load(path)
    r = subprocess.run([sys.executable, "-m", "mtgcheck.cli", "replay", str(path)], capture_output=True, text=True,
                       cwd=ROOT)
    assert r.returncode == 2 and "hash" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_minimized_counterexample_is_smaller_and_still_reproduces() -> None:
    from mtgcheck.configs import BUILTIN
    from mtgcheck.checkers import graph
    from mtgcheck.minimize import minimize
    from mtgcheck.properties.catalogue import BY_ID
    from mtgcheck.replay import from_verdict

    plot = next(c for c in BUILTIN if c.name == "plot")
    v = graph.check(plot, [BY_ID["plot-only-main-phase-empty-stack"]], variant="116.2k")[0][0]
    doc = from_verdict(v, plot.position, seed=0, rules=RuleSet.parse("116.2k"))
    small = minimize(doc)
    assert small["minimized_from"] == {"actions": 3, "cards": len(plot.position.cards), "players": 2}
    assert len(small["scenario"]["setup"]["cards"]) == 1 and small["trace_length"] == 3
    from mtgcheck.store import store

    import tempfile

    with tempfile.TemporaryDirectory() as d:
        path, _ = store(d, small)
        cx = load(path)
        assert replay(cx, RuleSet.parse("116.2k")).reproduces


def test_minimization_drops_a_player_nothing_needs() -> None:
    from mtgcheck.minimize import minimize

    doc = json.loads(PROPERTY_CX[0].read_text())
    doc.pop("hash")
    setup = doc["scenario"]["setup"]
    setup["players"], setup["life"], setup["mana"] = 3, setup["life"] + [20], setup["mana"] + [0]
    acts = doc["scenario"]["actions"]
    acts.insert(2, {"player": 2, "do": "pass", "expect": "legal"})  # three players must all pass
    small = minimize(doc)
    assert small["scenario"]["setup"]["players"] == 2 and small["minimized_from"]["players"] == 3
