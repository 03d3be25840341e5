"""Zone changes, in one place: every card that moves becomes a new object (CR 400.7).

All moves go through :func:`move`, which gives each moved card a fresh object id, clears
everything the old object carried (plotted status, how it was cast, damage, granted
abilities: CR 400.7, 702.170d), and keeps library and stack order compact.  Written with
the dual helpers, so the same code serves the interpreter and Z3.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, Sequence

from .ability_kinds import ABILITY_KINDS
from .card_rules import game_ability_kinds
from .config import Config
from .logic import And, Count, If, Not, Or, Sum, at, is_sym, put, symbolic_mode
from .state import (ABILITY_RESET, AB_NONE, CARD_RESET, EXILE, HAND, LIBRARY, OUTSIDE, STACK,
                    State)

TOP, BOTTOM = "top", "bottom"
_FAR = 10_000  # a position beyond any real one, used before compaction


def move(cfg: Config, s: State, moving: Sequence[Any], dest: Sequence[Any] | Any,
         library_end: str = BOTTOM, resolving: bool = False, renumber: bool = True) -> State:
    """Move every card slot ``j`` with ``moving[j]`` true to zone ``dest[j]``.

    CR 400.7: each moved card is a new object with no memory of its previous existence.
    ``library_end`` says where cards that go to a library are put (top or bottom).
    CR 702.34a, written once, here: a spell cast with flashback that would leave the stack
    is exiled instead, wherever it was going (``resolving`` says the move is the spell's own
    resolution, so that each of the two mutant clauses breaks one case only).

    ``renumber=False`` leaves the renumbering to a later one: only for a caller whose
    continuation, up to that renumbering, is blind to positions (the note "Deferred
    renumbering" below says what that is and why the step's result is the same).
    """
    n = cfg.n
    if not any(is_sym(m) or m for m in moving):
        # nothing moves: only the bookkeeping (a concrete shortcut)
        return compact(cfg, s) if renumber else s
    # One destination for all (an int, or a Z3 term such as If(lilah, EXILE, GRAVEYARD)),
    # or one per card slot.
    dests = list(dest) if isinstance(dest, (list, tuple)) else [dest] * n
    zone, pos, oid = list(s.zone), list(s.pos), list(s.oid)
    # CR 400.7: everything the layout says a zone change resets (model/state.py, LAYOUT).
    resets = [(f, v, getattr(s, f)) for f, v in CARD_RESET.items()
              # CR 400.7 / 702.170d (mutant clause): the moved card keeps its plotted status.
              if f != "plotted" or cfg.on("zones.plotted-ends-on-move")]
    cleared: dict[str, list[Any]] = {}  # the reset fields some moving card changes
    # CR 400.7: a new object (mutant clause "zones.fresh-oid": it keeps its old id).
    fresh_oid = cfg.on("zones.fresh-oid")
    new_oids, next_oid = new_objects(s.next_oid, moving)
    entering_stack = s.stack_size
    for j in range(n):
        m = moving[j]
        sym = is_sym(m)
        if not sym and not m:
            continue  # stays where it is (concretely: most cards, most moves)
        d = flashback_exile(cfg, s, j, dests[j], resolving)
        lib_pos = (-_FAR + j) if library_end == TOP else (_FAR + j)
        # Cards put on the stack together go above it in slot order (compact renumbers them).
        new_pos = If(d == LIBRARY, lib_pos, If(d == STACK, _FAR * 2 + entering_stack + j, 0))
        new_oid = new_oids[j] if fresh_oid else oid[j]
        if sym:  # symbolically: each entry is the new value if the card moves, else the old one
            zone[j], pos[j], oid[j] = If(m, d, zone[j]), If(m, new_pos, pos[j]), If(m, new_oid, oid[j])
            for f, v, old in resets:
                vals = cleared.get(f) or cleared.setdefault(f, list(old))
                vals[j] = If(m, v, vals[j])
        else:  # concretely the card moves: the same values, without the choice
            zone[j], pos[j], oid[j] = d, new_pos, new_oid
            for f, v, old in resets:
                if is_sym(old[j]) or old[j] != v:  # a term may hold any value: always reset it
                    (cleared.get(f) or cleared.setdefault(f, list(old)))[j] = v
    s = s.replace(zone=tuple(zone), pos=tuple(pos), oid=tuple(oid), next_oid=next_oid,
                  **{f: tuple(v) for f, v in cleared.items()})
    return compact(cfg, s) if renumber else s


def new_objects(next_oid: Any, moving: Sequence[Any]) -> tuple[list[Any], Any]:
    """The ids of the new objects when the objects ``moving[i]`` says change zones together
    (CR 400.7), and the next free id after them.

    Object ``i`` of the group gets ``next_oid + i``, whether the others move or not, and the
    group takes ``len(moving)`` ids as soon as one of them moves.  The rules read ids only
    by equality and by "newer than every id in use" (``next_oid``), and both hold: each new
    id is fresh and distinct from the others, in the group's order.  Why not number the
    moved objects consecutively: that id is ``next_oid`` plus a running count of the
    objects moved before it, a sum of choices the solver must reason about arithmetically
    at every step; here each id is one addition of a constant.  Z3's BMC of
    ``object-ids-fresh`` on ``flashback`` (every placement, states constrained) reached
    depth 8 in 16 s and depth 10 in 28 s, where the running count took 27-45 s to reach
    depth 8."""
    return [next_oid + i for i in range(len(moving))], next_oid + If(Or(*moving), len(moving), 0)


# Deferred renumbering: why a move may leave its renumbering to a later one
# (``renumber=False``), and when.
#
# :func:`compact` reads of a state only which cards are in a library (per owner) or on the
# stack, with the abilities there, and their order by (position, card before ability, slot);
# it replaces the positions by ranks in that order, so it keeps the order and the
# membership.  Let ``G`` be what a caller does after a move up to the next renumbering (at
# the latest, :func:`settle`'s at the end of every step), and say ``G`` is *blind to
# positions*: it reads no ``pos``, ``ab_pos`` or ``stack_size`` (a term that does, in a
# branch that cannot be taken, is allowed), and puts no card in a library or on the stack,
# no ability on the stack.  Then ``compact(G(compact(y))) == compact(G(y))`` for *every*
# state ``y``, compacted or not: ``G`` changes the same memberships either way and leaves
# the order of the rest alone, and everything else ``G`` computes reads no position.  So the
# move's own renumbering changes nothing the step's result shows, on any state (the Z3
# relation's, whose states before a step are arbitrary, included), and leaving it out spares
# the relation its O(n^2) counting terms, one set per transition (on
# ``examples/scale/04-plot-14``, Faithless Looting's 21 discard choices and every spell's
# resolution each had one).  The callers that pass it name their continuation beside the
# call; ``tests/test_conformance.py`` runs every transition with and without the deferral
# on states whose positions are scrambled and compares the results.  Under the mutant
# clause "zones.stack-renumbered" stack positions pass through :func:`compact` unchanged,
# and the equation still holds.
#
# Two continuations are not blind, and say how they read: a second draw reads its library's
# top, so the draw renumbers that library in between (:func:`renumber_library`, the rest
# left to the later renumbering); a cast's triggers go on the stack after the spell, so
# they are put above every position a move gives instead of at the stack's size
# (:func:`push_ability`, ``renumbered=False``), which gives the order the renumbered state
# would.  The test forces both ways too (every push reading the renumbered size).

#: The fields :func:`compact` reads, and those it writes (the others pass through): the Z3
#: relation's shared compaction and the renumbering lemma read them from here.
COMPACT_READS = ("zone", "pos", "ab_kind", "ab_pos")
#: Of those it writes, the ranks (a count of the entries below, one comparison per pair):
#: ``bench/z3_scale.py`` counts the relation's terms they alone reach.
COMPACT_RANKS = ("pos", "ab_pos")
COMPACT_WRITES = (*COMPACT_RANKS, "stack_size")


def stack_entries(cfg: Config, s: State) -> list[tuple[Any, Any]]:
    """The stack's entries as (on the stack, position) pairs: the cards that can be on it
    (:func:`stack_slots`), then the ability slots (CR 405.1: spells and abilities share one
    stack), as :func:`compact` numbers them."""
    return [(s.zone[j] == STACK, s.pos[j]) for j in stack_slots(cfg)] + \
        [(s.ab_kind[k] != AB_NONE, s.ab_pos[k]) for k in range(cfg.ability_slots)]


@lru_cache(maxsize=64)
def stack_slots(cfg: Config) -> tuple[int, ...]:
    """The card slots that can be on the stack: those whose card can be cast (a land is
    played, not cast: ``Card.castable``, CR 305.1), since only a cast puts a card there
    (``model/casting.py``'s move to ``STACK``, the only one).

    Why: the stack's order (:func:`compact`'s ranks, :func:`stack_entries`) compares every
    pair of its entries, so it is counted over these slots only; a land's place on the stack
    is a case no step reaches, and it cost a term per pair in every relation and the
    renumbering lemma a fact per pair (a real deck is about two fifths lands).  A land put
    on the stack all the same would be no entry of it: ranked 0 and counted nowhere, on
    concrete states as on terms (``tests/test_renumbering.py`` checks that no land reaches
    the stack in reachable states)."""
    return tuple(j for j, sl in enumerate(cfg.slots) if sl.card.castable)


#: Set only while the Z3 relation is built (``mtgcheck.checkers.z3bmc.relation.SharedCompaction``):
#: the same symbolic terms as :func:`compact` builds, built once over template variables and
#: instantiated by substitution (faster), or None for a configuration it was not built for.
#: Never read on concrete states.
SHARED_COMPACT: list[Callable[[Config, State], State | None] | None] = [None]


def compact(cfg: Config, s: State) -> State:
    """Renumber library positions (per owner, 0 = top) and stack positions (0 = bottom).

    Not a rule but bookkeeping: on concrete states it sorts (the same order the symbolic
    counting below defines; the conformance test checks the two agree)."""
    if not symbolic_mode():
        return _compact_concrete(cfg, s)
    shared = SHARED_COMPACT[0]
    if shared is not None and (out := shared(cfg, s)) is not None:
        return out
    n, A = cfg.n, cfg.ability_slots
    # CR 405.2: stack positions say the order objects were put on the stack (mutant clause
    # "zones.stack-renumbered": positions are left as they were set, never renumbered).
    renumber = cfg.on("zones.stack-renumbered")
    pos = list(s.pos)
    stacked = stack_slots(cfg)
    for j in range(n):
        in_lib = s.zone[j] == LIBRARY
        if j not in stacked:  # never on the stack (:func:`stack_slots`)
            pos[j] = If(in_lib, _library_rank(cfg, s, j), 0)
            continue
        below = _stack_below(cfg, s, s.pos[j], j, is_card=True) if renumber else s.pos[j]
        pos[j] = If(in_lib, _library_rank(cfg, s, j), If(s.zone[j] == STACK, below, 0))
    ab_pos = [If(s.ab_kind[k] != AB_NONE, _stack_below(cfg, s, s.ab_pos[k], k, is_card=False) if renumber
                 else s.ab_pos[k], 0)
              for k in range(A)]
    size = Count(on for on, _ in stack_entries(cfg, s))
    return s.replace(pos=tuple(pos), ab_pos=tuple(ab_pos), stack_size=size)


def _library_rank(cfg: Config, s: State, j: int) -> Any:
    """How many cards of card ``j``'s owner's library lie above it (by position, then slot):
    its position once renumbered, if it is in that library."""
    return Count(And(s.zone[k] == LIBRARY, Or(s.pos[k] < s.pos[j], And(s.pos[k] == s.pos[j], k < j)))
                 for k in range(cfg.n) if k != j and cfg.slots[k].owner == cfg.slots[j].owner)


def _library_ranks_concrete(cfg: Config, s: State, pos: list[int], owner: int | None = None) -> None:
    """Write into ``pos`` the rank of every library card (of ``owner``'s library only, if given)."""
    libs: dict[int, list[tuple[int, int]]] = {}
    zone, spos, owners = s.zone, s.pos, _owners(cfg)
    for j in range(cfg.n):
        if zone[j] == LIBRARY and (owner is None or owners[j] == owner):
            libs.setdefault(owners[j], []).append((spos[j], j))
    for lib in libs.values():
        lib.sort()
        for rank, (_, j) in enumerate(lib):
            pos[j] = rank


def renumber_library(cfg: Config, s: State, player: Any) -> State:
    """Renumber ``player``'s library only (every library, if ``player`` is a term): the
    positions :func:`compact` gives its cards; the stack and the other libraries keep theirs.

    For a caller whose continuation reads library positions and nothing else of the
    positions (a second draw): by the argument of the note "Deferred renumbering", with
    the stack and the other libraries in the part left to the later renumbering.  Their
    order and membership are the same as :func:`compact` would leave them, and the
    continuation reads neither; the library it reads has the positions ``compact`` gives.
    So the step's result is the same, and the relation is spared the stack's counting terms
    (O((n + A)^2) for n cards and A ability slots; the library's are O(its cards^2))."""
    pos = list(s.pos)
    if not symbolic_mode():
        _library_ranks_concrete(cfg, s, pos, None if is_sym(player) else player)
        return s.replace(pos=tuple(pos))
    for j in range(cfg.n):
        if is_sym(player) or cfg.slots[j].owner == player:
            pos[j] = If(s.zone[j] == LIBRARY, _library_rank(cfg, s, j), s.pos[j])
    return s.replace(pos=tuple(pos))


def _compact_concrete(cfg: Config, s: State) -> State:
    n = cfg.n
    pos = [0] * n
    entries: list[tuple[int, int, int]] = []  # (pos, kind 0 card / 1 ability, index)
    zone, spos = s.zone, s.pos
    for j in stack_slots(cfg):
        if zone[j] == STACK:
            entries.append((spos[j], 0, j))
    _library_ranks_concrete(cfg, s, pos)
    ab_pos = [0] * cfg.ability_slots
    for k, kind in enumerate(s.ab_kind):
        if kind != AB_NONE:
            entries.append((s.ab_pos[k], 1, k))
    entries.sort()
    # CR 405.2 (mutant clause "zones.stack-renumbered", as in :func:`compact`).
    renumber = cfg.on("zones.stack-renumbered")
    for rank, (raw, kind, idx) in enumerate(entries):
        if kind == 0:
            pos[idx] = rank if renumber else raw
        else:
            ab_pos[idx] = rank if renumber else raw
    return s.replace(pos=tuple(pos), ab_pos=tuple(ab_pos), stack_size=len(entries))


@lru_cache(maxsize=64)
def _owners(cfg: Config) -> tuple[int, ...]:
    return tuple(sl.owner for sl in cfg.slots)


def _stack_below(cfg: Config, s: State, p: Any, me: int, is_card: bool) -> Any:
    """How many stack entries lie below position ``p`` (cards before abilities on ties)."""
    cards = [And(s.zone[k] == STACK, Or(s.pos[k] < p, And(s.pos[k] == p, (not is_card) or k < me)))
             for k in stack_slots(cfg) if not (is_card and k == me)]
    abil = [And(s.ab_kind[k] != AB_NONE, Or(s.ab_pos[k] < p, And(s.ab_pos[k] == p, (not is_card) and k < me)))
            for k in range(cfg.ability_slots) if not ((not is_card) and k == me)]
    # (a Count of none is 0, and ``0 + x`` a sum with a numeral in it: one Count then)
    return Count(cards) + Count(abil) if cards and abil else Count(cards + abil)


def move_one(cfg: Config, s: State, slot: Any, dest: Any, library_end: str = BOTTOM) -> State:
    """Move the card in ``slot`` (concrete or symbolic index) to ``dest``."""
    return move(cfg, s, [slot == j for j in range(cfg.n)], dest, library_end)


def library_count(cfg: Config, s: State, player: Any) -> Any:
    return Count(And(cfg.slots[j].owner == player, s.zone[j] == LIBRARY) for j in range(cfg.n))


def hand_count(cfg: Config, s: State, player: Any) -> Any:
    return Count(And(cfg.slots[j].owner == player, s.zone[j] == HAND) for j in range(cfg.n))


def draw(cfg: Config, s: State, player: Any, count: int = 1, renumber: bool = True) -> State:
    """CR 121.2: draw one card at a time; drawing from an empty library is remembered for
    the state-based action of CR 704.5b.

    Each draw reads the top of the library (position 0), so every draw but the last
    renumbers that library (:func:`renumber_library`: the next draw reads nothing else of
    the positions); ``renumber=False`` leaves the last one's to a later one (as for :func:`move`)."""
    for i in range(count):
        empty = library_count(cfg, s, player) == 0
        s = s.replace(drew_empty=put(s.drew_empty, player, If(empty, 1, at(s.drew_empty, player))))
        last = i == count - 1
        s = move(cfg, s, [And(cfg.slots[j].owner == player, s.zone[j] == LIBRARY, s.pos[j] == 0)
                          for j in range(cfg.n)], HAND, renumber=renumber and last)
        if not last:
            # The next draw reads this library's top, and nothing else of the positions.
            s = renumber_library(cfg, s, player)
    return s


def top_is_card(cfg: Config, s: State, j: int) -> Any:
    """Card slot ``j`` is the top object of the stack."""
    return And(s.zone[j] == STACK, s.pos[j] == s.stack_size - 1)


def top_is_ability(s: State, k: int) -> Any:
    return And(s.ab_kind[k] != AB_NONE, s.ab_pos[k] == s.stack_size - 1)


def push_ability(cfg: Config, s: State, kind: int, ctrl: Any, src: Any, when: Any = True,
                 target: Any = -1, target_oid: Any = 0, renumbered: bool = True) -> State:
    """CR 603.3: put a triggered ability on the stack, in the first free ability slot.

    With no free slot the configuration's bound is hit: ``overflow`` is set so that no
    checker can mistake the truncated run for a pass.  ``kind`` must be one the game can
    have (:func:`.card_rules.game_ability_kinds`: an ability resolves only by those).

    ``renumbered=False``: the positions were not renumbered since a move (a card cast
    onto the stack, its move's renumbering deferred), so ``stack_size`` is not the stack's
    size; the ability is put above every position a move gives (``_FAR * 3`` plus its
    slot: abilities pushed in one step take free slots in increasing order, so they keep
    the order they were pushed in), and the renumbering that follows ranks it and counts
    the stack (the note "Deferred renumbering": the step's result is the one it has when
    the move renumbers first).
    """
    if kind not in game_ability_kinds(cfg):
        raise ValueError(f"ability kind {ABILITY_KINDS[kind]!r} is put on the stack, but no card or plane "
                         "of the configuration declares it (CardRules.triggers, a cast trigger, Planechase)")
    A = cfg.ability_slots
    free = [s.ab_kind[k] == AB_NONE for k in range(A)]
    chosen = [And(when, free[k], *[Not(free[i]) for i in range(k)]) for k in range(A)]
    def upd(field: tuple, v: Any) -> tuple:
        return tuple(If(chosen[k], v, field[k]) for k in range(A))
    s = s.replace(
        ab_kind=upd(s.ab_kind, kind), ab_ctrl=upd(s.ab_ctrl, ctrl), ab_src=upd(s.ab_src, src),
        ab_target=upd(s.ab_target, target), ab_target_oid=upd(s.ab_target_oid, target_oid),
        ab_pos=upd(s.ab_pos, s.stack_size) if renumbered else
        tuple(If(chosen[k], _FAR * 3 + k, s.ab_pos[k]) for k in range(A)),
        stack_size=s.stack_size + If(Or(*chosen), 1, 0) if renumbered else s.stack_size,
        overflow=If(And(when, *[Not(f) for f in free]), 1, s.overflow),
    )
    return s


def remove_ability(cfg: Config, s: State, k: int, when: Any = True, renumber: bool = True) -> State:
    """The ability in slot ``k`` leaves the stack: the layout's ability resets (ABILITY_RESET).
    ``renumber=False``: as for :func:`move`."""
    s = s.replace(**{f: put(getattr(s, f), k, If(when, v, getattr(s, f)[k])) for f, v in ABILITY_RESET.items()})
    return compact(cfg, s) if renumber else s


def flashback_exiles(cfg: Config, s: State, j: int, resolving: bool) -> Any:
    """CR 702.34a: the card in slot ``j`` was cast with flashback, so leaving the stack it is
    exiled instead (mutant clauses "flashback.exile-on-resolve" and "flashback.exile-on-leave"
    each drop the replacement for one way off the stack)."""
    applies = cfg.on("flashback.exile-on-resolve") if resolving else cfg.on("flashback.exile-on-leave")
    return And(s.fb_exile[j] == 1) if applies else False


def flashback_exile(cfg: Config, s: State, j: int, dest: Any, resolving: bool) -> Any:
    """Where card slot ``j`` really goes when a move sends it to ``dest``.

    CR 702.34a: if the flashback cost was paid (``fb_exile``), the card is exiled instead of
    going anywhere else whenever it would leave the stack: on resolving, being countered,
    fizzling or being returned.  Leaving the game with its owner is not "going anywhere"
    (CR 800.4a: the object ceases to exist), so ``OUTSIDE`` stands.  Mutant clauses:
    "flashback.exile-on-resolve" drops the replacement on resolution,
    "flashback.exile-on-leave" on every other way off the stack.
    """
    exiles = flashback_exiles(cfg, s, j, resolving)
    if exiles is False or (isinstance(dest, int) and dest in (OUTSIDE, -1, STACK, EXILE)):
        return dest
    leaves = And(s.zone[j] == STACK, exiles, dest != OUTSIDE, dest != -1, dest != STACK)
    return If(leaves, EXILE, dest)


__all__ = ["move", "move_one", "new_objects", "compact", "draw", "push_ability", "remove_ability", "library_count",
           "hand_count", "flashback_exiles", "top_is_card", "top_is_ability", "TOP", "BOTTOM", "Sum"]
