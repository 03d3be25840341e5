"""The graph search compiled: the relation Z3 reads, emitted as C, searched natively.

Why: the interpreter walks the rules one Python call at a time (50-70 µs per edge on the
built-in positions, a concession alone most of it), which caps the search at 5,000-10,000
states/s however the loop around it is written (``bench/graph_costs.py``).  The rules are
already a function over integers: the Z3 encoding (:class:`.z3bmc.Encoding`) holds, per
transition of the catalogue, its guard and its effect as terms over the state vector, and
the state-based actions once.  This module prints those very terms as C (each node of the
term graph one line), adds the symmetry reduction from the layout's declarations, and runs
the same breadth-first search as :func:`.graph.check`, in the same order, so that every
figure (states, edges, witnesses, the first violation and its trace) is the interpreter's.
The search itself, the same for every relation, is ``native_search.c``: it keeps a visited
state in 14 bytes and a share of a tree of nodes (exact), or in 14 bytes with fingerprints,
and its queue of states to expand spills into a file past :data:`FRONTIER_BYTES`.

Nothing here is a second reading of a rule: the C is derived from the one spec through the
encoding, as Z3's terms are, and ``tests/test_native.py`` compares the two searches result
for result (and the canonical keys state for state).  A machine with no C compiler, or a
term this printer does not know, falls back to the interpreter (:func:`available`).

Compiled programs are kept in a cache directory (``MTGCHECK_CACHE``, else
``~/.cache/mtgcheck``), named by a hash of the C source and found again by a hash of what it
is printed from (:func:`program`, content only, so another process finds it), so a relation
is compiled once per machine; every program is checked against the interpreter before it
searches (:func:`verify`).  Loading a library runs its constructors, so the cache is trusted
only as far as it is checked: a directory created 0700 and refused if another user owns it or
can write it, entries whose header names their source's hash and the SHA-256 of the library,
checked before the very bytes checked are loaded (:func:`load`); anything else is a one-line
reason and the interpreter's search.  Those checks keep other users and damaged or swapped
files out; a cache this user restores from somewhere else is this user's own files, as it is
for ccache.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import re
import shutil
import stat
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache, partial
from pathlib import Path
from typing import Any, Sequence

import z3

from mtgcheck.budget import MAX_SEARCH_THREADS
from mtgcheck.cache import cache_root
from mtgcheck.model.config import Config
from mtgcheck.model.logic import symbolic
from mtgcheck.model.state import (CARD_FIELDS, LAYOUT, OID_FIELDS, PLANE_SOURCED, REF, SCALAR, SLOT, SOURCE,
                                  TURN_FIELDS, State, flat, length, unflat)
from mtgcheck.properties.base import Property

#: Bumped when the generated program's interface changes.
VERSION = 3


class Unsupported(Exception):
    """Why the compiled search cannot run here: no compiler, a compile that failed, a term this
    printer does not know, a value out of its range, a program that differs from the
    interpreter (the search falls back to the interpreter; ``--graph-backend native`` says it)."""


NO_COMPILER = "no C compiler (set CC, or install cc)"


def compiler() -> str | None:
    """The C compiler to use (``CC``, else ``cc``), or None when there is none."""
    return shutil.which(os.environ.get("CC", "cc"))


#: -O1: the compiled search runs 4-5x faster than at -O0 for a compile some 30 % longer.
#: -pthread: a batch of states is expanded by ``threads`` threads (:func:`search`).
CFLAGS = ("-O1", "-shared", "-fPIC", "-pthread")
#: Seconds a compile may take (the built-ins take 6-19 s); past it the interpreter searches.
COMPILE_TIMEOUT = 180.0


def cache_dir() -> Path:
    return cache_root() / "native"


# --- printing Z3 terms as C ------------------------------------------------------------

@dataclass(frozen=True)
class Syntax:
    """How each Z3 operator is written over operands already printed (atoms: temporaries,
    state entries, numerals): C for the compiled search (:data:`C_SYNTAX`), numpy for a benchmark
    (``bench/numpy_bound.py``) reading the same terms."""

    nary: dict[int, str]  # operator -> the text between its operands
    empty: dict[int, str]  # an n-ary operator of no operand -> its value
    binary: dict[int, str]  # operator -> the text between its two operands
    templates: dict[int, str]  # operator -> its text, operands as {0}, {1}, {2}
    distinct: tuple[str, str, str]  # a pair's text ({0}, {1}), the text between pairs, no pair
    what: str  # the language's name, for a term it cannot write

    def write(self, kind: int, a: list[str], shown: Any) -> str:
        if kind in self.nary:
            return self.nary[kind].join(a) if a else self.empty[kind]
        if kind in self.binary and len(a) == 2:
            return a[0] + self.binary[kind] + a[1]
        if kind in self.templates:
            return self.templates[kind].format(*a)
        if kind == z3.Z3_OP_DISTINCT:
            pair, between, none = self.distinct
            return between.join(pair.format(x, y) for i, x in enumerate(a) for y in a[i + 1:]) or none
        raise Unsupported(f"no {self.what} for the term {shown()}")


COMPARISONS = {z3.Z3_OP_LE: " <= ", z3.Z3_OP_LT: " < ", z3.Z3_OP_GE: " >= ", z3.Z3_OP_GT: " > ",
            z3.Z3_OP_EQ: " == ", z3.Z3_OP_IFF: " == ", z3.Z3_OP_XOR: " != "}
C_SYNTAX = Syntax(nary={z3.Z3_OP_ADD: " + ", z3.Z3_OP_SUB: " - ", z3.Z3_OP_MUL: " * ", z3.Z3_OP_AND: " && ",
                        z3.Z3_OP_OR: " || "},
                  empty={z3.Z3_OP_AND: "1", z3.Z3_OP_OR: "0"}, binary=COMPARISONS,
                  templates={z3.Z3_OP_NOT: "!{0}", z3.Z3_OP_UMINUS: "-{0}", z3.Z3_OP_ITE: "{0} ? {1} : {2}",
                             z3.Z3_OP_IMPLIES: "!{0} || {1}", z3.Z3_OP_MOD: "zmod({0}, {1})",
                             z3.Z3_OP_IDIV: "zdiv({0}, {1})"},
                  distinct=("{0} != {1}", " && ", "1"), what="C")


class Printer:
    """Prints Z3 terms as C statements into one function body: every inner node of the term
    graph once, as a local ``const int`` (the graph shares subterms, C does too); the
    state's entries are read from arrays (``names``: Z3 constant id -> C expression).

    The terms are walked through Z3's C API (``z3core``): the Python wrappers cost about four times
    as much per node, and an effect has a thousand nodes.

    ``syntax`` and ``line`` say how an operator and a statement are written (C by default; a
    benchmark prints the same terms as numpy, ``bench/numpy_bound.py``)."""

    def __init__(self, names: dict[int, str], syntax: Syntax | None = None,
                 line: str = "const int {name} = {expr};") -> None:
        self.names = names
        self.op = _c_op if syntax is None else syntax.write
        self.line = line
        self.lines: list[str] = []
        self.done: dict[int, str] = {}
        self.keep: list[Any] = []  # the printed terms, alive: Z3 hands a freed term's id to a new one
        self.count = 0  # temporaries printed so far

    def expr(self, term: Any) -> str:
        """A C expression with the value of ``term`` (ints; Booleans as 0/1)."""
        from z3 import z3core as api

        if isinstance(term, bool):
            return "1" if term else "0"
        if isinstance(term, int):
            return str(term)
        out = self.done.get(term.get_id())
        if out is not None:
            return out
        self.keep.append(term)
        ctx = term.ctx_ref()
        ident, nargs, arg = api.Z3_get_ast_id, api.Z3_get_app_num_args, api.Z3_get_app_arg
        done, lines = self.done, self.lines
        stack: list[tuple[Any, int, list[Any] | None]] = [(term.as_ast(), ident(ctx, term.as_ast()), None)]
        while stack:
            node, nid, args = stack.pop()
            if nid in done:
                continue
            if args is None:
                if api.Z3_get_ast_kind(ctx, node) == z3.Z3_NUMERAL_AST:
                    done[nid] = f"({api.Z3_get_numeral_string(ctx, node)})"
                    continue
                kind = api.Z3_get_decl_kind(ctx, api.Z3_get_app_decl(ctx, node))
                if kind == z3.Z3_OP_TRUE or kind == z3.Z3_OP_FALSE:
                    done[nid] = "1" if kind == z3.Z3_OP_TRUE else "0"
                    continue
                if kind == z3.Z3_OP_UNINTERPRETED:
                    name = self.names.get(nid)
                    if name is None:
                        raise Unsupported(f"a constant that is not in the state vector: {api.Z3_ast_to_string(ctx, node)}")
                    done[nid] = name
                    continue
                kids = [(c, ident(ctx, c)) for c in (arg(ctx, node, i) for i in range(nargs(ctx, node)))]
                stack.append((node, nid, [kind, kids]))
                stack.extend((c, cid, None) for c, cid in kids if cid not in done)
                continue
            kind, kids = args
            a = [done[cid] for _, cid in kids]
            # Named in the order printed, not by Z3's ids (which depend on the context's history):
            # the same relation prints the same source, and so finds its compiled program.
            name = f"t{self.count}"
            self.count += 1
            lines.append(self.line.format(name=name, expr=self.op(kind, a, partial(api.Z3_ast_to_string, ctx, node))))
            done[nid] = name
        return done[term.get_id()]


def _c_op(kind: int, a: list[str], shown: Any) -> str:
    """The C expression of one Z3 operator applied to operands already printed (atoms)."""
    return C_SYNTAX.write(kind, a, shown)


def _names(state: State, array: str) -> dict[int, str]:
    return {v.get_id(): f"{array}[{i}]" for i, v in enumerate(flat(state))}


def _as_term(v: Any) -> Any:
    return v if isinstance(v, z3.ExprRef) else (z3.BoolVal(v) if isinstance(v, bool) else z3.IntVal(int(v)))


# --- the program ----------------------------------------------------------------------

@dataclass(frozen=True)
class Layout:
    """Where each field's entries sit in the flat vector (:func:`model.state.flat`)."""

    offsets: dict[str, int]
    lengths: dict[str, int]
    size: int

    @classmethod
    def of(cls, cfg: Config) -> "Layout":
        offsets, lengths, at = {}, {}, 0
        for d in LAYOUT:
            n = 1 if d.index == SCALAR else length(cfg, d.index)
            offsets[d.name], lengths[d.name], at = at, n, at + n
        return cls(offsets, lengths, at)

    def entries(self, names: Sequence[str]) -> list[int]:
        return [self.offsets[f] + i for f in names for i in range(self.lengths[f])]


def _c_array(name: str, values: Sequence[int]) -> str:
    return f"static const int {name}[{max(len(values), 1)}] = {{{', '.join(map(str, values)) or '0'}}};"


def source(cfg: Config, props: Sequence[Property]) -> str:
    """The C program of one configuration and property list (see the module's docstring)."""
    from mtgcheck.model.actions import catalogue

    from .symmetry import groups
    from .z3bmc import Encoding

    enc = Encoding.build(cfg, None)
    lay = Layout.of(cfg)
    ts = catalogue(cfg).transitions
    fa = flat(enc.a)
    a_names, b_names = _names(enc.a, "a"), _names(enc.b, "b")
    out: list[str] = [_PRELUDE, f"#define F {lay.size}", f"#define T {len(ts)}"]
    true_en = [(lit, z3.BoolVal(True)) for lit in enc.en.values()]
    # The state-based actions, once (CR 704): b = settle(m).
    if enc.m is not None and enc.settled is not None:
        p = Printer(_names(enc.m, "m"))
        body = [f"b[{i}] = {p.expr(_as_term(v))};" for i, v in enumerate(flat(enc.settled))]
        out.append("static void settle(const int *m, int *b) {\n" + "\n".join(p.lines + body) + "\n}")
    else:  # the encoding's effects are settled already
        out.append("static void settle(const int *m, int *b) { memcpy(b, m, F * sizeof(int)); }")
    steps = []
    for i, (g, e) in enumerate(zip(enc.guards, enc.raw, strict=True)):
        g = z3.substitute(g, *true_en) if true_en else g
        p = Printer(a_names)
        guard = p.expr(g)
        pre = list(p.lines)
        p.lines.clear()
        writes = []
        for j, (x, v) in enumerate(zip(fa, flat(e), strict=True)):
            v = _as_term(v)
            if not v.eq(x):
                writes.append(f"m[{j}] = {p.expr(v)};")
        steps.append(f"static int step{i}(const int *a, int *b) {{\n" + "\n".join(pre) + f"\nif (!({guard})) return 0;\n"
                     "int m[F];\nmemcpy(m, a, sizeof m);\n" + "\n".join(p.lines + writes) + "\nsettle(m, b);\nreturn 1;\n}")
    out += steps
    out.append("static int (*const STEP[T])(const int *, int *) = {" + ", ".join(f"step{i}" for i in range(len(ts))) + "};")
    # The properties: per state (over b), and per transition (over a and b).
    sp = [q for q in props if q.kind == "state"]
    tp = [q for q in props if q.kind == "transition"]
    out += [f"#define NS {len(sp)}", f"#define NT {len(tp)}"]
    with symbolic():
        p = Printer(b_names)
        body = []
        for k, q in enumerate(sp):
            w = q.witness(cfg, enc.b) if q.witness else True
            body.append(f"w[{k}] = {p.expr(_as_term(w))}; ok[{k}] = {p.expr(_as_term(q.pred(cfg, enc.b)))};")
        out.append("static void state_props(const int *b, unsigned char *w, unsigned char *ok) {\n"
                   + "\n".join(p.lines + body) + "\n}")
        names = {**a_names, **b_names}
        for i, t in enumerate(ts):
            p = Printer(names)
            body = []
            for k, q in enumerate(tp):
                w = q.witness(cfg, enc.a, t, enc.b) if q.witness else True
                body.append(f"w[{k}] = {p.expr(_as_term(w))}; ok[{k}] = {p.expr(_as_term(q.pred(cfg, enc.a, t, enc.b)))};")
            out.append(f"static void trans_props{i}(const int *a, const int *b, unsigned char *w, unsigned char *ok) {{\n"
                       + "\n".join(p.lines + body) + "\n}")
    out.append("static void (*const TRANS_PROPS[T])(const int *, const int *, unsigned char *, unsigned char *) = {"
               + ", ".join(f"trans_props{i}" for i in range(len(ts))) + "};")
    # The symmetry reduction's tables, from the layout's declarations (see .symmetry).
    gs = groups(cfg)
    holds = {d.name: d.holds for d in LAYOUT}
    kinds = lay.entries(["ab_kind"])
    out += [
        f"#define P {cfg.players}", f"#define N {cfg.n}",
        f"#define NG {len(gs)}", _c_array("GROUP_START", [sum(len(g) for g in gs[:k]) for k in range(len(gs) + 1)]),
        _c_array("GROUP_SLOTS", [j for g in gs for j in g]),
        f"#define NCARD {len(CARD_FIELDS)}", _c_array("CARD_OFF", [lay.offsets[f] for f in CARD_FIELDS]),
        *_entry_table("REFS", lay.entries([f for f, h in holds.items() if h == REF])),
        *_entry_table("SLOTS", lay.entries([f for f, h in holds.items() if h == SLOT])),
        *_entry_table("SOURCES", lay.entries([f for f, h in holds.items() if h == SOURCE])),
        _c_array("SOURCE_KIND", kinds), _c_array("PLANE_SOURCED", list(PLANE_SOURCED)),
        f"#define NPLANE_SOURCED {len(PLANE_SOURCED)}",
        *_entry_table("OIDS", lay.entries(OID_FIELDS)), f"#define FRESH {lay.offsets['next_oid']}",
        *_entry_table("TURNS", lay.entries(TURN_FIELDS)),
        f"#define GAME_OVER {lay.offsets['game_over']}", f"#define TURN {lay.offsets['turn']}",
        f"#define OVERFLOW {lay.offsets['overflow']}",
        *_packing_code(cfg),
        f"#define MAX_THREADS {MAX_SEARCH_THREADS}", f"#define CHUNK {CHUNK}", f"#define NCHUNK {NCHUNK}",
        search_source(),
    ]
    return "\n".join(out) + "\n"


def search_source() -> str:
    """The search's own C (the same for every relation): ``native_search.c`` beside this module."""
    return (Path(__file__).parent / "native_search.c").read_text()


def _packing_code(cfg: Config) -> list[str]:
    """A state packed to its declared ranges and back (:mod:`.packing`: one derivation of the
    widths, read here), printed straight, an entry a line: its place and width are constants
    the compiler folds (a quarter of the search's time went to a loop over tables).  ``pack``
    gives -1 and the entry in ``*bad`` for a value outside its width (never truncated)."""
    from .packing import MAX_ID, packing

    pk = packing(cfg)
    u64 = "unsigned long long"
    packs = [f"v = (long long)s[{i}] - ({e.lo}); if (({u64})v >> {e.bits}) {{ *bad = {i}; return -1; }} "
             f"w[{e.word}] |= ({u64})v << {e.shift};" for i, e in enumerate(pk.entries)]
    unpacks = [f"s[{i}] = (int)((w[{e.word}] >> {e.shift}) & {(1 << e.bits) - 1}ULL) + ({e.lo});"
               for i, e in enumerate(pk.entries)]
    return [f"#define W {pk.words}", f"#define MAXV {MAX_ID + 1}",
            f"static int pack(const int *s, {u64} *w, long *bad) {{\nlong long v;\nmemset(w, 0, W * sizeof({u64}));\n"
            + "\n".join(packs) + "\nreturn 0;\n}",
            f"static void unpack(const {u64} *w, int *s) {{\n" + "\n".join(unpacks) + "\n}"]


def _entry_table(name: str, entries: Sequence[int]) -> list[str]:
    return [f"#define N{name} {len(entries)}", _c_array(name, entries)]


# --- compiling and loading -------------------------------------------------------------

class _Result(ctypes.Structure):
    _fields_ = [(name, ctypes.c_void_p) for name in ("parent", "via", "sources", "targets", "edge_via")] + [
        (name, ctypes.c_long) for name in ("n_states", "n_edges", "complete", "overflow", "queue_head_depth",
                                           "error", "stopped", "bad_entry", "distinct_edges", "bytes", "max_depth",
                                           "nodes", "frontier_peak", "spilled", "batch_bytes")]


#: Why a compiled search stopped (``Result.stopped`` in the C source).
STOPS = ("done", "state budget", "timeout", "max-memory", "first violation")


def _digest(src: str) -> str:
    return hashlib.sha256(f"{VERSION} {CFLAGS}\n{src}".encode()).hexdigest()[:24]


#: A digest as :func:`_digest` and :func:`inputs_key` print it: what an index entry may hold.
_DIGEST = re.compile(r"[0-9a-f]{24}")
#: The first line of a cached program: the magic, the source digest, the SHA-256 of the bytes after it.
_MAGIC = b"mtgcheck-native"


def _program_file(d: Path, digest: str) -> Path:
    """Where the cache ``d`` keeps the program compiled from the source of ``digest``."""
    return d / f"search-{digest}.lib"


def _unsafe(what: Path, why: str) -> Unsupported:
    return Unsupported(f"the compile cache {what} {why}; the search runs on the interpreter")


def _check_owned(what: Path, st: os.stat_result) -> None:
    """Refuse what another user owns or can write: a program in it runs inside the harness."""
    if st.st_uid != os.geteuid():
        raise _unsafe(what, f"is owned by another user (uid {st.st_uid})")
    if st.st_mode & 0o022:
        raise _unsafe(what, f"is writable by other users (mode {stat.S_IMODE(st.st_mode):o})")


def private_cache_dir() -> Path:
    """:func:`cache_dir`, created 0700 if missing; :class:`Unsupported` if it, or the cache root
    above it, is not a directory of this user's that no one else can write."""
    d = cache_dir()
    for p in (d.parent, d):
        try:
            p.mkdir(mode=0o700, parents=p is d.parent, exist_ok=True)
            st = os.stat(p) if p is d.parent else os.lstat(p)  # the root may be a link the user made
        except OSError as e:
            raise _unsafe(p, f"cannot be created ({e.strerror})") from None
        if not stat.S_ISDIR(st.st_mode):
            raise _unsafe(p, "is not a directory")
        _check_owned(p, st)
    return d


def _read_private(f: Path) -> bytes | None:
    """The bytes of a cache file of this user's that no one else can write (None if it is not
    there); never follows a link, and checks the very file it reads."""
    try:
        fd = os.open(f, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except OSError as e:
        raise _unsafe(f, f"cannot be read ({e.strerror})") from None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise _unsafe(f, "is not a regular file")
        _check_owned(f, st)
        return fh.read()


def _write_private(d: Path, f: Path, data: bytes) -> None:
    """Write ``f`` whole or not at all (a concurrent run sees the old file or the new), 0600."""
    fd, tmp = tempfile.mkstemp(dir=d, prefix="tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, f)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _pack_program(digest: str, elf: bytes) -> bytes:
    return b" ".join([_MAGIC, digest.encode(), hashlib.sha256(elf).hexdigest().encode()]) + b"\n" + elf


def _unpack_program(f: Path, digest: str, data: bytes) -> bytes:
    """The compiled library in a cache entry, once its header names ``digest`` and the SHA-256
    of the bytes that follow it; :class:`Unsupported` for anything else (never loaded)."""
    head, _, elf = data.partition(b"\n")
    fields = head.split(b" ")
    if len(fields) != 3 or fields[0] != _MAGIC:
        raise Unsupported(f"cannot load {f}: not a program of this cache; the search runs on the interpreter")
    if fields[1] != digest.encode():
        raise Unsupported(f"cannot load {f}: it names another source ({fields[1][:24].decode(errors='replace')}); "
                          "the search runs on the interpreter")
    if fields[2] != hashlib.sha256(elf).hexdigest().encode():
        raise Unsupported(f"cannot load {f}: its bytes do not match their hash (damaged or replaced); "
                          "the search runs on the interpreter")
    return elf


def load(src: str) -> Any:
    """The compiled program of a C source (compiled once into the cache, then loaded).

    The cache entry is named by the hash of the source and holds that hash and the SHA-256 of
    the library; both are checked before the library is loaded (loading runs its constructors),
    in a cache directory only this user can write (:func:`private_cache_dir`)."""
    digest = _digest(src)
    d = private_cache_dir()
    f = _program_file(d, digest)
    data = _read_private(f)
    if data is None:
        cc = compiler()
        if cc is None:
            raise Unsupported(NO_COMPILER)
        try:
            with tempfile.TemporaryDirectory(dir=d) as tmp:
                c, tmp_so = Path(tmp) / "search.c", Path(tmp) / "search.so"
                c.write_text(src)
                try:
                    run = subprocess.run([cc, *CFLAGS, "-o", str(tmp_so), str(c)], capture_output=True, text=True,
                                         timeout=COMPILE_TIMEOUT)
                except subprocess.TimeoutExpired:
                    raise Unsupported(f"the C compiler took over {COMPILE_TIMEOUT:.0f} s") from None
                if run.returncode != 0:
                    raise Unsupported(f"the C compiler failed: {run.stderr.strip()[:400]}")
                data = _pack_program(digest, tmp_so.read_bytes())
            _write_private(d, f, data)
        except OSError as e:
            raise Unsupported(f"cannot compile into the cache {d}: {e}") from None
        _prune(d)
    return _open(f, _unpack_program(f, digest, data), digest)


def _open(f: Path, elf: bytes, digest: str) -> Any:
    """Load the verified bytes ``elf`` (never the file again: what is loaded is what was checked);
    the same bytes are loaded once per process."""
    key = (digest, hashlib.sha256(elf).hexdigest())
    if key in _LOADED:
        return _LOADED[key]
    try:
        if hasattr(os, "memfd_create"):
            # The descriptor stays open while the process lives: the loader knows a library by
            # its path, and a closed descriptor's number (its path) would name the next one.
            fd = os.memfd_create(f"mtgcheck-search-{digest}")
            os.write(fd, elf)
            try:
                lib = ctypes.CDLL(f"/proc/self/fd/{fd}")
            except OSError:
                os.close(fd)
                raise
        else:  # a private copy, loaded and removed
            with tempfile.TemporaryDirectory(dir=f.parent) as tmp:
                copy = Path(tmp) / "search.so"
                copy.write_bytes(elf)
                lib = ctypes.CDLL(str(copy))
    except OSError as e:  # not a library this machine can load
        raise Unsupported(f"cannot load {f}: {str(e).splitlines()[0][:200]}; the search runs on the interpreter") from None
    lib._name = str(f)
    try:
        lib.search.restype = ctypes.POINTER(_Result)
        lib.search.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_long, ctypes.c_double, ctypes.c_int,
                               ctypes.c_long, ctypes.c_int, ctypes.c_int,
                               *[ctypes.POINTER(ctypes.c_long)] * 5, ctypes.c_int, ctypes.c_long, ctypes.c_int,
                               ctypes.c_long, ctypes.c_char_p, ctypes.c_int]
        lib.replay.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int), ctypes.c_int,
                               ctypes.POINTER(ctypes.c_int)]
        lib.canonical.restype = None
        lib.canonical.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int), ctypes.c_int]
        lib.free_result.argtypes = [ctypes.POINTER(_Result)]
        lib.free_result.restype = None
        lib.successor.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int)]
        lib.state_outcomes.restype = lib.edge_outcomes.restype = None
    except AttributeError as e:
        raise Unsupported(f"cannot load {f}: it lacks the search's entry points ({e}); "
                          "the search runs on the interpreter") from None
    _LOADED[key] = lib
    return lib


#: The libraries loaded in this process, by source digest and the SHA-256 of their bytes.
_LOADED: dict[tuple[str, str], Any] = {}


#: Programs kept in the cache (a change of the model or of a configuration compiles new ones).
CACHE_KEEP = 64


def _prune(d: Path) -> None:
    """Drop the least recently compiled programs beyond :data:`CACHE_KEEP`, the index entries
    naming programs no longer there, and the files of an older layout (best effort)."""
    try:
        for old in d.glob("search-*.so"):
            old.unlink(missing_ok=True)
        kept = sorted(d.glob("search-*.lib"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in kept[CACHE_KEEP:]:
            old.unlink(missing_ok=True)
        for index in d.glob("inputs-*"):  # and the shortcuts to the programs dropped
            if not _program_file(d, index.read_text().strip()).exists():
                index.unlink(missing_ok=True)
    except OSError:
        pass


@lru_cache(maxsize=32)
def program(cfg: Config, props: tuple[Property, ...]) -> Any:
    """The loaded program of a configuration and its properties (built on first use).

    Printing the relation takes 1-4 s (the Z3 encoding built, then walked), so a program is
    also found by what it is printed from (:func:`inputs_key`: the package's code and data,
    the configuration, the properties, Z3's and Python's versions), as ccache's direct mode
    finds an object file; every search still checks the program against the interpreter
    first (:func:`verify`), so a stale entry costs a second print, never a verdict."""
    digest = _indexed(cfg, props)
    if digest is not None:
        return _load_entry(cache_dir(), digest)
    src = source(cfg, props)
    lib = load(src)
    try:
        _write_private(cache_dir(), _index(cfg, props), _digest(src).encode())
    except OSError:
        pass  # the index is only a shortcut
    return lib


def _load_entry(d: Path, digest: str) -> Any:
    """Load the cached program of ``digest``, checked as :func:`load` checks it; an entry
    that fails the check is removed (the next run compiles it again) and the search runs on
    the interpreter, with the reason."""
    f = _program_file(d, digest)
    data = _read_private(f)
    if data is None:
        raise Unsupported(f"cannot load {f}: it is gone; the search runs on the interpreter")
    try:
        elf = _unpack_program(f, digest, data)
    except Unsupported:
        f.unlink(missing_ok=True)
        raise
    return _open(f, elf, digest)


def cached(cfg: Config, props: Sequence[Property]) -> bool:
    """Whether the program of ``cfg`` and ``props`` is in the cache (found without printing)."""
    try:
        return _indexed(cfg, props) is not None
    except Unsupported:
        return False  # an unsafe cache: the compile path says why


def _index(cfg: Config, props: Sequence[Property]) -> Path:
    """The index entry of ``cfg`` and ``props``: it names their program's source digest."""
    return cache_dir() / f"inputs-{inputs_key(cfg, props)}"


def _indexed(cfg: Config, props: Sequence[Property]) -> str | None:
    """The source digest the index names for ``cfg`` and ``props``, if the entry is a digest
    and its program is there (:class:`Unsupported` if the cache is not this user's alone)."""
    d = private_cache_dir()
    index = _index(cfg, props)
    text = _read_private(index)
    if text is None:
        return None
    digest = text.decode("ascii", errors="replace").strip()
    if not _DIGEST.fullmatch(digest):  # not an entry this module wrote: ignored, and dropped
        index.unlink(missing_ok=True)
        return None
    return digest if _program_file(d, digest).exists() else None


def inputs_key(cfg: Config, props: Sequence[Property]) -> str:
    """A hash of everything the printed program is a function of: the package's code and data
    (``mtgcheck``, ``mtgcheck.model``, ``mtgcheck.properties``), the configuration and the
    properties (by value, sets sorted: no hash seed changes it), and the versions of Z3,
    Python and this printer."""
    import sys

    h = hashlib.sha256(f"{VERSION} {CFLAGS} {z3.get_version_string()} {sys.version}".encode())
    h.update(_package_hash().encode())
    h.update(repr(_stable(cfg)).encode())
    h.update(repr([(q.id, q.kind, _code(q.pred), _code(q.witness)) for q in props]).encode())
    return h.hexdigest()[:24]


def _code(f: Any, _seen: frozenset[int] = frozenset()) -> Any:
    """What a property's function computes, as far as its code says: its bytecode, constants
    (nested functions' code by its content) and captured values (a property made outside the
    package, by a test, say).  Content only: nothing in it is a memory address, so two
    processes compute the same key and find the same program."""
    if f is None:
        return None
    if id(f) in _seen:  # a function that captures itself
        return ("recursive", getattr(f, "__qualname__", ""))
    seen = _seen | {id(f)}
    code = getattr(f, "__code__", None)
    cells = tuple(_content(c.cell_contents, seen) for c in (getattr(f, "__closure__", None) or ()))
    return (getattr(f, "__module__", ""), getattr(f, "__qualname__", type(f).__qualname__),
            None if code is None else _code_object(code), cells)


def _code_object(code: Any) -> Any:
    return (code.co_name, code.co_code, code.co_names, code.co_varnames, code.co_freevars,
            tuple(_code_object(c) if hasattr(c, "co_code") else _content(c, frozenset()) for c in code.co_consts))


def _content(x: Any, seen: frozenset[int]) -> Any:
    """A captured value by its content: a function by its code, anything else as :func:`_stable`
    gives it, an object whose ``repr`` is only its address by its type and attributes."""
    if callable(x) and hasattr(x, "__code__"):
        return _code(x, seen)
    x = _stable(x)
    if isinstance(x, tuple):
        return tuple(_content(v, seen) for v in x)
    if type(x).__repr__ is object.__repr__:
        return (type(x).__module__, type(x).__qualname__,
                _content(tuple(sorted(vars(x).items())) if hasattr(x, "__dict__") else (), seen))
    return x


@lru_cache(maxsize=1)
def _package_hash() -> str:
    import mtgcheck
    import mtgcheck.model
    import mtgcheck.properties

    h = hashlib.sha256()
    for mod in (mtgcheck, mtgcheck.model, mtgcheck.properties):
        root = Path(mod.__file__ or "").parent
        for f in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".json", ".c") and "__pycache__" not in p.parts):
            h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def _stable(x: Any) -> Any:
    """A value's content in a form whose ``repr`` no hash seed changes (sets sorted)."""
    import dataclasses

    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return (type(x).__name__, tuple((f.name, _stable(getattr(x, f.name))) for f in dataclasses.fields(x) if f.repr))
    if isinstance(x, (set, frozenset)):
        return ("set", sorted((_stable(v) for v in x), key=repr))
    if isinstance(x, (tuple, list)):
        return tuple(_stable(v) for v in x)
    if isinstance(x, dict):
        return ("dict", sorted(((repr(k), _stable(v)) for k, v in x.items()), key=repr))
    return x


#: The random walks of :func:`verify` (seeded: the same states every run).
VERIFY_WALKS, VERIFY_STEPS = 20, 12


def verify(lib: Any, cfg: Config, props: Sequence[Property], s0: State) -> None:
    """Check the program against the interpreter before it searches: on the states of a few
    seeded random walks from ``s0``, every transition enabled alike with the same successor, and
    every property's outcomes (antecedent, predicate) alike on the states and the edges.
    :class:`Unsupported` says where they differ (and the search runs on the interpreter)."""
    import random

    from mtgcheck.model.actions import catalogue

    ts = catalogue(cfg).transitions
    sp = [q for q in props if q.kind == "state"]
    tp = [q for q in props if q.kind == "transition"]
    n = len(flat(s0))
    rng = random.Random(0)
    b = (ctypes.c_int * n)()
    w, ok = (ctypes.c_ubyte * max(len(props), 1))(), (ctypes.c_ubyte * max(len(props), 1))()

    def differ(what: str) -> Unsupported:
        return Unsupported(f"the compiled program differs from the interpreter ({what}); "
                           "the search runs on the interpreter")

    for _ in range(VERIFY_WALKS):
        s = s0
        for _ in range(VERIFY_STEPS):
            a = (ctypes.c_int * n)(*flat(s))
            lib.state_outcomes(a, w, ok)
            for k, q in enumerate(sp):
                if (bool(w[k]), bool(ok[k])) != (bool(q.triggered(cfg, s)), bool(q.holds(cfg, s))):
                    raise differ(f"property {q.id}")
            moves = []
            for i, t in enumerate(ts):
                on = t.enabled(s)
                if bool(lib.successor(i, a, b)) != on:
                    raise differ(f"whether {t.action} is legal")
                if not on:
                    continue
                s2 = t.effect(s)
                if list(b) != flat(s2):
                    raise differ(f"the successor by {t.action}")
                lib.edge_outcomes(i, a, b, w, ok)
                for k, q in enumerate(tp):
                    if (bool(w[k]), bool(ok[k])) != (bool(q.triggered(cfg, s, t, s2)), bool(q.holds(cfg, s, t, s2))):
                        raise differ(f"property {q.id} on {t.action}")
                moves.append(s2)
            if not moves or s.game_over:
                break
            s = rng.choice(moves)


#: (program file, configuration, properties, start) already checked by :func:`verify` in this
#: process: a program is checked against the relation it is used for, not only the start.
_VERIFIED: set[tuple[str, Config, tuple[Property, ...], State]] = set()


@dataclass
class Run:
    """What one native search found, copied out of the C program's memory (see ``search``
    in the C source: the same order and counts as :func:`.graph.check`).  Per-state and
    per-edge figures are kept as machine arrays (2 to 8 bytes an entry), not Python lists."""

    states: "ReplayedStates"
    parent: Sequence[int]  # per state: the state it was first reached from (the start: 2**32 - 1)
    via: Sequence[int]  # per state: the transition (catalogue index) it was first reached by
    max_depth: int  # the depth of the deepest state reached
    sources: Sequence[int]  # per edge (empty unless the edges were kept)
    targets: Sequence[int]
    edge_via: Sequence[int]
    complete: bool
    overflow: bool
    queue_head_depth: int
    witnessed: list[int]  # per property, state properties first (the order of ``props``' kinds)
    violations: list[tuple[int, int, int] | None]  # per property: (state, transition or -1, depth)
    fired: list[int]  # per transition
    stopped: str = "done"  # what stopped the search (STOPS)
    edges: int = 0  # distinct edges (two transitions between the same states count once)
    held_bytes: int = 0  # what the search held at its end (visited set, frontier, edges)
    #: Seconds to have the program: printed and compiled (once per relation), or found in the
    #: cache, and checked against the interpreter (once per process).
    program_seconds: float = 0.0
    generated: int = 0  # successors looked up in the visited set (every edge, repeats included)
    nodes: int = 0  # nodes of the tree-compressed store (0 with fingerprints)
    frontier_peak: int = 0  # the most states queued at once
    spilled: int = 0  # states the queue put in its file (past its memory budget)
    #: Of ``held_bytes``, the batches being expanded (at most two of ``CHUNK * NCHUNK`` states and
    #: their successors): working memory of a fixed bound, not the store's per state.
    batch_bytes: int = 0
    #: With fingerprints, a bound on the probability that two distinct states shared one (and
    #: so that a state was never expanded): None for the exact store.
    collision_bound: float | None = None


#: A batch of states the compiled search expands at once: NCHUNK chunks of CHUNK states, any
#: thread taking a chunk; printed into its C, with ``MAX_THREADS`` (``budget.MAX_SEARCH_THREADS``).
CHUNK, NCHUNK = 64, 16

#: The memory the compiled search's queue of states to expand takes before it spills into a file
#: (with ``max_bytes``, a quarter of that when less).
FRONTIER_BYTES = 64 * 2**20


def collision_bound(states: int, generated: int) -> float:
    """As TLC reports it: each of the ``generated`` look-ups could meet one of the at most
    ``states`` fingerprints kept by chance, each with probability 2^-64 (a union bound, for a
    hash that behaves as a random function on the keys met)."""
    return states * generated / 2.0**64


def search(cfg: Config, props: Sequence[Property], s0: State, *, max_states: int, timeout: float,
           first_violation: bool, max_turn: int | None, symmetry: bool, turns: bool, keep_edges: bool = True,
           max_bytes: int = 0, fingerprints: bool = False, threads: int = 1) -> Run:
    """Run the compiled search of ``cfg`` from ``s0`` (:class:`Unsupported` if it cannot run).

    ``max_bytes`` (0: none) bounds what the search holds; ``keep_edges`` keeps every edge
    (20 bytes each, for the explored graph), else only their count; ``fingerprints`` keeps a
    64-bit hash per visited state instead of its tree-compressed key (no exact proof: see
    :attr:`Run.collision_bound`).  ``threads`` (1 to :data:`~mtgcheck.budget.MAX_SEARCH_THREADS`) expand each batch of states from the
    queue together (the transitions, the state-based actions, the canonical keys, their packing
    and hashing); the visited set is updated in the queue's order by one, so the result is the
    same for any number of threads."""
    from array import array

    from mtgcheck.model.actions import catalogue

    from .packing import packing

    import time

    t0 = time.perf_counter()
    n_trans = len(catalogue(cfg).transitions)
    if n_trans >= 0xFFFF:
        raise Unsupported(f"{n_trans} transitions: the compiled search numbers them in 16 bits")
    lib = program(cfg, tuple(props))
    if (lib._name, cfg, tuple(props), s0) not in _VERIFIED:
        try:
            verify(lib, cfg, props, s0)
        except Unsupported:
            # Perhaps found by a stale entry of the index: print the relation again, once.
            _index(cfg, props).unlink(missing_ok=True)
            program.cache_clear()
            lib = program(cfg, tuple(props))
            verify(lib, cfg, props, s0)
        _VERIFIED.add((lib._name, cfg, tuple(props), s0))
    program_seconds = time.perf_counter() - t0
    pk = packing(cfg)
    n_props = len(props)
    longs = lambda n, v=0: (ctypes.c_long * max(n, 1))(*([v] * max(n, 1)))  # noqa: E731
    witnessed, vstate, vvia, vdepth, fired = longs(n_props), longs(n_props, -1), longs(n_props, -1), \
        longs(n_props, -1), longs(n_trans)
    v = flat(s0)
    start = (ctypes.c_int * len(v))(*v)
    frontier = FRONTIER_BYTES if max_bytes <= 0 else min(FRONTIER_BYTES, max_bytes // 4)
    ptr = lib.search(start, min(max_states, 2**62), max(timeout, 0.0), int(first_violation),
                     -1 if max_turn is None else max_turn, int(symmetry), int(turns), witnessed, vstate, vvia, vdepth,
                     fired, int(keep_edges), max(int(max_bytes), 0), int(fingerprints), frontier,
                     tempfile.gettempdir().encode(), max(1, min(int(threads), MAX_SEARCH_THREADS)))
    if not ptr:
        raise Unsupported("the native search ran out of memory")
    r = ptr.contents
    try:
        if r.error:
            if r.error == 3:
                e = pk.entries[r.bad_entry]
                raise Unsupported(f"a value of {e.field} outside its packed range {e.lo}..{e.hi} (mtgcheck.checkers"
                                  ".packing); the search runs on the interpreter")
            raise Unsupported(_ERRORS.get(r.error, f"the native search failed (error {r.error})"))
        n, e = r.n_states, r.n_edges if keep_edges else 0

        libc_free = _libc_free()

        def copy(code: str, name: str, count: int) -> Any:
            """The C array ``name`` of the result, copied, then freed at once (the copy of a
            search of millions of states never sits beside all of the C arrays)."""
            out, addr = array(code), getattr(r, name)
            if count and addr:
                out.frombytes(memoryview((ctypes.c_ubyte * (count * out.itemsize)).from_address(addr)))
            if libc_free is not None and addr:
                libc_free(ctypes.c_void_p(addr))
                setattr(r, name, None)
            return out

        assert array("l").itemsize == ctypes.sizeof(ctypes.c_long) and array("i").itemsize == ctypes.sizeof(ctypes.c_int)
        assert array("I").itemsize == 4 and array("H").itemsize == 2
        order = [q for q in props if q.kind == "state"] + [q for q in props if q.kind == "transition"]
        at = {q.id: k for k, q in enumerate(order)}
        ks = [at[q.id] for q in props]
        parent, via = copy("I", "parent", n), copy("H", "via", n)
        return Run(ReplayedStates(lib, s0, parent, via), parent, via, r.max_depth,
                   copy("l", "sources", e), copy("l", "targets", e), copy("i", "edge_via", e),
                   bool(r.complete), bool(r.overflow), r.queue_head_depth,
                   [witnessed[k] for k in ks], [None if vstate[k] < 0 else (vstate[k], vvia[k], vdepth[k]) for k in ks],
                   list(fired)[:n_trans], STOPS[r.stopped], r.distinct_edges, r.bytes, program_seconds,
                   generated=r.n_edges, nodes=r.nodes, frontier_peak=r.frontier_peak, spilled=r.spilled,
                   batch_bytes=r.batch_bytes,
                   collision_bound=collision_bound(n, r.n_edges) if fingerprints else None)
    finally:
        lib.free_result(ptr)


def _libc_free() -> Any:
    """The C library's ``free`` (the search's arrays are malloc'd by the same library), or None."""
    try:
        f = ctypes.CDLL(None).free
    except (OSError, AttributeError):
        return None
    f.argtypes, f.restype = [ctypes.c_void_p], None
    return f


#: What each error of the C search means (``Result.error`` in native_search.c).
_ERRORS = {
    1: "the native search ran out of memory",
    2: "a value outside the native search's range (object id or turn over 4095)",
    4: "more states or store nodes than the native search numbers in 32 bits",
    5: "the native search could not write its queue of states to a file in the temporary directory",
    6: "the native search's queue ran out before its states did",
}

#: The start's index in ``Run.parent``: it has no parent.
NO_PARENT = 0xFFFFFFFF


def path_to(parent: Sequence[int], via: Sequence[int], i: int) -> list[int]:
    """The transitions (catalogue indexes) of the shortest path to state ``i``, from the start."""
    out = []
    while parent[i] != NO_PARENT:
        out.append(via[i])
        i = parent[i]
    return out[::-1]


class ReplayedStates(Sequence[State]):
    """The states of a native search, which keeps no state's values (see native_search.c): each
    read is the start replayed along the state's path by the compiled relation, exactly how the
    search reached it.  A search to the fixpoint holds millions of states, of which a report
    reads a few; reading all of them in order costs one step each (the parents are kept)."""

    def __init__(self, lib: Any, s0: State, parent: Sequence[int], via: Sequence[int]) -> None:
        self.lib, self.s0, self.parent, self.via = lib, s0, parent, via
        self.n = len(flat(s0))

    def __len__(self) -> int:
        return len(self.parent)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        p = path_to(self.parent, self.via, i)
        start = (ctypes.c_int * self.n)(*flat(self.s0))
        out = (ctypes.c_int * self.n)()
        if self.lib.replay(start, (ctypes.c_int * max(len(p), 1))(*p), len(p), out):
            raise RuntimeError(f"state {i} does not replay along its path")  # a fault of the search
        return unflat(self.s0, list(out))

    def __iter__(self) -> Any:
        """Every state in order, each its parent's successor (one step a state)."""
        done: dict[int, list[int]] = {}
        children = [0] * len(self)
        for i in range(1, len(self)):
            children[self.parent[i]] += 1
        a = (ctypes.c_int * self.n)()
        b = (ctypes.c_int * self.n)()
        for i in range(len(self)):
            if i == 0:
                v = flat(self.s0)
            else:
                p = self.parent[i]
                a[:] = done[p]
                if not self.lib.successor(self.via[i], a, b):
                    raise RuntimeError(f"state {i} does not replay along its path")
                v = list(b)
                children[p] -= 1
                if not children[p]:
                    del done[p]
            if children[i]:
                done[i] = v
            yield unflat(self.s0, v)


def available() -> bool:
    """Whether the native search can run here (a C compiler is found)."""
    return compiler() is not None


_PRELUDE = r"""
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>
/* Z3's integer division and remainder (SMT-LIB: the remainder is never negative); a zero
   divisor, which Z3 leaves unspecified, gives 0 (no rule of the model divides by zero). */
static inline int zmod(int x, int y) { if (!y) return 0; int r = x % y; return r < 0 ? r + (y < 0 ? -y : y) : r; }
static inline int zdiv(int x, int y) { if (!y) return 0; return (x - zmod(x, y)) / y; }
"""
