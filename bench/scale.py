"""Wall time of the same ``mtgcheck check`` work on 1 local worker, 2 local workers and a
two-worker Dask LocalCluster, and the speed-ups.

The work is the built-in configurations with the graph search and Hypothesis, every
property, Hypothesis in 4 shards per configuration (``--checker``, ``--config``,
``--examples``, ``--shards`` change it).  Each set-up runs it
``--repeat`` times, the set-ups taking turns (median shown).  The local pool is started inside each timed run, as
``mtgcheck check -j 2`` does; the LocalCluster is started once, outside the timings (a
cluster is a standing service), and each run connects a client to it.  Every run must give
the same verdicts (checked).  The load average is printed: on a shared machine it is part
of the figure.

    python bench/scale.py [--repeat 3] [--shards 4] [--checker graph --checker hypothesis] [--config NAME]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Callable

from mtgcheck import check_run as cr
from mtgcheck.checkers.result import Verdict
from mtgcheck.properties.catalogue import PROPERTIES


def timed(run: Callable[[], list[Verdict]]) -> tuple[float, frozenset[tuple[str, str, str, str]]]:
    """Wall time of one run, and its verdicts."""
    t0 = time.monotonic()
    verdicts = run()
    return time.monotonic() - t0, frozenset((v.checker, v.property, v.config, v.status) for v in verdicts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--checker", action="append", choices=cr.CHECKERS)
    ap.add_argument("--config", action="append")
    ap.add_argument("--examples", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--shards", type=int, default=4, help="Hypothesis seed slots per configuration")
    args = ap.parse_args()
    from distributed import Client, LocalCluster

    from mtgcheck.executors import DaskExecutor

    checkers = args.checker or ["graph", "hypothesis"]
    confs = cr.configs_named(args.config or [])
    props = [p.id for p in PROPERTIES]
    opts = cr.Options(seed=args.seed, examples=args.examples, hypothesis_slots=args.shards)
    units = cr.plan(checkers, props, confs, opts)
    print(f"work: {len(confs)} configurations x {len(props)} properties x {', '.join(checkers)} = {len(units)} units"
          f" (seed {args.seed}, {args.shards} Hypothesis shards per configuration); median of {args.repeat}; {os.cpu_count()} cores, load average "
          + " ".join(f"{x:.1f}" for x in os.getloadavg()))

    def on_cluster(address: str) -> list[Verdict]:
        ex = DaskExecutor(Client(address, set_as_default=False))
        try:
            return cr.run_check(checkers, props, confs, opts, executor=ex)
        finally:
            ex.shutdown()

    t0 = time.monotonic()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        started = time.monotonic() - t0
        setups: dict[str, Callable[[], list[Verdict]]] = {
            "1 local worker (-j 1)": lambda: cr.run_check(checkers, props, confs, opts, jobs=1),
            "2 local workers (-j 2)": lambda: cr.run_check(checkers, props, confs, opts, jobs=2),
            "LocalCluster, 2 workers": lambda: on_cluster(cluster.scheduler_address),
        }
        rows: dict[str, list[float]] = {label: [] for label in setups}
        verdicts = set()
        for _ in range(args.repeat):  # interleaved: a change of load hits every set-up alike
            for label, run in setups.items():
                seconds, found = timed(run)
                rows[label].append(seconds)
                verdicts.add(found)
    for label, times in rows.items():
        print(f"  {label:<28} {statistics.median(times):7.1f} s  runs " + ", ".join(f"{t:.1f}" for t in times))
    print(f"  (LocalCluster started once in {started:.1f} s, not counted)")
    one, two, dask = (statistics.median(r) for r in rows.values())
    print(f"speed-up: 2 local workers {one / two:.2f}x, LocalCluster {one / dask:.2f}x over 1 local worker; "
          f"LocalCluster / 2 local workers {two / dask:.2f}x")
    print("same verdicts in every run: " + ("yes" if len(verdicts) == 1 else "NO"))
    print("load average after: " + " ".join(f"{x:.1f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
