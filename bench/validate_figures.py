"""`mtgcheck validate` on the engines at hand: traces, steps, divergences, rule coverage, seconds.

Runs the command as a user does (a subprocess, ``--no-store``, the JSON report read back) on
the example engine, its ``--broken`` copy, the model itself and (``--phase``, when phase-python
is installed) phase.rs, and writes the table into docs/figures.md.

    python bench/validate_figures.py [--budget 200] [--seed 0] [--phase] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures_doc import write_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = f"cmd:{sys.executable} tests/engines/example_engine.py"
ENGINES = {"example": EXAMPLE, "example --broken": EXAMPLE + " --broken", "model": "model"}


def run(spec: str, budget: int, seed: int) -> list[object]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        t0 = time.monotonic()
        r = subprocess.run([sys.executable, "-m", "mtgcheck.cli", "validate", "--engine", spec, "--budget", str(budget),
                            "--seed", str(seed), "--no-store", "--json", str(out)], cwd=ROOT, capture_output=True,
                           text=True)
        wall = time.monotonic() - t0
        if not out.exists():
            raise SystemExit(f"validate_figures: {spec}: exit {r.returncode}: {r.stderr.strip()[-300:]}")
        rep = json.loads(out.read_text())
    cov = rep.get("coverage") or {}
    shortest = min((d["shortest_found"] for d in rep["divergences"]), default="-")
    return [rep["traces"], rep["steps"], len(rep["divergences"]), shortest,
            f"{cov.get('rules_reached', '-')} of {cov.get('rules_in_catalogue', '-')}", r.returncode, wall]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--phase", action="store_true", help="also phase.rs (pip install -e '.[phase]')")
    ap.add_argument("--no-write", action="store_true", help="print only; leave docs/figures.md alone")
    args = ap.parse_args()
    engines = dict(ENGINES, **({"phase": "phase"} if args.phase else {}))
    rows = []
    for label, spec in engines.items():
        row = [label, *run(spec, args.budget, args.seed)]
        print(f"{label:<18} traces {row[1]}, steps {row[2]}, distinct divergences {row[3]} (shortest {row[4]}), "
              f"rules reached {row[5]}, exit {row[6]}, {row[7]:.1f} s", flush=True)
        rows.append(row)
    if not args.no_write:
        write_section("validate: engines against the rules",
                      ["engine", "traces", "steps", "distinct divergences", "shortest (actions)", "rules reached",
                       "exit", "wall s"], rows,
                      script=shlex.join(["python", "bench/validate_figures.py", *sys.argv[1:]]),
                      note=f"`mtgcheck validate --engine SPEC --budget {args.budget} --seed {args.seed} --no-store`: "
                           "the scenarios, the stored counterexamples and the generated games. Exit 1 is a "
                           "divergence found (the broken engine must give one).")


if __name__ == "__main__":
    main()
