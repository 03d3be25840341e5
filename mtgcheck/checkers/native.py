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

Nothing here is a second reading of a rule: the C is derived from the one spec through the
encoding, as Z3's terms are, and ``tests/test_native.py`` compares the two searches result
for result (and the canonical keys state for state).  A machine with no C compiler, or a
term this printer does not know, falls back to the interpreter (:func:`available`).

Compiled programs are kept in a cache directory (``MTGCHECK_CACHE``, else
``~/.cache/mtgcheck``), named by a hash of the C source and found again by a hash of what it
is printed from (:func:`program`), so a relation is compiled once per machine; every program is
checked against the interpreter before it searches (:func:`verify`).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache, partial
from pathlib import Path
from typing import Any, Sequence

import z3

from mtgcheck.cache import cache_root
from mtgcheck.model.config import Config
from mtgcheck.model.logic import symbolic
from mtgcheck.model.state import (CARD_FIELDS, LAYOUT, OID_FIELDS, PLANE_SOURCED, REF, SCALAR, SLOT, SOURCE,
                                  TURN_FIELDS, State, flat, length)
from mtgcheck.properties.base import Property

#: Bumped when the generated program's interface or the search it runs changes.
VERSION = 1


class Unsupported(Exception):
    """Why the compiled search cannot run here: no compiler, a compile that failed, a term this
    printer does not know, a value out of its range, a program that differs from the
    interpreter (the search falls back to the interpreter; ``--graph-backend native`` says it)."""


NO_COMPILER = "no C compiler (set CC, or install cc)"


def compiler() -> str | None:
    """The C compiler to use (``CC``, else ``cc``), or None when there is none."""
    return shutil.which(os.environ.get("CC", "cc"))


#: -O1: the compiled search runs 4-5x faster than at -O0 for a compile some 30 % longer.
CFLAGS = ("-O1", "-shared", "-fPIC")
#: Seconds a compile may take (the built-ins take 6-19 s); past it the interpreter searches.
COMPILE_TIMEOUT = 180.0


def cache_dir() -> Path:
    return cache_root() / "native"


# --- printing Z3 terms as C ------------------------------------------------------------

_NARY = {z3.Z3_OP_ADD: " + ", z3.Z3_OP_SUB: " - ", z3.Z3_OP_MUL: " * ", z3.Z3_OP_AND: " && ",
         z3.Z3_OP_OR: " || "}
_BINARY = {z3.Z3_OP_LE: " <= ", z3.Z3_OP_LT: " < ", z3.Z3_OP_GE: " >= ", z3.Z3_OP_GT: " > ",
           z3.Z3_OP_EQ: " == ", z3.Z3_OP_IFF: " == ", z3.Z3_OP_XOR: " != "}


class Printer:
    """Prints Z3 terms as C statements into one function body: every inner node of the term
    graph once, as a local ``const int`` (the graph shares subterms, C does too); the
    state's entries are read from arrays (``names``: Z3 constant id -> C expression).

    The terms are walked through Z3's C API (``z3core``): the Python wrappers cost about four times
    as much per node, and an effect has a thousand nodes."""

    def __init__(self, names: dict[int, str]) -> None:
        self.names = names
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
            lines.append(f"const int {name} = {_c_op(kind, a, partial(api.Z3_ast_to_string, ctx, node))};")
            done[nid] = name
        return done[term.get_id()]


def _c_op(kind: int, a: list[str], shown: Any) -> str:
    """The C expression of one Z3 operator applied to operands already printed (atoms)."""
    if kind in _NARY:
        return _NARY[kind].join(a) if a else ("1" if kind == z3.Z3_OP_AND else "0")
    if kind in _BINARY and len(a) == 2:
        return a[0] + _BINARY[kind] + a[1]
    if kind == z3.Z3_OP_NOT:
        return "!" + a[0]
    if kind == z3.Z3_OP_UMINUS:
        return "-" + a[0]
    if kind == z3.Z3_OP_ITE:
        return f"{a[0]} ? {a[1]} : {a[2]}"
    if kind == z3.Z3_OP_IMPLIES:
        return f"!{a[0]} || {a[1]}"
    if kind == z3.Z3_OP_MOD:
        return f"zmod({a[0]}, {a[1]})"
    if kind == z3.Z3_OP_IDIV:
        return f"zdiv({a[0]}, {a[1]})"
    if kind == z3.Z3_OP_DISTINCT:
        return " && ".join(f"{x} != {y}" for i, x in enumerate(a) for y in a[i + 1:]) or "1"
    raise Unsupported(f"no C for the term {shown()}")


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
        _SEARCH,
    ]
    return "\n".join(out) + "\n"


def _entry_table(name: str, entries: Sequence[int]) -> list[str]:
    return [f"#define N{name} {len(entries)}", _c_array(name, entries)]


# --- compiling and loading -------------------------------------------------------------

class _Result(ctypes.Structure):
    _fields_ = [(name, ctypes.c_void_p) for name in ("states", "parent", "via", "depth", "sources", "targets",
                                                      "edge_via")] + [
        (name, ctypes.c_long) for name in ("n_states", "n_edges", "complete", "overflow", "queue_head_depth",
                                           "error")]


def _digest(src: str) -> str:
    return hashlib.sha256(f"{VERSION} {CFLAGS}\n{src}".encode()).hexdigest()[:24]


def _program_file(d: Path, digest: str) -> Path:
    """Where the cache ``d`` keeps the program compiled from the source of ``digest``."""
    return d / f"search-{digest}.so"


def load(src: str) -> Any:
    """The compiled program of a C source (compiled once into the cache, then loaded)."""
    digest = _digest(src)
    d = cache_dir()
    so = _program_file(d, digest)
    if not so.exists():
        cc = compiler()
        if cc is None:
            raise Unsupported(NO_COMPILER)
        try:
            d.mkdir(parents=True, exist_ok=True)
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
                os.replace(tmp_so, so)  # atomic: a concurrent run sees the whole file or none
        except OSError as e:
            raise Unsupported(f"cannot compile into the cache {d}: {e}") from None
        _prune(d)
    return _open(so)


def _open(so: Path) -> Any:
    try:
        lib = ctypes.CDLL(str(so))
    except OSError as e:  # not a program this printer compiled (a damaged cache)
        raise Unsupported(f"cannot load {so}: {e}") from None
    lib.search.restype = ctypes.POINTER(_Result)
    lib.search.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_long, ctypes.c_double, ctypes.c_int,
                           ctypes.c_long, ctypes.c_int, ctypes.c_int,
                           *[ctypes.POINTER(ctypes.c_long)] * 5]
    lib.canonical.restype = None
    lib.canonical.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int), ctypes.c_int]
    lib.free_result.argtypes = [ctypes.POINTER(_Result)]
    lib.free_result.restype = None
    lib.successor.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int)]
    lib.state_outcomes.restype = lib.edge_outcomes.restype = None
    return lib


#: Programs kept in the cache (a change of the model or of a configuration compiles new ones).
CACHE_KEEP = 64


def _prune(d: Path) -> None:
    """Drop the least recently compiled programs beyond :data:`CACHE_KEEP`, and the index
    entries naming them (best effort)."""
    try:
        kept = sorted(d.glob("search-*.so"), key=lambda p: p.stat().st_mtime, reverse=True)
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
    so = _indexed(cfg, props)
    if so is not None:
        return _open(so)
    index = _index(cfg, props)
    src = source(cfg, props)
    lib = load(src)
    try:
        tmp = index.with_suffix(".tmp%d" % os.getpid())
        tmp.write_text(_digest(src))
        os.replace(tmp, index)
    except OSError:
        pass  # the index is only a shortcut
    return lib


def cached(cfg: Config, props: Sequence[Property]) -> bool:
    """Whether the program of ``cfg`` and ``props`` is in the cache (found without printing)."""
    return _indexed(cfg, props) is not None


def _index(cfg: Config, props: Sequence[Property]) -> Path:
    """The index entry of ``cfg`` and ``props``: it names their program's source digest."""
    return cache_dir() / f"inputs-{inputs_key(cfg, props)}"


def _indexed(cfg: Config, props: Sequence[Property]) -> Path | None:
    """The cached program the index names for ``cfg`` and ``props``, if both are there."""
    try:
        so = _program_file(cache_dir(), _index(cfg, props).read_text().strip())
    except OSError:
        return None
    return so if so.exists() else None


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


def _code(f: Any) -> Any:
    """What a property's function computes, as far as its code says: its bytecode, constants
    and captured values (a property made outside the package, by a test, say)."""
    if f is None:
        return None
    code = getattr(f, "__code__", None)
    cells = tuple(repr(c.cell_contents) for c in (getattr(f, "__closure__", None) or ()))
    return (getattr(f, "__module__", ""), getattr(f, "__qualname__", repr(f)),
            None if code is None else (code.co_code, repr(code.co_consts), code.co_names), cells)


@lru_cache(maxsize=1)
def _package_hash() -> str:
    import mtgcheck
    import mtgcheck.model
    import mtgcheck.properties

    h = hashlib.sha256()
    for mod in (mtgcheck, mtgcheck.model, mtgcheck.properties):
        root = Path(mod.__file__ or "").parent
        for f in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".json") and "__pycache__" not in p.parts):
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


#: (program file, start) pairs already checked by :func:`verify` in this process.
_VERIFIED: set[tuple[str, State]] = set()


@dataclass
class Run:
    """What one native search found, copied out of the C program's memory (see ``search``
    in the C source: the same order and counts as :func:`.graph.check`)."""

    states: "FlatStates"
    parent: list[int]  # per state: the state it was first reached from (-1: the start)
    via: list[int]  # per state: the transition (catalogue index) it was first reached by
    depth: list[int]
    sources: list[int]  # per edge
    targets: list[int]
    edge_via: list[int]
    complete: bool
    overflow: bool
    queue_head_depth: int
    witnessed: list[int]  # per property, state properties first (the order of ``props``' kinds)
    violations: list[tuple[int, int, int] | None]  # per property: (state, transition or -1, depth)
    fired: list[int]  # per transition


def search(cfg: Config, props: Sequence[Property], s0: State, *, max_states: int, timeout: float,
           first_violation: bool, max_turn: int | None, symmetry: bool, turns: bool) -> Run:
    """Run the compiled search of ``cfg`` from ``s0`` (:class:`Unsupported` if it cannot run)."""
    from mtgcheck.model.actions import catalogue

    lib = program(cfg, tuple(props))
    if (lib._name, s0) not in _VERIFIED:
        try:
            verify(lib, cfg, props, s0)
        except Unsupported:
            # Perhaps found by a stale entry of the index: print the relation again, once.
            _index(cfg, props).unlink(missing_ok=True)
            program.cache_clear()
            lib = program(cfg, tuple(props))
            verify(lib, cfg, props, s0)
        _VERIFIED.add((lib._name, s0))
    lay = Layout.of(cfg)
    n_props, n_trans = len(props), len(catalogue(cfg).transitions)
    longs = lambda n, v=0: (ctypes.c_long * max(n, 1))(*([v] * max(n, 1)))  # noqa: E731
    witnessed, vstate, vvia, vdepth, fired = longs(n_props), longs(n_props, -1), longs(n_props, -1), \
        longs(n_props, -1), longs(n_trans)
    v = flat(s0)
    start = (ctypes.c_int * len(v))(*v)
    ptr = lib.search(start, max_states, max(timeout, 0.0), int(first_violation), -1 if max_turn is None else max_turn,
                     int(symmetry), int(turns), witnessed, vstate, vvia, vdepth, fired)
    r = ptr.contents
    try:
        if r.error:
            raise Unsupported("the native search ran out of memory" if r.error == 1 else
                              "a value outside the native search's range (object id or turn over 4095)")
        n, e = r.n_states, r.n_edges

        def longs_of(addr: int, count: int) -> list[int]:
            return list((ctypes.c_long * count).from_address(addr)) if count else []

        def ints_of(addr: int, count: int) -> list[int]:
            return list((ctypes.c_int * count).from_address(addr)) if count else []

        from array import array

        flat_states = array("i")
        flat_states.frombytes(ctypes.string_at(r.states, n * lay.size * ctypes.sizeof(ctypes.c_int)))
        order = [q for q in props if q.kind == "state"] + [q for q in props if q.kind == "transition"]
        at = {q.id: k for k, q in enumerate(order)}
        ks = [at[q.id] for q in props]
        return Run(FlatStates(flat_states, lay), longs_of(r.parent, n), ints_of(r.via, n), longs_of(r.depth, n),
                   longs_of(r.sources, e), longs_of(r.targets, e), ints_of(r.edge_via, e), bool(r.complete),
                   bool(r.overflow), r.queue_head_depth, [witnessed[k] for k in ks],
                   [None if vstate[k] < 0 else (vstate[k], vvia[k], vdepth[k]) for k in ks], list(fired)[:n_trans])
    finally:
        lib.free_result(ptr)


class FlatStates(Sequence[State]):
    """The states of a native search, kept flat (ints, layout order) and made into
    :class:`State` values when read: a search to the fixpoint holds 10^5 states, of which a
    report reads a few."""

    def __init__(self, data: Any, layout: Layout) -> None:
        self.data, self.layout = data, layout
        self._fields = [(layout.offsets[d.name], layout.lengths[d.name], d.index == SCALAR) for d in LAYOUT]

    def __len__(self) -> int:
        return len(self.data) // self.layout.size

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        v = self.data[i * self.layout.size:(i + 1) * self.layout.size].tolist()
        return tuple.__new__(State, [v[o] if scalar else tuple(v[o:o + n]) for o, n, scalar in self._fields])


def available() -> bool:
    """Whether the native search can run here (a C compiler is found)."""
    return compiler() is not None


_PRELUDE = r"""
#define _POSIX_C_SOURCE 199309L
#include <stdlib.h>
#include <string.h>
#include <time.h>
/* Z3's integer division and remainder (SMT-LIB: the remainder is never negative); a zero
   divisor, which Z3 leaves unspecified, gives 0 (no rule of the model divides by zero). */
static inline int zmod(int x, int y) { if (!y) return 0; int r = x % y; return r < 0 ? r + (y < 0 ? -y : y) : r; }
static inline int zdiv(int x, int y) { if (!y) return 0; return (x - zmod(x, y)) / y; }
"""

# The search: the same breadth-first order as graph.check (transitions in catalogue order), the
# states stored as they are reached, keyed by their canonical form in an open-addressing table.
_SEARCH = r"""
static int is_plane_sourced(int kind) {
  for (int i = 0; i < NPLANE_SOURCED; i++) if (PLANE_SOURCED[i] == kind) return 1;
  return 0;
}

static int row_less(const int *s, int x, int y) {
  for (int c = 0; c < NCARD; c++) {
    int u = s[CARD_OFF[c] + x], v = s[CARD_OFF[c] + y];
    if (u != v) return u < v;
  }
  return 0;
}

#define MAXV 4096
static int renumber_oids(int *o) {
  static int rank[MAXV];
  static int seen[MAXV];
  static int stamp = 0;
  stamp++;
  int fresh = o[FRESH], next = 1;
  if (fresh < 0 || fresh >= MAXV) return -1;
  for (int i = 0; i < NOIDS; i++) {
    int v = o[OIDS[i]];
    if (v < 0 || v >= MAXV) return -1;
    if (v == 0 || v == fresh || seen[v] == stamp) continue;
    seen[v] = stamp; rank[v] = next++;
  }
  seen[fresh] = stamp; rank[fresh] = next;
  for (int i = 0; i < NOIDS; i++) { int v = o[OIDS[i]]; if (v) o[OIDS[i]] = rank[v]; }
  return 0;
}

static int renumber_turns(int *o) {
  int vals[NTURNS > 0 ? NTURNS : 1], n = 0;
  for (int i = 0; i < NTURNS; i++) {
    int v = o[TURNS[i]], k;
    if (v == 0) continue;
    for (k = 0; k < n && vals[k] != v; k++) ;
    if (k == n) vals[n++] = v;
  }
  for (int i = 1; i < n; i++) { int v = vals[i], k = i; while (k > 0 && vals[k - 1] > v) { vals[k] = vals[k - 1]; k--; } vals[k] = v; }
  for (int i = 0; i < NTURNS; i++) {
    int v = o[TURNS[i]];
    if (v == 0) continue;
    int k = 0; while (vals[k] != v) k++;
    o[TURNS[i]] = k + 1;
  }
  return 0;
}

int canon(const int *s, int *o, int turns) {
  memcpy(o, s, F * sizeof(int));
  if (NG) {
    int perm[N > 0 ? N : 1], changed = 0;
    for (int j = 0; j < N; j++) perm[j] = j;
    for (int g = 0; g < NG; g++) {
      int lo = GROUP_START[g], len = GROUP_START[g + 1] - lo, keyed[N > 0 ? N : 1];
      for (int k = 0; k < len; k++) keyed[k] = GROUP_SLOTS[lo + k];
      for (int i = 1; i < len; i++) {  /* a stable insertion sort by the slots' rows */
        int x = keyed[i], k = i;
        while (k > 0 && row_less(s, x, keyed[k - 1])) { keyed[k] = keyed[k - 1]; k--; }
        keyed[k] = x;
      }
      for (int k = 0; k < len; k++) { perm[keyed[k]] = GROUP_SLOTS[lo + k]; changed |= keyed[k] != GROUP_SLOTS[lo + k]; }
    }
    if (changed) {
      for (int c = 0; c < NCARD; c++) for (int j = 0; j < N; j++) o[CARD_OFF[c] + perm[j]] = s[CARD_OFF[c] + j];
      /* the references are renamed where they now stand (a card's target moved with the card) */
      for (int i = 0; i < NREFS; i++) { int v = o[REFS[i]]; o[REFS[i]] = v < P ? v : P + perm[v - P]; }
      for (int i = 0; i < NSLOTS; i++) { int v = o[SLOTS[i]]; o[SLOTS[i]] = v >= 0 ? perm[v] : v; }
      for (int i = 0; i < NSOURCES; i++) {
        int kind = o[SOURCE_KIND[i]], v = o[SOURCES[i]];
        o[SOURCES[i]] = (kind && !is_plane_sourced(kind)) ? perm[v] : v;
      }
    }
  }
  if (renumber_oids(o)) return -1;
  if (turns) renumber_turns(o);
  return 0;
}

void canonical(const int *s, int *o, int turns) { if (canon(s, o, turns)) memcpy(o, s, F * sizeof(int)); }

typedef struct {
  int *states; long *parent; int *via; long *depth; long *sources; long *targets; int *edge_via;
  long n_states, n_edges, complete, overflow, queue_head_depth, error;
} Result;

static unsigned long long hash_vec(const int *v) {
  unsigned long long h = 1469598103934665603ULL;
  for (int i = 0; i < F; i++) { h ^= (unsigned int)v[i]; h *= 1099511628211ULL; h ^= h >> 29; }
  return h;
}

static int grow_states(Result *r, int **keys, unsigned long long **hashes, long *cap) {
  long c = *cap * 2;
  int *st = (int *)realloc(r->states, (size_t)c * F * sizeof(int)); if (!st) return 1; r->states = st;
  int *ks = (int *)realloc(*keys, (size_t)c * F * sizeof(int)); if (!ks) return 1; *keys = ks;
  unsigned long long *hs = (unsigned long long *)realloc(*hashes, (size_t)c * sizeof(unsigned long long));
  if (!hs) return 1; *hashes = hs;
  long *pa = (long *)realloc(r->parent, (size_t)c * sizeof(long)); if (!pa) return 1; r->parent = pa;
  int *vi = (int *)realloc(r->via, (size_t)c * sizeof(int)); if (!vi) return 1; r->via = vi;
  long *de = (long *)realloc(r->depth, (size_t)c * sizeof(long)); if (!de) return 1; r->depth = de;
  *cap = c;
  return 0;
}

static int grow_edges(Result *r, long *cap) {
  long c = *cap * 2;
  long *so = (long *)realloc(r->sources, (size_t)c * sizeof(long)); if (!so) return 1; r->sources = so;
  long *ta = (long *)realloc(r->targets, (size_t)c * sizeof(long)); if (!ta) return 1; r->targets = ta;
  int *vi = (int *)realloc(r->edge_via, (size_t)c * sizeof(int)); if (!vi) return 1; r->edge_via = vi;
  *cap = c;
  return 0;
}

/* The hash table of canonical keys (state index + 1; 0 empty), doubled at half load. */
static long *rehash(long *table, long *tcap, const unsigned long long *hashes, long n) {
  long c = *tcap * 2;
  long *t = (long *)calloc((size_t)c, sizeof(long));
  if (!t) return NULL;
  for (long j = 0; j < n; j++) {
    long slot = (long)(hashes[j] & (unsigned long long)(c - 1));
    while (t[slot]) slot = (slot + 1) & (c - 1);
    t[slot] = j + 1;
  }
  free(table);
  *tcap = c;
  return t;
}

/* The search.  Per property (the state properties first, then the transition properties):
   witnessed[k] counts as graph.check counts; the first violation is the state viol_state[k]
   (state properties, viol_via[k] = -1) or the edge out of viol_state[k] by transition
   viol_via[k], found at depth viol_depth[k]; -1 if none.  fired[t]: times transition t fired. */
Result *search(const int *s0, long max_states, double timeout, int first_violation, long max_turn,
               int symmetry, int turns, long *witnessed, long *viol_state, long *viol_via, long *viol_depth,
               long *fired) {
  Result *r = (Result *)calloc(1, sizeof(Result));
  long cap = 1024, ecap = 8192, tcap = 4096;
  r->states = (int *)malloc((size_t)cap * F * sizeof(int));
  int *keys = (int *)malloc((size_t)cap * F * sizeof(int));
  unsigned long long *hashes = (unsigned long long *)malloc((size_t)cap * sizeof(unsigned long long));
  r->parent = (long *)malloc((size_t)cap * sizeof(long)); r->via = (int *)malloc((size_t)cap * sizeof(int));
  r->depth = (long *)malloc((size_t)cap * sizeof(long));
  r->sources = (long *)malloc((size_t)ecap * sizeof(long)); r->targets = (long *)malloc((size_t)ecap * sizeof(long));
  r->edge_via = (int *)malloc((size_t)ecap * sizeof(int));
  long *table = (long *)calloc((size_t)tcap, sizeof(long));
  int k2[F], b[F];
  unsigned char w[NS + NT + 1], ok[NS + NT + 1], violated[NS + NT + 1];
  memset(violated, 0, sizeof violated);
  struct timespec t0, now;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  long min_viol = -1, head = 0;

#define FOUND_STATE(j) do { \
    state_props(r->states + (j) * F, w, ok); \
    for (int k = 0; k < NS; k++) if (w[k] && !violated[k]) witnessed[k]++; \
    for (int k = 0; k < NS; k++) if (!ok[k] && !violated[k]) { violated[k] = 1; viol_state[k] = (j); viol_via[k] = -1; \
      viol_depth[k] = r->depth[j]; if (min_viol < 0 || r->depth[j] < min_viol) min_viol = r->depth[j]; } \
  } while (0)

  if (!r->states || !keys || !hashes || !r->parent || !r->via || !r->depth || !r->sources || !r->targets
      || !r->edge_via || !table) { r->error = 1; goto done; }
  memcpy(r->states, s0, F * sizeof(int));
  if (symmetry) { if (canon(s0, keys, turns)) { r->error = 2; goto done; } } else memcpy(keys, s0, F * sizeof(int));
  hashes[0] = hash_vec(keys);
  table[hashes[0] & (unsigned long long)(tcap - 1)] = 1;
  r->parent[0] = -1; r->via[0] = -1; r->depth[0] = 0; r->n_states = 1;
  if (r->states[OVERFLOW]) r->overflow = 1;
  FOUND_STATE(0);
  r->complete = 1;
  while (head < r->n_states) {
    if (r->n_states >= max_states) { r->complete = 0; break; }
    if ((head & 255) == 0) {
      clock_gettime(CLOCK_MONOTONIC, &now);
      if ((double)(now.tv_sec - t0.tv_sec) + 1e-9 * (double)(now.tv_nsec - t0.tv_nsec) > timeout) { r->complete = 0; break; }
    }
    if (first_violation && min_viol >= 0 && r->depth[head] >= min_viol) { r->complete = 0; break; }
    long i = head++;
    if (r->states[i * F + GAME_OVER] || (max_turn >= 0 && r->states[i * F + TURN] > max_turn)) continue;
    for (int t = 0; t < T; t++) {
      if (!STEP[t](r->states + i * F, b)) continue;
      fired[t]++;
      if (symmetry) { if (canon(b, k2, turns)) { r->error = 2; goto done; } } else memcpy(k2, b, sizeof k2);
      unsigned long long h = hash_vec(k2);
      long slot = (long)(h & (unsigned long long)(tcap - 1)), j = -1;
      while (table[slot]) {
        long c = table[slot] - 1;
        if (hashes[c] == h && !memcmp(keys + c * F, k2, sizeof k2)) { j = c; break; }
        slot = (slot + 1) & (tcap - 1);
      }
      int is_new = j < 0;
      if (is_new) {
        j = r->n_states;
        if (j + 1 > cap && grow_states(r, &keys, &hashes, &cap)) { r->error = 1; goto done; }
        memcpy(r->states + j * F, b, sizeof b);
        memcpy(keys + j * F, k2, sizeof k2);
        hashes[j] = h; r->parent[j] = i; r->via[j] = t; r->depth[j] = r->depth[i] + 1;
        table[slot] = j + 1;
        r->n_states = j + 1;
        if (2 * r->n_states > tcap && !(table = rehash(table, &tcap, hashes, r->n_states))) { r->error = 1; goto done; }
        if (b[OVERFLOW]) r->overflow = 1;
      }
      if (r->n_edges + 1 > ecap && grow_edges(r, &ecap)) { r->error = 1; goto done; }
      long e = r->n_edges++;
      r->sources[e] = i; r->targets[e] = j; r->edge_via[e] = t;
      TRANS_PROPS[t](r->states + i * F, b, w + NS, ok + NS);
      for (int k = NS; k < NS + NT; k++) {
        if (violated[k]) continue;
        if (w[k]) witnessed[k]++;
        if (!ok[k]) { violated[k] = 1; viol_state[k] = i; viol_via[k] = t; viol_depth[k] = r->depth[i] + 1;
          if (min_viol < 0 || r->depth[i] + 1 < min_viol) min_viol = r->depth[i] + 1; }
      }
      if (is_new) FOUND_STATE(j);
    }
  }
done:
  r->queue_head_depth = head < r->n_states ? r->depth[head] : (r->n_states ? r->depth[r->n_states - 1] : 0);
  free(keys); free(hashes); free(table);
  return r;
}

/* For the conformance tests: one transition's successor (0 if it is not enabled), and the
   properties' outcomes on a state or an edge. */
int successor(int t, const int *a, int *b) { return STEP[t](a, b); }
void state_outcomes(const int *b, unsigned char *w, unsigned char *ok) { state_props(b, w, ok); }
void edge_outcomes(int t, const int *a, const int *b, unsigned char *w, unsigned char *ok) { TRANS_PROPS[t](a, b, w, ok); }

void free_result(Result *r) {
  free(r->states); free(r->parent); free(r->via); free(r->depth); free(r->sources); free(r->targets);
  free(r->edge_via); free(r);
}
"""
