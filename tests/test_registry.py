"""The checker registry and the one rule-set grammar (issue 15, item 3).

A throwaway checker registered inside ``registry.scratch()`` shows up everywhere the checkers
are listed (the CLI's choices, the check run and its JUnit XML, the pytest plugin's items, the
mutants' kill matrix, the manifest) and is gone afterwards.  Rule sets are read by one parser
wherever they are named.
"""

from __future__ import annotations

import json
import pickle
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
from click.testing import CliRunner

from mtgcheck import check_run as cr
from mtgcheck.budget import MAX_SEARCH_THREADS
from mtgcheck.checkers import registry
from mtgcheck.checkers.registry import BaseChecker
from mtgcheck.checkers.result import PROVED, VIOLATED, Verdict
from mtgcheck.cli import main
from mtgcheck.configs import BUILTIN
from mtgcheck.model.config import VARIANTS
from mtgcheck.model.mutants import BY_ID as MUTANT, MUTANTS
from mtgcheck.properties.catalogue import PROPERTIES
from mtgcheck.rulesets import REFERENCE, RuleSet, RuleSetError
from mtgcheck.store import store

from .conftest import ROOT

pytest_plugins = ["pytester"]

PID = PROPERTIES[0].id
COSTS = next(c for c in BUILTIN if c.name == "costs")


class Fake(BaseChecker):
    """Proves everything on the reference and a variant; kills every mutant at depth 1."""

    name = "fake"
    proves = True
    depends = ("variant", "seed")
    seen: ClassVar[list[tuple[str, str]]] = []

    def check(self, conf: Any, props: Sequence[Any], rules: RuleSet, budget: Any,
              slots: Sequence[int] = ()) -> list[Verdict]:
        Fake.seen.append((conf.name, str(rules)))
        if rules.kind == "mutant":
            return [Verdict(self.name, p.id, conf.name, VIOLATED, depth=1) for p in props]
        return [Verdict(self.name, p.id, conf.name, PROVED, depth=0, k=1) for p in props]


@pytest.fixture
def fake() -> Iterator[type[Fake]]:
    Fake.seen.clear()
    with registry.scratch():
        registry.register(Fake)
        yield Fake
    assert "fake" not in registry.names()


# --- the registry ------------------------------------------------------------------------------


def test_the_builtin_checkers_in_the_order_of_the_work() -> None:
    assert registry.names() == cr.CHECKERS == ("z3", "graph", "hypothesis")
    assert registry.names(proves=True) == ("z3", "graph")  # graph: at its fixpoint (--exhaustive)
    assert registry.names(separates=True) == ("z3", "graph")
    assert registry.names(counts_rules=True) == ("graph", "hypothesis")
    for name in registry.names():
        assert isinstance(registry.get(name), registry.Checker) and registry.get(name).name == name


def test_a_checker_is_registered_once_and_scratch_restores(fake: type[Fake]) -> None:
    assert registry.names() == ("z3", "graph", "hypothesis", "fake") == cr.CHECKERS
    with pytest.raises(ValueError, match="already registered"):
        registry.register(Fake)
    with pytest.raises(ValueError, match="no checker"):
        registry.get("nope")


def test_a_registered_checker_runs_in_the_plan_and_combines(fake: type[Fake]) -> None:
    opts = cr.Options(seed=3)
    units = cr.plan(["fake", "graph"], [PID], [COSTS], opts)
    assert [u.checker for u in units] == ["graph", "fake"]  # registration order
    verdicts = cr.run_check(["fake"], [PID], [COSTS], opts, jobs=1)
    assert fake.seen == [("costs", "reference")]
    (cell,) = cr.combine(verdicts)
    assert (cell.checker, cell.status, cell.cell()) == ("fake", PROVED, "proved (k=1)")  # it proves


def test_search_threads_default_to_the_cores_the_running_units_leave(fake: type[Fake],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """--search-threads 0 (the CLI's default): one unit on two cores gets both, as many units
    as jobs one each, a cluster one; a number asked is kept.  The checker sees it in its
    options (what the compiled graph search is handed)."""
    assert cr.search_threads(0, jobs=2, units=1, cores=2, on_cluster=False) == 2
    assert cr.search_threads(0, jobs=2, units=30, cores=2, on_cluster=False) == 1
    assert cr.search_threads(0, jobs=1, units=30, cores=8, on_cluster=False) == 8
    assert cr.search_threads(0, jobs=2, units=1, cores=None, on_cluster=False) == 1
    assert cr.search_threads(0, jobs=2, units=1, cores=2, on_cluster=True) == 1
    assert cr.search_threads(3, jobs=2, units=30, cores=2, on_cluster=False) == 3
    assert cr.search_threads(0, jobs=1, units=1, cores=64, on_cluster=False) == MAX_SEARCH_THREADS < 64
    seen: list[int] = []
    monkeypatch.setattr(Fake, "check", lambda self, conf, props, rules, budget, slots=():
                        seen.append(budget.search_threads) or [])
    monkeypatch.setattr("os.cpu_count", lambda: 4)
    cr.run_check(["fake"], [PID], [COSTS], cr.Options(search_threads=0), jobs=1)
    cr.run_check(["fake"], [PID], [COSTS], cr.Options(search_threads=2), jobs=1)
    assert seen == [4, 2]


def test_a_registered_checker_is_a_cli_choice_and_in_the_junit_xml(fake: type[Fake], tmp_path: Path) -> None:
    runner = CliRunner()
    assert "fake" in runner.invoke(main, ["check", "--help"]).output
    assert "fake" in runner.invoke(main, ["mutants", "--help"]).output
    assert "fake" not in runner.invoke(main, ["diff", "--help"]).output  # it does not separate rule sets
    junit, report, manifest = tmp_path / "out.xml", tmp_path / "out.json", tmp_path / "manifest.json"
    r = runner.invoke(main, ["check", "--checker", "fake", "--config", "costs", "--property", PID, "--no-store",
                             "-j", "1", "--variant", "116.2k", "--junit", str(junit), "--json", str(report),
                             "--write-manifest", str(manifest)])
    assert r.exit_code == 0, r.output
    assert fake.seen == [("costs", "variant-116.2k")]
    names = [tc.get("name") for tc in ET.parse(junit).getroot().iter("testcase")]
    assert names == [f"fake::{PID}"]
    assert json.loads(report.read_text())["combined"] == [
        {"property": PID, "checker": "fake", "status": "proved", "cell": "proved (k=1)"}]
    doc = json.loads(manifest.read_text())
    seconds = doc["units"]["fake"]["costs"].pop("seconds")  # the unit's time: the next run's schedule
    assert isinstance(seconds, float) and seconds >= 0
    assert doc["options"]["variant"] == "116.2k" and doc["units"] == {"fake": {"costs": {"holds": [PID], "unknown": []}}}


def test_an_unregistered_checker_is_a_usage_error() -> None:
    r = CliRunner().invoke(main, ["check", "--checker", "fake", "--config", "costs"])
    assert r.exit_code == 2 and "'fake' is not one of 'z3', 'graph', 'hypothesis'" in r.output


def test_a_registered_checker_is_in_the_mutants_matrix(fake: type[Fake], tmp_path: Path) -> None:
    junit = tmp_path / "m.xml"
    r = CliRunner().invoke(main, ["mutants", "--checker", "fake", "--mutant", "plot-with-stack", "-j", "1",
                                  "--junit", str(junit)])
    assert r.exit_code == 0 and "mutation score 100%" in r.output and "fake: kills 1/1" in r.output
    assert fake.seen == [("break-plot", "mutant-plot-with-stack")]
    (tc,) = ET.parse(junit).getroot().iter("testcase")
    assert tc.get("name") == "mutant::plot-with-stack" and tc.find("failure") is None


def test_a_registered_checker_is_a_pytest_item(fake: type[Fake], pytester: pytest.Pytester) -> None:
    store = pytester.path / "store"
    store.mkdir()
    junit = pytester.path / "items.xml"
    r = pytester.runpytest_inprocess("--mtgcheck", "--mtgcheck-checker", "fake", "--mtgcheck-config", "costs",
                                     "--mtgcheck-property", PID, f"--mtgcheck-store={store}", f"--junitxml={junit}")
    r.assert_outcomes(passed=1)
    (tc,) = ET.parse(junit).getroot().iter("testcase")
    assert f"{tc.get('classname')}::{tc.get('name')}" == f"fake::{PID}[costs]"
    assert "1 cells (property x checker): 1 proved" in r.stdout.str()


# --- one rule-set grammar ----------------------------------------------------------------------


@pytest.mark.parametrize("text", ["reference", *(f"variant-{v}" for v in VARIANTS),
                                  *(f"mutant-{m.id}" for m in MUTANTS), "mutant-cost.sacrifice",
                                  "mutant-plot.main-phase+plot.stack-empty"])
def test_canonical_spellings_round_trip(text: str) -> None:
    r = RuleSet.parse(text)
    assert str(r) == text and RuleSet.parse(str(r)) == r
    assert pickle.loads(pickle.dumps(r)) == r  # it crosses to worker processes inside Options


def test_aliases_and_the_models_arguments() -> None:
    assert RuleSet.parse("702.170a") == REFERENCE == RuleSet.of(None)
    assert (REFERENCE.variant, REFERENCE.disabled) == (None, frozenset())
    for v in VARIANTS:
        assert RuleSet.parse(v) == RuleSet.parse(f"variant-{v}") == RuleSet.from_build(v)
        assert (RuleSet.parse(v).variant, RuleSet.parse(v).disabled) == (v, frozenset())
    for m in MUTANTS:  # a mutant's name gives its own variant and conditions
        r = RuleSet.parse(f"mutant-{m.id}")
        assert (r.variant, r.disabled) == (m.variant, m.disabled)
    anon = RuleSet.parse("mutant-plot.stack-empty+plot.main-phase")
    assert str(anon) == "mutant-plot.main-phase+plot.stack-empty"
    assert anon.disabled == {"plot.main-phase", "plot.stack-empty"} and anon.variant is None
    assert RuleSet.from_build(None, anon.disabled) == anon


@pytest.mark.parametrize("text", ["nope", "mutant-nope", "mutant-", "variant-9.9z", "mutant-a.b+", "variant-", ""])
def test_what_is_no_rule_set(text: str) -> None:
    with pytest.raises(RuleSetError):
        RuleSet.parse(text)


def test_mutant_means_one_thing_in_diff_and_engine_specs() -> None:
    from mtgcheck.diff import parse_rule_set
    from mtgcheck.engines.base import EngineSpecError
    from mtgcheck.engines.model_engine import rules_of_spec
    from mtgcheck.errors import UsageError

    for text in ("mutant-plot-with-stack", "mutant-cost.sacrifice", "116.2k", "reference"):
        r = parse_rule_set(text)
        assert rules_of_spec(f"model:{text}")[:2] == (r.variant, r.disabled)
    assert parse_rule_set("mutant-plot-with-stack").disabled == MUTANT["plot-with-stack"].disabled
    with pytest.raises(UsageError):
        parse_rule_set("mutant-nope")
    with pytest.raises(EngineSpecError, match="no mutant 'nope'"):
        rules_of_spec("model:mutant-nope")


def test_the_target_of_a_counterexample_is_the_rule_sets_name() -> None:
    from mtgcheck.checkers.result import VIOLATED, Verdict
    from mtgcheck.configs import BUILTIN
    from mtgcheck.replay import from_doc, from_verdict
    from mtgcheck.store import content_hash

    conf = next(c for c in BUILTIN if c.name == "costs")
    v = Verdict("graph", "stack-ordered", conf.name, VIOLATED, depth=0)
    for r in (REFERENCE, RuleSet.parse("116.2k"), RuleSet.parse("mutant-cost.sacrifice")):
        doc = from_verdict(v, conf.position, seed=0, rules=r)
        assert doc["target"] == str(r)
        assert from_doc({**doc, "hash": content_hash(doc)}, "c.json").rules == r


def test_options_carry_one_rule_set() -> None:
    opts = cr.Options(rules=RuleSet.parse("116.2k"))
    assert opts.rules.variant == "116.2k" and not hasattr(opts, "disabled")
    assert cr.Options().rules == REFERENCE


def test_the_harness_names_no_checker_but_through_the_registry() -> None:
    """Checker names are string literals only where the checkers are defined (and ``diff``'s
    default), never in an if/elif dispatch of the harness."""
    import ast

    from .conftest import ROOT

    allowed = {("cli.py", "graph")}  # mtgcheck diff --checker's default
    found = []
    for name in ("check_run.py", "cli.py", "manifest.py", "coverage.py", "junit.py", "mutants_run.py",
                 "pytest_plugin.py", "diff.py", "executors.py", "configs.py", "rulesets.py"):
        for node in ast.walk(ast.parse((ROOT / "mtgcheck" / name).read_text())):
            if isinstance(node, ast.Constant) and node.value in registry.names() and (name, node.value) not in allowed:
                found.append(f"{name}:{node.lineno}: {node.value!r}")
    assert found == []


def test_a_condition_that_does_not_exist_is_refused() -> None:
    """``mutant-ID`` switches off declared guard conditions or effect clauses: a misspelt id
    would otherwise check the reference rules under a mutant's name.  The rule set's name is
    refused, and so is a build that switches it off; the CLI prints it on one line, exit 2."""
    import subprocess
    import sys

    from mtgcheck.configs import BUILTIN
    from mtgcheck.model.actions import catalogue
    from mtgcheck.model.errors import UnknownConditionError
    from mtgcheck.model.setup import build

    with pytest.raises(RuleSetError, match="'cost.sacrifce' is no guard condition"):
        RuleSet.parse("mutant-cost.sacrifce+plot.main-phase")
    costs = next(c for c in BUILTIN if c.name == "costs")
    # a declared condition this configuration has no use for is fine (a mutant runs everywhere)
    cfg, _ = build(costs.position, disabled=frozenset({"luck.nonland", "casting.x-zero-when-free"}))
    assert catalogue(cfg).transitions
    cfg, _ = build(costs.position, disabled=frozenset({"cost.sacrifce"}))
    with pytest.raises(UnknownConditionError, match="'cost.sacrifce' is no guard condition"):
        catalogue(cfg)
    r = subprocess.run([sys.executable, "-m", "mtgcheck.cli", "diff", "--config", "costs", "reference",
                        "mutant-cost.sacrifce"], capture_output=True, text=True, check=False)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "'cost.sacrifce'" in r.stderr, r.stderr


def test_every_guard_condition_is_declared_and_used() -> None:
    """The registry of guard conditions is the model's ``Cond("...")`` ids, no more, no less."""
    import re
    from pathlib import Path

    from mtgcheck.model import vocabulary

    used = set()
    for path in Path(vocabulary.__file__).parent.glob("*.py"):
        used |= set(re.findall(r'Cond\("([^"]+)"', path.read_text()))
    assert used == vocabulary.GUARD_CONDITIONS


def test_every_effect_clause_is_declared_and_used() -> None:
    """The registry of effect clauses is the model's ``cfg.on`` calls, no more, no less."""
    import re
    from pathlib import Path

    from mtgcheck.configs import BUILTIN
    from mtgcheck.model import config as model_config
    from mtgcheck.model.setup import build

    used = set()
    for path in Path(model_config.__file__).parent.glob("*.py"):
        used |= set(re.findall(r'\.on\("([^"]+)"\)', path.read_text()))
    assert used == set(model_config.EFFECT_CLAUSES)
    from .test_cr_citations import _rules

    assert not [cr for cr in model_config.EFFECT_CLAUSES.values() if cr not in _rules()]
    cfg, _ = build(BUILTIN[0].position)
    with pytest.raises(KeyError):
        cfg.on("zones.no-such-clause")


# --- counterexamples found by a registered checker -------------------------------------------


def test_replay_accepts_a_counterexample_of_a_checker_added_through_the_registry_alone(
        fake: type[Fake], tmp_path: Path) -> None:
    """``found_by`` is checked against the registry in force, not against a copy of the
    checker names: a checker registered and nothing else has its counterexamples replayed."""
    source = next((ROOT / "counterexamples" / "variant-116.2k").glob("*.json"))
    doc = json.loads(source.read_text(encoding="utf-8"))
    doc["found_by"] = "fake"
    path, new = store(tmp_path, doc)
    assert new and json.loads(path.read_text(encoding="utf-8"))["found_by"] == "fake"
    r = CliRunner().invoke(main, ["replay", str(path)], catch_exceptions=False)
    assert r.exit_code == 0 and "1 passed, 0 failed" in r.stdout, r.output


def test_replay_refuses_a_checker_no_one_registered(tmp_path: Path) -> None:
    source = next((ROOT / "counterexamples" / "variant-116.2k").glob("*.json"))
    doc = json.loads(source.read_text(encoding="utf-8"))
    doc["found_by"] = "fake"
    path, _ = store(tmp_path, doc)
    r = CliRunner().invoke(main, ["replay", str(path)], catch_exceptions=False)
    assert r.exit_code == 2
    assert "found_by: expected one of z3, graph, hypothesis, differential, got 'fake'" in r.stderr, r.stderr
