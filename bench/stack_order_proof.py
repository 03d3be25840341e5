"""What a general proof of ``stack-ordered`` (CR 405.2) costs Z3, by how the stack is written.

A model of the proof obligation, not of the rules: one compaction of the stack (entries
leave, cards enter on top, the positions renumbered) from a state where the property holds,
over ``n`` card slots and ``--abilities`` ability slots, every entry uniform.  It exists to
choose how ``model/zones.py`` should write stack positions so that k-induction closes
``stack-ordered`` at a cost that grows slowly with the slots; it prints, per slot count,
Z3's verdict and rlimit (its deterministic work counter) for:

* ``ranks``: positions as ``compact`` writes them today, each entry's rank (a count of the
  entries below it).  Query: the property before, one compaction, the property after.
  "Each position used once" is then a fact about every pair of entries, each resting on
  every third one (transitivity of "below"), which Z3 rediscovers.
* ``ghost``: a ghost inverse map ``at[k]`` (0 empty, 1 + e the entry at position k), the
  stack compacted as a stable filter of it (a prefix count over positions), the new
  positions read through it.  Queries, as Houdini's consecution asks them (each candidate
  alone, every candidate assumed before the step): per entry, ``on[e] -> 0 <= pos[e] <
  size and at[pos[e]] == 1 + e`` (``entry``); per position, ``at[k]`` empty or an entry on
  the stack at ``k`` (``position``), and ``at[k] != 0 <-> k < size`` (``occupied``); then
  ``size == #entries on the stack`` (``count``: the part of CR 405.2 that counts); and,
  with no step, those candidates imply the property (``implies``).  Lookups ``at[pos[e]]``
  are array selects (congruence), positions after the step fresh variables, as the
  unrolled relation's are; the candidates' queries share one incremental solver, as the
  closure's do.

* ``compact``: not a model of the obligation but the model's own ``compact`` over fresh
  variables (``--config FILE``, repeatable), and the lemma a general proof would rest on: its
  output is ordered for *any* input, since ranks under a strict total order (raw position, then
  cards before abilities, then slot) are a permutation.  Asked whole it is out of any limit
  tried (200M); asked a pair of entries at a time (two entries on the stack never share a
  position) it is proved, at a cost per pair that grows with the entries.  The checker's proof
  (``mtgcheck/checkers/z3bmc/renumbering.py``) hands Z3 the order's facts instead, term by term.

    python bench/stack_order_proof.py [--cards 2 4 6 8 12] [--abilities 4] [--rlimit 20]
    python bench/stack_order_proof.py --design compact --config examples/scale/01-plot-08.json
"""

from __future__ import annotations

import argparse
import os
from typing import Any, Callable

import z3

from mtgcheck.checkers.z3bmc.budget import rlimit_count

#: A raw position above every real one: where ``compact`` finds a card just put on the stack.
FAR = 10_000


def count(xs: list[Any]) -> Any:
    return z3.Sum([z3.If(x, 1, 0) for x in xs]) if xs else z3.IntVal(0)


def exactly(on: list[Any], pos: list[Any], size: Any) -> Any:
    """The same property with no count of entries: every entry on the stack at a position
    below ``size``, no position held twice, every position below ``size`` held.  Equivalent
    to :func:`ordered` (a one-to-one map from the entries onto ``0..size-1`` is what both say)."""
    n = len(on)
    return z3.And(*[z3.Implies(on[e], z3.And(pos[e] >= 0, pos[e] < size, count([z3.And(on[f], pos[f] == pos[e])
                                                                                 for f in range(n)]) == 1))
                    for e in range(n)],
                  *[z3.Implies(k < size, z3.Or([z3.And(on[e], pos[e] == k) for e in range(n)])) for k in range(n)],
                  size >= 0, size <= n)


def ordered(on: list[Any], pos: list[Any], size: Any) -> Any:
    """CR 405.2 as ``properties/catalogue.py:stack_ordered`` states it."""
    n = len(on)
    each = [z3.Implies(on[e], z3.And(pos[e] >= 0, pos[e] < size, count([z3.And(on[f], pos[f] == pos[e])
                                                                          for f in range(n)]) == 1))
            for e in range(n)]
    return z3.And(size == count(on), *each)


class Step:
    """Entries ``0..n-1`` are cards (they may enter the stack), ``n..n+A-1`` abilities; before
    the step: ``on``, ``pos``, ``size`` (and ``at`` for the ghost); the step: ``leave[e]``,
    ``enter[j]`` (a card not on the stack)."""

    def __init__(self, n: int, A: int) -> None:
        self.n, self.L = n, n + A
        L = self.L
        self.on = [z3.Bool(f"on{e}") for e in range(L)]
        self.pos = [z3.Int(f"pos{e}") for e in range(L)]
        self.at = [z3.Int(f"at{k}") for k in range(L)]
        self.size = z3.Int("size")
        leave = [z3.Bool(f"leave{e}") for e in range(L)]
        self.enter = [z3.Bool(f"enter{j}") for j in range(n)] + [z3.BoolVal(False)] * A
        self.frame = [z3.Implies(self.enter[j], z3.Not(self.on[j])) for j in range(n)]
        self.on1 = [z3.Or(z3.And(self.on[e], z3.Not(leave[e])), self.enter[e]) for e in range(L)]


def ranks(n: int, A: int, check: Callable[[list[Any]], Callable[[Any], tuple[Any, float]]]) -> str:
    st = Step(n, A)
    L, on1 = st.L, st.on1
    raw = [z3.If(st.enter[e], 2 * FAR + st.size + e, st.pos[e]) for e in range(L)]
    below = [z3.If(on1[e], count([z3.And(on1[f], z3.Or(raw[f] < raw[e], z3.And(raw[f] == raw[e], f < e)))
                                  for f in range(L) if f != e]), 0) for e in range(L)]
    res, m = check([ordered(st.on, st.pos, st.size), *st.frame])(ordered(on1, below, count(on1)))
    return f"{res} {m:.1f}M"


def ghost(n: int, A: int, check: Callable[[list[Any]], Callable[[Any], tuple[Any, float]]]) -> str:
    st = Step(n, A)
    L, on, on1, at = st.L, st.on, st.on1, st.at

    def candidates(on: list[Any], pos: list[Any], at: list[Any], size: Any) -> dict[str, list[Any]]:
        arr = z3.K(z3.IntSort(), z3.IntVal(0))
        for k in range(L):
            arr = z3.Store(arr, k, at[k])
        return {"entry": [z3.Implies(on[e], z3.And(pos[e] >= 0, pos[e] < size, z3.Select(arr, pos[e]) == 1 + e))
                          for e in range(L)],
                "position": [z3.Or(at[k] == 0, *[z3.And(at[k] == 1 + e, on[e], pos[e] == k) for e in range(L)])
                             for k in range(L)],
                "occupied": [(at[k] != 0) == (k < size) for k in range(L)] + [z3.And(size >= 0, size <= L)],
                "count": [size == count(on)]}

    before = candidates(on, st.pos, at, st.size)
    facts = [*st.frame, *[c for cs in before.values() for c in cs], *[z3.And(a >= 0, a <= L) for a in at]]
    # the compaction: a prefix count of the positions whose entry stays, then the cards that
    # entered, in slot order; the state after it as fresh variables equal to it
    keep = [z3.Or([z3.And(at[i] == 1 + e, on1[e]) for e in range(L)]) for i in range(L)]
    p = [z3.Int(f"p{i}") for i in range(L + 1)]
    fr = [z3.Int(f"fr{j}") for j in range(L + 1)]
    facts += [p[0] == 0, fr[0] == 0, *[p[i + 1] == p[i] + z3.If(keep[i], 1, 0) for i in range(L)],
              *[fr[e + 1] == fr[e] + z3.If(st.enter[e], 1, 0) for e in range(L)]]

    def prefix_at(x: Any) -> Any:
        t = p[L]
        for i in reversed(range(L)):
            t = z3.If(x == i, p[i], t)
        return t

    on2 = [z3.Bool(f"on'{e}") for e in range(L)]
    pos2 = [z3.Int(f"pos'{e}") for e in range(L)]
    at2 = [z3.Int(f"at'{k}") for k in range(L)]
    size2 = z3.Int("size'")
    for e in range(L):
        facts += [on2[e] == on1[e], pos2[e] == z3.If(on1[e], z3.If(st.enter[e], p[L] + fr[e], prefix_at(st.pos[e])), 0)]
    for k in range(L):
        t: Any = z3.IntVal(0)
        for e in reversed(range(L)):
            t = z3.If(z3.And(st.enter[e], p[L] + fr[e] == k), 1 + e, t)
        for i in reversed(range(L)):
            t = z3.If(z3.And(keep[i], p[i] == k), at[i], t)
        facts.append(at2[k] == t)
    facts.append(size2 == p[L] + fr[L])
    out = []
    prove = check(facts)  # one incremental solver, as the closure's consecution queries share one
    for name, goals in candidates(on2, pos2, at2, size2).items():
        results = [prove(g) for g in goals]
        bad = sum(r != z3.unsat for r, _ in results)
        out.append(f"{name} {sum(m for _, m in results):.1f}M" + (f" ({bad} not unsat)" if bad else ""))
    after = candidates(on2, pos2, at2, size2)
    res, m = check([*[c for cs in after.values() for c in cs], *[z3.And(a >= 0, a <= L) for a in at2]])(
        ordered(on2, pos2, size2))
    out.append(f"implies {res} {m:.1f}M")
    res, m = check([*[c for k, cs in after.items() if k != "count" for c in cs],
                    *[z3.And(a >= 0, a <= L) for a in at2]])(exactly(on2, pos2, size2))
    out.append(f"implies the count-free statement without count {res} {m:.1f}M")
    return ", ".join(out)


def compact_pairs(path: str, check: Callable[[list[Any]], Callable[[Any], tuple[Any, float]]]) -> str:
    """The model's ``compact`` of a configuration, over fresh variables: per pair of stack
    entries, "not both on the stack at one position"."""
    from mtgcheck.configs import load_config
    from mtgcheck.model import zones
    from mtgcheck.model.logic import symbolic
    from mtgcheck.model.setup import build
    from mtgcheck.model.state import symbolic_state

    cfg, _ = build(load_config(path).position)
    with symbolic():
        t = symbolic_state(cfg, "t")
        out = zones.compact(cfg, t)
    on = [o for o, _ in zones.stack_entries(cfg, t)]
    pos = [p if isinstance(p, z3.ExprRef) else z3.IntVal(p) for p in list(out.pos) + list(out.ab_pos)]
    prove = check([])
    costs, failed = [], 0
    for e in range(len(on)):
        for f in range(e + 1, len(on)):
            res, m = prove(z3.Implies(z3.And(on[e], on[f]), pos[e] != pos[f]))
            costs.append(m)
            failed += res != z3.unsat
    return (f"{len(on)} entries, {len(costs)} pairs: {len(costs) - failed} proved, {sum(costs):.1f}M in all, "
            f"median {sorted(costs)[len(costs) // 2]:.2f}M, worst {max(costs):.2f}M")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, nargs="+", default=[2, 4, 6, 8, 12])
    ap.add_argument("--abilities", type=int, default=4)
    ap.add_argument("--rlimit", type=float, default=20.0, help="each query's limit, in millions")
    ap.add_argument("--design", choices=("ranks", "ghost", "compact"), action="append")
    ap.add_argument("--config", action="append", default=[], help="a configuration file (--design compact)")
    args = ap.parse_args()

    def check(facts: list[Any]) -> Callable[[Any], tuple[Any, float]]:
        """A prover of goals under ``facts``: one incremental solver, a query per goal."""
        sol = z3.Solver()
        sol.add(*facts)

        def prove(goal: Any) -> tuple[Any, float]:
            sol.push()
            sol.set("rlimit", int(args.rlimit * 1e6))
            sol.add(z3.Not(goal))
            spent = rlimit_count(sol)  # the context's count: the query's own is the difference
            res = sol.check()
            sol.pop()
            return res, (rlimit_count(sol) - spent) / 1e6
        return prove

    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; each query's rlimit "
          f"{args.rlimit:g}M", flush=True)
    for design in args.design or ["ranks", "ghost"]:
        if design == "compact":
            for path in args.config:
                print(f"compact {path}: {compact_pairs(path, check)}", flush=True)
            continue
        for n in args.cards:
            print(f"{design:<6} cards {n:>2} abilities {args.abilities}: "
                  f"{(ranks if design == 'ranks' else ghost)(n, args.abilities, check)}", flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
