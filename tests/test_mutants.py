"""The mutants are real (each names guard conditions or clauses the model has) and each is killed."""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from mtgcheck.configs import SMALL
from mtgcheck.model.actions import catalogue
from mtgcheck.model.mutants import MUTANTS
from mtgcheck.model.setup import build
from mtgcheck.mutants_run import run_one

from .conftest import ROOT


def _clauses() -> set[str]:
    text = "".join(p.read_text() for p in (ROOT / "model").glob("*.py"))
    return set(re.findall(r'cfg\.on\("([a-z0-9.-]+)"\)', text))


def test_at_least_twenty_distinct_mutants() -> None:
    assert len(MUTANTS) >= 20
    assert len({m.id for m in MUTANTS}) == len(MUTANTS)
    assert len({(m.disabled, m.variant) for m in MUTANTS}) == len(MUTANTS)


@pytest.mark.parametrize("m", MUTANTS, ids=[m.id for m in MUTANTS])
def test_mutant_names_what_exists(m) -> None:  # type: ignore[no-untyped-def]
    """A misspelt condition would make the mutant the reference model itself."""
    cfg, _ = build(SMALL[m.position].position)
    conds = {c.id for t in catalogue(cfg).transitions for c in t.conds}
    for d in m.disabled:
        assert d in conds or d in _clauses(), d


@pytest.mark.parametrize("m", MUTANTS, ids=[m.id for m in MUTANTS])
def test_graph_kills_every_mutant(m) -> None:  # type: ignore[no-untyped-def]
    k = run_one(m, "graph", seed=0, timeout=60)
    assert k.killed and k.trace_length is not None and k.trace_length <= m.depth


def test_mutants_cli_junit(tmp_path: Path) -> None:
    x = tmp_path / "m.xml"
    r = subprocess.run([sys.executable, "-m", "mtgcheck.cli", "mutants", "--checker", "graph", "--mutant",
                        "object-id-kept", "--mutant", "plot-with-stack", "--junit", str(x), "-j", "1"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0 and "mutation score 100%" in r.stdout
    names = sorted(c.get("name", "") for c in ET.parse(x).getroot().iter("testcase"))
    assert names == ["mutant::object-id-kept", "mutant::plot-with-stack"]


@pytest.mark.parametrize("checker", ["graph", "z3"])
@pytest.mark.parametrize("mid", ["object-id-kept", "plot-with-stack"])
def test_first_violation_stops_early_with_the_same_shortest_kill(checker: str, mid: str) -> None:
    """The kill matrix stops at the first failing depth: every property failing there is the
    same as in a search run to its end, and the rest holds to that depth, never further."""
    from mtgcheck.check_run import Options, run_unit
    from mtgcheck.model.mutants import BY_ID
    from mtgcheck.properties.catalogue import PROPERTIES
    from mtgcheck.rulesets import RuleSet

    m = BY_ID[mid]
    conf = SMALL[m.position]
    ids = [p.id for p in PROPERTIES]
    full, early = (run_unit(checker, conf, ids, Options(depth=6, rules=RuleSet("mutant", mid), induction=False,
                                                         first_violation=fv)) for fv in (False, True))
    first = min(v.depth for v in full if v.status == "violated")
    at_first = lambda vs: sorted((v.property, v.depth) for v in vs if v.status == "violated" and v.depth == first)  # noqa: E731
    assert at_first(early) == at_first(full) != []
    assert all(v.status != "violated" or v.depth == first for v in early)
    assert all(v.status != "proved" and (v.depth or 0) <= first for v in early)
    if checker == "graph":  # and it did stop early: fewer states than the whole search
        assert early[0].stats["states"] < full[0].stats["states"]
    else:  # BMC went no deeper than the first failing depth, where the full run went on
        assert max(v.depth or 0 for v in early) == first < max(v.depth or 0 for v in full)
