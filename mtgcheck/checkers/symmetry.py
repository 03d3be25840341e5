"""Symmetry reduction for the graph search: identical cards, and object-id numbering.

Two card slots holding the same card with the same owner can swap every field (and every
reference to them: targets, ability sources, pending choices) without changing anything
the rules or the properties can see, since both quantify over all slots alike.  The search
keys states by a canonical renaming that sorts each such group; successors are still
computed from real states, so traces replay as they are.  Players are never permuted (turn
order and the active player break that symmetry).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

from mtgcheck.model.config import Config
from mtgcheck.model.state import (CARD_FIELDS, FIELDS, LAYOUT, Decl, OID_FIELDS, PLANE_SOURCED, REF, SLOT, SOURCE, TURN_FIELDS,
                                  State)

_tuple_new = tuple.__new__

#: The reduction the graph search keys its states by, recorded in the manifest (the graph
#: checker's ``version``): a state count is a figure only against counts of the same
#: reduction.  Change it with the reduction.
REDUCTION = "identical cards sorted; object ids by first appearance; turns by order"

@lru_cache(maxsize=64)
def groups(cfg: Config) -> tuple[tuple[int, ...], ...]:
    by: dict[tuple[str, int], list[int]] = {}
    for j, sl in enumerate(cfg.slots):
        by.setdefault((sl.card.name, sl.owner), []).append(j)
    return tuple(tuple(g) for g in by.values() if len(g) > 1)


def _fields(pred: Callable[[Decl], bool]) -> tuple[str, ...]:
    return tuple(d.name for d in LAYOUT if pred(d))


# From the layout: the fields indexed by card slot (permuted with the slots), and the fields
# holding a REF, a SLOT or an ability SOURCE (renamed with the slots they point at).
_CARD = CARD_FIELDS
_REFS = _fields(lambda d: d.holds == REF)
_SLOTS = _fields(lambda d: d.holds == SLOT)
_SOURCES = _fields(lambda d: d.holds == SOURCE)


def rename(cfg: Config, s: State, perm: list[int]) -> State:
    """The state with card slot ``j`` moved to slot ``perm[j]``, references included."""
    return _renamer(cfg, perm)(s)


def canonical(cfg: Config, s: State, turns: bool = False) -> State:
    """A representative of the state's class: identical cards sorted, object ids renumbered.

    Object ids matter to the rules and the properties only through equality (is the target
    still the same object?  CR 400.7, 608.2b) and through ``next_oid``, the next new id,
    which is larger than every id in use: the objects a zone change or a plane turned face
    up makes new take ``next_oid + i`` (``i`` their place in the group, model/zones.py,
    ``new_objects``).  No rule compares two ids in use by order.  So any one-to-one renaming
    of the ids in use onto 1..m, with ``next_oid`` renamed m + 1, gives a state that behaves
    the same (a bisimilar one: the same actions, successors renamed alike with new ids
    ``m + 1 + i``); the ids are numbered in the order they first appear in the object-id
    fields of the layout (``OID_FIELDS``: card slots first), not by their values, so two
    states that differ only in which object came first share a representative.  Checked by ``tests/test_metamorphic.py`` (a random such renaming of
    reachable states).  Sound, not always minimal: references between identical cards may
    leave two representatives.

    With ``turns``, turn numbers are renumbered the same way (0, "never", stays 0): the rules
    only compare them (plotted on an earlier turn, cast this turn) and a new turn is larger
    than every turn so far.  Only for a search with no turn bound (a bound reads the number).
    """
    return canonicalizer(cfg, turns)(s)


@lru_cache(maxsize=64)
def canonicalizer(cfg: Config, turns: bool = False) -> Callable[[State], State]:
    """:func:`canonical` for one configuration, with everything that depends only on the
    configuration and the layout worked out once (the graph search calls it on every state):
    per permutation of the slots, the renaming as index maps (:func:`_renamer`), and the
    renumberings memoized by the values they renumber."""
    gs = groups(cfg)
    card_idx = [FIELDS.index(f) for f in _CARD]
    renumbered = [_renumberer(OID_FIELDS, fresh="next_oid")] + ([_renumberer(TURN_FIELDS)] if turns else [])
    n = cfg.n
    renamers: dict[tuple[int, ...], Callable[[State], State]] = {}

    def canon(s: State) -> State:
        if gs:
            rows = list(zip(*[s[i] for i in card_idx], strict=True))  # each card slot's fields
            perm = list(range(n))
            changed = False
            for g in gs:
                keyed = sorted(g, key=rows.__getitem__)
                for dst, src in zip(g, keyed, strict=True):
                    perm[src] = dst
                    changed |= src != dst
            if changed:
                key = tuple(perm)
                r = renamers.get(key)
                if r is None:
                    r = renamers[key] = _renamer(cfg, perm)
                s = r(s)
        for r in renumbered:
            s = r(s)
        return s

    return canon


def _renamer(cfg: Config, perm: list[int]) -> Callable[[State], State]:
    """:func:`rename` by ``perm`` as index maps worked out once: a card field is permuted by
    one ``itemgetter``, a reference mapped through a dict."""
    from operator import itemgetter

    P, n = cfg.players, cfg.n
    inv = [0] * n
    for j in range(n):
        inv[perm[j]] = j
    take = itemgetter(*inv) if n > 1 else (lambda v: (v[inv[0]],))
    ref = {t: (t if t < P else P + perm[t - P]) for t in range(-1, P + n)}  # -1 none, 0..P-1 a player, P+j card j
    slot = {t: (perm[t] if t >= 0 else t) for t in range(-1, n)}  # -1 none, else a card slot
    card_i = [FIELDS.index(f) for f in _CARD]
    ref_i = [FIELDS.index(f) for f in _REFS]
    slot_i = [FIELDS.index(f) for f in _SLOTS]
    src_i = [FIELDS.index(f) for f in _SOURCES]
    kind_i = FIELDS.index("ab_kind")

    def rename_by_perm(s: State) -> State:
        vals = list(s)
        for i in card_i:
            vals[i] = take(s[i])
        for i in ref_i:
            v = vals[i]
            vals[i] = tuple(map(ref.__getitem__, v)) if isinstance(v, tuple) else ref[v]
        for i in slot_i:
            v = vals[i]
            vals[i] = tuple(map(slot.__getitem__, v)) if isinstance(v, tuple) else slot[v]
        for i in src_i:  # a card slot unless the ability slot is empty or the ability is a plane's
            vals[i] = tuple([perm[src] if kind and kind not in PLANE_SOURCED else src
                             for src, kind in zip(s[i], s[kind_i], strict=True)])
        return _tuple_new(State, vals)

    return rename_by_perm


#: Renumberings kept per renumberer before it starts over (bounds a long search's memory).
_MEMO = 100_000


def _renumberer(fields: tuple[str, ...], fresh: str | None = None) -> Callable[[State], State]:
    """Renumbering of the values of ``fields`` onto 1, 2, ...; 0 ("none", "never") stays 0
    (memoized by those values: far fewer distinct ones than states).

    Without ``fresh``, order-preserving (turns: the rules compare them).  With ``fresh``, the
    field holding the next new value (larger than every value in use): the values in use are
    numbered in the order they first appear in ``fields``, and ``fresh``'s value comes last
    (object ids: the rules read only their equality, see :func:`canonical`)."""
    from operator import itemgetter

    idx = [FIELDS.index(f) for f in fields]
    get = itemgetter(*idx) if len(idx) > 1 else (lambda s, i=idx[0]: (s[i],))
    top = None if fresh is None else fields.index(fresh)
    memo: dict[Any, Any] = {}

    def renumbered(vals: tuple[Any, ...]) -> Any:
        used: dict[int, None] = {}  # in order of first appearance
        for v in vals:
            used.update(dict.fromkeys(v if isinstance(v, tuple) else (v,)))
        used.pop(0, None)
        if top is None:
            order = sorted(used)
        else:
            used.pop(vals[top], None)
            order = [*used, vals[top]]
        if order == list(range(1, len(order) + 1)):
            return None  # already 1, 2, ...
        rank = {o: r for r, o in enumerate(order, 1)}
        rank[0] = 0
        return tuple(tuple([rank[o] for o in v]) if isinstance(v, tuple) else rank[v] for v in vals)

    def renumber(s: State) -> State:
        key = get(s)
        out = memo.get(key, memo)
        if out is memo:
            if len(memo) >= _MEMO:
                memo.clear()
            out = memo[key] = renumbered(key)
        if out is None:
            return s
        vals = list(s)
        for i, v in zip(idx, out, strict=True):
            vals[i] = v
        return _tuple_new(State, vals)

    return renumber
