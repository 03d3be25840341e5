"""Could a vectorised evaluator (numpy over packed states, no compiler) replace the compiled search?

Measured, not guessed: the relation's own terms, the very ones the compiled program is printed
from (:class:`mtgcheck.checkers.native.Printer`, here writing numpy instead of C), evaluated by
numpy over a batch of the position's real states: every guard over the whole batch (subterms
shared across the guards), then each transition's effect and the state-based actions over the
states it is enabled in.  That is the successors a search computes; against it, the compiled
search's whole time per state.  The canonical keys, the packing, the visited set and the
properties come on top for numpy, so its time here is a lower bound on a numpy search's.

    python bench/numpy_bound.py [--config examples/scale/01-plot-08.json] [--no-write]
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fixpoint  # noqa: E402


def numpy_syntax() -> Any:
    """The relation's operators written as numpy over a batch (operands are atoms, as in C)."""
    import z3

    from mtgcheck.checkers import native

    return native.Syntax(
        nary={z3.Z3_OP_ADD: " + ", z3.Z3_OP_SUB: " - ", z3.Z3_OP_MUL: " * ", z3.Z3_OP_AND: " & ",
              z3.Z3_OP_OR: " | "},
        empty={z3.Z3_OP_AND: "True", z3.Z3_OP_OR: "False"}, binary=native.COMPARISONS,
        templates={z3.Z3_OP_NOT: "({0} == 0)", z3.Z3_OP_UMINUS: "-{0}", z3.Z3_OP_ITE: "np.where({0}, {1}, {2})",
                   z3.Z3_OP_IMPLIES: "({0} == 0) | {1}", z3.Z3_OP_MOD: "np.mod({0}, {1})",
                   z3.Z3_OP_IDIV: "np.floor_divide({0}, {1})"},
        distinct=("({0} != {1})", " & ", "True"), what="numpy")


def relation_functions(cfg: Any) -> tuple[Any, list[Any], Any, int]:
    """The relation as numpy functions of a batch (flat entries x states): every transition's
    guard (one function, subterms shared), each transition's effect, and the state-based
    actions (settle); and the operations a batch costs for the guards."""
    import z3

    from mtgcheck.checkers import native
    from mtgcheck.checkers.z3bmc import Encoding
    from mtgcheck.model.state import flat

    enc = Encoding.build(cfg, None)
    true_en = [(lit, z3.BoolVal(True)) for lit in enc.en.values()]
    a_names = {v.get_id(): f"a[{i}]" for i, v in enumerate(flat(enc.a))}

    def term(v: Any) -> Any:
        return v if isinstance(v, z3.ExprRef) else (z3.BoolVal(v) if isinstance(v, bool) else z3.IntVal(int(v)))

    def function(name: str, args: str, p: Any, body: list[str]) -> Any:
        src = f"def {name}({args}):\n" + "".join(f"    {line}\n" for line in p.lines + body)
        scope: dict[str, Any] = {"np": np}
        exec(compile(src, f"<{name}>", "exec"), scope)
        return scope[name]

    p = native.Printer(a_names, syntax=numpy_syntax(), line="{name} = {expr}")
    outs = [p.expr(z3.substitute(g, *true_en) if true_en else g) for g in enc.guards]
    guards = function("guards", "a", p, [f"return [{', '.join(outs)}]"])
    fa = flat(enc.a)
    effects = []
    for e in enc.raw:
        p = native.Printer(a_names, syntax=numpy_syntax(), line="{name} = {expr}")
        writes = [f"m[{j}] = {p.expr(term(v))}" for j, (x, v) in enumerate(zip(fa, flat(e), strict=True))
                  if not term(v).eq(x)]
        effects.append(function("effect", "a", p, ["m = a.copy()", *writes, "return m"]))
    p = native.Printer({v.get_id(): f"m[{i}]" for i, v in enumerate(flat(enc.m))}, syntax=numpy_syntax(), line="{name} = {expr}")
    rows = [p.expr(term(v)) for v in flat(enc.settled)]
    settle = function("settle", "m", p, [f"return np.stack([np.broadcast_to(x, m.shape[1:]) for x in ({', '.join(rows)},)])"])
    return guards, effects, settle, len(outs)


def successors(guards: Any, effects: list[Any], settle: Any, a: Any) -> int:
    """Every successor of every state of batch ``a`` (entries x states), as a search computes them."""
    n = 0
    for t, g in enumerate(guards(a)):
        idx = np.flatnonzero(np.broadcast_to(g, a.shape[1:]))
        if idx.size:
            settle(effects[t](a[:, idx]))
            n += idx.size
    return n


def main() -> None:
    args = fixpoint.options(__doc__)

    from mtgcheck.model.state import flat

    runs = []
    for _ in range(3):
        conf, ex = fixpoint.search(args.config)
        runs.append(ex.seconds / len(ex.states))
    guards, effects, settle, _ = relation_functions(ex.cfg)
    c_per_state = statistics.median(runs)
    states = []
    for s in ex.states:
        states.append(flat(s))
        if len(states) == 65536:
            break
    every = np.ascontiguousarray(np.array(states, dtype=np.int32).T)
    rows = []
    for batch in (1024, 16384, 65536):
        if batch > every.shape[1]:
            break
        a = np.ascontiguousarray(every[:, :batch])
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            made = successors(guards, effects, settle, a)
            times.append(time.perf_counter() - t0)
        per_state = statistics.median(times) / batch
        rows.append([batch, round(made / batch, 2), round(per_state * 1e6, 2), round(c_per_state * 1e6, 2),
                     round(per_state / c_per_state, 1)])
        print(f"batch {batch:>6}: numpy's successors {per_state * 1e6:.2f} us a state ({made / batch:.2f} a state), "
              f"the compiled search {c_per_state * 1e6:.2f} us a state: x{per_state / c_per_state:.1f}", flush=True)
    if not args.no_write:
        from figures_doc import write_section

        write_section("graph search: a numpy evaluator against the compiled search", ["batch",
                      "successors a state", "numpy, successors only: us a state",
                      "compiled, whole search: us a state", "numpy / compiled (at least)"], rows,
                      script="python bench/numpy_bound.py",
                      note=f"{conf.name}: the relation's own terms printed as numpy (every guard over the batch, "
                           "subterms shared; each transition's effect and the state-based actions over the "
                           "states it is enabled in), over a batch of the position's reachable states, median of "
                           "3; the compiled search: the whole search to the fixpoint over its states, median of "
                           "3. The keys, packing, visited set and properties come on top for numpy: its column "
                           "is a lower bound.")


if __name__ == "__main__":
    main()
