"""Plain ``mtgcheck replay`` fails a property counterexample that no longer reproduces.

A stored counterexample is a regression test only while its trace still breaks its property
on its target rule set; one that does not any more (the rules changed under it) must be
reported, naming the file and the property, not counted as passed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from mtgcheck.cli import main
from mtgcheck.replay import load, replay_property
from mtgcheck.store import content_hash, stored

from .conftest import ROOT

SOURCE = next(p for p in stored(ROOT / "counterexamples") if json.loads(p.read_text())["violates"] != "divergence")


def _copies(tmp_path: Path) -> tuple[Path, Path]:
    """The stored counterexample as it is, and a well-formed copy (hash recomputed) whose last
    action is dropped, so that its trace stops before the property breaks."""
    good = tmp_path / SOURCE.name
    shutil.copy(SOURCE, good)
    doc = json.loads(SOURCE.read_text())
    shorter = dict(doc, scenario=dict(doc["scenario"], actions=doc["scenario"]["actions"][:-1]))
    shorter["hash"] = content_hash(shorter)
    stale = tmp_path / "stale.json"
    stale.write_text(json.dumps(shorter))
    return good, stale


def test_a_reproducing_counterexample_passes(tmp_path: Path) -> None:
    good, _ = _copies(tmp_path)
    ok, line = replay_property(load(good))
    assert ok and ": reproduces; reference: clean" in line
    r = CliRunner().invoke(main, ["replay", str(good)])
    assert r.exit_code == 0, r.output
    assert "1 passed, 0 failed" in r.output


def test_a_counterexample_that_no_longer_reproduces_fails(tmp_path: Path) -> None:
    _, stale = _copies(tmp_path)
    cx = load(stale)
    ok, _ = replay_property(cx)
    assert not ok
    r = CliRunner().invoke(main, ["replay", str(stale)])
    assert r.exit_code == 1, r.output
    [line] = [x for x in r.output.splitlines() if x.startswith(str(stale))]  # one line, naming the file
    assert f"{cx.violates} on {cx.target}: does NOT reproduce" in line
    assert f"the counterexample no longer reproduces: no step of the trace violates {cx.violates}" in line
    assert "0 passed, 1 failed" in r.output


def test_one_stale_file_fails_the_run_beside_a_good_one(tmp_path: Path) -> None:
    good, stale = _copies(tmp_path)
    r = CliRunner().invoke(main, ["replay", str(good), str(stale)])
    assert r.exit_code == 1 and "1 passed, 1 failed" in r.output, r.output


def test_a_refused_action_is_named(tmp_path: Path) -> None:
    """On the reference model the stored 116.2k counterexample's plot in combat is refused
    (CR 702.170a): retargeted there, it no longer reproduces, and the line says which action."""
    doc = json.loads(SOURCE.read_text())
    doc["target"] = "reference"
    doc["hash"] = content_hash(doc)
    moved = tmp_path / "moved.json"
    moved.write_text(json.dumps(doc))
    ref = replay_property(load(moved))
    assert not ref[0] and "the counterexample no longer reproduces: reference refuses action #" in ref[1]
