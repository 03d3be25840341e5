"""The compiled search is the interpreter's search: same states, edges, counts, verdicts, traces.

:mod:`mtgcheck.checkers.native` prints the Z3 relation (guards, effects, the state-based actions,
the properties) as C and runs the graph search's breadth-first order natively.  Nothing in it is a
second reading of a rule, but the printing, the symmetry reduction's tables and the search loop
are code of their own: each test here compares them with the interpreter on something that would
differ if any of them were wrong (a wrong operator, a swapped operand, a wrong table entry, an
edge visited in another order, a witness counted twice).  ``-m deep`` does it on every small
position and every broken rule set of ``tests/test_break_properties.py``.
"""

from __future__ import annotations

import ctypes
import random
from typing import Any

import pytest

from mtgcheck.checkers import graph, native
from mtgcheck.checkers.symmetry import canonicalizer, groups, rename
from mtgcheck.configs import OTARIA, PLOT, SMALL, CheckConfig
from mtgcheck.errors import UsageError
from mtgcheck.model.actions import catalogue, legal_actions, step
from mtgcheck.model.setup import build
from mtgcheck.model.state import flat
from mtgcheck.properties.catalogue import BY_ID, PROPERTIES

from .test_break_properties import BREAKS, BY_PROP
from .test_symmetry import TWO_BOLTS

needs_cc = pytest.mark.skipif(not native.available(), reason="no C compiler")


def _search(conf: CheckConfig, backend: str, **kw: Any) -> tuple[list[Any], graph.Exploration]:
    return graph.check(conf, kw.pop("props", PROPERTIES), backend=backend, timeout=300, **kw)


def assert_same_search(conf: CheckConfig, **kw: Any) -> graph.Exploration:
    """The two readings' searches agree on everything they report and everything they saw."""
    got, ex = _search(conf, "native", **kw)
    want, ep = _search(conf, "python", **kw)
    assert ex.backend == "native" and ep.backend == "python"

    def row(v: Any) -> tuple[Any, ...]:
        return (v.property, v.status, v.depth, v.detail, v.trace,
                {k: x for k, x in v.stats.items() if k not in ("backend", "program_s")})

    assert [row(v) for v in got] == [row(v) for v in want]
    assert (ex.complete, ex.fixpoint, ex.depth) == (ep.complete, ep.fixpoint, ep.depth)
    assert list(ex.states) == ep.states  # the same real states, in the same order
    assert (list(ex.sources), list(ex.targets)) == (ep.sources, ep.targets)
    assert ex.edges == ep.edges
    assert [t.action for t in ex.via] == [t.action for t in ep.via]
    assert (ex.fired, ex.actions) == (ep.fired, ep.actions)
    return ex


@needs_cc
@pytest.mark.parametrize("conf", [PLOT, OTARIA], ids=lambda c: c.name)
def test_the_compiled_search_is_the_interpreters(conf: CheckConfig) -> None:
    ex = assert_same_search(conf, unbounded=True, max_states=400_000)
    assert ex.fixpoint and len(ex.states) > 500
    assert_same_search(conf)  # to the configuration's turn bound, turn numbers as they are
    assert_same_search(conf, unbounded=True, symmetry=False, max_states=400_000)


@needs_cc
def test_a_search_cut_short_is_cut_at_the_same_state() -> None:
    got, ex = _search(PLOT, "native", unbounded=True, max_states=300)
    assert not ex.complete and len(ex.states) == 300
    assert any(v.status == "holds" for v in got)
    assert_same_search(PLOT, unbounded=True, max_states=300)


@needs_cc
@pytest.mark.parametrize("prop", ["plotted-never-cast-same-turn", "flashback-spell-always-ends-in-exile", "every-card-in-one-zone"])
def test_a_broken_rule_is_found_at_the_same_step_by_the_same_trace(prop: str) -> None:
    """Both kinds of property (transition and state), on a guard dropped and on a mutant clause."""
    b = BY_PROP[prop]
    kw = dict(disabled=b.disabled, variant=b.variant)
    got, _ = _search(b.conf, "native", **kw)
    assert [v.property for v in got if v.status == "violated"], "the break is found"
    assert_same_search(b.conf, **kw)
    assert_same_search(b.conf, first_violation=True, **kw)


@needs_cc
def test_the_compiled_keys_are_the_symmetry_reductions() -> None:
    """Identical cards sorted (with the references to them), object ids and turns renumbered:
    on reachable states, and on random renamings of them."""
    cfg, s0 = build(TWO_BOLTS.position)
    assert groups(cfg)
    lib = native.program(cfg, tuple(PROPERTIES))
    n = len(flat(s0))

    def key(s: Any, turns: bool) -> list[int]:
        out = (ctypes.c_int * n)()
        lib.canonical((ctypes.c_int * n)(*flat(s)), out, int(turns))
        return list(out)

    rng = random.Random(3)
    s, seen = s0, 0
    for _ in range(400):
        acts = legal_actions(cfg, s)
        if not acts or s.game_over:
            s = s0
            continue
        s = step(cfg, s, rng.choice(acts))
        for turns in (False, True):
            want = flat(canonicalizer(cfg, turns)(s))
            assert key(s, turns) == want
            perm = list(range(cfg.n))
            for g in groups(cfg):
                shuffled = list(g)
                rng.shuffle(shuffled)
                for src, dst in zip(g, shuffled, strict=True):
                    perm[src] = dst
            renamed = rename(cfg, s, perm)
            assert key(renamed, turns) == flat(canonicalizer(cfg, turns)(renamed))
        seen += 1
    assert seen > 200


@needs_cc
def test_every_compiled_transition_is_the_interpreters() -> None:
    """Per transition of the catalogue, on states of random games: enabled alike, and the
    same successor, state-based actions included."""
    conf = BY_PROP["flashback-spell-always-ends-in-exile"].conf
    cfg, s0 = build(conf.position)
    lib = native.program(cfg, tuple(PROPERTIES))
    ts = catalogue(cfg).transitions
    n = len(flat(s0))
    rng = random.Random(5)
    s, fired = s0, set()
    for _ in range(150):
        a = (ctypes.c_int * n)(*flat(s))
        for i, t in enumerate(ts):
            b = (ctypes.c_int * n)()
            on = t.enabled(s)
            assert bool(lib.successor(i, a, b)) == on, (t.action, s)
            if on:
                assert list(b) == flat(t.effect(s)), t.action
                fired.add(t.rule)
        acts = legal_actions(cfg, s)
        s = s0 if not acts or s.game_over else step(cfg, s, rng.choice(acts))
    assert len(fired) >= 5


def test_without_a_compiler_auto_runs_the_interpreter_and_native_says_why(monkeypatch: pytest.MonkeyPatch,
                                                                           tmp_path: Any) -> None:
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    monkeypatch.setenv("MTGCHECK_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(graph, "NATIVE_AFTER", 100)
    native.program.cache_clear()
    try:
        assert not native.available()
        got, ex = graph.check(PLOT, PROPERTIES, unbounded=True, backend="auto")
        assert ex.backend == "python" and ex.fixpoint
        with pytest.raises(UsageError, match="no C compiler"):
            graph.check(PLOT, PROPERTIES, unbounded=True, backend="native")
    finally:
        native.program.cache_clear()


@needs_cc
def test_auto_hands_a_long_search_to_the_compiled_one_and_a_term_it_cannot_print_back(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.setattr(graph, "NATIVE_AFTER", 100)
    monkeypatch.setenv("MTGCHECK_CACHE", str(tmp_path / "a"))
    native.program.cache_clear()
    try:
        _, small = graph.check(PLOT, PROPERTIES, unbounded=True, backend="auto", max_states=50)
        assert small.backend == "python"  # the budget is under NATIVE_AFTER: never compiled
        _, ex = graph.check(PLOT, PROPERTIES, unbounded=True, backend="auto")
        assert ex.backend == "native" and ex.fixpoint
        _, small = graph.check(PLOT, PROPERTIES, unbounded=True, backend="auto", max_states=50)
        assert small.backend == "native"  # compiled before: nothing to pay for
        _, bounded = graph.check(PLOT, PROPERTIES, backend="auto")
        assert bounded.backend == "native"  # the same relation to the turn bound: the same program
        _, other = graph.check(OTARIA, PROPERTIES, backend="auto")
        assert other.backend == "python"  # a search to the turn bound never pays for a compile

        def refuse(*_: Any) -> str:
            raise native.Unsupported("no C for the term (test)")

        monkeypatch.setattr(native, "_c_op", refuse)
        monkeypatch.setenv("MTGCHECK_CACHE", str(tmp_path / "b"))
        native.program.cache_clear()
        got, ex = graph.check(PLOT, [BY_ID["object-ids-fresh"]], unbounded=True, backend="auto")
        assert ex.backend == "python" and ex.fixpoint and got[0].status == "proved"
        assert "no C for the term" in got[0].stats["backend_note"]  # said, not hidden
        with pytest.raises(UsageError, match="no C for the term"):
            graph.check(PLOT, [BY_ID["object-ids-fresh"]], unbounded=True, backend="native")
    finally:
        native.program.cache_clear()


@needs_cc
def test_a_program_is_compiled_once_and_then_read_from_the_cache(monkeypatch: pytest.MonkeyPatch,
                                                                  tmp_path: Any) -> None:
    monkeypatch.setenv("MTGCHECK_CACHE", str(tmp_path))
    src = native.source(build(TWO_BOLTS.position)[0], PROPERTIES)
    native.load(src)
    assert len(list((tmp_path / "native").glob("search-*.lib"))) == 1
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))  # a second load needs no compiler
    native.load(src)
    with pytest.raises(native.Unsupported, match="no C compiler"):
        native.load(src + "\n/* another program */\n")
    other = src + "\n/* a damaged entry */\n"
    (tmp_path / "native" / f"search-{native._digest(other)}.lib").write_bytes(b"not a program")
    with pytest.raises(native.Unsupported, match="cannot load"):  # a one-line reason, no traceback
        native.load(other)
    assert not list((tmp_path / "native").glob("tmp*"))  # nothing half-written is left


@pytest.mark.deep
@needs_cc
@pytest.mark.parametrize("conf", list(SMALL.values()), ids=lambda c: c.name)
def test_every_small_position_searched_alike(conf: CheckConfig) -> None:
    assert_same_search(conf, unbounded=True, max_states=400_000)
    assert_same_search(conf)


@pytest.mark.deep
@needs_cc
@pytest.mark.parametrize("b", BREAKS, ids=lambda b: b.id)
def test_every_break_found_alike(b: Any) -> None:
    assert_same_search(b.conf, disabled=b.disabled, variant=b.variant)
    assert_same_search(b.conf, disabled=b.disabled, variant=b.variant, unbounded=True, max_states=400_000)


def test_the_same_relation_prints_the_same_program() -> None:
    """The program is found in the cache by its source: a run whose Z3 context holds other
    terms first (another unit in the same worker) must print the very same text."""
    import z3

    cfg, _ = build(TWO_BOLTS.position)
    first = native.source(cfg, PROPERTIES)
    other = [z3.Int(f"other{i}") + i for i in range(2000)]  # alive while the relation is printed again
    assert native.source(cfg, PROPERTIES) == first
    del other


@needs_cc
def test_a_program_is_found_by_what_it_is_printed_from(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.setenv("MTGCHECK_CACHE", str(tmp_path))
    cfg, _ = build(TWO_BOLTS.position)
    native.program.cache_clear()
    try:
        first = native.program(cfg, tuple(PROPERTIES))

        def no_print(*_: Any) -> str:
            raise AssertionError("printed again")

        monkeypatch.setattr(native, "source", no_print)
        native.program.cache_clear()
        assert native.program(cfg, tuple(PROPERTIES))._name == first._name
        # Another configuration (a card's owner changed) is another program.
        other, _ = build(OTARIA.position)
        assert native.inputs_key(other, PROPERTIES) != native.inputs_key(cfg, PROPERTIES)
        assert native.inputs_key(cfg, PROPERTIES[:3]) != native.inputs_key(cfg, PROPERTIES)
    finally:
        native.program.cache_clear()


@needs_cc
def test_a_stale_program_is_caught_before_it_searches(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """An index entry that names another relation's program (a stale cache, a hash collision):
    the check against the interpreter refuses it, the relation is printed again, and the search's
    verdicts are the interpreter's."""
    monkeypatch.setenv("MTGCHECK_CACHE", str(tmp_path))
    conf = BY_PROP["every-card-in-one-zone"]
    broken, _ = build(conf.conf.position, disabled=conf.disabled, variant=conf.variant)
    intact, s0 = build(conf.conf.position)
    native.program.cache_clear()
    try:
        wrong = native.program(broken, tuple(PROPERTIES))
        with pytest.raises(native.Unsupported, match="differs from the interpreter"):
            native.verify(wrong, intact, PROPERTIES, s0)
        index = tmp_path / "native" / f"inputs-{native.inputs_key(intact, PROPERTIES)}"
        index.write_text(wrong._name.rsplit("search-", 1)[1].removesuffix(".lib"))
        native.program.cache_clear()
        assert native.program(intact, tuple(PROPERTIES))._name == wrong._name  # the stale entry is read
        assert_same_search(conf.conf)
        assert native.program(intact, tuple(PROPERTIES))._name != wrong._name  # and replaced
    finally:
        native.program.cache_clear()


@needs_cc
def test_the_cli_says_in_one_line_why_the_compiled_search_cannot_run(tmp_path: Any) -> None:
    """A compiler that fails: ``--graph-backend native`` exits 2 with the compiler's words, no
    traceback and no report written; ``auto`` runs the interpreter (a search this small never
    asks for a compile, so nothing failed and nothing is noted)."""
    import json
    import subprocess
    import sys

    from .conftest import ROOT

    cc = tmp_path / "cc"
    cc.write_text("#!/bin/sh\necho 'cc: internal error' >&2\nexit 1\n")
    cc.chmod(0o755)
    env = {"CI": "true", "PATH": "/usr/bin:/bin", "CC": str(cc), "MTGCHECK_CACHE": str(tmp_path / "cache")}
    args = [sys.executable, "-m", "mtgcheck.cli", "check", "--checker", "graph", "--config", "costs",
            "--exhaustive", "-j", "1", "--no-store"]
    out = tmp_path / "native.json"
    r = subprocess.run([*args, "--graph-backend", "native", "--json", str(out)], capture_output=True, text=True,
                       cwd=ROOT, env=env, timeout=300)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "--graph-backend native: the C compiler failed: cc: internal error" in r.stderr
    assert not out.exists()
    out = tmp_path / "auto.json"
    r = subprocess.run([*args, "--json", str(out)], capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    rows = json.loads(out.read_text())["verdicts"]
    assert r.returncode in (0, 1) and rows and all(v["stats"]["backend"] == "python" for v in rows)
    assert not any("backend_note" in v["stats"] for v in rows)


def test_the_inputs_key_reads_what_a_property_computes() -> None:
    """Two properties of one id whose code differs (a test's, say) are two programs."""
    from mtgcheck.properties.base import Property

    def make(limit: int) -> Property:
        return Property("life-bounded", ("119.1",), "life stays under a bound", "state",
                        lambda cfg, s: s.life[0] <= limit)

    cfg, _ = build(TWO_BOLTS.position)
    assert native.inputs_key(cfg, [make(20)]) == native.inputs_key(cfg, [make(20)])
    assert native.inputs_key(cfg, [make(20)]) != native.inputs_key(cfg, [make(19)])


@needs_cc
def test_a_memory_bound_stops_the_compiled_search_and_the_verdicts_say_so() -> None:
    _, whole = graph.check(PLOT, PROPERTIES, unbounded=True, backend="native", max_states=None, keep_edges=False)
    assert whole.fixpoint and whole.stopped == "done" and not whole.sources  # no edge list kept
    bound = whole.held_bytes * 3 // 5  # above what the search holds at its start, below its end
    got, ex = graph.check(PLOT, PROPERTIES, unbounded=True, backend="native", max_states=None,
                          max_bytes=bound, keep_edges=False)
    assert not ex.complete and not ex.fixpoint and ex.stopped == "max-memory"
    assert 100 < len(ex.states) < len(whole.states) and ex.held_bytes > bound
    assert all(v.stats["stopped"] == "max-memory" and v.status != "proved" for v in got)
    assert all(v.stats["program_s"] >= 0 for v in got)  # the time to have the program, shown
    assert any("(max-memory)" in v.detail for v in got)
    _, kept = graph.check(PLOT, PROPERTIES, unbounded=True, backend="native", max_states=None)
    assert kept.edges == whole.edges and len(set(zip(kept.sources, kept.targets, strict=True))) == whole.edges


def test_exhaustive_has_no_state_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """--exhaustive hands the search no state budget (it stopped at 300,001 states) and the
    memory bound of --max-memory; the edge list is kept only for --export-graph."""
    from mtgcheck.budget import Options
    from mtgcheck.checkers.registry import GraphChecker
    from mtgcheck.rulesets import REFERENCE

    seen: dict[str, Any] = {}

    def fake_check(conf: CheckConfig, props: Any, **kw: Any) -> tuple[list[Any], graph.Exploration]:
        seen.update(kw)
        raise StopIteration

    monkeypatch.setattr(graph, "check", fake_check)
    with pytest.raises(StopIteration):
        GraphChecker().check(PLOT, PROPERTIES, REFERENCE, Options(exhaustive=True, max_memory=64, fingerprints=True))
    assert seen["max_states"] is None and seen["max_bytes"] == 64 * 2**20 and seen["keep_edges"] is False
    assert seen["fingerprints"] is True
    with pytest.raises(StopIteration):
        GraphChecker().check(PLOT, PROPERTIES, REFERENCE, Options(first_violation=True, export_dir="x"))
    assert seen["max_states"] == 300_000 and seen["max_bytes"] == 0 and seen["keep_edges"] is True


@needs_cc
def test_a_frontier_past_its_memory_budget_goes_to_a_file_and_the_search_is_the_same(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The queue of states to expand spills into a file past its budget (here: 64 states, the
    least it keeps in memory); the states, their order, the verdicts and the traces stay the
    interpreter's."""
    monkeypatch.setattr(native, "FRONTIER_BYTES", 1)
    ex = assert_same_search(PLOT, unbounded=True, max_states=400_000)
    assert ex.store["spilled"] > 0 and ex.store["frontier_peak"] > 64
    b = BY_PROP["every-card-in-one-zone"]
    assert_same_search(b.conf, unbounded=True, max_states=400_000, disabled=b.disabled, variant=b.variant)


@needs_cc
@pytest.mark.parametrize("threads", [2, 3])
def test_threads_expanding_a_batch_change_nothing_the_search_reports(threads: int,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """States expanded by several threads, a batch at a time (the next batch while the search's
    thread takes the last in order): the same states in the same order, the same edges,
    verdicts, witnesses and traces as the interpreter's one-at-a-time search, with the queue
    in its file too (its smallest budget), and the same first violation of a broken rule."""
    monkeypatch.setattr(native, "FRONTIER_BYTES", 1)
    ex = assert_same_search(PLOT, unbounded=True, max_states=None, threads=threads)
    assert ex.fixpoint and ex.store["spilled"] > 0
    b = BY_PROP["every-card-in-one-zone"]
    assert_same_search(b.conf, unbounded=True, max_states=400_000, disabled=b.disabled, variant=b.variant,
                       threads=threads)
    # a budget of states stops the search at the same state, mid-batch
    assert_same_search(PLOT, unbounded=True, max_states=5_000, threads=threads)


@needs_cc
def test_the_exact_store_shares_subtrees_and_keeps_less_than_the_packed_states() -> None:
    """Tree compression: a new state adds a few nodes (a whole key would add 2W - 2), and the
    search holds fewer bytes a state than the packed states alone would take, apart from the
    batches being expanded (working memory of a bounded size, counted in what it holds)."""
    from mtgcheck.checkers.packing import packing

    _, ex = graph.check(PLOT, PROPERTIES, unbounded=True, backend="native", max_states=None, keep_edges=False)
    n, words = len(ex.states), packing(ex.cfg).words
    assert ex.fixpoint and ex.collision_bound is None and n > 1_000
    assert 0 < ex.store["nodes"] < 3 * n < (2 * words - 2) * n
    assert 0 < ex.store["batch_bytes"] < ex.held_bytes
    assert ex.held_bytes - ex.store["batch_bytes"] < n * words * 8


@needs_cc
def test_fingerprints_keep_the_states_and_traces_but_prove_nothing() -> None:
    """With fingerprints the search meets the same states (no collision at this size) and the
    same first violations, but a fixpoint says "holds" with the bound on a collision, never
    "proved"."""
    from mtgcheck.checkers.result import HOLDS, PROVED

    exact, ex = graph.check(PLOT, PROPERTIES, unbounded=True, backend="native", max_states=None, keep_edges=False)
    fp, ef = graph.check(PLOT, PROPERTIES, unbounded=True, backend="native", max_states=None, keep_edges=False,
                         fingerprints=True)
    assert ex.fixpoint and ef.fixpoint and len(ef.states) == len(ex.states) and ef.edges == ex.edges
    assert ef.held_bytes < ex.held_bytes
    assert ef.collision_bound is not None and 0 < ef.collision_bound < 1e-6
    assert ef.collision_bound == native.collision_bound(len(ef.states), ef.store["generated"])
    assert any(v.status == PROVED for v in exact)
    for a, b in zip(exact, fp, strict=True):
        assert (a.status, b.status) in ((PROVED, HOLDS), (a.status, a.status)) and a.trace == b.trace
        if a.status == PROVED:
            assert "fingerprint" in b.detail and b.stats["collision_bound"] == ef.collision_bound
    b = BY_PROP["every-card-in-one-zone"]
    kw: dict[str, Any] = dict(unbounded=True, max_states=400_000, disabled=b.disabled, variant=b.variant)
    broken = graph.check(b.conf, PROPERTIES, backend="native", fingerprints=True, **kw)[0]
    want = graph.check(b.conf, PROPERTIES, backend="python", **kw)[0]
    assert [(v.status, v.trace) for v in broken if v.status == "violated"] == \
        [(v.status, v.trace) for v in want if v.status == "violated"] != []


@needs_cc
def test_a_queue_that_cannot_spill_is_a_one_line_reason(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """A temporary directory the queue cannot write its file in: the compiled search says why
    in one line (``--graph-backend native``), and "auto" runs the interpreter, with the reason."""
    monkeypatch.setattr(native, "FRONTIER_BYTES", 1)
    monkeypatch.setattr(native.tempfile, "gettempdir", lambda: str(tmp_path / "missing"))
    with pytest.raises(UsageError, match="could not write its queue of states to a file"):
        graph.check(PLOT, PROPERTIES, unbounded=True, max_states=None, backend="native", keep_edges=False)
    cfg, _ = build(PLOT.position)
    assert native.cached(cfg, PROPERTIES)
    out, ex = graph.check(PLOT, PROPERTIES, unbounded=True, max_states=None, backend="auto", keep_edges=False)
    assert ex.backend == "python" and "could not write its queue" in ex.backend_note
    assert any(v.status == "proved" for v in out)
