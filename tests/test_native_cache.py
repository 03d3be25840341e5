"""The compile cache of :mod:`mtgcheck.checkers.native` is trusted only as far as it is checked.

Loading a library runs its constructors inside the harness, so a library is loaded only from a
cache directory this user alone can write, only from an entry whose header names the source it
was compiled from and the SHA-256 of its bytes, and only the very bytes that were checked.  Each
test plants or damages something a shared or restored cache could hold and asserts that nothing
of it runs, that the search falls back to the interpreter, and that the reason is one line.  The
lookup key is a function of content only, so a second process finds the first one's program.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from mtgcheck.checkers import graph, native
from mtgcheck.configs import PLOT
from mtgcheck.model.setup import build
from mtgcheck.properties.catalogue import BY_ID

from .conftest import ROOT
from .test_symmetry import TWO_BOLTS

needs_cc = pytest.mark.skipif(not native.available(), reason="no C compiler")
as_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                             reason="giving a file to another user needs root")
ONE = [BY_ID["object-ids-fresh"]]


@pytest.fixture
def cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A fresh cache root; the in-process memo of loaded programs cleared around the test."""
    root = tmp_path / "cache"
    monkeypatch.setenv("MTGCHECK_CACHE", str(root))
    native.program.cache_clear()
    yield root
    native.program.cache_clear()


def _marker_library(tmp_path: Path, marker: Path, with_search: bool = False) -> bytes:
    """A library whose constructor writes ``marker``: what a planted program would do."""
    c = tmp_path / "planted.c"
    search = "void *search(void) { return 0; }\n" if with_search else ""
    c.write_text('#include <stdio.h>\n__attribute__((constructor)) static void planted(void) {\n'
                 f'  FILE *f = fopen("{marker}", "w"); if (f) {{ fputs("ran", f); fclose(f); }}\n}}\n'
                 "int unrelated(void) { return 1; }\n" + search)
    so = tmp_path / "planted.so"
    subprocess.run([native.compiler() or "cc", "-shared", "-fPIC", "-o", str(so), str(c)], check=True)
    return so.read_bytes()


def _flip(data: bytes) -> bytes:
    """``data`` with one byte past its header changed."""
    at = len(data) - 100
    return data[:at] + bytes([data[at] ^ 1]) + data[at + 1:]


def _one_line(e: BaseException) -> str:
    text = str(e)
    assert "\n" not in text and text
    return text


@needs_cc
def test_the_cache_is_created_private_and_its_entries_too(cache: Path) -> None:
    native.program(build(PLOT.position)[0], tuple(ONE))
    for d in (cache, cache / "native"):
        assert stat.S_IMODE(d.stat().st_mode) == 0o700
    entries = list((cache / "native").iterdir())
    assert {p.name.split("-")[0] for p in entries} == {"search", "inputs"}
    assert all(stat.S_IMODE(p.stat().st_mode) & 0o077 == 0 for p in entries)


@pytest.mark.parametrize("where", ["root", "native"])
def test_a_cache_directory_others_can_write_is_refused(cache: Path, where: str) -> None:
    d = cache if where == "root" else cache / "native"
    d.mkdir(parents=True)
    d.chmod(0o777)
    with pytest.raises(native.Unsupported, match="is writable by other users") as e:
        native.load("int x;\n")
    assert str(d) in _one_line(e.value)
    assert not list((cache / "native").glob("search-*"))  # nothing compiled into it


@as_root
def test_a_cache_directory_or_entry_another_user_owns_is_refused(cache: Path, tmp_path: Path) -> None:
    d = cache / "native"
    d.mkdir(parents=True, mode=0o700)
    os.chown(d, 65534, 65534)
    with pytest.raises(native.Unsupported, match="owned by another user"):
        native.load("int x;\n")
    os.chown(d, 0, 0)
    src = "int x;\n"
    entry = native._program_file(d, native._digest(src))
    marker = tmp_path / "ran"
    entry.write_bytes(native._pack_program(native._digest(src), _marker_library(tmp_path, marker)))
    entry.chmod(0o600)
    os.chown(entry, 65534, 65534)
    with pytest.raises(native.Unsupported, match="owned by another user") as e:
        native.load(src)
    assert str(entry) in _one_line(e.value)
    assert not marker.exists()


@needs_cc
@pytest.mark.parametrize("how", ["raw library", "header of another source", "bytes changed"])
def test_a_planted_library_is_never_loaded(cache: Path, tmp_path: Path, how: str) -> None:
    """A library at a program's name whose header does not check out: its constructor never
    runs, the reason is one line, and the entry is not loaded later either."""
    src = "int x;\n"
    digest = native._digest(src)
    d = cache / "native"
    d.mkdir(parents=True, mode=0o700)
    marker = tmp_path / "ran"
    elf = _marker_library(tmp_path, marker)
    entry = {"raw library": elf,
             "header of another source": native._pack_program("0" * 24, elf),
             "bytes changed": _flip(native._pack_program(digest, elf))}[how]
    f = native._program_file(d, digest)
    f.write_bytes(entry)
    with pytest.raises(native.Unsupported, match="cannot load") as e:
        native.load(src)
    _one_line(e.value)
    assert not marker.exists()


@needs_cc
def test_a_library_without_the_search_falls_back_with_a_reason(cache: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """An entry that checks out but is not a search (no entry points): a one-line reason, never
    an AttributeError; through the graph search, the interpreter runs and the verdicts say why."""
    cfg, _ = build(PLOT.position)
    native.program(cfg, tuple(ONE))  # the index entry and the program
    digest = native._indexed(cfg, ONE)
    assert digest is not None
    elf = _marker_library(tmp_path, tmp_path / "ran")
    native._program_file(cache / "native", digest).write_bytes(native._pack_program(digest, elf))
    native.program.cache_clear()
    with pytest.raises(native.Unsupported, match="lacks the search's entry points") as e:
        native.program(cfg, tuple(ONE))
    _one_line(e.value)
    native._program_file(cache / "native", digest).write_bytes(native._pack_program(digest, elf))
    native.program.cache_clear()
    got, ex = graph.check(PLOT, ONE, unbounded=True, backend="auto")
    assert ex.backend == "python" and ex.fixpoint and got[0].status == "proved"
    assert "lacks the search's entry points" in got[0].stats["backend_note"]


@needs_cc
@pytest.mark.parametrize("content", ["../../etc/passwd", "not a digest", "A" * 24, ""])
def test_an_index_entry_that_is_not_a_digest_is_ignored_and_dropped(cache: Path, content: str) -> None:
    cfg, _ = build(PLOT.position)
    d = cache / "native"
    d.mkdir(parents=True, mode=0o700)
    index = native._index(cfg, ONE)
    index.write_text(content)
    assert not native.cached(cfg, ONE)
    assert not index.exists()
    native.program(cfg, tuple(ONE))  # printed and compiled again
    assert native._DIGEST.fullmatch(index.read_text()) and native.cached(cfg, ONE)
    assert native._program_file(d, index.read_text()).exists()


_SECOND = """
import sys
from mtgcheck.checkers import native
from mtgcheck.configs import PLOT
from mtgcheck.model.setup import build
from mtgcheck.properties.catalogue import BY_ID
cfg, _ = build(PLOT.position)
props = (BY_ID["object-ids-fresh"],)
print(native.inputs_key(cfg, props), native.cached(cfg, props))
if sys.argv[1] == "load":
    native.program(cfg, props)
else:
    native.source = None  # a hit must not print the relation again
    print(native.program(cfg, props)._name)
"""


@needs_cc
def test_a_second_process_finds_the_first_ones_program(cache: Path) -> None:
    """The lookup key is content only (no memory address, no hash seed): a process started
    afresh finds the program the first one compiled, without printing the relation."""
    def run(mode: str, seed: str) -> list[str]:
        env = {**os.environ, "MTGCHECK_CACHE": str(cache), "PYTHONHASHSEED": seed}
        r = subprocess.run([sys.executable, "-c", _SECOND, mode], capture_output=True, text=True, cwd=ROOT,
                           env=env, timeout=300)
        assert r.returncode == 0, r.stderr
        return r.stdout.split()

    first = run("load", "1")
    assert first[1] == "False"
    second = run("hit", "2")
    assert second[:2] == [first[0], "True"]
    assert Path(second[2]).parent == cache / "native"
    assert len(list((cache / "native").glob("inputs-*"))) == 1


def test_the_key_of_a_property_with_nested_code_has_no_address() -> None:
    """A property whose code holds a nested function and captures an object: its key is the
    same for two equal copies made at different addresses."""
    from mtgcheck.properties.base import Property

    class Limit:
        def __init__(self, n: int) -> None:
            self.n = n

    def make(limit: Any) -> Property:
        return Property("life-bounded", ("119.1",), "life stays under a bound", "state",
                        lambda cfg, s: all(x <= limit.n for x in s.life))

    cfg, _ = build(TWO_BOLTS.position)
    a, b = make(Limit(20)), make(Limit(20))
    assert native.inputs_key(cfg, [a]) == native.inputs_key(cfg, [b])
    assert native.inputs_key(cfg, [a]) != native.inputs_key(cfg, [make(Limit(19))])
    assert " at 0x" not in repr(native._code(a.pred))
