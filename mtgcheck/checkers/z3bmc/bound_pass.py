"""The bound candidates shown inductive together without a query: intervals and differences.

Houdini's loop over a pass that needs no solver: take the set ``R`` of every candidate that
is a constant bound on one entry (``Candidate.bound``, :mod:`.intervals`) or a bound of one
entry against another (``Candidate.relation``, :mod:`.differences`); evaluate, from any state
where ``R`` holds, the entries after any step; take out of ``R`` each candidate not shown to
hold there, and repeat until none is taken out.  What is left is inductive (both modules'
docstrings say why each rule over-approximates), and every candidate holds initially (the
closure's candidates were checked for that first), so ``R`` holds in every reachable state.
"""

from __future__ import annotations

import math
import time
from typing import Any, Sequence

from mtgcheck.model.state import flat

from .differences import Differences
from .intervals import ANY, Dag, Interval
from .relation import Encoding, as_term


#: Whether the passes read each transition's effect under its guard (:func:`_under_guards`).
GUARDS = True


def _within(iv: Interval, lo: int | None, hi: int | None) -> bool:
    return (lo is None or iv[0] >= lo) and (hi is None or iv[1] <= hi)


def inductive_bounds(enc: Encoding, cands: Sequence[Any]) -> tuple[set[str], dict[str, Any]]:
    """The greatest set of the bound and relation candidates whose conjunction the passes
    show inductive (module docstring), and figures of the passes.

    The bounds' evaluation reads no relation, so their set is found first; the relations
    are then checked with its intervals, until none fails."""
    t0 = time.monotonic()
    bounded, related = _kinds(cands)
    before = flat(enc.a)
    # With ``m``, the effects are before the state-based actions (settle, over ``m``);
    # without, they are settled already.
    middle = flat(enc.m) if enc.m is not None else None
    after = flat(enc.settled) if enc.settled is not None else []
    raws = [[as_term(x) for x in flat(e)] for e in enc.raw]
    after_terms = [as_term(x) for x in after]
    guards = enc.plain_guards if GUARDS else []
    dag = Dag([x for r in raws for x in r] + after_terms + list(guards))
    # the terms' places in the Dag, read once (z3py's ``get_id`` per entry and pass was half
    # of the pass's time on ``examples/scale/04-plot-14``)
    at = Places(dag, before, raws, after_terms, guards)
    keep = {c.name for c in bounded}
    passes = 0
    while True:
        passes += 1
        env = intervals_of(before, [c for c in bounded if c.name in keep])
        values = dag.evaluate(env)
        effects = _under_guards(dag, values, env, at, bool(guards))
        # Each entry after the action: the hull of its value under every transition and of
        # the frame (the entry before the step, when the transition taken leaves it).
        frame: list[Interval] = []
        for col, var in enumerate(at.before_ids):
            ivs = [env.get(var, ANY)] + [e[col] for e in effects if e is not None]
            frame.append((min(i[0] for i in ivs), max(i[1] for i in ivs)))
        if middle is not None:  # then the state-based actions, over ``m`` with those intervals
            settled = dag.evaluate({x.get_id(): iv for x, iv in zip(middle, frame, strict=True)})
            step = {col: settled[q] for col, q in enumerate(at.after)}
        else:
            step = dict(enumerate(frame))
        failed = {c.name for c in bounded if c.name in keep and not _within(step[c.bound[0]], *c.bound[1:])}
        if not failed:
            break
        keep -= failed
    rels = list(related)
    while rels:
        passes += 1
        shown = _relations_shown(dag, rels, before, at, env, middle, frame)
        if len(shown) == len(rels):
            break
        rels = [c for c in rels if c.name in shown]
    keep |= {c.name for c in rels}
    # A value left out by the bounds kept: implied by an inductive set, so the set with it
    # is inductive too (and every candidate holds initially).
    outside = [c for c in cands if getattr(c, "excludes", None) is not None and
               not _within((c.excludes[1], c.excludes[1]), *env.get(before[c.excludes[0]].get_id(), ANY))]
    keep |= {c.name for c in outside}
    return keep, {"interval_bounds": len(keep), "interval_excluded": len(outside), "interval_candidates": len(bounded) + len(related),
                  "interval_relations": len(rels), "interval_passes": passes,
                  "interval_seconds": round(time.monotonic() - t0, 2)}


class Places:
    """The places in the pass's :class:`.intervals.Dag` of each transition's entries
    (``raw[i][col]``), of the entries after the step (``after``) and of the guards, with the
    ids of the variables before the step (``before_ids``) and their places (``before``:
    None for a variable no term read)."""

    def __init__(self, dag: Dag, before: Sequence[Any], raws: Sequence[Sequence[Any]], after: Sequence[Any],
                 guards: Sequence[Any]) -> None:
        index = dag.index
        self.before_ids = [v.get_id() for v in before]
        self.before = [index.get(v) for v in self.before_ids]
        self.raw = [[index[x.get_id()] for x in r] for r in raws]
        self.after = [index[x.get_id()] for x in after]
        self.guards = [index[g.get_id()] for g in guards]


def _under_guards(dag: Dag, values: list[Any], env: dict[int, Interval], at: Places,
                  guarded: bool) -> list[list[Interval] | None]:
    """Per transition, the interval of each entry after its effect, read under its guard
    (None: the guard is false wherever ``env`` holds, so the transition is never taken from
    such a state).  Where an entry's value over ``env`` alone leaves the entry's own
    interval, it is evaluated again with the variables narrowed by the guard
    (:meth:`.intervals.Dag.narrowed`): the effect applies only where the guard holds.  With
    no guards (``GUARDS`` off), the values over ``env``."""
    out: list[list[Interval] | None] = []
    own = [env.get(v, ANY) for v in at.before_ids]
    for i, r in enumerate(at.raw):
        row = [values[q] for q in r]
        if not guarded:
            out.append(row)
            continue
        g = at.guards[i]
        if values[g] is False:
            out.append(None)
            continue
        wide = [col for col, iv in enumerate(row) if not _within(iv, *own[col])]
        if not wide:
            out.append(row)
            continue
        narrow = dag.narrowed(g, env)
        if narrow is None:
            out.append(None)
            continue
        cone = dag.cone([g, *[r[col] for col in wide]])
        val = dag.evaluate_cone(cone, narrow)
        if val[g] is False:
            out.append(None)
            continue
        for col in wide:
            row[col] = val[r[col]]
        out.append(row)
    return out


def intervals_of(before: Sequence[Any], bounded: Sequence[Any]) -> dict[int, Interval]:
    """The intervals the bound candidates ``bounded`` give the variables of ``before`` (by
    AST id; one not bounded may hold any integer)."""
    env: dict[int, Interval] = {}
    for c in bounded:
        col, lo, hi = c.bound
        var = before[col]
        old = env.get(var.get_id(), ANY)
        env[var.get_id()] = (max(old[0], -math.inf if lo is None else lo), min(old[1], math.inf if hi is None else hi))
    return env


def relations_of(before: Sequence[Any], related: Sequence[Any]) -> dict[int, tuple[int, int]]:
    """The relations ``x <= r + off`` the candidates ``related`` give the variables of
    ``before``, as :class:`.differences.Differences` takes them."""
    return {before[c.relation[0]].get_id(): (before[c.relation[1]].get_id(), c.relation[2]) for c in related}


def assumed_by(enc: Encoding, cands: Sequence[Any]) -> tuple[dict[int, Interval], dict[int, tuple[int, int]]]:
    """The intervals and relations of the state before the step that the bound and
    relation candidates among ``cands`` give (those the passes kept, for
    :class:`.step_pass.StepPass`)."""
    bounded, related = _kinds(cands)
    before = flat(enc.a)
    return intervals_of(before, bounded), relations_of(before, related)


def _kinds(cands: Sequence[Any]) -> tuple[list[Any], list[Any]]:
    """The candidates that bound one entry by constants, and those that bound one by another."""
    return ([c for c in cands if getattr(c, "bound", None) is not None],
            [c for c in cands if getattr(c, "relation", None) is not None])


def _relations_shown(dag: Dag, rels: Sequence[Any], before: Sequence[Any], at: Places,
                     env: dict[int, Interval], middle: Sequence[Any] | None, frame: Sequence[Interval]) -> set[str]:
    """The relations :mod:`.differences` shows after the step, from a state where every one
    of ``rels`` and the bounds of ``env`` hold: after each transition's own effect (``m``'s,
    or the step's), then, with those assumed of ``m``, after the state-based actions."""
    first = Differences(dag, env, relations_of(before, rels))

    def on_effect(c: Any, r: Sequence[int]) -> bool:
        col, ref, off = c.relation
        if r[col] == at.before[col] and r[ref] == at.before[ref]:
            return True  # a transition that writes neither: the relation assumed before it
        return first.at_most_places(r[col], r[ref], off)

    shown = [c for c in rels if all(on_effect(c, r) for r in at.raw)]
    if middle is None:
        return {c.name for c in shown}
    then = Differences(dag, {x.get_id(): iv for x, iv in zip(middle, frame, strict=True)},
                       relations_of(middle, shown))
    return {c.name for c in shown if then.at_most_places(at.after[c.relation[0]], at.after[c.relation[1]],
                                                         c.relation[2])}


__all__ = ["assumed_by", "inductive_bounds", "intervals_of", "relations_of"]
