"""Invariants found, not hand-written: candidates mined from reachable states, kept by Houdini.

Candidates come from templates over the declared state layout (``model/state.py``,
``LAYOUT``), instantiated per slot and per pair of fields of the same kind, and filtered by
the states the explicit-state search reaches (:func:`sample`): a candidate is kept only if it
holds in *every* sampled state.  No template names a property or a rule; the templates are

* ``range``: an entry's declared bounds (the layout's ``bounds``), and the value set an
  enumerated entry takes when it is smaller than its domain, and each value it never takes;
* ``cond``: within one slot (a card, an ability slot, a plane, an extra-turn slot, or the
  scalars), ``f == c -> g == d`` and ``f == c -> g in {..}`` (and with ``f != c``), for
  ``f`` enumerated (a zone and its marks, an ability's kind and its fields, a pending choice
  and its player and source), or ``f`` an entry of the card's or plane's owner (the
  configuration fixes owners: a player out of the game, their card outside it);
* ``order``: between two entries holding the same kind of value (object ids, turns, numbers,
  players), in one slot, against a scalar, or one field across two slots: ``==``, ``<``,
  ``<=``, ``!=``, unconditionally or under the slots' first enumerated field (``zone == c``:
  stack positions against ``stack_size``, distinct object ids, ``oid < next_oid``);
* ``count``: a scalar number equal to a count of slots (or the sum of two counts) whose
  first enumerated field has a value, or has not (``stack_size`` and the stack's entries);
* ``at``: through a scalar or slot pointer (a slot, a player, an ability's source), the
  pointed-to entry's value set, under the pointer's slot condition (a pending choice's
  source is on the stack, the planar controller is in the game);
* ``between``: an ability slot and a card slot, which share one stack: from the ability
  slot's condition, the card's first enumerated field (``ab_kind == k -> zone in {..}``: the
  spell that triggered it is on the stack), and under both conditions, ``<`` between
  the same quantity on both (``pos`` and ``ab_pos``: the ability above that spell);
* ``adjacent``: for slots used as a stack (ability and extra-turn slots), slot ``i``'s
  condition against slot ``i + 1``'s.

Nothing mined is trusted: a candidate is kept only if it holds in every initial state
(:func:`initially_true`) and, when a proof uses it, only if it is inductive together with
the candidates its own consecution rests on (the Houdini closure in ``z3bmc``: a candidate
whose consecution has a counterexample is dropped, for good, and the proofs that used it
are redone).  Every query has a deterministic resource limit; one that runs out proves
nothing.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Callable, Sequence

import numpy as np
import z3

from mtgcheck.model.logic import mk_and, mk_eq, mk_implies, mk_or, term
from mtgcheck.model.config import Config
from mtgcheck.model.state import (flat, BOOL, BY_ABILITY, BY_CARD, BY_PLANE, BY_PLAYER, ENUM, LAYOUT, NUM, OID, PLAYER, SCALAR, SLOT,
                                  SOURCE, TURN, Decl, State, bounds, length)

#: Kinds of value compared by the ``order`` template.
ORDERED = (OID, TURN, NUM, PLAYER)
#: Kinds whose value sets are mined (small domains).
DISCRETE = (ENUM, BOOL, PLAYER, SLOT)


@dataclass(frozen=True)
class Entry:
    """One component of the flat state vector."""

    col: int
    decl: Decl
    i: int  # index within its field (0 for scalars)
    label: str


@dataclass(frozen=True)
class Candidate:
    """A mined state predicate: its name, and a builder over the flat state vector (Z3 terms
    or ints)."""

    name: str
    template: str
    build: Callable[[Sequence[Any]], Any]
    #: For a constant bound on one entry (``pos[bolt] >= 0``, ``x[bolt] <= 3``, ``pending in
    #: [0, 1, 2]``): (column, lowest, highest), None for no bound that side; what interval
    #: arithmetic may prove without a query (``z3bmc/intervals.py``).
    bound: tuple[int, int | None, int | None] | None = None
    #: A bound the layout declares against another entry (``oid[bolt] <= next_oid-1``,
    #: ``last_cast[bolt] <= turn+0``): (column, the other's column, offset), the entry at most
    #: the other plus the offset; what difference arithmetic may prove without a query
    #: (``z3bmc/differences.py``).
    relation: tuple[int, int, int] | None = None
    #: A value one entry never takes (``how[counter1] != 2``): (column, the value); true
    #: wherever a bound kept on that entry leaves the value out (``z3bmc/bound_pass.py``).
    excludes: tuple[int, int] | None = None

    @property
    def declared(self) -> bool:
        """A bound the layout declares against another entry: no coincidence of the sample,
        so the closure gives its consecution the whole limit at once (``z3bmc/closure.py``,
        ``Closure._whole``)."""
        return self.relation is not None


def entries(cfg: Config) -> list[Entry]:
    """The flat state vector's components, in the order of ``state.flat``."""
    out, col = [], 0
    for d in LAYOUT:
        n = length(cfg, d.index)
        for i in range(n):
            if d.index == SCALAR:
                lab = d.name
            elif d.index == BY_CARD:
                lab = f"{d.name}[{cfg.slots[i].id}]"
            elif d.index == BY_PLANE:
                lab = f"{d.name}[{cfg.planes[i].id}]"
            else:
                lab = f"{d.name}[{i}]"
            out.append(Entry(col, d, i, lab))
            col += 1
    return out


# --- the sample: states the explicit-state search reaches -----------------------------------

def sample(cfg: Config, starts: Sequence[State], *, cap: int = 4000, max_turn: int | None = None,
           seed: int = 0, walk: int = 60) -> list[State]:
    """At most ``cap`` reachable states: half breadth-first from the first start (the
    configuration's position) within the turn bound, half on random walks of up to ``walk``
    steps from every start, past the turn bound (an invariant holds on every reachable
    state, and deeper states rule out more candidates).  Each walk leaves out a random set
    of verbs, as swarm testing does, so that walks go deep."""
    from mtgcheck.model.actions import catalogue

    seen: set[State] = set()
    out: list[State] = []

    def keep(s: State) -> None:
        if s not in seen:
            seen.add(s)
            out.append(s)

    cat = catalogue(cfg)
    frontier = [starts[0]]
    while frontier and len(out) < cap // 2:
        nxt = []
        for s in frontier:
            if s in seen:
                continue
            keep(s)
            if len(out) >= cap // 2:
                break
            if s.game_over or (max_turn is not None and s.turn > max_turn):
                continue
            # (the compiled guard tree: each condition tested once, ``Catalogue.enabled``)
            nxt.extend(cat.transitions[i].effect(s) for i in cat.enabled(s))
        frontier = nxt
    rng = random.Random(seed)
    # The walks come back to the same few thousand states tens of thousands of times (on
    # ``flashback``, 80,000 steps for 1,200 new states): each state's enabled transitions
    # and each step taken are computed once.  Both are functions of the state, so the walks,
    # and the random draws they make, are those computed afresh.
    enabled_in: dict[State, list[int]] = {}
    after: dict[tuple[State, int], State] = {}
    tries = 0
    while len(out) < cap and tries < 4 * cap:
        s = starts[tries % len(starts)]
        tries += 1
        # Swarm, as the Hypothesis checker does: each walk leaves out each verb with even
        # odds while another is enabled (else a concession, enabled everywhere, ends nearly
        # every walk within a few steps, and no deep state is sampled).
        off = {v for v in cat.verbs if rng.random() < 0.5}
        for _ in range(walk):
            keep(s)
            if s.game_over:
                break
            # The enabled transitions, then one effect: the same choice as among the
            # successors (same order), without computing the successors not taken.
            enabled = enabled_in.get(s)
            if enabled is None:
                enabled = enabled_in[s] = cat.enabled(s)
            if not enabled:
                break
            i = rng.choice([i for i in enabled if cat.transitions[i].action.verb not in off] or enabled)
            s2 = after.get((s, i))
            if s2 is None:
                s2 = after[(s, i)] = cat.transitions[i].effect(s)
            s = s2
    return out[:cap]


# --- the templates ------------------------------------------------------------------------------

def _slots(cfg: Config, es: Sequence[Entry]) -> dict[tuple[str, int], list[Entry]]:
    out: dict[tuple[str, int], list[Entry]] = {}
    for e in es:
        key = (e.decl.index, 0 if e.decl.index == SCALAR else e.i)
        out.setdefault(key, []).append(e)
    return out


def _guard_field(index: str) -> Decl | None:
    """The first enumerated field of an index kind (a card's zone, an ability's kind, a
    plane's location); for extra-turn slots, the slot itself (-1 empty)."""
    for d in LAYOUT:
        if d.index == index and d.holds == ENUM:
            return d
    for d in LAYOUT:
        if d.index == index and d.holds in DISCRETE:
            return d
    return None


# (symbolically through Z3's C API: ``model/logic.py`` says why)
def _in(x: Any, vals: Sequence[int]) -> Any:
    if isinstance(x, z3.ExprRef):
        return mk_or([mk_eq(x, v) for v in vals]) if len(vals) > 1 else mk_eq(x, vals[0])
    return x in vals


def _implies(a: Any, b: Any) -> Any:
    if isinstance(a, z3.ExprRef) or isinstance(b, z3.ExprRef):
        ctx = (a if isinstance(a, z3.ExprRef) else b).ctx
        return mk_implies(term(a, ctx), term(b, ctx))
    return (not a) or b


def _and(*xs: Any) -> Any:
    sym = next((x for x in xs if isinstance(x, z3.ExprRef)), None)
    if sym is not None:
        return mk_and([term(x, sym.ctx) for x in xs])
    return all(xs)


_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "==": lambda x, y: x == y, "<": lambda x, y: x < y, "<=": lambda x, y: x <= y, "!=": lambda x, y: x != y}


def mine(cfg: Config, states: Sequence[State], *, max_set: int = 3) -> list[Candidate]:
    """Every template instance that holds in all of ``states``."""
    es = entries(cfg)
    if not states:
        return []
    M = np.array([flat(s) for s in states], dtype=np.int64)
    S = len(M)
    by_col = {e.col: e for e in es}
    cands: dict[str, Candidate] = {}

    def add(name: str, template: str, build: Callable[[Sequence[Any]], Any],
            bound: tuple[int, int | None, int | None] | None = None,
            relation: tuple[int, int, int] | None = None, excludes: tuple[int, int] | None = None) -> None:
        cands.setdefault(name, Candidate(name, template, build, bound, relation, excludes))

    def vals(mask: np.ndarray, col: int) -> list[int]:
        return sorted(int(v) for v in np.unique(M[mask, col]))

    everything = np.ones(S, dtype=bool)
    uncond = {e.col: vals(everything, e.col) for e in es}
    probe = [0] * len(es)  # bounds() of the layout, read on a probe state
    if not cfg.planechase:
        skip = {e.col for e in es if e.decl.index == BY_PLANE or e.decl.name == "planar_ctrl"}
    else:
        skip = set()

    # range: the layout's bounds (a scalar bound may name another entry: turn, next_oid)
    sym = _symbolic_probe(cfg)
    for e in es:
        if e.col in skip:
            continue
        lo, hi = bounds(cfg, e.decl, sym)
        for which, bound in (("lo", lo), ("hi", hi)):
            if bound is None:
                continue
            ref = _ref_col(es, bound)
            if ref is None:
                b = int(bound)
                ok = (M[:, e.col] >= b).all() if which == "lo" else (M[:, e.col] <= b).all()
                if ok:
                    add(f"{e.label} {'>=' if which == 'lo' else '<='} {b}", "range",
                        (lambda f, c=e.col, b=b, w=which: f[c] >= b if w == "lo" else f[c] <= b),
                        (e.col, b, None) if which == "lo" else (e.col, None, b))
            else:
                r, off = ref
                ok = (M[:, e.col] <= M[:, r] + off).all()
                if ok:
                    add(f"{e.label} <= {by_col[r].label}{off:+d}", "range",
                        (lambda f, c=e.col, r=r, off=off: f[c] <= f[r] + off), relation=(e.col, r, off))
        dom = _domain(cfg, e.decl)
        u = uncond[e.col]
        if len(u) == 1 and e.decl.holds not in DISCRETE:
            add(f"{e.label} == {u[0]}", "range", (lambda f, c=e.col, v=u[0]: f[c] == v), (e.col, u[0], u[0]))
        if e.decl.holds in DISCRETE and dom is not None and len(u) < len(dom) and len(u) <= max_set:
            add(f"{e.label} in {u}", "range", (lambda f, c=e.col, u=tuple(u): _in(f[c], u)),
                (e.col, u[0], u[-1]) if u == list(range(u[0], u[-1] + 1)) else None)  # an interval
        if e.decl.holds in DISCRETE and e.decl.holds != BOOL and dom is not None and 1 < len(u) < len(dom):
            # each value never seen, apart: it may be the one an initial placement rules out
            # where the whole set is not (a land put in the hand, but never on the stack)
            for c in sorted(set(dom) - set(u)):
                add(f"{e.label} != {c}", "range", (lambda f, col=e.col, c=c: f[col] != c), excludes=(e.col, c))
    del probe

    slots = _slots(cfg, [e for e in es if e.col not in skip])
    # cond: within one slot; and for a card or a plane, from its owner's entries (a player
    # who left owns nothing in the game: CR 800.4a) to the slot's
    owners = {**{(BY_CARD, j): sl.owner for j, sl in enumerate(cfg.slots)},
              **{(BY_PLANE, k): pl.owner for k, pl in enumerate(cfg.planes)}}
    for key, group in slots.items():
        conds = []
        owner = owners.get(key, -1)
        owned = [e for e in slots.get((BY_PLAYER, owner), []) if e.decl.holds in (ENUM, BOOL)] \
            if 0 <= owner < cfg.players else []
        for e in group + owned:
            if e.decl.holds not in (ENUM, BOOL) and not (e.decl.holds in (PLAYER, SLOT) and e.decl.none):
                continue
            for c in uncond[e.col]:
                conds.append((f"{e.label} == {c}", M[:, e.col] == c, (lambda f, col=e.col, c=c: f[col] == c), e.col))
                if len(uncond[e.col]) > 2:
                    conds.append((f"{e.label} != {c}", M[:, e.col] != c, (lambda f, col=e.col, c=c: f[col] != c), e.col))
        for cname, mask, cb, ccol in conds:
            if not mask.any() or mask.all():
                continue
            for g in group:
                if g.col == ccol:
                    continue
                v = vals(mask, g.col)
                if v == uncond[g.col]:
                    continue
                if len(v) == 1:
                    add(f"{cname} -> {g.label} == {v[0]}", "cond",
                        (lambda f, cb=cb, col=g.col, d=v[0]: _implies(cb(f), f[col] == d)))
                elif g.decl.holds in DISCRETE and len(v) <= max_set:
                    add(f"{cname} -> {g.label} in {v}", "cond",
                        (lambda f, cb=cb, col=g.col, v=tuple(v): _implies(cb(f), _in(f[col], v))))
                elif g.decl.holds == NUM:  # a bound the condition raises (in the game -> life >= 1)
                    if v[0] > uncond[g.col][0]:
                        add(f"{cname} -> {g.label} >= {v[0]}", "cond",
                            (lambda f, cb=cb, col=g.col, d=v[0]: _implies(cb(f), f[col] >= d)))
                    if v[-1] < uncond[g.col][-1]:
                        add(f"{cname} -> {g.label} <= {v[-1]}", "cond",
                            (lambda f, cb=cb, col=g.col, d=v[-1]: _implies(cb(f), f[col] <= d)))

    # order: same kind of value; within a slot, against scalars, one field across slots
    guards: dict[tuple[str, int], list[tuple[str, np.ndarray, Callable[[Sequence[Any]], Any], int]]] = {}
    for key, group in slots.items():
        gd = _guard_field(key[0]) if key[0] != SCALAR else None
        if gd is None:
            guards[key] = []
            continue
        ge = next(e for e in group if e.decl.name == gd.name)
        guards[key] = [(f"{ge.label} == {c}", M[:, ge.col] == c, (lambda f, col=ge.col, c=c: f[col] == c), c)
                       for c in uncond[ge.col]]
    scalars = [e for e in slots.get((SCALAR, 0), [])]
    pairs: list[tuple[Entry, Entry, str]] = []
    for key, group in slots.items():
        ordered = [e for e in group if e.decl.holds in ORDERED]
        for u, v in combinations(ordered, 2):
            if u.decl.holds == v.decl.holds and u.decl.holds != NUM:
                pairs.append((u, v, "slot"))
        if key[0] != SCALAR:
            for u in ordered:
                for v in scalars:
                    if v.decl.holds == u.decl.holds:
                        pairs.append((u, v, "scalar"))
    by_field: dict[str, list[Entry]] = {}
    for e in es:
        if e.col not in skip and e.decl.index != SCALAR and e.decl.holds in ORDERED:
            by_field.setdefault(e.decl.name, []).append(e)
    for fes in by_field.values():
        for u, v in combinations(fes, 2):
            pairs.append((u, v, "across"))
    for u, v, how in pairs:
        ku = (u.decl.index, 0 if u.decl.index == SCALAR else u.i)
        kv = (v.decl.index, 0 if v.decl.index == SCALAR else v.i)
        variants = [("", everything, None)]
        if how == "across":
            gv = {g[3]: g for g in guards.get(kv, [])}
            for na, ma, ba, ca in guards.get(ku, []):
                if ca in gv:
                    nb, mb, bb, _ = gv[ca]
                    variants.append((f"{na} & {nb} -> ", ma & mb, (lambda f, ba=ba, bb=bb: _and(ba(f), bb(f)))))
        else:
            for na, ma, ba, _ in guards.get(ku, []):
                variants.append((f"{na} -> ", ma, ba))
        for pre, mask, cb in variants:
            if not mask.any() or (u.decl.holds == NUM and how == "scalar" and cb is None):
                continue
            x, y = M[mask, u.col], M[mask, v.col]
            if (x == x[0]).all() and (y == y[0]).all():
                continue  # two constants here: the unary templates say it
            if how != "across" and pre and (M[:, u.col] == M[:, v.col]).all():
                continue
            lo_e, hi_e, rel = u, v, None
            if (x == y).all():
                rel = "=="
            elif (x < y).all():
                rel = "<"
            elif (x > y).all():
                lo_e, hi_e, rel = v, u, "<"
            elif (x <= y).all():
                rel = "<="
            elif (x >= y).all():
                lo_e, hi_e, rel = v, u, "<="
            rels = [rel] if rel else []
            if rel in (None, "<=") and (x != y).all():
                rels.append("!=")
            for r in rels:
                op = _OPS[r]
                if cb is None:
                    add(f"{lo_e.label} {r} {hi_e.label}", "order",
                        (lambda f, a=lo_e.col, b=hi_e.col, op=op: op(f[a], f[b])))
                else:
                    add(f"{pre}{lo_e.label} {r} {hi_e.label}", "order",
                        (lambda f, cb=cb, a=lo_e.col, b=hi_e.col, op=op: _implies(cb(f), op(f[a], f[b]))))

    # count: a scalar number against counts of slots by their first enumerated field
    fams = []
    for index in dict.fromkeys(e.decl.index for e in es if e.col not in skip and e.decl.index != SCALAR):
        gd = _guard_field(index)
        if gd is None:
            continue
        cols = [e.col for e in es if e.decl.name == gd.name]
        for c in sorted({int(x) for col in cols for x in uncond[col]}):
            fams.append((f"#{gd.name}=={c}", (M[:, cols] == c).sum(axis=1), cols, c, True))
            fams.append((f"#{gd.name}!={c}", (M[:, cols] != c).sum(axis=1), cols, c, False))

    def count_term(cols: Sequence[int], c: int, eq: bool) -> Callable[[Sequence[Any]], Any]:
        def build(f: Sequence[Any]) -> Any:
            if any(isinstance(f[col], z3.ExprRef) for col in cols):
                return z3.Sum([z3.If(f[col] == c if eq else f[col] != c, 1, 0) for col in cols])
            return sum(1 for col in cols if (f[col] == c) == eq)
        return build

    for v in scalars:
        if v.decl.holds != NUM:
            continue
        y = M[:, v.col]
        if len(uncond[v.col]) < 2:
            continue
        for n1, a1, cols1, c1, e1 in fams:
            if (a1 == y).all():
                t1 = count_term(cols1, c1, e1)
                add(f"{v.label} == {n1}", "count", (lambda f, col=v.col, t1=t1: f[col] == t1(f)))
        for (n1, a1, cols1, c1, e1), (n2, a2, cols2, c2, e2) in combinations(fams, 2):
            if cols1 == cols2:
                continue
            if (a1 + a2 == y).all():
                t1, t2 = count_term(cols1, c1, e1), count_term(cols2, c2, e2)
                add(f"{v.label} == {n1} + {n2}", "count", (lambda f, col=v.col, t1=t1, t2=t2: f[col] == t1(f) + t2(f)))

    # at: through a pointer, the pointed-to entry's values
    pointed = {SLOT: BY_CARD, SOURCE: BY_CARD, PLAYER: BY_PLAYER}
    for key, group in slots.items():
        gconds = [("", everything, None)] + [(f"{n} & ", m, b) for n, m, b, _ in guards.get(key, [])]
        if key[0] == SCALAR:
            gconds += [(f"{e.label} == {c} & ", M[:, e.col] == c, (lambda f, col=e.col, c=c: f[col] == c))
                       for e in group if e.decl.holds in (ENUM, BOOL) for c in uncond[e.col]]
        for p in group:
            target_index = pointed.get(p.decl.holds)
            if target_index is None:
                continue
            for g_decl in LAYOUT:
                if g_decl.index != target_index or g_decl.holds not in (ENUM, BOOL):
                    continue
                gcols = [e.col for e in es if e.decl.name == g_decl.name]
                if not gcols or gcols[0] in skip:
                    continue
                ptr = M[:, p.col]
                valid = (ptr >= 0) & (ptr < len(gcols))
                pointee = np.where(valid, M[np.arange(S)[:, None], np.array(gcols)[None, :]][
                    np.arange(S), np.clip(ptr, 0, len(gcols) - 1)], -99)
                for pre, mask, cb in gconds:
                    mk = mask & valid
                    if not mk.any():
                        continue
                    v = sorted(int(x) for x in np.unique(pointee[mk]))
                    dom = _domain(cfg, g_decl) or []
                    if len(v) > max_set or len(v) >= len(dom):
                        continue
                    name = f"{pre}0 <= {p.label} -> {g_decl.name}[{p.label}] in {v}"

                    def build(f: Sequence[Any], cb: Any = cb, pc: int = p.col, gcols: tuple = tuple(gcols),
                              v: tuple = tuple(v)) -> Any:
                        ptr_ = f[pc]
                        if isinstance(ptr_, z3.ExprRef):
                            sel = mk_or([mk_and([mk_eq(ptr_, k), _in(f[col], v)]) for k, col in enumerate(gcols)])
                            ante = _and(ptr_ >= 0, ptr_ < len(gcols)) if cb is None else \
                                _and(cb(f), ptr_ >= 0, ptr_ < len(gcols))
                            return mk_implies(ante, sel)
                        if not (0 <= ptr_ < len(gcols)) or (cb is not None and not cb(f)):
                            return True
                        return f[gcols[ptr_]] in v
                    add(name, "at", build)

    # between: an ability slot and a card slot share one stack (CR 405.1): from the ability
    # slot's condition, the card's first enumerated field (the spell that triggered it is on
    # the stack), and under both conditions, order between entries of the same kind (the
    # ability above that spell)
    card_gd, ab_gd = _guard_field(BY_CARD), _guard_field(BY_ABILITY)
    if card_gd is not None and ab_gd is not None:
        for a_key in sorted(k for k in slots if k[0] == BY_ABILITY):
            for na, ma, ba, _ in guards.get(a_key, []):
                if not ma.any() or ma.all():
                    continue
                for c_key in sorted(k for k in slots if k[0] == BY_CARD):
                    ce = next(e for e in slots[c_key] if e.decl.name == card_gd.name)
                    v = vals(ma, ce.col)
                    if len(v) <= max_set and v != uncond[ce.col]:
                        add(f"{na} -> {ce.label} in {v}", "between",
                            (lambda f, ba=ba, col=ce.col, v=tuple(v): _implies(ba(f), _in(f[col], v))))
                    for nc, mc, bc, _ in guards.get(c_key, []):
                        both = ma & mc
                        if not both.any():
                            continue
                        for u in slots[c_key]:
                            for w in slots[a_key]:
                                # the same quantity on the card and on the ability (``pos`` and
                                # ``ab_pos``): a card's damage below an ability's stack position
                                # is a coincidence of the sample, never an invariant a proof
                                # uses; on plot-14 such candidates were 20 of the closure's 99
                                # consecution queries out of their limit
                                if u.decl.holds != w.decl.holds or u.decl.holds not in ORDERED or \
                                        u.decl.name.removeprefix("ab_") != w.decl.name.removeprefix("ab_"):
                                    continue
                                x, y = M[both, u.col], M[both, w.col]
                                for r, ok, lo, hi in (("<", (x < y).all(), u, w), ("<", (y < x).all(), w, u)):
                                    if ok:
                                        add(f"{na} & {nc} -> {lo.label} {r} {hi.label}", "between",
                                            (lambda f, ba=ba, bc=bc, a=lo.col, b=hi.col:
                                             _implies(_and(ba(f), bc(f)), f[a] < f[b])))

    # adjacent: slots filled as a stack
    for index in (d.index for d in LAYOUT):
        if index in (SCALAR, BY_CARD, BY_PLAYER, BY_PLANE):
            continue
        gd = _guard_field(index)
        if gd is None:
            continue
        cols = [e.col for e in es if e.decl.name == gd.name]
        for a_, b_ in zip(cols, cols[1:], strict=False):
            for c in uncond[a_]:
                mask = M[:, a_] == c
                if not mask.any():
                    continue
                v = vals(mask, b_)
                # kept even when slot i + 1 never held anything in the sample: "it is empty"
                # alone is not inductive (it fills once slot i does), the shape of the stack is
                if len(v) == 1:
                    add(f"{by_col[a_].label} == {c} -> {by_col[b_].label} == {v[0]}", "adjacent",
                        (lambda f, a_=a_, b_=b_, c=c, d=v[0]: _implies(f[a_] == c, f[b_] == d)))
    return list(cands.values())


def _domain(cfg: Config, d: Decl) -> list[int] | None:
    if d.holds == BOOL:
        return [0, 1]
    if d.holds == ENUM:
        return list(range(len(d.names)))
    if d.holds == PLAYER:
        return list(range(-1 if d.none else 0, cfg.players))
    if d.holds == SLOT:
        return list(range(-1 if d.none else 0, cfg.n))
    return None


def _symbolic_probe(cfg: Config) -> State:
    from mtgcheck.model.state import symbolic_state

    return symbolic_state(cfg, "probe")


def _ref_col(es: Sequence[Entry], bound: Any) -> tuple[int, int] | None:
    """A bound that is another entry plus a constant (``turn``, ``next_oid - 1``)."""
    if not isinstance(bound, z3.ExprRef):
        return None
    t, off = bound, 0
    if z3.is_add(t) or z3.is_sub(t):
        a, b = t.children()
        if not z3.is_int_value(b):
            return None
        off = b.as_long() if z3.is_add(t) else -b.as_long()
        t = a
    name = str(t)
    for e in es:
        if name == f"probe.{e.decl.name}" and e.decl.index == SCALAR:
            return e.col, off
    return None


# --- initiation -----------------------------------------------------------------------------

def initially_true(cands: Sequence[Candidate], init: Callable[[State], Any], new_state: Callable[[str], State],
                   check: Callable[..., Any], *, max_rounds: int = 200) -> tuple[list[Candidate], bool]:
    """The candidates that hold in every initial state: each model of ``init`` that breaks
    some drops all it breaks.  Returns them and whether the search completed (a query out
    of its limit keeps nothing)."""
    live = list(cands)
    sol = z3.Solver()
    s0 = new_state("h0")
    sol.add(init(s0))
    f0 = flat(s0)
    terms = {c.name: c.build(f0) for c in live}
    for _ in range(max_rounds):
        if not live:
            return live, True
        res = check(sol, z3.Not(_conjunction([terms[c.name] for c in live])),
                    what=f"invariants: initiation ({len(live)})")
        if res == z3.unsat:
            return live, True
        if res != z3.sat:
            return [], False
        m = sol.model()
        # The candidates read the state's values only: evaluated on the model's state, in
        # Python, as mining evaluates them on sampled states (on ``04-plot-14`` the model's
        # evaluation of each of 4,100 terms, 60 rounds, was most of 6 s, Z3 0.7 s of it).
        values = [m.eval(x, model_completion=True).as_long() for x in f0]
        live = [c for c in live if _true_on(c, values, m, terms[c.name])]
    return [], False


def _true_on(c: Candidate, values: Sequence[int], m: z3.ModelRef, term: Any) -> bool:
    """Whether ``c`` holds on the state of ``values`` (the model ``m``'s); a template whose
    value on concrete entries is not a plain truth value is asked of the model."""
    v = c.build(values)
    if isinstance(v, bool):
        return v
    return z3.is_true(m.eval(term, model_completion=True))


def _conjunction(terms: Sequence[Any]) -> Any:
    """``z3.And(terms)`` for Boolean terms, without z3py's coercion of each one (thousands
    of candidates, once per round of :func:`initially_true`)."""
    ctx = next((t.ctx for t in terms if isinstance(t, z3.ExprRef)), z3.main_ctx())
    return mk_and([term(t, ctx) for t in terms])


@dataclass
class Found:
    """The mined candidates, those true initially, and what mining cost."""

    mined: int
    live: list[Candidate]
    sample_states: int
    seconds: float
    complete: bool
    per_template: dict[str, int] = field(default_factory=dict)  # template -> mined


def find(cfg: Config, states: Sequence[State], init: Callable[[State], Any], new_state: Callable[[str], State],
         check: Callable[..., Any]) -> Found:
    """Mine the templates on ``states``; keep those true in every initial state."""
    t0 = time.monotonic()
    cands = mine(cfg, states)
    live, complete = initially_true(cands, init, new_state, check)
    per: dict[str, int] = {}
    for c in cands:
        per[c.template] = per.get(c.template, 0) + 1
    return Found(len(cands), live, len(states), time.monotonic() - t0, complete, per)
