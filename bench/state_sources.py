"""Where the states of a position come from: what each dimension of the state multiplies them by.

The compiled search runs one position to its fixpoint; then, for each dimension of the state
(who has priority, the mana, the life totals, the library order, the stack order, the object
ids, the turn), every state's canonical key has that dimension erased and the distinct keys
left are counted.  ``states / distinct`` is how many reachable states, on average, differ only
in that dimension: the factor a reduction of it could remove at most (a partial-order reduction
of priority passes, say, removes at most the priority factor).  This is the measurement a
reduction must start from (docs/figures.md records it).

    python bench/state_sources.py [--config examples/scale/01-plot-08.json] [--no-write]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fixpoint  # noqa: E402


def dimensions() -> dict[str, Callable[[Any, Any], Any]]:
    """Per dimension, a function of a state (and the configuration) giving it with that
    dimension erased (replaced by a constant)."""
    from mtgcheck.model.state import LIBRARY, STACK

    def fields(*names: str) -> Callable[[Any, Any], Any]:
        return lambda cfg, s: s.replace(**{f: _zero(getattr(s, f)) for f in names})

    def cards_in(zone: int, field: str) -> Callable[[Any, Any], Any]:
        return lambda cfg, s: s.replace(**{field: tuple(0 if z == zone else v for z, v in zip(s.zone, getattr(s, field),
                                                                                             strict=True))})

    return {
        "priority and passes": fields("priority", "passes"),
        "mana": fields("mana"),
        "life": fields("life"),
        "library order": cards_in(LIBRARY, "pos"),
        "stack order": lambda cfg, s: cards_in(STACK, "pos")(cfg, s).replace(ab_pos=_zero(s.ab_pos)),
        "object ids": fields("oid", "target_oid", "ab_target_oid", "pl_oid", "next_oid"),
        "turn and step": fields("turn", "active", "normal_turn", "step", "plotted", "last_cast"),
    }


def _zero(v: Any) -> Any:
    return tuple(0 for _ in v) if isinstance(v, tuple) else 0


def main() -> None:
    args = fixpoint.options(__doc__)

    from mtgcheck.checkers.symmetry import canonicalizer

    t0 = time.perf_counter()
    conf, ex = fixpoint.search(args.config)
    if not ex.fixpoint:
        sys.exit(f"{args.config}: the search stopped short of its fixpoint ({ex.stopped})")
    key = canonicalizer(ex.cfg, turns=True)
    keys = [key(s) for s in ex.states]
    n = len(set(keys))
    print(f"{conf.name}: {n:,} states at the fixpoint ({time.perf_counter() - t0:.0f} s)")
    rows = []
    for name, erase in dimensions().items():
        distinct = len({erase(ex.cfg, k) for k in keys})
        rows.append([name, f"{distinct:,}", round(n / distinct, 2)])
        print(f"  {name:<22} {distinct:>12,} distinct without it   x{n / distinct:.2f}", flush=True)
    if not args.no_write:
        from figures_doc import write_section

        write_section("graph search: where the states come from", ["dimension erased", "distinct states left",
                                                                  "states per class"], rows,
                      script="python bench/state_sources.py" + ("" if args.config.endswith("01-plot-08.json")
                                                                  else f" --config {args.config}"),
                      note=f"{conf.name}, {n:,} states at the fixpoint (canonical keys, turns renumbered). Per "
                           "dimension of the state, the reachable states' keys with that dimension erased: "
                           "`states per class` is how many reachable states differ only in it, on average, "
                           "the most a reduction of that dimension could remove.")


if __name__ == "__main__":
    main()
