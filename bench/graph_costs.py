"""Where the graph search's time goes, and the rate this interpreter cannot pass.

Per built-in configuration, with no turn bound, up to ``--states`` states (or the fixpoint):

* the search as ``mtgcheck check`` runs it (every property, symmetry reduction on), in states/s;
* the bare search: the same states and edges with no property, no bookkeeping of parents or
  edges, only the guards, the effects, the canonical key and the index, each timed apart (per
  state for the guards, per edge for the rest), and its own rate: the ceiling of any speed-up
  of the properties and the bookkeeping;
* the rules whose effects take the most time, with their share of the effects' time.

Why: the exhaustive-search figure to reach is 20,000 states/s on one core.  This prints what
stands between the interpreter and it (one process, seed-free; times vary with the machine's
load, the shares less): the interpreter's own ceiling is under it on every built-in, which is
why the search also runs compiled (``--graph-backend``, ``bench/native_rate.py``).  The
interpreter still runs every search to a turn bound and every small one.

    python bench/graph_costs.py [--states 60000] [--only NAME ...] [--top 5]
"""

from __future__ import annotations

import argparse
import time
from collections import deque
from typing import Any

from mtgcheck.checkers import graph
from mtgcheck.checkers.symmetry import canonicalizer
from mtgcheck.configs import BUILTIN, CheckConfig
from mtgcheck.model.actions import catalogue
from mtgcheck.model.setup import build
from mtgcheck.properties.catalogue import PROPERTIES


def bare(conf: CheckConfig, max_states: int) -> dict[str, Any]:
    """The search with nothing but successors, keys and the index; each part timed."""
    clock = time.perf_counter
    cfg, s0 = build(conf.position)
    cat = catalogue(cfg)
    transitions, enabled = cat.transitions, cat.enabled
    key = canonicalizer(cfg, turns=True)
    index = {key(s0): 0}
    states = [s0]
    queue = deque([0])
    guards = effects = keys = 0.0
    edges = 0
    per_rule: dict[str, list[float]] = {}
    t0 = clock()
    while queue and len(states) < max_states:
        s = states[queue.popleft()]
        if s.game_over:
            continue
        a = clock()
        on = enabled(s)
        guards += clock() - a
        for ti in on:
            t = transitions[ti]
            a = clock()
            s2 = t.effect(s)
            b = clock()
            k = key(s2)
            c = clock()
            effects += b - a
            keys += c - b
            edges += 1
            r = per_rule.setdefault(t.rule, [0, 0.0])
            r[0] += 1
            r[1] += b - a
            if k not in index:
                index[k] = len(states)
                states.append(s2)
                queue.append(len(states) - 1)
    seconds = clock() - t0
    return {"states": len(states), "edges": edges, "seconds": seconds, "guards": guards, "effects": effects,
            "keys": keys, "per_rule": per_rule, "fixpoint": not queue}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--states", type=int, default=60_000, help="state budget of each search")
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--top", type=int, default=5, help="how many rules to list by effect time")
    args = ap.parse_args()
    for conf in BUILTIN:
        if args.only and conf.name not in args.only:
            continue
        t0 = time.perf_counter()
        _, ex = graph.check(conf, PROPERTIES, unbounded=True, max_states=args.states, timeout=3600)
        full = len(ex.states) / (time.perf_counter() - t0)
        b = bare(conf, args.states)
        n, e = b["states"], b["edges"]
        us = 1e6
        print(f"{conf.name}: {n} states, {e} edges{' (fixpoint)' if b['fixpoint'] else ''}; "
              f"search {full:,.0f} states/s, bare {n / b['seconds']:,.0f} states/s")
        print(f"  per state {b['seconds'] / n * us:.0f} us: guards {b['guards'] / n * us:.0f}, "
              f"effects {b['effects'] / n * us:.0f}, keys {b['keys'] / n * us:.0f}; "
              f"per edge: effect {b['effects'] / e * us:.0f} us, key {b['keys'] / e * us:.0f} us")
        rules = sorted(b["per_rule"].items(), key=lambda kv: -kv[1][1])[:args.top]
        for rule, (calls, secs) in rules:
            print(f"    {rule:<28} {calls:>8} calls {secs / calls * us:6.0f} us each, "
                  f"{secs / b['effects'] * 100:4.0f} % of the effects' time")


if __name__ == "__main__":
    main()
