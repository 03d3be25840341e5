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

from mtgcheck.model.config import Config
from mtgcheck.model.state import AB_CHAOS, AB_PLANESWALK, CARD_FIELDS, State

@lru_cache(maxsize=64)
def groups(cfg: Config) -> tuple[tuple[int, ...], ...]:
    by: dict[tuple[str, int], list[int]] = {}
    for j, sl in enumerate(cfg.slots):
        by.setdefault((sl.card.name, sl.owner), []).append(j)
    return tuple(tuple(g) for g in by.values() if len(g) > 1)


def rename(cfg: Config, s: State, perm: list[int]) -> State:
    """The state with card slot ``j`` moved to slot ``perm[j]``, references included."""
    P, n = cfg.players, cfg.n
    fields = CARD_FIELDS
    vals = {}
    for f in fields:
        old = getattr(s, f)
        new = [0] * n
        for j in range(n):
            new[perm[j]] = old[j]
        vals[f] = new
    vals["target"] = [t if t < P else P + perm[t - P] for t in vals["target"]]
    ab_src = list(s.ab_src)
    ab_target = list(s.ab_target)
    for a, kind in enumerate(s.ab_kind):
        if kind and kind not in (AB_CHAOS, AB_PLANESWALK):
            ab_src[a] = perm[ab_src[a]]
        if ab_target[a] >= P:
            ab_target[a] = P + perm[ab_target[a] - P]
    pending_src = perm[s.pending_src] if s.pending and s.pending_src >= 0 else s.pending_src
    return s.replace(**{f: tuple(v) for f, v in vals.items()}, ab_src=tuple(ab_src), ab_target=tuple(ab_target),
                     pending_src=pending_src)


def canonical(cfg: Config, s: State) -> State:
    """A representative of the state's class: identical cards sorted, object ids renumbered.

    Object ids matter to the rules only through equality (is the target still the same
    object?) and order (a new id is larger than every id so far), so any order-preserving
    renumbering gives a state that behaves the same (a bisimilar one).  Sound, not always
    minimal: references between identical cards may leave two representatives.
    """
    gs = groups(cfg)
    if gs:
        fields = CARD_FIELDS
        perm = list(range(cfg.n))
        changed = False
        for g in gs:
            keyed = sorted(g, key=lambda j: tuple(getattr(s, f)[j] for f in fields))
            for dst, src in zip(g, keyed):
                perm[src] = dst
                changed |= src != dst
        if changed:
            s = rename(cfg, s, perm)
    used = set(s.oid) | set(s.pl_oid) | {s.next_oid}
    used |= {o for o, t in zip(s.target_oid, s.target) if t >= cfg.players}
    used |= {o for o, k in zip(s.ab_target_oid, s.ab_kind) if k}
    rank = {o: i for i, o in enumerate(sorted(used))}
    return s.replace(
        oid=tuple(rank[o] for o in s.oid), pl_oid=tuple(rank[o] for o in s.pl_oid), next_oid=rank[s.next_oid],
        target_oid=tuple(rank[o] if t >= cfg.players else o for o, t in zip(s.target_oid, s.target)),
        ab_target_oid=tuple(rank[o] if k else o for o, k in zip(s.ab_target_oid, s.ab_kind)))
