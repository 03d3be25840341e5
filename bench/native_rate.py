"""The compiled graph search against the interpreter, to the fixpoint of every built-in position.

Per built-in configuration, with no turn bound (every property, symmetry reduction on, one core):

* the interpreter's search (``--graph-backend python``): seconds and states/s;
* the compiled one (:mod:`mtgcheck.checkers.native`), apart: printing the relation as C
  (``source``: the Z3 encoding built, then printed), compiling it (``cc``, into an empty cache),
  and the search itself (states/s, the figure against the interpreter's); then end to end as
  ``mtgcheck check`` runs it, cold (an empty cache: print, compile, search) and warm (cached);
* that both found the same number of states.

``--together``: the four searches to their fixpoints at once on two worker processes, as
``mtgcheck check --checker graph --exhaustive`` runs them, cold and warm (wall seconds).

Medians of ``--repeats`` runs (the compile and the cold runs once each: each fills the cache).

    python bench/native_rate.py [--repeats 3] [--only NAME ...] [--together]
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures_doc import write_section  # noqa: E402

from mtgcheck.checkers import graph, native  # noqa: E402
from mtgcheck.configs import BUILTIN, CheckConfig  # noqa: E402
from mtgcheck.model.setup import build  # noqa: E402
from mtgcheck.properties.catalogue import PROPERTIES  # noqa: E402

STATES = 1_000_000


def _to_the_end(conf: CheckConfig, backend: str) -> tuple[int, float]:
    t0 = time.perf_counter()
    _, ex = graph.check(conf, PROPERTIES, unbounded=True, max_states=STATES, timeout=3600, backend=backend)
    assert ex.fixpoint and ex.backend == backend
    return len(ex.states), time.perf_counter() - t0


def measure(conf: CheckConfig, repeats: int, python: bool) -> dict[str, Any]:
    cfg, s0 = build(conf.position)
    out: dict[str, Any] = {}
    if python:
        runs = [_to_the_end(conf, "python") for _ in range(repeats)]
        out["python_states"], out["python_s"] = runs[0][0], statistics.median(r[1] for r in runs)
    with tempfile.TemporaryDirectory() as cache:
        os.environ["MTGCHECK_CACHE"] = cache
        native.program.cache_clear()
        t0 = time.perf_counter()
        src = native.source(cfg, PROPERTIES)
        out["print_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        native.load(src)
        out["compile_s"] = time.perf_counter() - t0
        out["lines"] = src.count("\n")
        searches = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            r = native.search(cfg, PROPERTIES, s0, max_states=STATES, timeout=3600, first_violation=False,
                              max_turn=None, symmetry=True, turns=True)
            searches.append(time.perf_counter() - t0)
        out["native_states"], out["search_s"] = len(r.states), statistics.median(searches)
        native.program.cache_clear()
    with tempfile.TemporaryDirectory() as cache:
        os.environ["MTGCHECK_CACHE"] = cache
        native.program.cache_clear()
        out["cold_s"] = _to_the_end(conf, "native")[1]
        native.program.cache_clear()
        out["warm_s"] = statistics.median(_warm(conf) for _ in range(repeats))
    os.environ.pop("MTGCHECK_CACHE", None)
    return out


def _warm(conf: CheckConfig) -> float:
    native.program.cache_clear()  # a new process's view: the program read from the cache
    return _to_the_end(conf, "native")[1]


def _unit(args: tuple[CheckConfig, str]) -> int:
    conf, cache = args
    os.environ["MTGCHECK_CACHE"] = cache
    return _to_the_end(conf, "native")[0]


def together(confs: list[CheckConfig]) -> tuple[float, float]:
    """Wall seconds of the searches on two worker processes: an empty cache, then a warm one."""
    out = []
    with tempfile.TemporaryDirectory() as cache:
        for _ in range(2):
            t0 = time.perf_counter()
            with ProcessPoolExecutor(2) as pool:
                list(pool.map(_unit, [(c, cache) for c in sorted(confs, key=lambda c: c.name != "plot")]))
            out.append(time.perf_counter() - t0)
    return out[0], out[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--no-python", action="store_true", help="skip the interpreter's searches")
    ap.add_argument("--together", action="store_true", help="also the four searches on two workers")
    ap.add_argument("--no-write", action="store_true", help="print only; leave docs/figures.md alone")
    args = ap.parse_args()
    rows: list[list[object]] = []
    if not native.available():
        raise SystemExit("no C compiler: the compiled search cannot run here")
    confs = [c for c in BUILTIN if not args.only or c.name in args.only]
    print(f"to the fixpoint, one core, medians of {args.repeats}; seconds")
    print(f"{'config':<11} {'states':>8} {'python':>7} {'py st/s':>8} {'print':>6} {'compile':>7} {'lines':>7} "
          f"{'search':>7} {'native st/s':>11} {'ratio':>6} {'cold':>6} {'warm':>6} same")
    for conf in confs:
        m = measure(conf, args.repeats, not args.no_python)
        n = m["native_states"]
        py = f"{m['python_s']:>7.1f} {m['python_states'] / m['python_s']:>8,.0f}" if "python_s" in m else f"{'-':>7} {'-':>8}"
        ratio = f"{(n / m['search_s']) / (m['python_states'] / m['python_s']):>6.0f}" if "python_s" in m else f"{'-':>6}"
        same = "yes" if m.get("python_states", n) == n else "NO"
        print(f"{conf.name:<11} {n:>8,} {py} {m['print_s']:>6.1f} {m['compile_s']:>7.1f} {m['lines']:>7,} "
              f"{m['search_s']:>7.2f} {n / m['search_s']:>11,.0f} {ratio} {m['cold_s']:>6.1f} {m['warm_s']:>6.1f} {same}")
        rows.append([conf.name, n, m.get("python_s", "-"),
                     round(m["python_states"] / m["python_s"]) if "python_s" in m else "-", m["print_s"],
                     m["compile_s"], m["lines"], m["search_s"], round(n / m["search_s"]), ratio.strip(), m["cold_s"],
                     m["warm_s"], same])
    if args.together:
        cold, warm = together(confs)
        print(f"together on two workers: {cold:.1f} s cold (an empty cache), {warm:.1f} s warm")
        rows.append(["the four on two workers", "-", "-", "-", "-", "-", "-", "-", "-", "-", cold, warm, "-"])
    if not args.no_write:
        write_section("graph search: compiled against the interpreter, to the fixpoint",
                      ["config", "states", "interpreter s", "interpreter states/s", "print s", "compile s", "C lines",
                       "search s", "compiled states/s", "ratio", "cold s", "warm s", "same states"], rows,
                      script=shlex.join(["python", "bench/native_rate.py", *sys.argv[1:]]),
                      note=f"No turn bound, symmetry reduction, one core, medians of {args.repeats}. 'print': the "
                           "relation printed as C; 'cold'/'warm': end to end as mtgcheck check runs it, with an "
                           "empty / a filled cache ('-': not measured, e.g. --no-python)."
                           + (" A short run:" + (" the interpreter's searches left out (--no-python);" if args.no_python
                                                 else "") + f" medians of {args.repeats}."
                              if args.no_python or args.repeats < 3 else ""))


if __name__ == "__main__":
    main()
