"""``mtgcheck check``: exit codes, JSON and JUnit output, honest verdicts."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from mtgcheck.check_run import Combined, combine, exit_code
from mtgcheck.checkers.result import HOLDS, PROVED, UNKNOWN, VACUOUS, VIOLATED, Verdict
from mtgcheck.properties.catalogue import PROPERTIES

from .conftest import ROOT


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mtgcheck.cli", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=300, env={"CI": "true", "PATH": "/usr/bin:/bin"})


def test_graph_run_json_and_junit(tmp_path: Path) -> None:
    j, x = tmp_path / "c.json", tmp_path / "c.xml"
    r = _cli("check", "--checker", "graph", "--config", "flashback", "--config", "costs",
             "--json", str(j), "--junit", str(x), "-j", "1")
    doc = json.loads(j.read_text())
    assert doc["format"] == "mtgcheck.check-report/1" and doc["exit"] == r.returncode
    statuses = {c["status"] for c in doc["combined"]}
    # Both positions are small: the default search goes on to their fixpoint and proves.
    assert VIOLATED not in statuses and HOLDS not in statuses and PROVED in statuses
    # Planechase properties are exercised by no chosen configuration: vacuous fails, exit 1.
    assert VACUOUS in statuses and r.returncode == 1
    cases = ET.parse(x).getroot().findall(".//testcase")
    assert len(cases) == len(PROPERTIES) and all(c.get("name", "").startswith("graph::") for c in cases)
    assert sum(1 for c in cases if c.find("failure") is not None) == sum(1 for c in doc["combined"]
                                                                        if c["status"] == VACUOUS)


def test_variant_violation_exit_1_with_trace(tmp_path: Path) -> None:
    x = tmp_path / "v.xml"
    r = _cli("check", "--checker", "hypothesis", "--config", "plot", "--variant", "116.2k",
             "--property", "plot-only-main-phase-empty-stack", "--examples", "300", "--seed", "3",
             "--junit", str(x), "-j", "1", "--store", str(tmp_path / "cx"))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "VIOLATED hypothesis::plot-only-main-phase-empty-stack" in r.stdout and "plot" in r.stdout
    assert "seed 3" in r.stdout
    stored = list((tmp_path / "cx").rglob("*.json"))
    assert len(stored) == 1 and "variant-116.2k" in str(stored[0])
    case = ET.parse(x).getroot().find(".//testcase")
    assert case is not None and case.find("failure") is not None


def test_usage_errors_exit_2() -> None:
    r = _cli("check", "--property", "no-such-property")
    assert r.returncode == 2 and "no-such-property" in r.stderr and "Traceback" not in r.stderr
    r = _cli("check", "--config", "nowhere")
    assert r.returncode == 2 and "nowhere" in r.stderr


def _v(checker: str, status: str, config: str = "a") -> Verdict:
    return Verdict(checker, "p", config, status, depth=3, k=0 if status == PROVED else None)


def test_combination_never_hides_a_violation_or_an_unknown() -> None:
    assert combine([_v("graph", HOLDS), _v("graph", VIOLATED, "b")])[0].status == VIOLATED
    assert combine([_v("graph", HOLDS), _v("graph", UNKNOWN, "b")])[0].status == UNKNOWN
    assert combine([_v("graph", VACUOUS), _v("graph", HOLDS, "b")])[0].status == HOLDS
    assert combine([_v("z3", PROVED), _v("z3", HOLDS, "b")])[0].status == HOLDS
    assert combine([_v("z3", PROVED), _v("z3", PROVED, "b")])[0].status == PROVED
    assert exit_code([Combined("p", "z3", UNKNOWN, None)]) == 3
    assert exit_code([Combined("p", "z3", UNKNOWN, None), Combined("q", "graph", VACUOUS, None)]) == 1
    assert exit_code([Combined("p", "z3", UNKNOWN, None), Combined("q", "z3", VIOLATED, None)]) == 1
    assert exit_code([Combined("p", "z3", PROVED, None), Combined("q", "graph", HOLDS, None)]) == 0
