"""Differential testing end to end: the harness finds what a broken engine breaks, finds
nothing in a faithful one, and survives engines that crash, hang, lie or print garbage."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st

from mtgcheck.cli import main
from mtgcheck.engines import EngineError, open_engine
from mtgcheck.engines.base import EngineSpecError
from mtgcheck.engines.pipe import PipeEngine
from mtgcheck.replay import load as load_cx
from mtgcheck.store import stored
from mtgcheck.validate import KINDS, run

HERE = Path(__file__).parent
FAULTY = HERE / "engines" / "faulty_engine.py"
SCENARIOS = HERE / "scenarios"
PLOT_SCENARIOS = sorted(SCENARIOS.glob("plot*.json"))


def faulty(fault: str, after: int = 4) -> str:
    return f"cmd:{sys.executable} {FAULTY} --fault {fault} --after {after}"


def test_the_model_against_itself_finds_nothing() -> None:
    rep = run("model", budget=40, seed=3, store_dir=None, scenario_files=PLOT_SCENARIOS)
    plain = [f for f in PLOT_SCENARIOS if "variant" not in json.loads(f.read_text())]  # variants are not the CR
    assert rep.sources == {"scenarios": len(plain), "generated": 40}
    assert rep.steps > 100
    assert rep.found == []


_GAMES = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
if sys.argv[2] == "with":
    import literals  # noqa: F401  (a local module full of small integer literals)
from mtgcheck import validate
games = []
real = validate.Driver.play
def play(self, setup, choose, **kw):
    tr = real(self, setup, choose, **kw)
    games.append([setup.get("players"), len(tr.actions), json.dumps(tr.actions, sort_keys=True)])
    return tr
validate.Driver.play = play
validate.run("model", budget=25, seed=0, store_dir=None, scenario_files=[])
print(json.dumps(games))
"""


def test_a_seed_draws_the_same_games_whatever_local_literals_are_loaded(tmp_path: Path) -> None:
    """Hypothesis now and then draws a literal found in the local modules a process has loaded
    (so a change that adds ``100_000`` anywhere, or a process that loads one module more, drew
    other games from the same seed); the generator draws out of their reach."""
    (tmp_path / "literals.py").write_text("VALUES = [" + ", ".join(str(v) for v in [*range(64), 255, 2**16, 10**5,
                                                                                    2**31 - 1, 2**32 - 1]) + "]\n")

    def games(how: str) -> list[object]:
        r = subprocess.run([sys.executable, "-c", _GAMES, str(tmp_path), how], capture_output=True, text=True,
                           check=True, cwd=tmp_path)
        return json.loads(r.stdout.strip().splitlines()[-1])

    plain = games("without")
    assert len(plain) == 25 and len({g[2] for g in plain}) > 10
    assert games("with") == plain


@pytest.mark.parametrize("mutant,rule", [("plotted-cast-same-turn", "702.170d"), ("plot-with-stack", "702.170a")])
def test_a_mutant_engine_is_caught_with_the_rule_at_stake(tmp_path: Path, mutant: str, rule: str) -> None:
    rep = run(f"model:mutant-{mutant}", budget=150, seed=0, store_dir=str(tmp_path), scenario_files=PLOT_SCENARIOS)
    rules = {tr.divergence.rule for tr, _, _ in rep.found if tr.divergence}
    assert rule in rules
    files = stored(tmp_path)
    assert len(files) == len(rep.found) >= 1
    for f in files:
        cx = load_cx(f)  # a valid counterexample file
        assert cx.violates == "divergence" and cx.found_by == "differential"
        assert cx.target == f"model-mutant-{mutant}-{rep.version}"
        assert cx.doc["divergence"]["kind"] in KINDS


def test_the_same_run_twice_stores_nothing_new(tmp_path: Path) -> None:
    spec = "model:mutant-plotted-cast-same-turn"
    first = run(spec, budget=60, seed=5, store_dir=str(tmp_path), scenario_files=PLOT_SCENARIOS)
    again = run(spec, budget=60, seed=5, store_dir=str(tmp_path), scenario_files=PLOT_SCENARIOS)
    assert [tr.actions for tr, _, _ in first.found] == [tr.actions for tr, _, _ in again.found]
    assert all(not new for _, _, new in again.found)
    assert len(stored(tmp_path)) == len(first.found)


def test_a_divergence_replays_on_its_engine_and_on_the_rules(tmp_path: Path) -> None:
    spec = "model:mutant-plotted-cast-same-turn"
    run(spec, budget=60, seed=1, store_dir=str(tmp_path), scenario_files=PLOT_SCENARIOS)
    r = CliRunner().invoke(main, ["replay", str(tmp_path), "--engine", spec])
    assert r.exit_code == 1, r.output  # the broken engine still diverges
    assert "STILL DIVERGES" in r.output and "reference agrees" in r.output
    r = CliRunner().invoke(main, ["replay", str(tmp_path), "--engine", "model"])
    assert r.exit_code == 0, r.output  # the rules themselves do not
    assert "no longer diverges" in r.output
    r = CliRunner().invoke(main, ["replay", str(tmp_path)])
    assert r.exit_code == 0, r.output


def test_minimized_divergence_is_short() -> None:
    rep = run("model:mutant-plotted-cast-same-turn", budget=100, seed=2, store_dir=None, scenario_files=[])
    assert rep.found
    for tr, _, _ in rep.found:
        # plotting needs the turn to reach a main phase at most; the divergence follows at once
        assert len(tr.actions) <= 6, tr.actions


def test_pipe_engine_faithful_finds_nothing() -> None:
    rep = run(faulty("none"), budget=15, seed=0, store_dir=None, scenario_files=PLOT_SCENARIOS[:3])
    assert rep.sources["generated"] == 15 and rep.found == [] and rep.restarts == 0


@pytest.mark.parametrize("fault,kind", [("crash", "crash"), ("garbage", "garbage"), ("error", "protocol"),
                                        ("lie", "illegal-accepted")])
def test_misbehaving_pipe_engines_are_reported_not_fatal(fault: str, kind: str) -> None:
    rep = run(faulty(fault), budget=12, seed=0, store_dir=None, scenario_files=[], max_faults=0)
    kinds = {tr.divergence.kind for tr, _, _ in rep.found if tr.divergence}
    assert kind in kinds
    assert rep.traces == 12  # it carried on after the fault
    if fault != "lie":
        assert rep.restarts >= 1
        tr = next(tr for tr, _, _ in rep.found if tr.divergence and tr.divergence.kind == kind)
        assert len(tr.actions) >= 1  # the trace that provoked it
    if fault == "crash":
        assert "segmentation fault (simulated)" in next(tr.divergence.why for tr, _, _ in rep.found
                                                          if tr.divergence and tr.divergence.kind == "crash")


def test_hanging_pipe_engine_is_killed_at_its_deadline() -> None:
    rep = run(faulty("hang"), budget=3, seed=0, store_dir=None, scenario_files=[], call_timeout=0.5)
    assert rep.seconds < 30
    assert any(tr.divergence and tr.divergence.kind == "hang" for tr, _, _ in rep.found)


def test_in_process_engine_crash_and_hang(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(HERE / "engines"))
    monkeypatch.setenv("MTGCHECK_FAULT", "crash")
    rep = run("python:faulty_engine:FaultyEngine", budget=5, seed=0, store_dir=None, scenario_files=[])
    assert any(tr.divergence and tr.divergence.kind == "crash" for tr, _, _ in rep.found)
    monkeypatch.setenv("MTGCHECK_FAULT", "hang")
    rep = run("python:faulty_engine:FaultyEngine", budget=2, seed=0, store_dir=None, scenario_files=[],
              call_timeout=0.3)
    assert any(tr.divergence and tr.divergence.kind == "hang" for tr, _, _ in rep.found)


@pytest.mark.parametrize("spec", ["nonsense", "cmd:", "python:nope", "python:no_such_module_x:Engine",
                                  "python:json:NoSuchClass", "model:mutant-nope", "model:9.9z"])
def test_bad_engine_specs_are_usage_errors(spec: str) -> None:
    with pytest.raises(EngineSpecError):
        open_engine(spec)
    r = CliRunner().invoke(main, ["validate", "--engine", spec, "--no-store"])
    assert r.exit_code == 2
    assert r.output.count("\n") <= 2 and "Traceback" not in r.output


@pytest.mark.parametrize("command", ["echo garbage", "exit 3", "echo '{\"ok\": true}'"])
def test_an_engine_that_fails_its_hello_is_one_line(tmp_path: Path, command: str) -> None:
    out = tmp_path / "report.json"
    proc = subprocess.run([sys.executable, "-m", "mtgcheck.cli", "validate", "--engine", f"cmd:{command}",
                           "--call-timeout", "1", "--json", str(out), "--no-store"],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("mtgcheck: error:")]
    assert len(errors) == 1 and "Traceback" not in proc.stderr
    assert not out.exists()


def test_an_engine_that_never_greets_is_a_hang() -> None:
    eng = PipeEngine("sleep 30", call_timeout=0.2, start_timeout=0.5)
    with pytest.raises(EngineError) as err:
        eng.hello()
    assert err.value.kind == "hang" and eng.proc is None


def test_cli_report_json_and_exit_code(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    r = CliRunner().invoke(main, ["validate", "--engine", "model:mutant-plotted-cast-same-turn", "--budget", "40",
                                  "--scenarios", str(tmp_path), "--json", str(out), "--store", str(tmp_path / "cx")])
    assert r.exit_code == 1, r.output
    rep = json.loads(out.read_text())
    assert rep["format"] == "mtgcheck.validate-report/1" and rep["seed"] == 0 and rep["budget"] == 40
    assert rep["divergences"] and all(d["stored"] for d in rep["divergences"])
    r = CliRunner().invoke(main, ["validate", "--engine", "model", "--budget", "10", "--scenarios", str(tmp_path),
                                  "--no-store"])
    assert r.exit_code == 0, r.output


# -- engine replies are untrusted input: fuzz them -------------------------------------------

_REPLY_LINES = st.one_of(
    st.binary(max_size=200).filter(lambda b: b"\n" not in b),
    st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
                 lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4),
                 max_leaves=12).map(lambda v: json.dumps(v).encode()),
    st.fixed_dictionaries({"ok": st.just(True)}, optional={
        "name": st.text(max_size=5) | st.integers(), "version": st.text(max_size=5),
        "supports": st.dictionaries(st.sampled_from(["cards", "verbs", "players", "max_x", "lists_actions", "observe"]),
                                    st.integers() | st.text(max_size=5) | st.lists(st.integers() | st.text(max_size=5),
                                                                                   max_size=3))}).map(
        lambda v: json.dumps(v).encode()),
)


@settings(max_examples=60, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(hello=_REPLY_LINES)
def test_fuzzed_hello_replies_end_in_an_engine_error(tmp_path_factory: pytest.TempPathFactory, hello: bytes) -> None:
    """Whatever a child prints, the client answers with an EngineInfo or an EngineError, never another exception."""
    d = tmp_path_factory.mktemp("reply")
    (d / "reply").write_bytes(hello + b"\n")
    eng = PipeEngine(f"cat {d / 'reply'}; sleep 5", call_timeout=2)
    try:
        info = eng.hello()
        assert info.name and info.version
    except EngineError as exc:
        assert exc.kind in ("garbage", "protocol", "crash") and "\n" not in str(exc)
    finally:
        eng.close()


EXAMPLE = HERE / "engines" / "example_engine.py"


def test_example_engine_end_to_end(tmp_path: Path) -> None:
    """The protocol end to end: the faithful example engine yields nothing, its broken copy a
    stored, replayable, narratable counterexample citing CR 702.170d."""
    faithful = f"cmd:{sys.executable} {EXAMPLE}"
    broken = faithful + " --broken"
    r = CliRunner().invoke(main, ["validate", "--engine", faithful, "--budget", "40", "--scenarios", str(SCENARIOS),
                                  "--store", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert stored(tmp_path) == []
    r = CliRunner().invoke(main, ["validate", "--engine", broken, "--budget", "40", "--scenarios", str(SCENARIOS),
                                  "--store", str(tmp_path)])
    assert r.exit_code == 1, r.output
    files = stored(tmp_path)
    assert files and all(load_cx(f).doc["divergence"]["rule"] == "702.170d" for f in files)
    r = CliRunner().invoke(main, ["replay", str(tmp_path), "--engine", broken])
    assert r.exit_code == 1 and "STILL DIVERGES" in r.output
    r = CliRunner().invoke(main, ["replay", str(tmp_path), "--engine", faithful])
    assert r.exit_code == 0 and "no longer diverges" in r.output
    r = CliRunner().invoke(main, ["show", str(files[0])])
    assert r.exit_code == 0 and "the engine parts from the rules here" in r.output and "702.170d" in r.output


def test_an_engine_declaring_an_unknown_card_is_refused(tmp_path: Path) -> None:
    """supports.cards names only cards of the pool: a misspelt name is an error, never a card
    silently left out of every generated position."""
    hello = ('{"ok": true, "name": "typo", "version": "1", "supports": {"cards": ["Lightning Bolt", '
             '"Lightnig Bolt"], "verbs": ["pass", "cast"], "hows": ["normal"], "observe": ["zones"], "players": [2]}}')
    script = tmp_path / "typo.py"
    script.write_text(f"import sys\nsys.stdin.readline()\nprint({hello!r}, flush=True)\nsys.stdin.read()\n")
    out = tmp_path / "report.json"
    proc = subprocess.run([sys.executable, "-m", "mtgcheck.cli", "validate", "--engine",
                           f"cmd:{sys.executable} {script}", "--call-timeout", "5", "--json", str(out), "--no-store"],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("mtgcheck: error:")]
    assert len(errors) == 1 and "supports.cards" in errors[0] and "Lightnig Bolt" in errors[0]
    assert "Traceback" not in proc.stderr and not out.exists()


def test_an_engine_lacking_extra_turns_gets_no_position_that_needs_them() -> None:
    """supports.lacks: ["extra_turns"]: no setup with queued extra turns, no plane whose chaos
    gives them (Otaria), instead of the engine refusing setups one by one."""
    from mtgcheck.engines.base import EngineError, Support
    from mtgcheck.engines.pipe import support_of
    from mtgcheck.validate import supported_setup

    base = {"players": 2, "turn": 1, "active": 0, "step": "main1", "mana": [1, 1],
            "cards": [{"id": "b", "card": "Lightning Bolt", "owner": 0, "zone": "hand"}]}
    otaria = {**base, "planechase": {"decks": [[], []], "plane": {"name": "Otaria", "owner": 0, "counters": 0},
                                     "controller": 0}}
    queued = {**base, "extra_turns": [0]}
    full = Support(cards=frozenset({"Lightning Bolt"}), planes=frozenset({"Otaria"}))
    lacking = support_of({"cards": ["Lightning Bolt"], "planes": ["Otaria"], "lacks": ["extra_turns"]})
    assert lacking.lacks == {"extra_turns"}
    assert supported_setup(full, otaria) is not None and supported_setup(full, queued) is not None
    assert supported_setup(lacking, otaria) is None and supported_setup(lacking, queued) is None
    assert supported_setup(lacking, base) is not None
    with pytest.raises(EngineError, match="supports.lacks"):
        support_of({"cards": ["Lightning Bolt"], "lacks": ["combat"]})


def test_a_divergence_the_engine_declines_to_set_up_is_not_a_pass() -> None:
    """replay --engine: an engine that refuses the position compared nothing: not "no longer diverges"."""
    from types import SimpleNamespace

    from mtgcheck.replay import load, replay_divergence

    path = sorted((HERE.parent / "counterexamples" / "phase-0.103.0").glob("*.json"))[0]
    cx = load(path)
    driver = SimpleNamespace(info=SimpleNamespace(name="declining", version="1"))
    ok, line = replay_divergence(cx, driver, lambda d, c: (None, None))
    assert not ok and "NOT COMPARED" in line
    ok, line = replay_divergence(cx, driver, lambda d, c: (None, False))
    assert ok and "no longer diverges" in line


def test_validate_says_which_scenario_files_it_skips_as_malformed(tmp_path: Path) -> None:
    from mtgcheck.engines.base import Support
    from mtgcheck.validate import scenario_traces

    (tmp_path / "bad.json").write_text('{"format": "mtgcheck.scenario/1"}')
    said: list[str] = []
    support = Support(cards=frozenset({"Slickshot Show-Off", "Island"}))
    assert scenario_traces(support, [tmp_path / "bad.json"], warn=said.append) == []
    assert len(said) == 1 and "bad.json" in said[0] and "skipped" in said[0]
    assert said[0].count("bad.json") == 1 and "expected" in said[0]  # the field and what was expected, the file once
