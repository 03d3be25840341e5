"""CI honesty gates of ``mtgcheck check``: rule coverage, vacuous properties, the manifest.

The check runs in-process (``-j 1``) so that a rule can be taken out of the model by
monkeypatching the action catalogue; the runs use the graph search on ``costs`` (under a
second each) and never store anything in the repository.
"""

from __future__ import annotations

import json
import pickle
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Iterator

import hypothesis
import pytest
from click.testing import CliRunner, Result

from mtgcheck import check_run, coverage, manifest as mf
from mtgcheck.checkers import registry
from mtgcheck.cli import main
from mtgcheck.configs import BUILTIN
from mtgcheck.model import actions
from mtgcheck.model.actions import Cond, Transition
from mtgcheck.model.setup import build

COSTS = next(c for c in BUILTIN if c.name == "costs")
HOLDING = "every-card-in-one-zone"  # holds on costs, whatever the catalogue
VACUOUS_HERE = "planar-die-cost-rises"  # no planar die on costs
DROPPED = "choose"  # the verb of the family a test takes out (Make Your Own Luck's choice on costs)


@pytest.fixture(autouse=True)
def fresh_catalogue() -> Iterator[None]:
    """The catalogue is cached per configuration: clear it around a test that patches the model."""
    actions.catalogue.cache_clear()
    yield
    actions.catalogue.cache_clear()


def _check(*args: str) -> Result:
    return CliRunner().invoke(main, ["check", "--checker", "graph", "--config", "costs", "-j", "1", "--no-store",
                                     *args], catch_exceptions=False)


def _drop_family(monkeypatch: pytest.MonkeyPatch, verb: str) -> None:
    """Take every transition of ``verb`` out of the model's catalogue."""
    gather = actions.gather
    monkeypatch.setattr(actions, "gather", lambda cfg: (t for t in gather(cfg) if t.action.verb != verb))
    actions.catalogue.cache_clear()


def _kill_family(monkeypatch: pytest.MonkeyPatch, verb: str) -> None:
    """Keep the transitions of ``verb`` in the catalogue, but never enabled (a dead rule)."""
    gather = actions.gather
    never = Cond("test.dead", "0", "switched off by the test", lambda s: False)

    def dead(cfg):  # type: ignore[no-untyped-def]
        for t in gather(cfg):
            yield t if t.action.verb != verb else Transition(t.action, t.rule, t.cr, (*t.conds, never), t.effect)
    monkeypatch.setattr(actions, "gather", dead)
    actions.catalogue.cache_clear()


def _family_rules(verb: str) -> set[str]:
    cfg = build(COSTS.position)[0]
    return {t.rule for t in actions.catalogue(cfg).transitions if t.action.verb == verb}


# --- counting -------------------------------------------------------------------------------

def test_units_count_every_rule_of_the_catalogue_and_cross_processes() -> None:
    cfg = build(COSTS.position)[0]
    rules = {t.rule for t in actions.catalogue(cfg).transitions}
    opts = check_run.Options(examples=20)
    for checker in registry.names(counts_rules=True):
        vs = check_run.run_unit(checker, COSTS, [HOLDING], opts)
        counts = pickle.loads(pickle.dumps(vs))[0].stats["coverage"]
        assert set(counts["rules"]) == rules  # zeros included: a rule that never fired is visible
        assert sum(counts["rules"].values()) == sum(counts["actions"].values()) > 0
        assert counts["rules"]["cast"] == counts["actions"]["cast"] > 0


def test_merge_sums_across_configurations_per_checker() -> None:
    units = {("graph", "a"): {"rules": {"r": 2, "s": 0}, "actions": {"v": 2}},
             ("graph", "b"): {"rules": {"r": 3, "t": 1}, "actions": {"v": 4}},
             ("hypothesis", "a"): {"rules": {"r": 1, "s": 0}, "actions": {"v": 1}}}
    cov = coverage.merge(units, ["z3", "graph", "hypothesis"])
    assert cov.checkers == ("graph", "hypothesis")
    assert cov.rules == {"r": {"graph": 5, "hypothesis": 1}, "s": {"graph": 0, "hypothesis": 0},
                         "t": {"graph": 1, "hypothesis": 0}}
    assert cov.actions["v"] == {"graph": 6, "hypothesis": 1}
    g = coverage.gate(cov, {}, full=True)
    assert g.applied and g.failed and len(g.failures) == 1 and "rule s never fired" in g.failures[0]
    assert not coverage.gate(cov, {"s": "why"}, full=True).failed
    assert "remove it" in coverage.gate(cov, {"s": "why", "r": "stale"}, full=True).notes[0]
    assert not coverage.gate(cov, {}, full=False).applied  # a subset is reported, not gated


# --- the gate on the whole default run --------------------------------------------------------

@pytest.fixture()
def costs_is_the_default_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Make ``costs`` the whole default run, with an allowlist of what it cannot fire (measured
    here, on the intact model), so that the gate applies to a one-second run."""
    monkeypatch.setattr(check_run, "BUILTIN", (COSTS,))
    counts = check_run.run_unit("graph", COSTS, [HOLDING], check_run.Options())[0].stats["coverage"]
    exempt = tmp_path / "exempt.json"
    never = {r: "not reachable on costs" for r, n in counts["rules"].items() if n == 0}
    exempt.write_text(json.dumps({"format": coverage.EXEMPT_FORMAT, "rules": never}))
    monkeypatch.setattr(coverage, "EXEMPT_FILE", exempt)
    return exempt


def test_a_dead_rule_fails_the_default_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           costs_is_the_default_run: Path) -> None:
    x = tmp_path / "ok.xml"
    ok = _check("--property", HOLDING, "--junit", str(x))
    assert ok.exit_code == 0, ok.output
    case = next(c for c in ET.parse(x).getroot().iter("testcase") if c.get("name") == "coverage::catalogue")
    assert case.find("failure") is None
    _kill_family(monkeypatch, DROPPED)
    j, x = tmp_path / "dead.json", tmp_path / "dead.xml"
    dead = _check("--property", HOLDING, "--json", str(j), "--junit", str(x))
    assert dead.exit_code == 1, dead.output
    for rule in _family_rules(DROPPED):
        assert f"coverage: rule {rule} never fired under graph in any configuration" in dead.output
    doc = json.loads(j.read_text())
    assert doc["exit"] == 1 and doc["coverage"]["gate"] == "failed"
    assert all(doc["coverage"]["rules"][r]["graph"] == 0 for r in _family_rules(DROPPED))
    case = next(c for c in ET.parse(x).getroot().iter("testcase") if c.get("name") == "coverage::catalogue")
    failure = case.find("failure")
    assert failure is not None and failure.get("type") == "coverage"


def test_a_subset_of_the_configurations_is_reported_not_gated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _kill_family(monkeypatch, DROPPED)
    r = _check("--property", HOLDING)
    assert r.exit_code == 0, r.output
    assert "not gated" in r.output and all(rule in r.output for rule in _family_rules(DROPPED))


# --- vacuous properties -------------------------------------------------------------------------

def test_a_vacuous_property_fails(tmp_path: Path) -> None:
    x = tmp_path / "v.xml"
    r = _check("--property", VACUOUS_HERE, "--junit", str(x))
    assert r.exit_code == 1 and "1 vacuous" in r.output
    case = next(c for c in ET.parse(x).getroot().iter("testcase") if c.get("name") == f"graph::{VACUOUS_HERE}")
    failure = case.find("failure")
    assert failure is not None and failure.get("type") == "vacuous"


# --- the manifest --------------------------------------------------------------------------------

def _written(tmp_path: Path, *args: str) -> dict:
    m = tmp_path / "manifest.json"
    r = _check("--property", HOLDING, "--property", VACUOUS_HERE, *args, "--write-manifest", str(m))
    assert r.exit_code == 1 and f"manifest written: {m}" in r.output  # the vacuous property fails the run
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temp file left
    return mf.load(m)


def test_write_manifest_round_trip(tmp_path: Path) -> None:
    doc = _written(tmp_path)
    unit = doc["units"]["graph"]["costs"]
    assert doc["format"] == mf.FORMAT and doc["properties"] == sorted([HOLDING, VACUOUS_HERE])
    assert doc["options"]["seed"] == 0 and doc["options"]["hypothesis"] == hypothesis.__version__
    assert unit["holds"] == [HOLDING] and unit["states"] > 0 and "cast" in unit["rules"]
    r = _check("--property", HOLDING, "--manifest", str(tmp_path / "manifest.json"))
    assert r.exit_code == 0, r.output
    assert "manifest: 0 figures shrank" in r.output and "manifest: note" not in r.output


def test_unit_seconds_go_to_the_manifest_as_a_schedule_never_a_figure(tmp_path: Path) -> None:
    """Each unit's seconds are recorded (the next run starts the longest first) and never
    compared: a run faster or slower than the record neither shrinks nor grows a figure."""
    doc = _written(tmp_path)
    secs = doc["units"]["graph"]["costs"]["seconds"]
    # a number, not always a float: the loader makes an integral 1.0 the 1 its schema accepts
    assert isinstance(secs, (int, float)) and not isinstance(secs, bool) and secs >= 0 and mf.unit_seconds(doc)[("graph", "costs")] == secs
    for recorded in (0.0, 10_000.0):
        path = _doctored(tmp_path, lambda u, recorded=recorded: {"seconds": recorded})
        r = _check("--property", HOLDING, "--manifest", str(path))
        assert r.exit_code == 0 and "manifest: 0 figures shrank" in r.output and "manifest: note" not in r.output, r.output


def test_the_longest_recorded_units_go_to_the_workers_first() -> None:
    """The submission order is by the recorded seconds, longest first; a unit with no record
    goes first; with no record at all, the plan's order.  The results stay in plan order."""
    confs = [c for c in BUILTIN if c.name in ("plot", "costs")]
    units = check_run.plan(["z3", "graph"], [HOLDING], confs, check_run.Options())
    names = [(u.checker, u.conf.name) for u in units]
    assert check_run.submission_order(units, None) == list(range(len(units)))
    record = {("z3", "plot"): 14.0, ("z3", "costs"): 23.0, ("graph", "plot"): 34.0}
    order = [names[i] for i in check_run.submission_order(units, record)]
    assert order == [("graph", "costs"), ("graph", "plot"), ("z3", "costs"), ("z3", "plot")]
    submitted: list[tuple[str, str]] = []

    class Recording(check_run.ProcessPoolExecutor):  # runs nothing: records, then answers at once
        def submit(self, fn, *args, **kwargs):  # type: ignore[no-untyped-def]
            from concurrent.futures import Future

            from mtgcheck.checkers.result import HOLDS, Verdict

            submitted.append((args[0], args[1].name))
            fut: Future = Future()
            fut.set_result([Verdict(args[0], HOLDING, args[1].name, HOLDS)])
            return fut

    ex = Recording(max_workers=1)
    try:
        verdicts = check_run.run_check(["z3", "graph"], [HOLDING], confs, check_run.Options(), executor=ex,
                                       expected=record)
    finally:
        ex.shutdown()
    assert submitted == order
    assert [(v.checker, v.config) for v in verdicts] == names  # handed out longest first, reported in plan order


def _doctored(tmp_path: Path, change: dict) -> Path:
    doc = _written(tmp_path)
    doc["units"]["graph"]["costs"].update(change(doc["units"]["graph"]["costs"]))
    out = tmp_path / "doctored.json"
    out.write_text(json.dumps(doc))
    return out


def test_a_manifest_with_more_than_reality_fails_naming_each_shrink(tmp_path: Path) -> None:
    path = _doctored(tmp_path, lambda u: {"states": u["states"] + 1, "holds": u["holds"] + [VACUOUS_HERE],
                                          "rules": u["rules"] + ["pass.resolve.ability3"]})
    r = _check("--property", HOLDING, "--manifest", str(path))
    shrinks = [line for line in r.output.splitlines() if line.startswith("manifest: ") and "note" not in line]
    assert r.exit_code == 1, r.output  # everything holds: the manifest alone fails the run
    assert len(shrinks) == 3  # the two below and the closing count
    assert any("graph states on costs" in line and "fewer states explored" in line for line in shrinks)
    assert "manifest: coverage: rule pass.resolve.ability3 no longer fires on costs (graph)" in shrinks
    r = _check("--property", HOLDING, "--property", VACUOUS_HERE, "--manifest", str(path))
    assert f"manifest: graph on costs: {VACUOUS_HERE} no longer holds" in r.output.splitlines()


def test_a_manifest_with_less_than_reality_passes_with_a_note(tmp_path: Path) -> None:
    path = _doctored(tmp_path, lambda u: {"states": u["states"] - 1, "rules": u["rules"][1:], "holds": []})
    r = _check("--property", HOLDING, "--manifest", str(path))
    assert r.exit_code == 0, r.output
    assert "manifest: note: graph states on costs" in r.output and f"{HOLDING} holds now" in r.output
    assert f"record them with --write-manifest {path}" in r.output


def test_a_rule_dropped_from_the_catalogue_fails_on_the_manifest(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    _written(tmp_path)
    family = _family_rules(DROPPED)
    _drop_family(monkeypatch, DROPPED)
    assert not _family_rules(DROPPED)
    r = _check("--property", HOLDING, "--manifest", str(tmp_path / "manifest.json"))
    assert r.exit_code == 1
    for rule in family:
        assert f"manifest: coverage: rule {rule} no longer fires on costs (graph)" in r.output


def test_z3_proved_set_is_compared_per_property_and_only_when_z3_ran() -> None:
    def doc(proved: dict[str, int], checkers: tuple[str, ...] = ("z3",), depth: int | None = None) -> dict:
        return {"format": mf.FORMAT, "options": {"variant": None, "seed": 0, "examples": None, "depth": depth,
                                                 "strengthen": False},
                "properties": ["a", "b", "c"],
                "units": {c: {"plot": {"holds": sorted(proved), "proved": proved}} for c in checkers}}

    was = doc({"a": 0, "b": 0})
    cmp = mf.compare(was, doc({"a": 1, "c": 0}))
    assert set(cmp.shrinks) == {"z3 on plot: a proved only with k=1 (k=0 in the manifest)",
                                "z3 on plot: b no longer proved (k=0 in the manifest)",
                                "z3 on plot: b no longer holds"}
    assert "z3 on plot: c proved now (k=0)" in cmp.growths
    assert not mf.compare(was, doc({}, checkers=())).shrinks  # z3 did not run: nothing to compare
    other = mf.compare(was, doc({}, depth=5))
    assert not other.shrinks and "depth 5 here, None in the manifest" in other.notes[0]
    timed_out = doc({"a": 0})
    timed_out["units"]["z3"]["plot"]["unknown"] = ["b"]  # ran out of time: exit 3, not a shrink
    cmp = mf.compare(was, timed_out)
    assert not cmp.shrinks and any(n.startswith("z3 on plot: b no longer proved") and "inconclusive" in n
                                   for n in cmp.notes)


def test_a_bad_manifest_is_a_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": mf.FORMAT, "options": {}, "properties": [],
                               "units": {"graph": {"costs": {"holds": [], "states": -1}}}}))
    for path, field in ((bad, "units.graph.costs.states"), (tmp_path / "missing.json", "--write-manifest")):
        r = CliRunner().invoke(main, ["check", "--manifest", str(path)])
        assert r.exit_code == 2 and field in r.output and len(r.output.strip().splitlines()) == 1


# --- the built-in allowlist ------------------------------------------------------------------

def test_the_allowlist_names_rules_of_the_builtin_catalogues_with_reasons() -> None:
    exempt = coverage.load_exempt()
    rules = {t.rule for c in BUILTIN for t in actions.catalogue(build(c.position)[0]).transitions}
    assert set(exempt) <= rules and all(len(why) > 20 for why in exempt.values())
    assert len(exempt) <= len(rules) // 4  # a short list: most rules must fire


@pytest.mark.deep
def test_the_graph_search_fires_every_rule_but_the_exempt_ones() -> None:
    """The allowlist is true: exhaustive search fires every other rule, and none of these."""
    units = coverage.collect(v for c in BUILTIN for v in check_run.run_unit("graph", c, [HOLDING], check_run.Options()))
    cov = coverage.merge(units, ["graph"])
    assert set(coverage.load_exempt()) == {r for r in cov.rules if cov.fired(r) == 0}


def test_z3_invariants_go_to_the_manifest_and_back_as_hints(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The candidates Z3's proofs closed are a unit's ``invariants`` in the manifest (not in
    the report's rows, where 22 verdicts would repeat them); ``--manifest`` hands them to the
    next run's Z3 checker as hints for that configuration."""
    from mtgcheck.checkers import z3bmc
    from mtgcheck.checkers.result import PROVED, Verdict

    names = ["zone[0] != 2", "oid[0] < next_oid"]
    seen: list[tuple[str, tuple[str, ...]]] = []

    def fake(conf, props, **kw):  # type: ignore[no-untyped-def]
        seen.append((conf.name, tuple(kw["hints"])))
        return [Verdict("z3", p.id, conf.name, PROVED, k=0, stats={"proof_invariants": names}) for p in props]

    monkeypatch.setattr(z3bmc, "check", fake)
    m = tmp_path / "manifest.json"
    report = tmp_path / "report.json"
    r = CliRunner().invoke(main, ["check", "--checker", "z3", "--config", "costs", "-j", "1", "--no-store",
                                  "--property", HOLDING, "--write-manifest", str(m), "--json", str(report)],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert mf.load(m)["units"]["z3"]["costs"]["invariants"] == sorted(names)
    assert "proof_invariants" not in json.loads(report.read_text())["verdicts"][0]["stats"]
    assert seen == [("costs", ())]
    r = CliRunner().invoke(main, ["check", "--checker", "z3", "--config", "costs", "-j", "1", "--no-store",
                                  "--property", HOLDING, "--manifest", str(m)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert seen[1] == ("costs", tuple(sorted(names)))
