"""Z3's proof cost as card slots grow: seconds and rlimit per property on the scale ladder.

Runs what ``mtgcheck check --config FILE --checker z3`` runs (BMC to depth 3, k-induction
strengthened by the invariants found on the position, no manifest: proofs from scratch) on
each position of ``examples/scale/`` (or ``--position FILE``), one position at a time in this
process.  Prints, per position: card slots, properties proved out of those checked, wall
seconds, the induction's total rlimit, the share spent closing the invariants (the Houdini
closure's consecution queries) and the seconds and rlimit per slot; then, per property, the
rlimit and seconds of the queries that name it (its step cases, split or whole) and its
verdict.  The slope between two rungs (seconds and rlimit per added slot) says whether the
cost grows faster than linearly in the slots.  rlimit is Z3's deterministic work counter:
on a shared machine it is the figure to compare, the seconds move with the load (printed).

Slots are not the only axis: a card that targets a spell (Counterspell) is a transition per
spell it can target, a choice of two cards to discard (Faithless Looting) one per pair, so
the relation a query reasons over can grow faster than the slots.  Each position's row
gives its transitions and the distinct terms of its step relation (:func:`relation_terms`,
built again outside the timed run), and the rlimit per thousand of those terms; then how
many of the state's entries a step writes, by its own effect and after the state-based
actions (:func:`footprints`: not why a transition costs in proportion to the slots).

    python bench/z3_scale.py [--position FILE ...] [--property ID ...] [--timeout 900] [--write] [--profile] [--reuse]

``--property ID`` checks only that property (BMC and induction as above, the others not
checked, so not assumed either): the cost of one proof, e.g. ``stack-ordered``'s.

``--reuse`` runs, per position, the position (recording the invariants its proofs closed in
a cache of its own), then another position of the same shape (player 0 at 7 life) from
scratch and reusing them (:mod:`mtgcheck.checkers.z3bmc.reuse`: re-checked, never trusted).

``--profile`` prints, per position, where the seconds and the rlimit go: the encoding's
build, BMC, mining, the closure's consecution queries (by chunk, one candidate at a time,
split by transition or whole), the step cases at each k; then the closure's candidates
asked more than once and the costliest.

``--seeds N`` runs each position N times, with Z3's random seed 0 to N-1 (``smt.random_seed``,
``sat.random_seed``), and prints the median rlimit and its range: Z3's search is chaotic, a
position's rlimit moves by tens of percent with the seed or the order its terms were made in,
so a single run's slope between two rungs may be the seed's.  The ladder's other tables are
seed 0's.

``--library-rungs N`` runs, instead of the ladder, its first position (or the first
``--position``) and N positions grown from it by library cards only, an Island more in each
player's library per rung (:func:`library_rungs`): slots that add no choice of a card among
others, so that the two causes of growth are read apart (the ladder's rungs add cards that
target spells or choose pairs, and their transitions).

``--write`` records the tables in docs/figures.md (bench/figures_doc.py).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import z3

from mtgcheck.checkers import z3bmc
from mtgcheck.checkers.z3bmc.intervals import Dag
from mtgcheck.checkers.z3bmc.relation import Encoding, flat_field
from mtgcheck.checkers.result import PROVED
from mtgcheck.configs import CheckConfig, load_config
from mtgcheck.errors import MtgcheckError
from mtgcheck.model.setup import CardPlacement as C, build
from mtgcheck.model.zones import COMPACT_RANKS
from mtgcheck.properties.base import Property
from mtgcheck.properties.catalogue import BY_ID, PROPERTIES

LADDER = Path(__file__).resolve().parent.parent / "examples" / "scale"
#: A query's entry in ``stats["induction_queries"]``: "what: result (N.NM, S.S s)".
QUERY = re.compile(r"^(?P<what>.*): (?P<res>\w+) \((?P<m>[0-9.]+)M, (?P<s>[0-9.]+) s\)$")


def per_query(v: Any) -> list[tuple[str, float, float]]:
    """(what, rlimit in millions, seconds) of each induction query of the unit."""
    out = []
    for q in v.stats.get("induction_queries", []):
        m = QUERY.match(q)
        if m:
            out.append((m["what"], float(m["m"]), float(m["s"])))
    return out


def owner(what: str, ids: set[str]) -> str:
    """The property a query is about (its step case, whole or one transition of a split), or
    ``closure`` for the invariants' consecution and initiation queries, ``renumbering`` for
    the facts of the renumbering lemma (``z3bmc/renumbering.py``), shared by the properties
    it proves (each one's own query from the lemma is its)."""
    if what.startswith("renumbering: "):
        first = what[len("renumbering: "):].split(" ")[0]
        return first if first in ids else "renumbering"
    m = re.match(r"^k=\d+ (?P<ids>[^ \[]+)", what)
    if m:
        first = m["ids"].split("+")[0]
        if first in ids:
            return first
    return "closure"


def phase(what: str) -> str:
    """The phase of the proof an induction query belongs to (``[verb #i]``: one transition
    of a query split by transition; a step case's first tries apart)."""
    split = " (split)" if re.search(r" \[\S+ #\d+\]$", what) else ""
    if what.startswith("invariants: initiation"):
        return "mining: initiation"
    if what.startswith("invariants: ") and "at once" in what:
        return "closure: chunk consecution" + split
    if what.startswith("invariant "):
        return "closure: one-candidate consecution" + split
    m = re.match(r"^k=(\d+) ", what)
    if m:
        # asked on the candidates closed so far alone (``closed``), or among the members
        # proven and the support of the property's last proof (``among the proven``)
        among = re.search(r" \((closed|among the proven)\)$", what)
        conj = " (by conjunct)" if " (conjunct " in what else ""  # ``Path.conjuncts``
        return f"k={m[1]} step case" + conj + split + (f" ({among[1]})" if among else "")
    return what.split(" ")[0]


def profile(r: dict[str, Any]) -> None:
    """Where one position's seconds and rlimit go: the phases (the encoding's build, BMC,
    mining, the closure's consecution queries, the step cases at each k), then the closure's
    single-candidate queries asked more than once and the costliest ones."""
    v = r["verdict"]
    stats, inv = v.stats, v.stats.get("invariants", {})
    qs = per_query(v)
    rows: dict[str, list[float]] = {}
    for what, m, s in qs:
        c = rows.setdefault(phase(what), [0.0, 0.0, 0.0])
        c[0] += 1
        c[1] += m
        c[2] += s
    # Z3 counts one rlimit per context: the unit's whole work; what the induction's queries
    # did not spend is BMC's (its queries, and the asserting of every solver's terms)
    total_m = max(stats.get("context_rlimit", 0) / 1e6, sum(c[1] for c in rows.values()))
    bmc_m = total_m - sum(c[1] for c in rows.values())
    print(f"\nprofile of {r['name']} ({r['slots']} slots): wall {r['wall']:.1f} s, rlimit {total_m:.1f}M in all")
    print(f"  {'encoding build':<44} {'':>6} {'':>9} {stats.get('build_seconds', 0):8.1f} s")
    print(f"  {'BMC, and asserting (the rest of the rlimit)':<44} {'':>6} {bmc_m:8.1f}M {v.seconds:8.1f} s"
          f"  {100 * bmc_m / total_m:4.1f} %")
    mining = inv.get("mining_seconds", 0.0)
    init_s = rows.get("mining: initiation", [0, 0, 0])[2]
    print(f"  {'mining: sample and templates':<44} {'':>6} {'':>9} {mining - init_s:8.1f} s  "
          f"({inv.get('mined', 0)} mined, {inv.get('initially_true', 0)} initially true)")
    for name in sorted(rows):
        n, m, s = rows[name]
        print(f"  {name:<44} {int(n):>5}q {m:8.1f}M {s:8.1f} s  {100 * m / total_m:4.1f} %")
    print(f"  closure: {inv.get('proven', 0)} proven, {inv.get('dropped', 0)} dropped, "
          f"{inv.get('consecution_queries', 0)} consecution queries")
    single: dict[str, list[float]] = {}
    for what, m, s in qs:
        if what.startswith("invariant "):
            name = re.sub(r" \[\S+ #\d+\]$", "", what[len("invariant "):])
            c = single.setdefault(name, [0.0, 0.0, 0.0])
            c[0] += 1
            c[1] += m
            c[2] += s
    again = {k: c for k, c in single.items() if c[0] > 1}
    if single:
        print(f"  one-candidate queries: {len(single)} candidates, {sum(int(c[0]) for c in single.values())} queries; "
              f"{len(again)} asked more than once ({sum(c[1] for c in again.values()):.1f}M)")
        for k, c in sorted(single.items(), key=lambda kv: -kv[1][1])[:8]:
            print(f"    {c[1]:7.1f}M {c[2]:6.1f} s  x{int(c[0])}  {k}")


def relation_terms(enc: Encoding) -> tuple[int, int, int]:
    """The position's transitions, the distinct terms (a DAG's nodes) of its step relation,
    :class:`.relation.Encoding`'s ``step_rel`` (the size of what every induction query
    reasons over, read as the interval pass reads it: :class:`.intervals.Dag`), and how many
    of those only the order's equations reach (``zones.COMPACT_RANKS``, the ranks ``compact``
    gives the stack and the libraries, of the middle state and the state after: one
    comparison per pair of entries, the one part quadratic in the slots by its form).  Why the split: the two parts grow differently with the slots, the
    order's as the pairs of slots, the rest as the transitions times what each changes."""
    order = {x.get_id() for s in (enc.m, enc.b) if s is not None for f in COMPACT_RANKS for x in flat_field(s, f)}
    rest = [c for c in conjuncts(enc.step_rel) if not (z3.is_eq(c) and c.arg(0).get_id() in order)]
    whole = len(Dag([enc.step_rel]).index)
    return len(enc.actions), whole, whole - len(Dag(rest).index)


def footprints(enc: Encoding) -> tuple[int, float, float]:
    """The state's entries, and the median over the transitions of how many of them a step
    writes: by the transition's own effect (its entries that are not the state's before, in
    ``Encoding.raw``), and after the state-based actions (``Encoding.settled``: the entries
    whose term reads an entry the effect writes, or is one).

    Why: the cost model (:func:`cost_model`) says a transition costs in proportion to the
    slots, and this asks whether that is what a step reaches.  A transition's own effect
    writes about as many entries on every rung, its card's and a few scalars.  ``settle`` then
    branches on tests of the whole state (a resolution waiting for a choice, a pending choice
    with no answer, a player losing), and every entry a branch may change reads its test, so a
    step reaches nearly every entry.  Not the cause: with ``settle`` cut down to its
    renumbering, a probe (docs/checkers.md), a step reached 34 to 39 entries and the seconds grew
    as before.  Syntactic: an entry counted as reached may keep its value on every reachable
    state."""
    from mtgcheck.checkers.z3bmc.relation import as_term, constants
    from mtgcheck.model.state import flat

    middle = flat(enc.m if enc.m is not None else enc.b)
    settled = [as_term(x) for x in flat(enc.settled)] if enc.settled is not None else list(middle)
    column = {x.get_id(): j for j, x in enumerate(middle)}
    reads = [frozenset(column[c.get_id()] for c in constants([x]) if c.get_id() in column) for x in settled]
    own, reached = [], []
    for i in range(len(enc.raw)):
        written = written_by(enc, i)
        own.append(len(written))
        reached.append(sum(1 for k, r in enumerate(reads) if k in written or not r.isdisjoint(written)))
    return len(middle), statistics.median(own), statistics.median(reached)


def written_by(enc: Encoding, i: int) -> set[int]:
    """The entries (places in ``state.flat``) transition ``i``'s own effect writes: those whose
    term is not the state's before (``Encoding.raw``, before the state-based actions)."""
    from mtgcheck.checkers.z3bmc.relation import as_term
    from mtgcheck.model.state import flat

    before = flat(enc.a)
    return {j for j, (x, y) in enumerate(zip(flat(enc.raw[i]), before, strict=True)) if as_term(x).get_id() != y.get_id()}


def conjuncts(term: Any) -> list[Any]:
    """The conjuncts of ``term``, nested conjunctions read through."""
    out, todo = [], [term]
    while todo:
        t = todo.pop()
        if z3.is_and(t):
            todo.extend(reversed(t.children()))
        else:
            out.append(t)
    return out


def library_rungs(conf: CheckConfig, rungs: int) -> list[CheckConfig]:
    """``conf``, then ``rungs`` positions grown from it by an Island more in each player's
    library per rung (named ``<name>+<cards added>``): card slots that no card chooses among
    (a library card is no target, and draws take the top one), so the transitions stay the
    same and what grows is what every slot costs."""
    out = [conf]
    players = conf.position.players
    for r in range(1, rungs + 1):
        more = tuple(C(f"more{p}{chr(97 + i)}", "Island", p, "library") for i in range(r) for p in range(players))
        pos = dataclasses.replace(conf.position, cards=(*conf.position.cards, *more))
        out.append(dataclasses.replace(conf, name=f"{conf.name}+{len(more)}", position=pos))
    return out


def same_shape(conf: CheckConfig) -> CheckConfig:
    """Another position of ``conf``'s shape (the same configuration): player 0 starts at 7 life."""
    pos = dataclasses.replace(conf.position, life=(7, *conf.position.life[1:]))
    return dataclasses.replace(conf, name=f"{conf.name}-7life", position=pos)


def run(path: Path | CheckConfig, timeout: float, reuse: bool = False,
        props: list[Property] | None = None) -> dict[str, Any]:
    conf = load_config(path) if isinstance(path, Path) else path
    cfg, s0 = build(conf.position)
    props = list(PROPERTIES) if props is None else props
    t0 = time.monotonic()
    vs = z3bmc.check(conf, props, depth=min(conf.depth, 3), timeout=timeout, reuse=reuse)
    wall = time.monotonic() - t0
    ids = {p.id for p in props}
    cost: dict[str, list[float]] = {}
    for what, m, s in per_query(vs[0]):
        c = cost.setdefault(owner(what, ids), [0.0, 0.0])
        c[0] += m
        c[1] += s
    enc = Encoding.build(cfg, s0)  # (outside the timed run)
    transitions, terms, order = relation_terms(enc)
    entries, written, reached = footprints(enc)
    return {"name": conf.name, "slots": cfg.n, "players": cfg.players, "wall": wall,
            "transitions": transitions, "terms": terms, "order_terms": order,
            "entries": entries, "written": written, "reached": reached,
            "proved": sum(v.status == PROVED for v in vs), "checked": len(vs),
            "rlimit": vs[0].stats.get("induction_rlimit", 0) / 1e6, "cost": cost,
            "status": {v.property: v.status for v in vs}, "verdict": vs[0],
            "queries": vs[0].stats.get("invariants", {}).get("consecution_queries", 0)
            + vs[0].stats.get("invariants", {}).get("hints_queries", 0),
            "reused": vs[0].stats.get("invariants", {}).get("reused", 0)}


def reuse_rows(path: Path, timeout: float) -> list[list[Any]]:
    """The position from scratch, recording its closed invariants in a cache of its own;
    another position of its shape (:func:`same_shape`) from scratch, then reusing them
    (re-checked there, never trusted)."""
    conf = load_config(path)
    other = same_shape(conf)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        before = os.environ.get("MTGCHECK_CACHE")
        os.environ["MTGCHECK_CACHE"] = tmp
        try:
            for what, c, reuse in (("first, from scratch", conf, True), ("same shape, from scratch", other, False),
                                   ("same shape, reusing the first's", other, True)):
                r = run(c, timeout, reuse)
                rows.append([r["name"], what, f"{r['proved']}/{r['checked']}", round(r["wall"], 1),
                             round(r["rlimit"], 1), r["queries"], r["reused"]])
                print("\t".join(str(x) for x in rows[-1]), f"load {os.getloadavg()[0]:.2f}", flush=True)
        finally:
            if before is None:
                del os.environ["MTGCHECK_CACHE"]
            else:
                os.environ["MTGCHECK_CACHE"] = before
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--position", action="append", type=Path, help="a position file (default: examples/scale/*.json)")
    ap.add_argument("--timeout", type=float, default=900.0, help="wall-clock safety net per position (s)")
    ap.add_argument("--write", action="store_true", help="record the tables in docs/figures.md")
    ap.add_argument("--reuse", action="store_true",
                    help="per position: it, then another position of its shape from scratch and reusing its invariants")
    ap.add_argument("--profile", action="store_true",
                    help="per position, where the seconds and the rlimit go: per phase, and the costliest closure queries")
    ap.add_argument("--seeds", type=int, default=1, metavar="N",
                    help="run each position with Z3's random seeds 0..N-1 and print the median rlimit (default 1)")
    ap.add_argument("--library-rungs", type=int, default=0, metavar="N",
                    help="the ladder's first position and N rungs grown from it by library cards only")
    ap.add_argument("--property", action="append", choices=sorted(BY_ID), metavar="ID",
                    help="check only this property (repeatable; default: every property); not with --write")
    args = ap.parse_args()
    if args.property and args.write:
        ap.error("--write records the whole catalogue's tables: drop --property")
    if args.seeds < 1:
        ap.error("--seeds: expected a number of seeds, 1 or more")
    if args.library_rungs < 0 or (args.library_rungs and args.reuse):
        ap.error("--library-rungs: expected a number of rungs, 0 or more (not with --reuse)")
    only = [BY_ID[i] for i in args.property] if args.property else None
    paths: list[Any] = args.position or sorted(LADDER.glob("*.json"))
    for p in paths:
        try:
            load_config(p)
        except MtgcheckError as exc:
            ap.error(str(exc))
    if args.library_rungs:
        paths = library_rungs(load_config(paths[0]), args.library_rungs)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    if args.reuse:
        header = ["position", "run", "proved", "s", "rlimit (M)", "consecution queries", "names reused"]
        print("\t".join(header), flush=True)
        rows = [row for p in paths for row in reuse_rows(p, args.timeout)]
        if args.write:
            sys.path.insert(0, str(Path(__file__).resolve().parent))
            from figures_doc import write_section

            write_section("Z3 invariants reused across positions of one shape", header, rows,
                          script="python bench/z3_scale.py --reuse --write" + "".join(f" --position {p}" for p in (args.position or [])),
                          note="The second position is the first with player 0 at 7 life (the same configuration). "
                               "Reused names are re-checked (mined, initiation, consecution), never trusted.")
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        return
    results = []
    for p in paths:
        r = run(p, args.timeout, props=only)
        if args.seeds > 1:
            more = [seeded(p, args.timeout, only, i) for i in range(1, args.seeds)]
            set_seed(0)
            r["seeded"] = [r["rlimit"], *(x["rlimit"] for x in more)]
            r["seeded_proved"] = [r["proved"], *(x["proved"] for x in more)]
            r["seeded_wall"] = [r["wall"], *(x["wall"] for x in more)]
        results.append(r)
        closing = r["cost"].get("closure", [0.0, 0.0])[0]
        print(f"{r['name']:<16} slots {r['slots']:>2}  players {r['players']}  proved {r['proved']}/{r['checked']}"
              f"  {r['wall']:7.1f} s  rlimit {r['rlimit']:8.1f}M (closure {closing:.1f}M)"
              f"  {r['wall'] / r['slots']:.2f} s/slot  {r['rlimit'] / r['slots']:.1f}M/slot"
              f"  {r['transitions']} transitions, {r['terms']:,} terms: {1000 * r['rlimit'] / r['terms']:.2f}M per 1,000"
              f"  a step writes {r['written']:g} of {r['entries']} entries, {r['reached']:g} after settle"
              f"  load {os.getloadavg()[0]:.2f}", flush=True)
        if "seeded" in r:
            print(f"{r['name']:<16} rlimit with seeds 0..{args.seeds - 1}: "
                  f"{', '.join(f'{x:.1f}' for x in r['seeded'])}M, median {statistics.median(r['seeded']):.1f}M",
                  flush=True)
        if args.profile:
            profile(r)
        tables(results, args)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def set_seed(i: int) -> None:
    """Z3's random seeds, for every solver made from now on."""
    z3.set_param("smt.random_seed", i)
    z3.set_param("sat.random_seed", i)


def seeded(path: Path | CheckConfig, timeout: float, props: list[Property] | None, i: int) -> dict[str, Any]:
    """:func:`run` with Z3's random seed ``i``."""
    set_seed(i)
    return run(path, timeout, props=props)


def seed_table(results: list[dict[str, Any]]) -> tuple[list[str], list[list[Any]]]:
    """Per position run with several seeds: each seed's rlimit, the median, its range as a
    share of the median, and the median per slot and per added slot; the median seconds the
    same way; and both medians per thousand terms of the relation (what every query reads:
    it grows faster than the slots where a card's choices multiply, a target per spell on
    the stack, a pair of cards to discard)."""
    n = len(results[0]["seeded"])
    header = ["position", "slots", "proved (each seed)", *(f"seed {i} (M)" for i in range(n)), "median (M)",
              "range / median", "median per slot", "median per added slot", "median s", "s per slot",
              "s per added slot", "relation terms", "M per 1,000 terms", "s per 1,000 terms"]
    rows, prev = [], None
    for r in results:
        med, sec = statistics.median(r["seeded"]), statistics.median(r["seeded_wall"])
        slope = slope_s = ""
        if prev is not None and r["slots"] > prev[0]["slots"] and r["players"] == prev[0]["players"]:
            d = r["slots"] - prev[0]["slots"]
            slope, slope_s = f"{(med - prev[1]) / d:.1f}M", f"{(sec - prev[2]) / d:.1f}"
        proved = ", ".join(f"{x}/{r['checked']}" for x in r["seeded_proved"])
        rows.append([r["name"], r["slots"], proved, *(round(x, 1) for x in r["seeded"]), round(med, 1),
                     f"{(max(r['seeded']) - min(r['seeded'])) / med:.0%}", round(med / r["slots"], 1), slope,
                     round(sec, 1), round(sec / r["slots"], 2), slope_s, r["terms"],
                     round(1000 * med / r["terms"], 2), round(1000 * sec / r["terms"], 2)])
        prev = (r, med, sec)
    return header, rows


def growth(results: list[dict[str, Any]]) -> str:
    """How the medians grow on the rungs with the first rung's player count: the exponent
    ``a`` of ``median ~ c * x^a`` (least squares of the logarithms; 1 is linear), with ``x``
    the card slots and the relation's terms.  Why: the issue's bar is "no faster than
    linearly in the card slots", and a ratio per slot mixes the fixed cost in; the exponent
    reads the curve's shape; :func:`cost_model` then says what it follows.  Empty below
    three rungs."""
    rungs = [r for r in results if r["players"] == results[0]["players"] and "seeded" in r]
    if len(rungs) < 3:
        return ""

    def exponent(xs: list[float], ys: list[float]) -> float:
        return least_squares([math.log(x) for x in xs], [math.log(y) for y in ys])[1]

    slots, terms = [r["slots"] for r in rungs], [r["terms"] for r in rungs]
    transitions = [r["transitions"] for r in rungs]
    sec = [statistics.median(r["seeded_wall"]) for r in rungs]
    rl = [statistics.median(r["seeded"]) for r in rungs]
    order = [r["order_terms"] for r in rungs]
    rest = [t - o for t, o in zip(terms, order, strict=True)]
    return (f"On the {rungs[0]['players']}-player rungs ({', '.join(r['name'] for r in rungs)}), least squares of "
            f"the logarithms: the median seconds grow as slots^{exponent(slots, sec):.2f} and as relation "
            f"terms^{exponent(terms, sec):.2f}, the median rlimit as slots^{exponent(slots, rl):.2f} and as "
            f"terms^{exponent(terms, rl):.2f} (1 is linear). The relation's terms grow as "
            f"slots^{exponent(slots, terms):.2f}: the order's as slots^{exponent(slots, order):.2f}, the rest as "
            f"slots^{exponent(slots, rest):.2f}, with the transitions as "
            f"slots^{exponent(slots, transitions):.2f}. " + cost_model(slots, transitions, sec))


def cost_model(slots: list[int], transitions: list[int], sec: list[float]) -> str:
    """The median seconds fitted (least squares) to ``c + d * slots * transitions`` and, for
    comparison, to ``c + d * slots``, with each fit's largest residual.

    Why: the exponent says the curve is steeper than linear, not why.  The product model
    says a transition costs in proportion to the state's slots (a query, a pass or a sampled
    step reads the whole state), with a fixed cost besides; when its residuals are the
    smaller, the ladder is superlinear because its rungs add transitions as well as slots,
    and slots added without transitions (``--library-rungs``) cost linearly."""
    def fit(xs: list[float]) -> tuple[float, float, float]:
        c, d = least_squares(xs, sec)
        return c, d, max(abs(y - c - d * x) for x, y in zip(xs, sec, strict=True))

    product = [float(s * t) for s, t in zip(slots, transitions, strict=True)]
    if len(set(slots)) < 2 or len(set(product)) < 2:
        return ""
    c, d, res = fit(product)
    lin = fit([float(s) for s in slots])
    return (f"Least squares of the median seconds: {c:.2f} + {1000 * d:.2f} ms x slots x transitions, largest "
            f"residual {res:.2f} s; {lin[0]:.2f} + {lin[1]:.2f} s x slots, largest residual {lin[2]:.2f} s.")


def least_squares(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """The line ``c + d * x`` nearest ``ys`` in least squares: ``(c, d)``."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    d = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)
    return my - d * mx, d


def tables(results: list[dict[str, Any]], args: argparse.Namespace) -> None:
    """Print the ladder's tables so far; with ``--write``, record them (after every position,
    so that a ladder stopped half-way keeps what it measured)."""
    summary = []
    prev: dict[str, Any] | None = None
    for r in results:
        slope = ""
        if prev is not None and r["slots"] > prev["slots"] and r["players"] == prev["players"]:
            d = r["slots"] - prev["slots"]
            slope = f"{(r['rlimit'] - prev['rlimit']) / d:.1f}M, {(r['wall'] - prev['wall']) / d:.1f} s"
        summary.append([r["name"], r["slots"], r["players"], f"{r['proved']}/{r['checked']}", round(r["wall"], 1),
                        round(r["rlimit"], 1), round(r["cost"].get("closure", [0.0])[0], 1),
                        round(r["rlimit"] / r["slots"], 1), slope, r["transitions"], r["terms"], r["order_terms"],
                        round(1000 * r["rlimit"] / r["terms"], 2), r["entries"], r["written"], r["reached"]])
        prev = r
    header = ["position", "slots", "players", "proved", "s", "rlimit (M)", "closure (M)", "M per slot",
              "per added slot", "transitions", "relation terms", "order terms", "M per 1,000 terms", "entries",
              "written by a step", "reached after settle"]
    print()
    print("\t".join(header))
    for row in summary:
        print("\t".join(str(x) for x in row))
    ids = [p.id for p in PROPERTIES if any(p.id in r["status"] for r in results)]
    detail = []
    for pid in ids:
        row: list[Any] = [pid]
        for r in results:
            m, s = r["cost"].get(pid, [0.0, 0.0])
            row.append(f"{m:.1f}M / {s:.1f} s ({r['status'].get(pid, '-')})")
        detail.append(row)
    for shared in ("renumbering", "closure"):
        detail.append([shared, *(f"{r['cost'].get(shared, [0.0, 0.0])[0]:.1f}M / "
                                 f"{r['cost'].get(shared, [0.0, 0.0])[1]:.1f} s" for r in results)])
    dheader = ["property", *(f"{r['name']} ({r['slots']})" for r in results)]
    print()
    print("\t".join(dheader))
    for row in detail:
        print("\t".join(str(x) for x in row))
    seeds = seed_table(results) if "seeded" in results[0] else None
    if seeds is not None:
        print()
        for row in [seeds[0], *seeds[1]]:
            print("\t".join(str(x) for x in row))
        if growth(results):
            print(growth(results))
    if args.write:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from figures_doc import write_section

        cmd = "python bench/z3_scale.py --write" + (f" --seeds {args.seeds}" if args.seeds > 1 else "") + \
            (f" --library-rungs {args.library_rungs}" if args.library_rungs else "") + \
            "".join(f" --position {p}" for p in (args.position or []))
        ladder = "rungs of library cards" if args.library_rungs else "the scale ladder"
        write_section(f"Z3 proof cost on {ladder}", header, summary, script=cmd,
                      note="Z3 from scratch (no manifest), BMC to depth 3 and k-induction, one position at a time. "
                           "rlimit is Z3's deterministic work counter (compare it; the seconds follow the load). "
                           "`per added slot`: the growth from the rung above with as many players. "
                           "`relation terms`: the distinct terms of the step relation every query reasons "
                           "over (a card targeting spells is a transition per target, a choice of two "
                           "cards one per pair), and the rlimit per thousand of them. `order terms`: those only the "
                           "stack's and the libraries' positions reach (the ranks `compact` gives, one comparison "
                           "per pair of slots that may share a zone). `entries`: the state's; `written by a step`: "
                           "the median over the transitions of the entries its own effect writes; `reached after "
                           "settle`: the median of the entries whose term after the state-based actions reads "
                           "one the effect writes, or is one (`footprints` in the script).")
        write_section(f"Z3 proof cost per property on {ladder}", dheader, detail, script=cmd,
                      note="Per property, the rlimit and seconds of its own step-case queries (whole or split by "
                           "transition) and its verdict; `renumbering` is the facts of the renumbering lemma "
                           "(`stack-ordered`'s proof), `closure` the invariants' consecution, shared by all.")
        if seeds is not None:
            write_section(f"Z3 proof cost on {ladder} across solver seeds", *seeds, script=cmd,
                          note="The whole rlimit and wall seconds of each position with Z3's random seeds (`smt.random_seed`, "
                               "`sat.random_seed`), everything else the same; the tables above are seed 0's. "
                               "`relation terms`: as above; the cost per thousand of them is the cost per "
                               "unit of what every query reads. "
                               "The range is the spread of one position's cost that no change of the checker "
                               "made; a slope between rungs is read on the medians. " + growth(results))


if __name__ == "__main__":
    main()
