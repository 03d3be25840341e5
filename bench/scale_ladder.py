"""The cost curve of the exhaustive graph search: every position of ``examples/scale/`` to its fixpoint.

Per position (a configuration file, growing: more spells, more mana, longer libraries, more
players), the compiled search (:mod:`mtgcheck.checkers.native`) with no turn bound and no state
budget, every property, symmetry reduction on, in a process of its own:

* states at the fixpoint (or what stopped the search: ``--timeout``, ``--max-memory``);
* seconds of the search (the program compiled before, apart: ``compile s``) and states/s;
* bytes per state: what the search holds (its packed states and keys, parent pointers, hash
  table: the C program's own count) and the process's peak resident set growth during the
  search (``ru_maxrss`` after, less before), each over the states;
* the probability that two distinct states were taken for one: 0, since the visited set keys
  are the packed canonical states themselves, compared whole (an exact proof; no fingerprint).

It writes its table into ``docs/figures.md`` (``bench/figures_doc.py``) unless ``--no-write``.

    python bench/scale_ladder.py [--timeout 1200] [--max-memory 8000] [--only 03-plot-12 ...]
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
timeout, max_bytes = float(sys.argv[2]), int(sys.argv[3])
cfg, _ = build(conf.position)
t0 = time.perf_counter()
native.program(cfg, tuple(PROPERTIES))
compile_s = time.perf_counter() - t0
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
t0 = time.perf_counter()
out, ex = graph.check(conf, PROPERTIES, unbounded=True, max_states=None, timeout=timeout, backend="native",
                      keep_edges=False, max_bytes=max_bytes)
seconds = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"states": len(ex.states), "edges": ex.edges, "seconds": seconds, "compile": compile_s,
                  "fixpoint": ex.fixpoint, "stopped": ex.stopped, "held": ex.held_bytes, "grown": peak - before,
                  "peak": peak, "verdicts": sorted({v.status for v in out})}))
"""


def measure(path: Path, timeout: float, max_bytes: int) -> dict[str, Any]:
    """One position's search, in a fresh process (its peak resident set is its own)."""
    r = subprocess.run([sys.executable, "-c", _CHILD, str(path), str(timeout), str(max_bytes)], capture_output=True,
                       text=True, timeout=timeout + 900)
    if r.returncode != 0:
        return {"error": (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1]}
    return dict(json.loads(r.stdout.strip().splitlines()[-1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--timeout", type=float, default=1200.0, help="seconds per position's search")
    ap.add_argument("--max-memory", type=int, default=8000, help="MB a position's search may hold")
    ap.add_argument("--only", nargs="*", default=None, help="positions (file stems) to run")
    ap.add_argument("--no-write", action="store_true", help="print only; leave docs/figures.md alone")
    args = ap.parse_args()
    rows = []
    for path in sorted(LADDER.glob("*.json")):
        if args.only and path.stem not in args.only:
            continue
        m = measure(path, args.timeout, args.max_memory * 2**20)
        if "error" in m:
            row = [path.stem, m["error"], "", "", "", "", "", "", ""]
        else:
            n = max(m["states"], 1)
            row = [path.stem, m["states"], "fixpoint" if m["fixpoint"] else m["stopped"], round(m["seconds"], 1),
                   round(m["compile"], 1), round(m["states"] / max(m["seconds"], 1e-9)), round(m["held"] / n),
                   round(m["grown"] / n), "0 (exact keys)"]
        rows.append(row)
        print(" | ".join(str(c) for c in row), flush=True)
    header = ["position", "states", "end", "search s", "compile s", "states/s", "held B/state",
              "peak RSS growth B/state", "collision bound"]
    if not args.no_write and rows:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from figures_doc import write_section

        write_section("graph search: scale ladder", header, rows,
                      script="python bench/scale_ladder.py" + (f" --only {' '.join(args.only)}" if args.only else ""),
                      note="The compiled exhaustive search of each examples/scale/ position to its fixpoint (no "
                           "turn bound, no state budget; one core). `held`: the search's own count of what it "
                           "holds (packed states and canonical keys, parent pointers, hash table) over the states; "
                           "`peak RSS growth`: the process's peak resident set during the search, less before, "
                           "over the states. The visited set compares packed canonical states whole: no "
                           "fingerprint, no collision.")
    os.environ.pop("MTGCHECK_BENCH", None)


if __name__ == "__main__":
    main()
