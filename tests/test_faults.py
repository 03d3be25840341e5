"""Faults and bad input: every file and reply is read by one strict reader, nothing a user or
an engine supplies can block a reader, write outside the store, or end in a traceback, and a
run that time cuts short says so."""

from __future__ import annotations

import errno
import json
import os
import shutil
import threading
import time
from pathlib import Path
from typing import Any, Callable

import pytest
from click.testing import CliRunner

from mtgcheck import jsonread
from mtgcheck.atomic import write_text
from mtgcheck.cli import main
from mtgcheck.engines.base import EngineError, EngineInfo, Support
from mtgcheck.engines.pipe import PipeEngine
from mtgcheck.errors import FormatError, OutputError
from mtgcheck.store import safe_name, store

from .conftest import ROOT

STORED = sorted((ROOT / "counterexamples" / "variant-116.2k").glob("*.json"))


def _finishes(fn: Callable[[], Any], seconds: float = 20.0) -> Any:
    """fn's result, failing (not hanging) if it blocks: the reproducer of a blocking read."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            box["error"] = exc

    th = threading.Thread(target=run, daemon=True)
    th.start()
    th.join(seconds)
    assert not th.is_alive(), "the reader blocked"
    if "error" in box:
        raise box["error"]
    return box["value"]


def _cli(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


# --- 1. one strict reader ----------------------------------------------------------------


@pytest.mark.parametrize("text,expected", [
    ('{"a": 1, "a": 2}', "each key at most once"),
    ('{"a": NaN}', "NaN and Infinity are not JSON"),
    ('[Infinity]', "NaN and Infinity are not JSON"),
    ('["\\ud800"]', "lone surrogate"),
    ("[" * 600 + "]" * 600, "nested at most 512 deep"),
    ("[" * 100_000 + "]" * 100_000, "nested less deeply"),
    ("[" + "9" * 5000 + "]", "integers of at most 4300 digits"),
    (b'["\xff"]', "UTF-8 text"),
], ids=["duplicate-key", "nan", "infinity", "lone-surrogate", "depth-600", "depth-100000", "5000-digits", "not-utf8"])
def test_strict_reader_refuses_in_one_line(tmp_path: Path, text: str | bytes, expected: str) -> None:
    path = tmp_path / "bad.json"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    with pytest.raises(FormatError) as info:
        jsonread.read(path)
    message = str(info.value)
    assert expected in message and message.startswith(str(path)) and "(json)" in message and "\n" not in message


def test_strict_reader_caps_size(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text("[" + " " * jsonread.MAX_BYTES + "]", encoding="utf-8")
    with pytest.raises(FormatError, match="at most 1 MiB"):
        jsonread.read(path)


def test_strict_reader_never_blocks_on_a_fifo_or_a_device(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    device = tmp_path / "zero.json"
    device.symlink_to("/dev/zero")
    broken = tmp_path / "broken.json"
    broken.symlink_to(tmp_path / "nowhere")
    for path, kind in ((fifo, "a FIFO"), (device, "a device"), (broken, "a broken symbolic link")):
        with pytest.raises(FormatError, match=kind):
            _finishes(lambda p=path: jsonread.read(p))


def test_every_reader_is_the_strict_one(tmp_path: Path) -> None:
    """Scenario files, configuration files, counterexamples and the manifest refuse alike."""
    from mtgcheck import manifest
    from mtgcheck.configs import load_config
    from mtgcheck.replay import load as load_cx
    from mtgcheck.scenario_run import load as load_sc

    path = tmp_path / "nan.json"
    path.write_text('{"format": NaN}', encoding="utf-8")
    for reader in (load_sc, load_config, load_cx, manifest.load):
        with pytest.raises(FormatError, match="NaN and Infinity are not JSON"):
            reader(str(path))


# --- 2. engine replies and store files holding NaN or a lone surrogate ---------------------


def _engine_saying(tmp_path: Path, reply: str) -> PipeEngine:
    script = tmp_path / "reply.sh"
    script.write_text(f"read line\nprintf '%s\\n' '{reply}'\nsleep 5\n", encoding="utf-8")
    eng = PipeEngine(f"sh {script}", call_timeout=5)
    eng._start()
    return eng


@pytest.mark.parametrize("reply", ['{"ok": true, "observation": {"life": [NaN, 20]}}',
                                   '{"ok": true, "observation": {"plane": "\\ud800"}}',
                                   '{"ok": true, "ok": true, "observation": {}}'],
                         ids=["nan", "lone-surrogate", "duplicate-key"])
def test_engine_reply_with_nan_or_lone_surrogate_is_garbage(tmp_path: Path, reply: str) -> None:
    eng = _engine_saying(tmp_path, reply)
    try:
        with pytest.raises(EngineError) as info:
            eng.call({"op": "observe"})
        assert info.value.kind == "garbage" and "\n" not in str(info.value)
    finally:
        eng.kill()


def test_in_process_engine_observation_with_nan_is_garbage() -> None:
    from mtgcheck.engines import InProcess

    class Lying:
        def observe(self) -> dict[str, Any]:
            return {"life": [float("nan"), 20]}

    with pytest.raises(EngineError) as info:
        InProcess(Lying).observe()
    assert info.value.kind == "garbage"


def test_one_bad_store_file_does_not_stop_the_others_replaying(tmp_path: Path) -> None:
    folder = tmp_path / "cx" / "variant-116.2k"
    folder.mkdir(parents=True)
    good = folder / STORED[0].name
    shutil.copy(STORED[0], good)
    (folder / "bad-nan.json").write_text('{"format": "mtgcheck.counterexample/1", "seed": NaN}', encoding="utf-8")
    (folder / "bad-surrogate.json").write_text('{"format": "\\udc00"}', encoding="utf-8")
    os.mkfifo(folder / "fifo.json")
    r = _finishes(lambda: _cli("replay", str(tmp_path / "cx")))
    assert f"{good}: " in r.stdout and "1 passed, 0 failed, 3 malformed" in r.stdout
    errors = [line for line in r.stderr.splitlines() if line.startswith("mtgcheck: error: ")]
    assert len(errors) == 3 and any("bad-nan.json" in e for e in errors) and any("fifo.json" in e for e in errors)
    assert "Traceback" not in r.stderr and r.exit_code == 2


# --- 3. engine names and versions as path components ---------------------------------------


@pytest.mark.parametrize("name,version", [("..", "/"), ("", ""), (".", "."), ("a\0b", "1"), (".hidden", ".."),
                                          ("../../etc", "1"), ("x" * 300, "1")],
                         ids=["dotdot-slash", "empty", "dots", "nul", "hidden", "parent-path", "too-long"])
def test_engine_name_cannot_leave_the_store(tmp_path: Path, name: str, version: str) -> None:
    root = tmp_path / "store"
    target = EngineInfo(name, version, Support(cards=frozenset())).target
    folder = safe_name(target)
    assert folder not in ("", ".", "..") and "/" not in folder and "\0" not in folder and not folder.startswith(".")
    path, new = store(root, {"target": target, "violates": "divergence", "found_by": "differential"})
    assert new and path.resolve().parent.parent == root.resolve()
    assert [p.name for p in tmp_path.iterdir()] == ["store"]


def test_store_refuses_a_symlinked_target_folder(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    root = tmp_path / "store"
    root.mkdir()
    (root / "reference").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(OutputError, match="symbolic link"):
        store(root, {"target": "reference", "violates": "p", "found_by": "graph"})
    assert list(elsewhere.iterdir()) == []


# --- 4. validate reads scenario and store folders without blocking -------------------------


def test_validate_skips_fifos_devices_and_broken_links_with_a_warning(tmp_path: Path) -> None:
    from mtgcheck.validate import scenario_traces

    scenario = sorted((ROOT / "tests" / "scenarios").glob("*.json"))[0]
    files = [tmp_path / "fifo.json", tmp_path / "zero.json", tmp_path / "broken.json"]
    os.mkfifo(files[0])
    files[1].symlink_to("/dev/zero")
    files[2].symlink_to(tmp_path / "nowhere")
    said: list[str] = []
    support = Support(cards=frozenset({"Slickshot Show-Off", "Island", "Mountain"}))
    _finishes(lambda: scenario_traces(support, [*files, scenario], warn=said.append))
    assert len(said) == 3 and all("\n" not in s and "skipped" in s for s in said)
    assert all(f.name in s for f, s in zip(files, said, strict=True))


# --- 5. Hypothesis honours the timeout within a run ----------------------------------------


def test_hypothesis_stops_near_the_timeout_and_says_unknown(tmp_path: Path) -> None:
    from mtgcheck.check_run import Options, run_unit
    from mtgcheck.configs import load_config

    doc = json.loads((ROOT / "examples" / "three-player-planechase.json").read_text(encoding="utf-8"))
    doc["hypothesis_examples"] = 10_000_000
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    conf = load_config(path)
    t0 = time.monotonic()
    verdicts = run_unit("hypothesis", conf, ["plot-only-main-phase-empty-stack"], Options(timeout=2.0))
    took = time.monotonic() - t0
    assert took < 30, took
    (v,) = verdicts
    assert v.status == "unknown" and "time ran out" in v.detail and "of 10000000 examples" in v.detail


# --- 6. write errors are one line, exit 2, reports first -----------------------------------


def test_write_text_errors_are_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    afile = tmp_path / "afile"
    afile.write_text("", encoding="utf-8")
    with pytest.raises(OutputError, match="cannot write .*afile/report.json"):
        write_text(afile / "report.json", "{}")
    with pytest.raises(OutputError, match="too long"):
        write_text(tmp_path / ("x" * 300 + ".json"), "{}")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OutputError, match="No space left on device"):
        write_text(tmp_path / "r.json", "{}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]  # no temporary file left


def test_store_write_error_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OutputError, match="No space left on device"):
        store(tmp_path, {"target": "reference", "violates": "p", "found_by": "graph"})
    assert [p.name for p in (tmp_path / "reference").iterdir()] == []


def test_check_writes_its_reports_before_failing_to_store(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("", encoding="utf-8")
    j, x = tmp_path / "r.json", tmp_path / "r.xml"
    r = _cli("check", "--checker", "hypothesis", "--config", "plot", "--variant", "116.2k",
             "--property", "plot-only-main-phase-empty-stack", "--examples", "300", "--seed", "3", "-j", "1",
             "--store", str(afile / "cx"), "--json", str(j), "--junit", str(x),
             "--write-manifest", str(afile / "m.json"))
    errors = [line for line in r.stderr.splitlines() if line.startswith("mtgcheck: error: ")]
    assert r.exit_code == 2 and "Traceback" not in r.stderr
    assert len(errors) == 2 and "cx" in errors[0] and "m.json" in errors[1]
    assert json.loads(j.read_text(encoding="utf-8"))["exit"] == 2 and x.exists()


def test_graph_export_error_is_reported_after_the_reports(tmp_path: Path) -> None:
    from mtgcheck.check_run import Options, run_unit
    from mtgcheck.configs import BUILTIN

    afile = tmp_path / "afile"
    afile.write_text("", encoding="utf-8")
    smallest = min(BUILTIN, key=lambda c: c.depth)
    verdicts = run_unit("graph", smallest, ["plot-only-main-phase-empty-stack"],
                        Options(timeout=60, export_dir=str(afile / "graphs")))
    assert all("cannot write" in v.stats["write_error"] for v in verdicts)


# --- 7. the manifest is checked before the run ---------------------------------------------


def _manifest(**change: Any) -> dict[str, Any]:
    doc = json.loads((ROOT / "manifest.json").read_text(encoding="utf-8"))
    doc.update(change)
    return doc


@pytest.mark.parametrize("text,expected", [
    ("[" * 100_000 + "]" * 100_000, "nested"),
    (json.dumps(_manifest(properties=["p", 3])), "properties[1]: expected a string"),
    (json.dumps(_manifest()).replace('"seed": 0', '"seed": NaN'), "NaN"),
    ('{"format": "mtgcheck.manifest/1", "format": "mtgcheck.manifest/1"}', "each key at most once"),
    (json.dumps(_manifest()) + " " * jsonread.MAX_BYTES, "at most 1 MiB"),
], ids=["deep", "non-string-property", "nan", "duplicate-key", "over-1-MiB"])
def test_bad_manifest_is_one_line_before_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 text: str, expected: str) -> None:
    from mtgcheck import check_run

    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the run started")

    monkeypatch.setattr(check_run, "run_check", never)
    path = tmp_path / "manifest.json"
    path.write_text(text, encoding="utf-8")
    r = _cli("check", "--checker", "graph", "--config", "plot", "--manifest", str(path))
    assert r.exit_code == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert lines[-1].startswith("mtgcheck: error: ") and expected in lines[-1] and "Traceback" not in r.stderr


# --- 8. every walk over a read document fits the reader's depth ----------------------------


def _nested(depth: int) -> Any:
    """A value whose innermost list is ``depth`` levels below it (0: one empty list)."""
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


def _place(doc: Any, path: tuple[str | int, ...]) -> Any:
    """``doc`` with a value nested down to the reader's limit at ``path``: the innermost
    list sits at depth MAX_DEPTH - 1, the deepest the strict reader accepts."""
    doc = json.loads(json.dumps(doc))
    holder = doc
    for part in path[:-1]:
        holder = holder[part]
    holder[path[-1]] = _nested(jsonread.MAX_DEPTH - 1 - len(path))
    return doc


def _at_the_limit(tmp_path: Path, doc: Any, name: str) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    jsonread.read(path)  # accepted by the reader: every later walk must cope
    return path


def _counterexample(path: tuple[str | int, ...]) -> Any:
    from mtgcheck.store import content_hash

    source = sorted((ROOT / "counterexamples" / "phase-0.103.0").glob("*.json"))[0]
    doc = _place(json.loads(source.read_text(encoding="utf-8")), path)
    doc["hash"] = content_hash(doc)
    return doc


@pytest.mark.parametrize("path", [("divergence", "rules_say"), ("divergence", "engine_says"),
                                  ("scenario", "setup", "cards", 0, "zone"), ("scenario", "actions", 0, "expect"),
                                  ("scenario", "actions", 0, "args"), ("scenario", "expect"), ("extra",)],
                         ids=lambda p: ".".join(map(str, p)))
@pytest.mark.parametrize("command", ["replay", "show"])
def test_deep_counterexample_is_read_without_a_traceback(tmp_path: Path, command: str,
                                                         path: tuple[str | int, ...]) -> None:
    file = _at_the_limit(tmp_path, _counterexample(path), "deep.json")
    r = _cli(command, str(file))
    assert "Traceback" not in r.stderr and "RecursionError" not in r.stderr
    assert r.exit_code in (0, 1, 2), r.exit_code


@pytest.mark.parametrize("path", [("expect",), ("expect", "zones"), ("setup", "cards", 0, "id"),
                                  ("actions", 0, "cards"), ("actions", 1, "expect"), ("extra",)],
                         ids=lambda p: ".".join(map(str, p)))
def test_deep_scenario_is_refused_in_one_line(tmp_path: Path, path: tuple[str | int, ...]) -> None:
    source = ROOT / "tests" / "scenarios" / "card-faithless-looting-draw-two-discard-two.json"
    file = _at_the_limit(tmp_path, _place(json.loads(source.read_text(encoding="utf-8")), path), "deep.json")
    r = _cli("scenario", str(file))
    assert r.exit_code == 2 and "Traceback" not in r.stderr
    assert r.stderr.startswith("mtgcheck: error: ") and len(r.stderr.strip().splitlines()) == 1, r.stderr


@pytest.mark.parametrize("path", [("setup", "cards"), ("setup", "mana"), ("depth",), ("extra",)],
                         ids=lambda p: ".".join(map(str, p)))
def test_deep_config_is_refused_in_one_line(tmp_path: Path, path: tuple[str | int, ...]) -> None:
    from mtgcheck.configs import load_config

    doc = _place(json.loads((ROOT / "examples" / "three-player-planechase.json").read_text(encoding="utf-8")), path)
    file = _at_the_limit(tmp_path, doc, "deep.json")
    with pytest.raises(FormatError) as info:
        load_config(file)
    assert "\n" not in str(info.value)


def test_normalized_copies_a_value_nested_past_the_recursion_limit() -> None:
    from mtgcheck.formats import normalized

    deep = _nested(600)  # past the reader's limit; a recursive copy takes 2 frames a level
    copy = normalized([2.0, {"a": 1.5, "b": deep}])
    assert copy == [2, {"a": 1.5, "b": deep}] and type(copy[0]) is int



# --- 9. an engine's name and version are shown escaped -------------------------------------

#: Characters an engine may put in its hello that must never reach a terminal raw: the
#: right-to-left override, NUL, an escape sequence, a newline, a zero-width joiner.
_UNSHOWABLE = ("\u202e", "\0", "\x1b", "\n", "\u200d", "\u2066")


def test_engine_name_and_version_are_shown_escaped(tmp_path: Path) -> None:
    import shlex
    import sys

    faulty = ROOT / "tests" / "engines" / "faulty_engine.py"
    name, version = "evil\u202eexe\0\x1b[31m", "1\u2066\n2"
    command = shlex.join([sys.executable, str(faulty), "--fault", "lie", "--after", "2",
                          "--name", json.dumps(name), "--version", json.dumps(version)])
    out = tmp_path / "report.json"
    r = CliRunner().invoke(main, ["validate", "--engine", f"cmd:{command}", "--budget", "3", "--seed", "1",
                                  "--no-default-scenarios", "--store", str(tmp_path / "cx"), "--json", str(out)],
                           catch_exceptions=False)
    assert r.exit_code == 1, r.output
    printed = r.stdout + r.stderr
    assert "evil\\u202eexe\\x00\\x1b[31m" in printed and "1\\u2066\\n2" in printed
    assert not any(ch in printed.replace("\n", "") for ch in _UNSHOWABLE)
    report = out.read_text(encoding="utf-8")
    assert not any(ch in json.loads(report)["engine"] + json.loads(report)["version"] for ch in _UNSHOWABLE)
    (folder,) = (tmp_path / "cx").iterdir()
    assert folder.name.startswith("evil-u202eexe-x00-x1b-31m-1-u2066-n2"), folder.name
    assert not any(ch in folder.name for ch in _UNSHOWABLE)
    for stored_file in folder.iterdir():
        target = json.loads(stored_file.read_text(encoding="utf-8"))["target"]
        assert not any(ch in target for ch in _UNSHOWABLE)
        shown = _cli("replay", str(stored_file)).stdout + _cli("show", str(stored_file)).stdout
        assert not any(ch in shown.replace("\n", "") for ch in _UNSHOWABLE)


def test_a_stored_target_with_unshowable_characters_is_shown_escaped(tmp_path: Path) -> None:
    """A counterexample written by hand (or by an older mtgcheck) with a raw U+202E in its target."""
    from mtgcheck.store import content_hash

    source = sorted((ROOT / "counterexamples" / "phase-0.103.0").glob("*.json"))[0]
    doc = json.loads(source.read_text(encoding="utf-8"))
    doc["target"] = "phase\u202e-0.103.0\0"
    doc["hash"] = content_hash(doc)
    file = tmp_path / "cx.json"
    file.write_text(json.dumps(doc), encoding="utf-8")
    for command in ("replay", "show"):
        r = _cli(command, str(file))
        assert "phase\\u202e-0.103.0\\x00" in r.stdout, r.stdout
        assert not any(ch in (r.stdout + r.stderr).replace("\n", "") for ch in _UNSHOWABLE)


# --- 10. nothing written outside the folders a command names -------------------------------

_OUT = "{out}"


@pytest.mark.parametrize("argv", [
    ["check", "--checker", "hypothesis", "--checker", "graph", "--checker", "z3", "--config", "plot",
     "--property", "plot-only-main-phase-empty-stack", "--examples", "50", "--seed", "1", "-j", "1", "--depth", "1",
     "--graph-backend", "python", "--store", f"{_OUT}/cx", "--json", f"{_OUT}/r.json", "--junit", f"{_OUT}/r.xml"],
    ["validate", "--engine", "model", "--budget", "3", "--seed", "0",
     "--store", f"{_OUT}/cx", "--json", f"{_OUT}/r.json"],
    ["mutants", "--mutant", "plot-with-stack", "--checker", "hypothesis", "--checker", "graph", "--timeout", "60",
     "-j", "1", "--json", f"{_OUT}/r.json"],
    ["scenario", str(ROOT / "tests" / "scenarios" / "card-faithless-looting-draw-two-discard-two.json"),
     "--json", f"{_OUT}/r.json"],
    ["replay", str(STORED[0])],
    ["show", str(STORED[0])],
    ["diff", "reference", "mutant-plot-with-stack", "--config", "plot", "--checker", "graph",
     "--out", f"{_OUT}/d.json"],
], ids=lambda argv: argv[0])
def test_a_command_writes_nothing_in_the_working_directory(tmp_path: Path, argv: list[str]) -> None:
    """Run from an empty folder, each command leaves it empty: its files go where its
    options say, Hypothesis's and the compiler's to the cache."""
    import subprocess
    import sys

    cwd, out, cache = tmp_path / "cwd", tmp_path / "out", tmp_path / "cache"
    for folder in (cwd, out):
        folder.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "HYPOTHESIS_STORAGE_DIRECTORY"}
    env["MTGCHECK_CACHE"] = str(cache)
    args = [a.replace(_OUT, str(out)) for a in argv]
    proc = subprocess.run([sys.executable, "-m", "mtgcheck.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode in (0, 1, 3), proc.stderr
    assert sorted(p.name for p in cwd.rglob("*")) == []
