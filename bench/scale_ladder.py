"""The cost curve of the exhaustive graph search: every position of ``examples/scale/`` to its fixpoint.

Per position (a configuration file, growing: more spells, more mana, longer libraries, more
players), the compiled search (:mod:`mtgcheck.checkers.native`) with no turn bound and no state
budget, every property, symmetry reduction on, in a process of its own:

* states at the fixpoint (or what stopped the search: ``--timeout``, ``--max-memory``);
* seconds of the search (the program compiled before, apart: ``compile s``) and states/s;
* bytes per state: what the search holds (its visited set, tree nodes and queue: the C
  program's own count of what it allocated) and the process's peak resident set growth during
  the search (``ru_maxrss`` after, less before), each over the states; the tree's nodes per
  state, and the states the queue put in its file;
* the probability that two distinct states were taken for one: 0 for the exact store (the
  tree-compressed keys are equal exactly when the keys are), with ``--fingerprints`` TLC's
  bound (visited states x look-ups / 2^64).

It writes its table into ``docs/figures.md`` (``bench/figures_doc.py``) unless ``--no-write``.

    python bench/scale_ladder.py [--timeout 1200] [--max-memory 8000] [--only 03-plot-12 ...] [--threads 2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
LADDER = ROOT / "examples" / "scale"

_CHILD = r"""
import json, resource, sys, time
from mtgcheck.checkers import graph, native
from mtgcheck.configs import load_config
from mtgcheck.model.setup import build
from mtgcheck.properties.catalogue import PROPERTIES

conf = load_config(sys.argv[1])
timeout, max_bytes, fingerprints, threads = float(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1", int(sys.argv[5])
cfg, _ = build(conf.position)
t0 = time.perf_counter()
native.program(cfg, tuple(PROPERTIES))
compile_s = time.perf_counter() - t0
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
t0 = time.perf_counter()
out, ex = graph.check(conf, PROPERTIES, unbounded=True, max_states=None, timeout=timeout, backend="native",
                      keep_edges=False, max_bytes=max_bytes, fingerprints=fingerprints, threads=threads)
seconds = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"states": len(ex.states), "edges": ex.edges, "seconds": seconds, "compile": compile_s,
                  "fixpoint": ex.fixpoint, "stopped": ex.stopped, "held": ex.held_bytes, "grown": peak - before,
                  "peak": peak, "verdicts": sorted({v.status for v in out}), "store": ex.store,
                  "collision": ex.collision_bound}))
"""


def measure(path: Path, timeout: float, max_bytes: int, fingerprints: bool, threads: int = 1) -> dict[str, Any]:
    """One position's search, in a fresh process (its peak resident set is its own)."""
    r = subprocess.run([sys.executable, "-c", _CHILD, str(path), str(timeout), str(max_bytes), str(int(fingerprints)),
                        str(threads)],
                       capture_output=True,
                       text=True, timeout=timeout + 900)
    if r.returncode != 0:
        return {"error": (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1]}
    return dict(json.loads(r.stdout.strip().splitlines()[-1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--timeout", type=float, default=1200.0, help="seconds per position's search")
    ap.add_argument("--max-memory", type=int, default=8000, help="MB a position's search may hold")
    ap.add_argument("--only", nargs="*", default=None, help="positions (file stems) to run")
    ap.add_argument("--fingerprints", action="store_true", help="a 64-bit hash per visited state (no exact proof)")
    ap.add_argument("--threads", type=int, default=1, help="threads that expand the states (the search's own included)")
    ap.add_argument("--no-write", action="store_true", help="print only; leave docs/figures.md alone")
    args = ap.parse_args()
    rows = []
    for path in sorted(LADDER.glob("*.json")):
        if args.only and path.stem not in args.only:
            continue
        m = measure(path, args.timeout, args.max_memory * 2**20, args.fingerprints, args.threads)
        if "error" in m:
            row = [path.stem, m["error"], "", "", "", "", "", "", "", "", ""]
        else:
            n = max(m["states"], 1)
            row = [path.stem, m["states"], "fixpoint" if m["fixpoint"] else m["stopped"], round(m["seconds"], 1),
                   round(m["compile"], 1), round(m["states"] / max(m["seconds"], 1e-9)), round(m["held"] / n),
                   round(m["grown"] / n), round(m["store"]["nodes"] / n, 2), m["store"]["spilled"],
                   "0 (exact)" if m["collision"] is None else f"{m['collision']:.1e}"]
        rows.append(row)
        print(" | ".join(str(c) for c in row), flush=True)
    header = ["position", "states", "end", "search s", "compile s", "states/s", "held B/state",
              "peak RSS growth B/state", "nodes/state", "spilled", "collision bound"]
    if not args.no_write and rows:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from figures_doc import write_section

        # A run of some positions only (a longer one, say) is its own table: the whole ladder's stays.
        topic = "graph search: scale ladder" + (" (fingerprints)" if args.fingerprints else "") + \
            (f" ({args.threads} threads)" if args.threads > 1 else "") + \
            (f" ({', '.join(args.only)}, --timeout {args.timeout:.0f})" if args.only else "")
        write_section(topic, header, rows,
                      script="python bench/scale_ladder.py" + (" --fingerprints" if args.fingerprints else "")
                      + (f" --threads {args.threads}" if args.threads > 1 else "")
                      + (f" --only {' '.join(args.only)}" if args.only else ""),
                      note="The compiled exhaustive search of each examples/scale/ position to its fixpoint (no "
                           "turn bound, no state budget; " + (f"{args.threads} threads expand the states, one updates the visited "
                           "set" if args.threads > 1 else "one core") + "). `held`: the search's own count of what it "
                           "allocated (visited set, tree nodes, queue) over the states; `peak RSS growth`: the "
                           "process's peak resident set during the search, less before, over the states; "
                           "`spilled`: states the queue put in its file (past 64 MB). " +
                           ("Fingerprints: a 64-bit hash per visited state; the bound is TLC's, visited x "
                            "look-ups / 2^64." if args.fingerprints else
                            "Exact: the tree-compressed canonical keys are equal exactly when the keys are."))
    os.environ.pop("MTGCHECK_BENCH", None)


if __name__ == "__main__":
    main()
