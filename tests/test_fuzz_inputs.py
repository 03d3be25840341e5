"""Fuzzing every file mtgcheck reads: a malformed input is one line and exit 2, nothing else.

The contract (README, docs/scenario.md): a file that is missing, unreadable, too large, not
JSON or not valid is reported on one line, ``mtgcheck: error: FILE: FIELD: expected ...,
got ...``, and the command exits 2; never a traceback, a hang, or a half-written output
file. Hand-made examples of bad files (``tests/test_scenario_format.py``) cover the mistakes
someone thought of; these tests spoil valid files at random (``tests/fuzzing.py``) to find
the ones nobody thought of, for each reader:

* scenario files, through ``mtgcheck scenario FILE --json OUT``;
* counterexample files, through ``mtgcheck replay FILE`` and ``mtgcheck show FILE --svg
  --itf``; a spoiled document gets its content hash recomputed half of the time, so that
  the spoiling reaches the embedded scenario instead of always stopping at the hash check;
* the card pool, through :func:`mtgcheck.model.cards.pool_from_document` (its path is fixed,
  package data, so the documents are fuzzed, not the file).

A spoiled input may still be valid (a dropped optional key, a huge life total): then the
command must run normally (exit 0 or 1, nothing on stderr). Inputs that are surely
malformed (truncated, invalid UTF-8, NaN, an unknown key in these closed formats) must
exit 2. Commands run in-process through click's CliRunner for speed; a few run as real
subprocesses too. The number of inputs tried per kind is recorded as the test's
``inputs_tried`` property (``--junitxml``) and printed (``-s`` or ``-rP`` shows it).
Default tier: 200 inputs per kind; ``-m deep``: ten times as many.
"""

from __future__ import annotations

import contextlib
import copy
import json
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from mtgcheck.model import cards

from mtgcheck.cli import main
from mtgcheck.errors import FormatError
from mtgcheck.store import content_hash
from tests.conftest import ROOT
from tests.fuzzing import (
    Malformed,
    RawJSON,
    encode,
    malformed_documents,
    malformed_inputs,
)

#: Seconds one input may take, end to end; a reader that hangs (or parses quadratically)
#: on a spoiled input fails here instead of stalling the suite. Generous: the machine is
#: shared, and a valid spoiled scenario still runs the model.
TIME_BOUND = 20.0
DEFAULT_EXAMPLES = 200
DEEP_EXAMPLES = 10 * DEFAULT_EXAMPLES
TIERS = [pytest.param(DEFAULT_EXAMPLES, id="default"),
         pytest.param(DEEP_EXAMPLES, id="deep", marks=pytest.mark.deep)]

#: Inputs tried and inputs refused (exit 2 / FormatError) per kind, in this process.
TRIED: Counter[str] = Counter()
REFUSED: Counter[str] = Counter()

# A few valid scenarios that between them use every part of the format: planechase (one
# deck each, communal), split cards and targets, choices, extra turns, three players.
SCENARIO_SEEDS = [json.loads((ROOT / "tests" / "scenarios" / name).read_text(encoding="utf-8")) for name in (
    "plot-waits-a-turn.json",
    "planechase-communal-deck.json",
    "planechase-planeswalk-owner-and-walker-decks.json",
    "cast-split-card-pays-only-the-half-cast.json",
    "card-make-your-own-luck-top-three.json",
    "ruling-10-extra-turns-then-next-player.json",
    "leave-three-players-two-leave-game-over.json",
    "cast-target-chosen-before-costs-paid.json",
)]
COUNTEREXAMPLE = min((ROOT / "counterexamples" / "variant-116.2k").rglob("*.json"))
COUNTEREXAMPLE_DOC = json.loads(COUNTEREXAMPLE.read_text(encoding="utf-8"))
POOL_DOC = json.loads((ROOT / "mtgcheck" / "data" / "cards.json").read_text(encoding="utf-8"))


class Hang(Exception):
    """A case ran past :data:`TIME_BOUND`."""


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`Hang` in the code under test after ``seconds`` (main thread, POSIX).

    An alarm rather than a watchdog thread: a hung parser must be interrupted, not just
    noticed, or the suite would stall on it.
    """
    def on_alarm(signum: int, frame: object) -> None:
        raise Hang(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def fuzz_settings(examples: int) -> settings:
    """Derandomized (a failure reproduces), no example database (never written into the repo)."""
    return settings(max_examples=examples, derandomize=True, database=None, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.large_base_example])


def invoke(args: list[str]) -> tuple[Result, float]:
    """Run the CLI in-process under the time limit; the result and the seconds it took."""
    start = time.monotonic()
    with time_limit(TIME_BOUND):
        result = CliRunner().invoke(main, args, catch_exceptions=True)
    return result, time.monotonic() - start


def assert_outcome(result: Result, seconds: float, path: Path, case: Malformed) -> bool:
    """The contract for one input; returns whether the input was refused (exit 2).

    Exit 2: exactly one line on stderr, ``mtgcheck: error: FILE: ...``. Exit 0 or 1: the
    spoiled input was still valid and ran; nothing on stderr. Never an exception that
    click did not turn into an exit (a traceback), never past the time bound.
    """
    crash = result.exception if not isinstance(result.exception, SystemExit) else None
    assert crash is None, f"{case}: {type(crash).__name__}: {crash}"
    assert seconds < TIME_BOUND, f"{case}: took {seconds:.1f} s"
    assert "Traceback" not in result.stderr, case
    if case.surely_invalid:
        assert result.exit_code == 2, f"{case}: exit {result.exit_code}, stderr {result.stderr!r}"
    assert result.exit_code in (0, 1, 2), f"{case}: exit {result.exit_code}"
    if result.exit_code != 2:
        assert result.stderr == "", f"{case}: {result.stderr!r}"
        return False
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and result.stderr.endswith("\n"), f"{case}: {result.stderr!r}"
    assert lines[0].startswith(f"mtgcheck: error: {path}: "), f"{case}: {lines[0]!r}"
    assert ": expected " in lines[0], f"{case}: {lines[0]!r}"
    return True


def run_fuzz(kind: str, examples: int, inputs: st.SearchStrategy[Any], check: Callable[[Any], bool],
             regressions: list[Any], record_property: Callable[[str, object], None]) -> None:
    """Check every drawn input (the regressions first), count them, and report the count.

    The count goes where the closing note of the issue can read it (the test's
    ``inputs_tried`` property, in ``--junitxml``) and on the console.
    """
    tried = refused = 0

    def one(case: Any) -> None:
        nonlocal tried, refused
        tried += 1
        refused += check(case)

    for case in regressions:
        one = example(case=case)(one)
    fuzz_settings(examples)(given(case=inputs)(one))()
    TRIED[kind] += tried
    REFUSED[kind] += refused
    record_property("inputs_tried", tried)
    record_property("inputs_refused", refused)
    print(f"\nfuzz {kind}: {tried} malformed inputs tried, {refused} refused")
    assert tried >= examples  # Hypothesis stops early only when it runs out of inputs
    assert refused > tried // 2  # the spoiling spoils: most inputs must be refused


# ---------------------------------------------------------------------------------------
# Scenario files


def scenario_inputs() -> st.SearchStrategy[Malformed]:
    return st.sampled_from(SCENARIO_SEEDS).flatmap(lambda doc: malformed_inputs(doc, closed_objects=True))


def check_scenario_file(tmp: Path, case: Malformed) -> bool:
    """``mtgcheck scenario FILE --json OUT`` on the spoiled bytes; whether it was refused.

    The report file is written whole or not at all (atomic), and on a refusal it carries
    the same one-line error as stderr (docs/scenario.md: the report holds "the error of a
    file that could not be loaded"); nothing else appears next to it (no temp file left).
    """
    path, out_dir = tmp / "spoiled.json", tmp / "out"
    path.write_bytes(case.value)
    out_dir.mkdir()
    out = out_dir / "report.json"
    result, seconds = invoke(["scenario", str(path), "--json", str(out)])
    refused = assert_outcome(result, seconds, path, case)
    assert [p.name for p in out_dir.iterdir()] in ([], ["report.json"]), case
    if out.exists():
        written = json.loads(out.read_text(encoding="utf-8"))
        assert written["format"] == "mtgcheck.scenario-report/1" and len(written["reports"]) == 1, case
        if refused and "error" in written["reports"][0]:
            assert "mtgcheck: error: " + written["reports"][0]["error"] == result.stderr.rstrip("\n"), case
    return refused


# Regressions: inputs that once crashed a reader, kept as explicit examples.
#: A lone surrogate in the name: valid JSON, and it crashed printing "PASS FILE: NAME".
SCENARIO_SURROGATE = Malformed("awkward-string", encode({**SCENARIO_SEEDS[0], "name": RawJSON(r'"\ud800"')}), True)


@pytest.mark.parametrize("examples", TIERS)
def test_scenario_files(examples: int, tmp_path_factory: pytest.TempPathFactory,
                        record_property: Callable[[str, object], None]) -> None:
    run_fuzz("scenario", examples, scenario_inputs(),
             lambda case: check_scenario_file(tmp_path_factory.mktemp("scenario"), case),
             [SCENARIO_SURROGATE], record_property)


# ---------------------------------------------------------------------------------------
# Counterexample files


def rehashed(value: Any) -> Any:
    """The spoiled document with its ``hash`` made right again, when it can be.

    The hash is of the parsed content, so the document is parsed back the lenient way
    (Python's json); a document that does not parse, or is no object, stays as it is.
    """
    try:
        parsed = json.loads(encode(value))
        if isinstance(value, dict) and isinstance(parsed, dict):
            return {**value, "hash": content_hash(parsed)}
    except (ValueError, RecursionError, TypeError):
        pass
    return value


@st.composite
def counterexample_inputs(draw: st.DrawFn) -> Malformed:
    case = draw(malformed_inputs(COUNTEREXAMPLE_DOC, closed_objects=True))
    if draw(st.booleans()):
        return case
    doc = draw(malformed_documents(COUNTEREXAMPLE_DOC, closed_objects=True))
    fixed = rehashed(doc.value)
    # A spoiled ``hash`` that the rehash writes anew leaves the stored document as it was.
    try:
        undone = json.loads(encode(fixed)) == COUNTEREXAMPLE_DOC
    except (ValueError, RecursionError, TypeError):
        undone = False
    return Malformed(doc.label + "+rehashed", encode(fixed), doc.surely_invalid and not undone)


def spoiled_counterexample(label: str, change: Callable[[dict[str, Any]], Any], *, rehash: bool) -> Malformed:
    """A regression input: the stored counterexample changed, its hash made right if asked."""
    doc = change(dict(COUNTEREXAMPLE_DOC))
    return Malformed(label, encode(rehashed(doc) if rehash else doc), True)


# Regressions: each of these once gave a traceback (or, for the duplicate key, trace_length
# and minimized_from, was read without a word) before replay.load read JSON as strictly as
# scenario files and checked every key.
COUNTEREXAMPLE_REGRESSIONS = [
    spoiled_counterexample("duplicate-key", lambda d: {**d, "scenario": RawJSON(
        encode(d["scenario"], indent=None).decode()[:-1] + ', "name": "x"}')}, rehash=True),
    spoiled_counterexample("giant-integer", lambda d: {**d, "seed": RawJSON("9" * 5000)}, rehash=False),
    spoiled_counterexample("retype", lambda d: {**d, "violates": []}, rehash=False),
    spoiled_counterexample("awkward-string", lambda d: {**d, "found_by": RawJSON(r'"\ud800"')}, rehash=False),
    spoiled_counterexample("unknown-key", lambda d: {**d, "a\nb": 1}, rehash=False),
    spoiled_counterexample("retype", lambda d: {**d, "trace_length": "abc"}, rehash=True),
    spoiled_counterexample("unknown-key", lambda d: {**d, "minimized_from": {"zz_unknown": []}}, rehash=True),
    spoiled_counterexample("non-json-constant", lambda d: {**d, "scenario": {
        **d["scenario"], "description": RawJSON("NaN")}}, rehash=True),
]


def check_counterexample_file(tmp: Path, case: Malformed) -> bool:
    """``replay FILE`` and ``show FILE --svg --itf`` agree, and show writes nothing on a refusal."""
    path, out_dir = tmp / "spoiled.json", tmp / "out"
    path.write_bytes(case.value)
    out_dir.mkdir()
    replayed, seconds = invoke(["replay", str(path)])
    refused = assert_outcome(replayed, seconds, path, case)
    shown, seconds = invoke(["show", str(path), "--svg", str(out_dir / "t.svg"), "--itf", str(out_dir / "t.json")])
    assert assert_outcome(shown, seconds, path, case) == refused, case
    if refused:
        assert shown.stderr == replayed.stderr, case  # one loader, one message
        assert list(out_dir.iterdir()) == [], case
    else:
        assert sorted(p.name for p in out_dir.iterdir()) == ["t.json", "t.svg"], case
    return refused


@pytest.mark.parametrize("examples", TIERS)
def test_counterexample_files(examples: int, tmp_path_factory: pytest.TempPathFactory,
                              record_property: Callable[[str, object], None]) -> None:
    run_fuzz("counterexample", examples, counterexample_inputs(),
             lambda case: check_counterexample_file(tmp_path_factory.mktemp("cx"), case),
             COUNTEREXAMPLE_REGRESSIONS, record_property)


# ---------------------------------------------------------------------------------------
# The card pool


def parsed_pool_documents() -> st.SearchStrategy[Malformed]:
    """Spoiled pool documents, parsed as the pool is (Python's json).

    None is surely invalid: Python's json reads NaN, keeps the last of two equal keys, and
    the pool's records may carry keys the model does not read.
    """
    def parse(case: Malformed) -> Malformed:
        try:
            return Malformed(case.label, json.loads(encode(case.value)), False)
        except (ValueError, RecursionError):  # not JSON Python reads: nothing to hand over
            return Malformed(case.label, None, False)

    return malformed_documents(POOL_DOC).map(parse).filter(lambda case: case.value is not None)


def check_pool_document(case: Malformed) -> bool:
    """A spoiled pool loads or is one FormatError about the pool file, naming a field."""
    start = time.monotonic()
    try:
        with time_limit(TIME_BOUND):
            loaded = cards.pool_from_document(case.value)
    except FormatError as error:
        message = str(error)
        assert error.file == cards.POOL_FILE and error.field, (case, message)
        assert message.startswith(f"{cards.POOL_FILE}: {error.field}: expected "), (case, message)
        assert len(message.splitlines()) == 1 and message.isprintable(), (case, message)
        return True
    finally:
        assert time.monotonic() - start < TIME_BOUND, case
    assert not case.surely_invalid, case
    assert isinstance(loaded[0], dict) and isinstance(loaded[1], dict), case
    return False


SPLIT_CARD = next(i for i, rec in enumerate(POOL_DOC["cards"]) if " // " in rec.get("manaCost", ""))


def pool_with(label: str, path: tuple[str | int, ...], value: Any) -> Malformed:
    """The pool document with one value set (added if the key is new): a regression input."""
    doc = copy.deepcopy(POOL_DOC)
    parent = doc
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = value
    return Malformed(label, doc, True)


# Regressions: each of these once raised TypeError, AttributeError, ValueError or
# RecursionError from pool_from_document (or was read without a word).
POOL_REGRESSIONS = [
    pool_with("retype", ("cards", 0, "types"), [["Sorcery"]]),
    pool_with("swap-values", ("cards", 0, "types"), ["Sorcery", None]),
    pool_with("retype", ("cards", 0, "keywords"), [{}]),
    pool_with("awkward-string", ("cards", 1, "power"), "\u00b2"),
    pool_with("giant-integer", ("cards", 1, "power"), "9" * 5000),
    pool_with("awkward-string", ("cards", 0, "manaCost"), "{\u00b2}"),
    pool_with("retype", ("cards", 0, "flashbackLife"), True),
    pool_with("huge-int", ("cards", 0, "flashbackLife"), -(10**30)),
    pool_with("moderate-nesting", ("cards", 0), json.loads("[" * 900 + "]" * 900)),
    pool_with("retype", ("cards", SPLIT_CARD, "faces"), [1, 2]),
    pool_with("moderate-nesting", ("planes", 0, "text"), json.loads("[" * 900 + "]" * 900)),
    pool_with("duplicate-plane", ("planes",), [*POOL_DOC["planes"], POOL_DOC["planes"][0]]),
]


@pytest.mark.parametrize("examples", TIERS)
def test_card_pool_documents(examples: int, record_property: Callable[[str, object], None]) -> None:
    run_fuzz("card-pool", examples, parsed_pool_documents(), check_pool_document,
             POOL_REGRESSIONS, record_property)


# ---------------------------------------------------------------------------------------
# A few real processes: the in-process runs above see what click does, not what a user sees


SUBPROCESS_CASES = [
    ("scenario", lambda doc: encode(doc)[:-7]),
    ("scenario", lambda doc: b"\xef\xbb\xbf\xef\xbb\xbf" + encode(doc)),
    ("scenario", lambda doc: b"[" * 100_000),
    ("replay", lambda doc: encode({**doc, "seed": "zero"})),
    ("show", lambda doc: encode(doc).replace(b'"seed": 0', b'"seed": NaN')),
]


@pytest.mark.parametrize(("command", "spoil"), SUBPROCESS_CASES)
def test_real_processes(command: str, spoil: Callable[[Any], bytes], tmp_path: Path) -> None:
    doc = SCENARIO_SEEDS[0] if command == "scenario" else COUNTEREXAMPLE_DOC
    path = tmp_path / "spoiled.json"
    path.write_bytes(spoil(doc))
    args = [sys.executable, "-m", "mtgcheck.cli", command, str(path)]
    args += ["--json", str(tmp_path / "out.json")] if command == "scenario" else []
    r = subprocess.run(args, capture_output=True, text=True, timeout=120, cwd=tmp_path, check=False)
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and r.stderr.startswith(f"mtgcheck: error: {path}: "), r.stderr
    assert "Traceback" not in r.stderr
