"""Figures of the three checkers on the built-in configurations.

Prints, per configuration: the graph search's states and states per second; the Hypothesis
checker's examples and steps per second; Z3's relation build time and the BMC depth it
reaches in a time budget (default 60 s, all properties, every initial placement); then,
for the graph and Hypothesis checkers, the median time of one property checked alone on
the two small configurations.  With ``--proofs`` it prints, per configuration, what Z3 proves
(BMC to depth 3, then k-induction) with each k and the induction's resource use; with
``--whole`` it also times a whole ``mtgcheck check`` run.

    python bench/check_figures.py [--bmc-budget 60] [--seed 0] [--proofs] [--whole]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from mtgcheck.checkers import graph, hypo, z3bmc
from mtgcheck.configs import BUILTIN
from mtgcheck.properties.catalogue import PROPERTIES


def bmc_depth_in(conf, budget: float) -> tuple[int, float]:  # type: ignore[no-untyped-def]
    vs = z3bmc.check(conf, PROPERTIES, depth=50, timeout=budget, induction=False)
    return min(v.depth or 0 for v in vs), vs[0].stats.get("build_seconds", 0.0)


def print_proofs() -> None:
    """Z3's proofs as ``mtgcheck check`` makes them: the k of each, and what induction cost."""
    for conf in BUILTIN:
        t0 = time.monotonic()
        vs = z3bmc.check(conf, PROPERTIES, depth=min(conf.depth, 3), timeout=600)
        ks = [f"{v.property}(k={v.k})" for v in vs if v.status == "proved"]
        st = vs[0].stats
        print(f"{conf.name}: {len(ks)} proved in {time.monotonic() - t0:.0f} s (induction "
              f"{st['induction_rlimit'] / 1e6:.0f}M rlimit in {st['induction_seconds']:.0f} s): {' '.join(ks)}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bmc-budget", type=float, default=60.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--proofs", action="store_true")
    ap.add_argument("--whole", action="store_true")
    args = ap.parse_args()
    print(f"seed {args.seed}; BMC budget {args.bmc_budget:.0f} s per configuration")
    print(f"{'config':<11} {'graph states':>12} {'states/s':>9} {'hyp ex/s':>9} {'hyp steps/s':>11} "
          f"{'z3 build s':>10} {'BMC depth':>9}")
    for conf in BUILTIN:
        t0 = time.monotonic()
        _, ex = graph.check(conf, PROPERTIES)
        g_secs = time.monotonic() - t0
        t0 = time.monotonic()
        hv = hypo.check(conf, PROPERTIES, seed=args.seed)
        h_secs = time.monotonic() - t0
        depth, build = bmc_depth_in(conf, args.bmc_budget)
        print(f"{conf.name:<11} {len(ex.states):>12} {len(ex.states) / g_secs:>9.0f} "
              f"{hv[0].stats['examples'] / h_secs:>9.1f} {hv[0].stats['steps'] / h_secs:>11.0f} "
              f"{build:>10.1f} {depth:>9}", flush=True)
    small = [c for c in BUILTIN if c.name in ("flashback", "costs")]
    print(f"\nper property, checked alone (median over the {', '.join(c.name for c in small)} configurations, seconds):")
    for p in PROPERTIES:
        g = [time.monotonic()]
        gt, ht = [], []
        for conf in small:
            g[0] = time.monotonic()
            graph.check(conf, [p])
            gt.append(time.monotonic() - g[0])
            g[0] = time.monotonic()
            hypo.check(conf, [p], seed=args.seed, examples=50)
            ht.append(time.monotonic() - g[0])
        print(f"  {p.id:<50} graph {statistics.median(gt):6.2f}   hypothesis(50 ex) {statistics.median(ht):6.2f}",
              flush=True)
    if args.proofs:
        print()
        print_proofs()
    if args.whole:
        t0 = time.monotonic()
        r = subprocess.run([sys.executable, "-m", "mtgcheck.cli", "check"], capture_output=True, text=True)
        print(f"\nwhole `mtgcheck check`: {time.monotonic() - t0:.0f} s, exit {r.returncode}")


if __name__ == "__main__":
    main()
