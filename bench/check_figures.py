"""Figures of the three checkers on the built-in configurations.

Prints, per configuration: the graph search's states and states per second; the Hypothesis
checker's examples and steps per second; Z3's relation build time and the BMC depth it
reaches in a time budget (default 60 s, all properties, every initial placement), plain and
with its states constrained by the invariants Z3 closes first (``--manifest``: its hints) and by
the state properties closed with them, its steps by the transition properties every step from
them keeps (how many properties in all: ``props``); then,
for the graph and Hypothesis checkers, the median time of one property checked alone on
the two small configurations.  With ``--proofs`` it prints, per configuration, what Z3 proves
(BMC to depth 3, then k-induction, strengthened by the invariants found on the
configuration) with each k, the proof time, the induction's resource use and the invariants
(mined, initially true, proven inductive, dropped); with ``--mutants`` the time Z3 takes to
kill each mutant (as ``mtgcheck mutants --checker z3`` runs it) and the median; with
``--whole`` it also times a whole ``mtgcheck check`` run.  ``--z3-only`` skips the graph
search and Hypothesis figures; ``--from-position`` adds plain BMC's depth from the
configuration's own position alone (the placements' share of BMC's cost).

    python bench/check_figures.py [--bmc-budget 60] [--seed 0] [--proofs] [--mutants] [--whole] [--z3-only]
        [--from-position] [--config NAME] [--manifest manifest.json] [--no-table] [--no-write]
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures_doc import write_section  # noqa: E402

from mtgcheck.checkers import graph, hypo, z3bmc  # noqa: E402
from mtgcheck.check_run import configs_named  # noqa: E402
from mtgcheck.configs import BUILTIN  # noqa: E402
from mtgcheck.properties.catalogue import PROPERTIES  # noqa: E402


def bmc_depth_in(conf, budget: float, hints=None, every_placement: bool = True,  # type: ignore[no-untyped-def]
                 split_hints=()) -> tuple[int, float, float, int]:
    """The depth BMC reaches for every property in ``budget`` seconds, the relation's build
    time, the closing's, and how many properties closed with the invariants (state
    properties closed with them, transition properties every step from them keeps).  With
    ``hints`` (a tuple, possibly empty) BMC's states are constrained by the invariants found
    and closed first (z3bmc's ``bmc_invariants``: the hinted ones, or every candidate if
    none) and by the properties closed with them, the closing counted in the budget
    (at most ``z3bmc.CLOSING_SHARE`` of it; past that, BMC runs plain).
    ``every_placement=False``: from the configuration's own position only (what the
    placements cost the solver)."""
    vs = z3bmc.check(conf, PROPERTIES, depth=50, timeout=budget, induction=False,
                     bmc_invariants=hints is not None, hints=hints or (), symbolic_init=every_placement,
                     split_hints=split_hints)
    st = vs[0].stats
    return (min(v.depth or 0 for v in vs), st.get("build_seconds", 0.0), st.get("bmc_invariant_seconds", 0.0),
            len(st.get("bmc_closed_properties", ())))


def print_proofs(confs, manifest: str | None) -> None:  # type: ignore[no-untyped-def]
    """Z3's proofs as ``mtgcheck check`` makes them: the k of each, and what induction cost;
    from scratch, and (``--manifest FILE``) then with that manifest's invariants as hints, as
    ``mtgcheck check --manifest FILE`` makes them."""
    from mtgcheck import manifest as mf

    hints = mf.invariant_hints(mf.load(manifest)) if manifest else {}
    for conf in confs:
        for given in ((), *([hints[conf.name]] if conf.name in hints else [])):
            _print_proof(conf, given)


def _print_proof(conf, hints) -> None:  # type: ignore[no-untyped-def]
    t0 = time.monotonic()
    vs = z3bmc.check(conf, PROPERTIES, depth=min(conf.depth, 3), timeout=1800, hints=hints)
    ks = [f"{v.property}(k={v.k})" for v in vs if v.status == "proved"]
    st = vs[0].stats
    inv = st.get("invariants", {})
    how = f"with {len(hints)} hints ({'enough' if inv.get('hints_sufficed') else 'not enough'})" if hints \
        else "from scratch"
    print(f"{conf.name} {how}: {len(ks)}/{len(vs)} proved in {time.monotonic() - t0:.0f} s (build {st['build_seconds']:.1f} s, "
          f"BMC {vs[0].seconds:.0f} s, induction {st['induction_rlimit'] / 1e6:.0f}M rlimit in "
          f"{st['induction_seconds']:.0f} s; invariants: {inv.get('mined', 0)} mined from "
          f"{inv.get('sample_states', 0)} states, {inv.get('initially_true', 0)} initially true, "
          f"{inv.get('proven', 0)} proven inductive, {inv.get('dropped', 0)} dropped): {' '.join(ks)}", flush=True)
    for v in vs:
        if v.status != "proved":
            print(f"    not proved: {v.property}: {v.summary()}", flush=True)


def print_mutants(timeout: float, seed: int) -> None:
    """Seconds for Z3 to kill each mutant (BMC from every initial placement, no induction),
    as ``mtgcheck mutants --checker z3`` runs it, and the median."""
    from mtgcheck.model.mutants import MUTANTS
    from mtgcheck.mutants_run import run_one

    secs = []
    for m in MUTANTS:
        k = run_one(m, "z3", seed, timeout)
        print(f"  {m.id:<36} {'killed' if k.killed else 'SURVIVED'} ({k.trace_length}) {k.seconds:6.1f} s", flush=True)
        if k.killed:
            secs.append(k.seconds)
    if secs:
        print(f"z3 kills {len(secs)}/{len(MUTANTS)}, median time to kill {statistics.median(secs):.1f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bmc-budget", type=float, default=60.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--proofs", action="store_true")
    ap.add_argument("--mutants", action="store_true")
    ap.add_argument("--whole", action="store_true")
    ap.add_argument("--z3-only", action="store_true")
    ap.add_argument("--from-position", action="store_true",
                    help="also plain BMC's depth from the configuration's own position, not every placement")
    ap.add_argument("--config", action="append", default=[])
    ap.add_argument("--manifest", default=None, help="its invariants as hints: for the constrained BMC depth, and "
                    "(--proofs) for a second proof run; with --whole, the check is run with it")
    ap.add_argument("--no-table", action="store_true", help="skip the per-configuration table (e.g. --whole alone)")
    ap.add_argument("--no-write", action="store_true", help="print only; leave docs/figures.md alone")
    args = ap.parse_args()
    command = shlex.join(["python", "bench/check_figures.py", *sys.argv[1:]])
    rows: list[list[object]] = []
    confs = configs_named(args.config) if args.config else list(BUILTIN)
    print(f"seed {args.seed}; BMC budget {args.bmc_budget:.0f} s per configuration")
    from mtgcheck import manifest as mf

    recorded = mf.load(args.manifest) if args.manifest else None
    hints = mf.invariant_hints(recorded) if recorded else {}
    split = mf.split_hints(recorded) if recorded else {}
    n_props = len(PROPERTIES)
    if not args.no_table:
        print("BMC depth: plain; then with its states constrained by the invariants closed first "
              f"({'the manifest' + chr(39) + 's hints' if hints else 'every candidate'}) and by the properties "
              f"closed with them (props, of {n_props}: state properties on its states, transition properties on its "
              "steps), their closing in the budget")
        print(f"{'config':<11} {'graph states':>12} {'states/s':>9} {'hyp ex/s':>9} {'hyp steps/s':>11} "
              f"{'z3 build s':>10} {'BMC depth':>9} {'+invariants':>11} {'closing s':>9} {'props':>5}"
              + (f" {'from position':>13}" if args.from_position else ""))
    for conf in [] if args.no_table else confs:
        constrained, _, closing, closed_props = bmc_depth_in(conf, args.bmc_budget, hints.get(conf.name, ()),
                                                             split_hints=split.get(conf.name, ()))
        at_position = f" {bmc_depth_in(conf, args.bmc_budget, every_placement=False)[0]:>13}" \
            if args.from_position else ""
        if args.z3_only:
            depth, build, *_ = bmc_depth_in(conf, args.bmc_budget)
            print(f"{conf.name:<11} {'-':>12} {'-':>9} {'-':>9} {'-':>11} {build:>10.1f} {depth:>9} {constrained:>11} "
                  f"{closing:>9.1f} {closed_props:>5}{at_position}", flush=True)
            rows.append([conf.name, "-", "-", "-", "-", build, depth, constrained, closing, closed_props,
                         at_position.strip() or "-"])
            continue
        t0 = time.monotonic()
        _, ex = graph.check(conf, PROPERTIES)
        g_secs = time.monotonic() - t0
        t0 = time.monotonic()
        hv = hypo.check(conf, PROPERTIES, seed=args.seed)
        h_secs = time.monotonic() - t0
        depth, build, *_ = bmc_depth_in(conf, args.bmc_budget)
        print(f"{conf.name:<11} {len(ex.states):>12} {len(ex.states) / g_secs:>9.0f} "
              f"{hv[0].stats['examples'] / h_secs:>9.1f} {hv[0].stats['steps'] / h_secs:>11.0f} "
              f"{build:>10.1f} {depth:>9} {constrained:>11} {closing:>9.1f} {closed_props:>5}{at_position}", flush=True)
        rows.append([conf.name, len(ex.states), round(len(ex.states) / g_secs), hv[0].stats["examples"] / h_secs,
                     round(hv[0].stats["steps"] / h_secs), build, depth, constrained, closing, closed_props,
                     at_position.strip() or "-"])
    if rows and not args.no_write:
        budget_note = "" if args.bmc_budget >= 60 else (
            f" A short run: BMC's budget is {args.bmc_budget:.0f} s, not the 60 s the depths are usually quoted in.")
        write_section("Z3: BMC depth in a budget, and the checkers' rates",
                      ["config", "graph states", "graph states/s", "hypothesis examples/s", "hypothesis steps/s",
                       "Z3 build s", "BMC depth (plain)", "BMC depth (constrained)", "closing s",
                       f"properties closed (of {n_props})", "BMC depth from the position"], rows,
                      script=command,
                      note="BMC of every property from every initial placement, in the budget: plain, then with its "
                           "states constrained by the invariants closed first (the manifest's hints when given) and "
                           "the properties closed with them: state properties on its states, transition properties (those every "
                           "step from the invariants keeps) on its steps (the closing counted in the budget). Graph search "
                           "to its default bound and Hypothesis at the configuration's examples ('-': not run, "
                           "--z3-only)." + budget_note)
    if not args.z3_only and not args.no_table:
        small = [c for c in BUILTIN if c.name in ("flashback", "costs")]
        print(f"\nper property, checked alone (median over the {', '.join(c.name for c in small)} configurations, "
              "seconds):")
        for p in PROPERTIES:
            gt, ht = [], []
            for conf in small:
                t0 = time.monotonic()
                graph.check(conf, [p])
                gt.append(time.monotonic() - t0)
                t0 = time.monotonic()
                hypo.check(conf, [p], seed=args.seed, examples=50)
                ht.append(time.monotonic() - t0)
            print(f"  {p.id:<50} graph {statistics.median(gt):6.2f}   hypothesis(50 ex) {statistics.median(ht):6.2f}",
                  flush=True)
    if args.proofs:
        print()
        print_proofs(confs, args.manifest)
    if args.mutants:
        print()
        print_mutants(timeout=300.0, seed=args.seed)
    if args.whole:
        whole = ["check", *(["--manifest", args.manifest] if args.manifest else [])]
        t0 = time.monotonic()
        r = subprocess.run([sys.executable, "-m", "mtgcheck.cli", *whole], capture_output=True, text=True)
        seconds = time.monotonic() - t0
        print(f"\nwhole `mtgcheck {' '.join(whole)}`: {seconds:.0f} s, exit {r.returncode}")
        summary = next((line for line in reversed(r.stdout.splitlines()) if line.strip()), "")
        if not args.no_write:
            write_section("check: the main job", ["command", "wall s", "exit", "last line"],
                          [[f"mtgcheck {' '.join(whole)}", seconds, r.returncode, summary]], script=command,
                          note="One run of the whole check (every property, every checker, the built-ins, 2 jobs)"
                               " on this machine; its graph programs as the cache holds them.")


if __name__ == "__main__":
    from mtgcheck.errors import MtgcheckError

    try:
        main()
    except MtgcheckError as exc:
        sys.exit(f"check_figures: {exc}")
