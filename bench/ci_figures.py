"""The time of each step of CI (``.ci/run``), one line of the script at a time.

Each command line of ``.ci/run`` (comments, ``set``, ``cd`` and ``export`` aside) runs in its
own ``bash`` from the repository's root with ``CI=true``, timed; ``--only TEXT`` (repeatable)
runs only the steps whose command holds TEXT (``--only ruff --only mypy`` is a short run), and
the table says which steps were left out.  A step's exit code is shown, not judged: the phase.rs
step exits 1 on its known divergences by design.

    python bench/ci_figures.py [--only TEXT ...] [--no-write]
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures_doc import write_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SKIP = ("set ", "cd ", "export ")


def steps() -> list[str]:
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    out: list[str] = []
    for ln in (x.strip() for x in lines[1:]):
        if not ln or ln.startswith("#") or ln.startswith(SKIP):
            continue
        if ln.startswith("[") and out:  # a test of the line before's result ("[ "$rc" -le 1 ]")
            out[-1] += "; " + ln
        else:
            out.append(ln)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", default=[], metavar="TEXT")
    ap.add_argument("--no-write", action="store_true", help="print only; leave docs/figures.md alone")
    args = ap.parse_args()
    rows: list[list[object]] = []
    skipped = 0
    total = 0.0
    for cmd in steps():
        if args.only and not any(t in cmd for t in args.only):
            skipped += 1
            continue
        t0 = time.monotonic()
        rc = subprocess.run(["bash", "-c", "set -uo pipefail; " + cmd], cwd=ROOT, env={**os.environ, "CI": "true"},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        seconds = time.monotonic() - t0
        total += seconds
        print(f"{seconds:8.1f} s  exit {rc}  {cmd}", flush=True)
        rows.append([f"`{cmd}`", seconds, rc])
    rows.append(["all the steps run", total, "-"])
    print(f"{total:8.1f} s  in all ({skipped} steps left out)")
    if not args.no_write:
        note = "Each line of .ci/run timed on its own."
        if skipped:
            note += (f" A short run: {skipped} of the {len(steps())} steps were left out (--only); run the script"
                     " without --only for the whole of CI.")
        write_section("CI: the steps of .ci/run", ["step", "s", "exit"], rows,
                      script=shlex.join(["python", "bench/ci_figures.py", *sys.argv[1:]]), note=note)


if __name__ == "__main__":
    main()
