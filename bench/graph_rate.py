"""States per second of the graph search on each built-in configuration, old vs new code.

(``--checker hypothesis``: steps per second of the Hypothesis checker instead, seed 0;
``--checker conformance``: conformance checks per second, the concrete against the symbolic
reading of a transition, as ``tests/test_conformance.py`` makes them: 500 seeded random walks from
the configuration's position, three transitions checked at the end of each.)

Runs the graph search (every property, symmetry reduction on) on each built-in configuration
with the working tree's code and with the code of an older commit (``--old``, extracted with
``git archive`` into a temporary directory, or a source tree), alternating the two in separate processes so
that both see the same machine load; prints per configuration the median states per second
of each and their ratio.  Usage:

    python bench/graph_rate.py [--old REV] [--repeats N] [--max-turn T] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Run inside the child: import mtgcheck (and its mapped packages model/, properties/) from the
# tree given as argv[1], whatever is installed.
CHILD = r"""
import importlib.abc, importlib.util, json, os, sys, time, dataclasses
tree = sys.argv[1]
MAP = (("mtgcheck.model", "model"), ("mtgcheck.properties", "properties"), ("mtgcheck", "mtgcheck"))
class Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        for pre, d in MAP:
            if name == pre or name.startswith(pre + "."):
                base = os.path.join(tree, d, *name[len(pre):].lstrip(".").split(".")) if name != pre \
                    else os.path.join(tree, d)
                if os.path.isdir(base):
                    return importlib.util.spec_from_file_location(name, os.path.join(base, "__init__.py"),
                                                                  submodule_search_locations=[base])
                if os.path.exists(base + ".py"):
                    return importlib.util.spec_from_file_location(name, base + ".py")
                return None
        return None
sys.meta_path.insert(0, Finder())
from mtgcheck.checkers import graph
from mtgcheck.configs import BUILTIN
from mtgcheck.properties.catalogue import PROPERTIES
assert graph.__file__.startswith(tree), graph.__file__
only, max_turn, checker = json.loads(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
out = {}
for conf in BUILTIN:
    if only and conf.name not in only:
        continue
    if max_turn:
        conf = dataclasses.replace(conf, max_turn=max_turn)
    t0 = time.perf_counter()
    if checker == "graph":
        _, ex = graph.check(conf, PROPERTIES, timeout=600)
        count, same = len(ex.states), len(ex.states)
    elif checker == "conformance":
        import inspect, random
        from mtgcheck import conformance
        from mtgcheck.model.actions import catalogue, legal_actions, step
        from mtgcheck.model.setup import build
        by_cfg = "cfg" in inspect.signature(conformance.check_transition).parameters  # not in older trees
        cfg, s0 = build(conf.position)
        ts = catalogue(cfg).transitions
        count, same = 0, []
        for seed in range(500):
            rng, s = random.Random(seed), s0
            for _ in range(rng.randint(0, 40)):
                acts = legal_actions(cfg, s)
                if not acts:
                    break
                s = step(cfg, s, rng.choice(acts))
            for t in [t for t in ts if t.enabled(s)][:2] + [rng.choice(ts)]:
                same += conformance.check_transition(cfg, t, s) if by_cfg else conformance.check_transition(t, s)
                count += 1
    else:
        from mtgcheck.checkers import hypo
        vs = hypo.check(conf, PROPERTIES, seed=0, timeout=600)
        count = vs[0].stats["steps"]
        same = [(v.property, v.status, v.stats["witnesses"]) for v in vs]
    dt = time.perf_counter() - t0
    out[conf.name] = (count, dt, same)
print(json.dumps(out))
"""


def run(tree: str, only: list[str], max_turn: int, checker: str) -> dict[str, tuple[int, float, object]]:
    env = dict(os.environ, PYTHONHASHSEED="0")
    r = subprocess.run([sys.executable, "-c", CHILD, tree, json.dumps(only), str(max_turn), checker],
                       capture_output=True, text=True, env=env, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", default="HEAD", help="the commit to compare with (default HEAD), or a source tree")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--max-turn", type=int, default=0, help="override the configurations' turn bound")
    ap.add_argument("--new", default=str(ROOT), help="the source tree to measure (default: this working tree)")
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--checker", choices=("graph", "hypothesis", "conformance"), default="graph",
                    help="hypothesis: steps/s of the Hypothesis checker (seed 0), same verdicts checked; "
                         "conformance: conformance checks/s (the same problems, none, checked)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if os.path.isdir(args.old):
            tmp = args.old
        else:
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.old], capture_output=True,
                                     check=True).stdout
            subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        runs: dict[str, list[dict[str, tuple[int, float, object]]]] = {"old": [], "new": []}
        for _ in range(args.repeats):
            runs["old"].append(run(tmp, args.only, args.max_turn, args.checker))
            runs["new"].append(run(args.new, args.only, args.max_turn, args.checker))
    what = {"graph": "graph search (states)", "hypothesis": "Hypothesis, seed 0 (steps)",
            "conformance": "conformance (checks)"}[args.checker]
    print(f"{what}, old = {args.old}, new = {args.new}; median of {args.repeats} alternated runs")
    print(f"{'config':<11} {'count old':>10} {'count new':>10} {'old /s':>9} {'new /s':>9} {'ratio':>6} "
          f"{'old s':>7} {'new s':>7} same")
    for name in runs["new"][0]:
        so, sn = runs["old"][0][name][0], runs["new"][0][name][0]
        to = statistics.median(r[name][1] for r in runs["old"])
        tn = statistics.median(r[name][1] for r in runs["new"])
        same = runs["old"][0][name][2] == runs["new"][0][name][2]
        print(f"{name:<11} {so:>10} {sn:>10} {so / to:>9.0f} {sn / tn:>9.0f} {(sn / tn) / (so / to):>6.2f} "
              f"{to:>7.2f} {tn:>7.2f} {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
