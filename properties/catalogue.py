"""The property catalogue: the rules' invariants, each with its CR rules (issue: checkers).

Each predicate reads the state vector through the dual helpers, so every checker (graph,
Hypothesis, Z3) evaluates the very same text.  Transition properties branch in plain Python
on the action (it is concrete in every transition of the catalogue).
"""

from __future__ import annotations

from typing import Any

from mtgcheck.model.common import is_main_phase
from mtgcheck.model.logic import And, Count, Implies, Not, Or, is_sym, live
from mtgcheck.model.payment import POOL_FIELDS
from mtgcheck.model.state import (BATTLEFIELD, EXILE, FLASHBACK, FREE, GRAVEYARD, HAND, NORMAL, OUTSIDE, PL_DECK,
                                  PLOTTED, STACK)

from mtgcheck.model.turns import MAX_HAND_SIZE, discarders
from mtgcheck.model.zones import hand_count, stack_entries

from .base import Property

TRUE = True


def _cast_of(t, how: int | None = None) -> bool:  # type: ignore[no-untyped-def]
    a = t.action
    return a.verb == "cast" and (how is None or a.how == how)


# --- plot ----------------------------------------------------------------------------------

def plot_timing(cfg, s, t, s2):  # type: ignore[no-untyped-def]
    if t.action.verb != "plot":
        return TRUE
    # CR 702.170a: during your main phase, with the stack empty (the variant 116.2k differs)
    return And(is_main_phase(s), s.stack_size == 0, s.active == t.action.player)


def plot_no_stack(cfg, s, t, s2):  # type: ignore[no-untyped-def]
    if t.action.verb != "plot":
        return TRUE
    # CR 702.170b / 116.1: a special action: nothing is put on the stack
    return s2.stack_size == s.stack_size


def plotted_not_same_turn(cfg, s, t, s2):  # type: ignore[no-untyped-def]
    if not _cast_of(t, PLOTTED):
        return TRUE
    j = t.action.card
    # CR 702.170d: on a later turn than the one it became plotted
    return And(s.plotted[j] != 0, s.plotted[j] < s.turn)


def plotted_owner_main_empty(cfg, s, t, s2):  # type: ignore[no-untyped-def]
    if not _cast_of(t, PLOTTED):
        return TRUE
    owner = cfg.slots[t.action.card].owner
    # CR 702.170d (ruling 6: instants and flash cards too)
    return And(t.action.player == owner, s.active == owner, is_main_phase(s), s.stack_size == 0)


def plotted_only_in_exile(cfg, s):  # type: ignore[no-untyped-def]
    # CR 400.7: a plotted card that leaves exile is a new object, no longer plotted
    return And(*[Implies(s.plotted[j] != 0, s.zone[j] == EXILE) for j in range(cfg.n)])


def luck_plots_at_most_one(cfg, s, t, s2):  # type: ignore[no-untyped-def]
    if t.rule != "choose.luck":
        return TRUE
    newly = [And(s.plotted[j] == 0, s2.plotted[j] != 0) for j in range(cfg.n)]
    from mtgcheck.model.logic import Count

    nonland = And(*[Implies(newly[j], TRUE if not sl.card.is_("Land") else False) for j, sl in enumerate(cfg.slots)])
    return And(Count(newly) <= 1, nonland)


# --- costs ---------------------------------------------------------------------------------

def x_zero_when_free(cfg, s):  # type: ignore[no-untyped-def]
    # CR 107.3b: cast without paying its mana cost → X is 0
    return And(*[Implies(And(s.zone[j] == STACK, Or(s.how[j] == PLOTTED, s.how[j] == FREE)), s.x[j] == 0)
                 for j in range(cfg.n)])


def mandatory_cost_paid(cfg, s, t, s2):  # type: ignore[no-untyped-def]
    if not _cast_of(t) or not cfg.slots[t.action.card].card.sacrifice_creature:
        return TRUE
    k = t.action.sacrifice
    # CR 118.8: a mandatory additional cost is paid, even for a free or plotted cast
    if k < 0:
        return False
    return And(s.zone[k] == BATTLEFIELD, s2.zone[k] == GRAVEYARD)


def one_alternative_cost(cfg, s):  # type: ignore[no-untyped-def]
    # CR 118.9a: at most one alternative cost: the way a spell was cast is one of the four,
    # and only a flashback spell carries the flashback exile
    return And(*[Implies(s.zone[j] == STACK, And(s.how[j] >= NORMAL, s.how[j] <= FREE,
                                                 Implies(s.fb_exile[j] == 1, s.how[j] == FLASHBACK)))
                 for j in range(cfg.n)])


# --- flashback -----------------------------------------------------------------------------

def flashback_ends_in_exile(cfg, s, t, s2):  # type: ignore[no-untyped-def]
    # CR 702.34a: whenever a flashback spell leaves the stack, it goes to exile
    return And(*[Implies(And(s.zone[j] == STACK, s.fb_exile[j] == 1, s2.zone[j] != STACK),
                         Or(s2.zone[j] == EXILE, s2.zone[j] == OUTSIDE)) for j in range(cfg.n)])


def flashback_keeps_timing(cfg, s, t, s2):  # type: ignore[no-untyped-def]
    if not _cast_of(t, FLASHBACK) or cfg.slots[t.action.card].card.has_flash:
        return TRUE
    # CR 702.34a / 307.1: a sorcery cast with flashback keeps sorcery timing
    return And(s.active == t.action.player, is_main_phase(s), s.stack_size == 0)


def normal_cast_not_exiled(cfg, s, t, s2):  # type: ignore[no-untyped-def]
    if not _cast_of(t, NORMAL):
        return TRUE
    return s2.fb_exile[t.action.card] == 0


# --- Planechase, leaving, extra turns -----------------------------------------------------

def controller_active_or_successor(cfg, s):  # type: ignore[no-untyped-def]
    if not cfg.planechase:
        return TRUE
    # CR 901.6 / 800.4p: the active player, unless the active player has left (then the
    # successor keeps it until a different player becomes the active player)
    return Or(s.game_over == 1, s.planar_ctrl == s.active, _in(cfg, s, s.active) == 0)


def _in(cfg, s, p):  # type: ignore[no-untyped-def]
    from mtgcheck.model.logic import at

    return at(s.in_game, p)


def controller_in_game(cfg, s):  # type: ignore[no-untyped-def]
    if not cfg.planechase:
        return TRUE
    return Or(s.game_over == 1, _in(cfg, s, s.planar_ctrl) == 1)


def die_timing(cfg, s, t, s2):  # type: ignore[no-untyped-def]
    if t.action.verb != "roll":
        return TRUE
    # CR 901.9: active player, main phase, empty stack
    return And(s.active == t.action.player, is_main_phase(s), s.stack_size == 0)


def die_cost_rises(cfg, s, t, s2):  # type: ignore[no-untyped-def]
    if t.action.verb != "roll":
        return TRUE
    p = t.action.player
    # CR 116.2i: {N}, N = rolls already made this turn
    return And(s2.mana[p] == s.mana[p] - s.rolls, s2.rolls == s.rolls + 1)


def facedown_no_counters(cfg, s):  # type: ignore[no-untyped-def]
    # CR 901.7a: a face-down plane is a new object without counters
    return And(*[Implies(s.pl_zone[k] == PL_DECK, s.pl_counters[k] == 0) for k in range(len(cfg.planes))])


def left_player_no_turn(cfg, s, t, s2):  # type: ignore[no-untyped-def]
    # CR 800.4k: a player who left the game begins no turn (one who loses during the
    # turn's first draw began it in the game: compare with the state before)
    return Implies(s2.turn != s.turn, _in(cfg, s, s2.active) == 1)


def chaos_one_extra_each(cfg, s, t, s2):  # type: ignore[no-untyped-def]
    # Otaria (ruling 10): each chaos ability resolved adds exactly one extra turn
    from mtgcheck.model.logic import Count

    queued = lambda st: Count(e != -1 for e in st.extra)  # noqa: E731
    # A full extra-turn queue is the configuration's bound, flagged as such (overflow), not a rule.
    return Implies(And(s.turn == s2.turn, s2.chaos_extra == s.chaos_extra + 1, s2.overflow == 0),
                   queued(s2) == queued(s) + 1)


# --- the state's own sanity ----------------------------------------------------------------

def zones_valid(cfg, s):  # type: ignore[no-untyped-def]
    return And(*[And(s.zone[j] >= 0, s.zone[j] <= OUTSIDE) for j in range(cfg.n)])


def stack_ordered(cfg, s):  # type: ignore[no-untyped-def]
    """The stack positions are exactly 0..size-1, each used once.

    How Z3 proves it: every step ends by renumbering the stack (``model/settle.py``), and
    ``compact``'s positions are ranks under a strict total order, a permutation of
    0..size-1 for any input.  ``mtgcheck/checkers/z3bmc/renumbering.py`` proves that lemma
    once per configuration, in queries of a few terms each, and instantiates it at the state
    after a step: no induction hypothesis and no case split by transition, whose cost grew
    with the slots (out of its limit from 12 slots on)."""
    # An entry off the stack says nothing here: ``live`` drops it when that is known.
    entries = live(stack_entries(cfg, s))
    size_ok = s.stack_size == Count(on for on, _ in entries)
    each = [Implies(on, And(p >= 0, p < s.stack_size, Count(And(o2, p2 == p) for o2, p2 in entries) == 1))
            for on, p in entries]
    return And(size_ok, *each)


def fresh_ids(cfg, s, t, s2):  # type: ignore[no-untyped-def]
    # CR 400.7: a card that changes zones is a new object (a fresh id, never used before)
    return And(*[Implies(s.zone[j] != s2.zone[j], And(s2.oid[j] != s.oid[j], s2.oid[j] >= s.next_oid))
                 for j in range(cfg.n)])


# --- mana from lands (Config.lands) --------------------------------------------------------

def one_land_per_turn(cfg, s, t, s2):  # type: ignore[no-untyped-def]
    if t.action.verb != "play":
        return TRUE
    # CR 305.2: one land a turn; CR 305.1: in your own main phase, with an empty stack
    return And(s.land_played == 0, s.active == t.action.player, is_main_phase(s), s.stack_size == 0)


def pool_holds_what_was_paid(cfg, s):  # type: ignore[no-untyped-def]
    """CR 107.4a / 601.2h: no mana is spent that the pool does not hold, of the right colour:
    no colour's pool is ever below zero, and together they are part of the pool's amount."""
    pools = [getattr(s, f)[p] for f in POOL_FIELDS.values() for p in range(cfg.players)]
    return And(*[v >= 0 for v in pools], *[s.mana[p] >= sum(getattr(s, f)[p] for f in POOL_FIELDS.values())
                                             for p in range(cfg.players)])


def pool_empties(cfg, s, t, s2):  # type: ignore[no-untyped-def]
    if not cfg.lands:  # abstract mana is an amount for the turn, not a pool
        return TRUE
    # CR 500.4: when a step or phase ends, unused mana empties from each player's pool
    return Implies(Or(s2.step != s.step, s2.turn != s.turn), And(*[s2.mana[p] == 0 for p in range(cfg.players)]))


def kept_in_hand(cfg, s, s2, p):  # type: ignore[no-untyped-def]
    """The cards player ``p`` holds both before and after a transition: what they kept of
    their hand (a card drawn meanwhile was in the library before, one discarded is gone)."""
    return Count(And(sl.owner == p, s.zone[j] == HAND, s2.zone[j] == HAND) for j, sl in enumerate(cfg.slots))


def hand_size_after_cleanup(cfg, s, t, s2):  # type: ignore[no-untyped-def]
    if not discarders(cfg):  # nobody owns more cards than the maximum hand size
        return TRUE
    # CR 514.1 / 402.2: a turn ends with its player holding at most seven cards of their hand
    # (the next turn's draw, CR 504.1, comes after and is not counted)
    return Implies(s2.turn != s.turn, kept_in_hand(cfg, s, s2, s.active) <= MAX_HAND_SIZE)


def game_goes_on(cfg, s):  # type: ignore[no-untyped-def]
    """No dead end: unless the game is over, some player has a legal action other than leaving.

    CR 117.3 / 117.4: some player holds priority and may pass, or a choice waits for a player
    who can answer it (CR 608.2c; one with no answer is removed, 603.3d); a player who has
    left the game no longer holds up anyone (800.4a), and the last one left wins (104.2a).
    The disjunction is the catalogue's own guards (the rule set's, mutants' too), so "legal"
    means exactly what ``legal_actions`` lists: on a concrete state the catalogue's compiled
    guard tree answers, on a symbolic one the same conditions are built as terms.
    """
    from mtgcheck.model.actions import catalogue

    cat = catalogue(cfg)
    if not is_sym(s.game_over):
        return s.game_over == 1 or any(cat.transitions[i].action.verb != "leave" for i in cat.enabled(s))
    return Or(s.game_over == 1, *[And(*[c.test(s) for c in t.conds]) for t in cat.transitions if t.action.verb != "leave"])


P = Property
PROPERTIES: tuple[Property, ...] = (
    P("plot-only-main-phase-empty-stack", ("702.170a",), "A card is plotted only during its owner's main phase with an empty stack.",
      "transition", plot_timing, lambda c, s, t, s2: t.action.verb == "plot"),
    P("plot-uses-no-stack", ("702.170b", "116.1"), "Plotting is a special action: it puts nothing on the stack.",
      "transition", plot_no_stack, lambda c, s, t, s2: t.action.verb == "plot"),
    P("plotted-never-cast-same-turn", ("702.170d",), "A plotted card is never cast the turn it became plotted.",
      "transition", plotted_not_same_turn, lambda c, s, t, s2: _cast_of(t, PLOTTED)),
    P("plotted-cast-only-by-owner-main-phase-empty-stack", ("702.170d",),
      "A plotted card is cast only by its owner, in their main phase, with an empty stack (instants and flash too).",
      "transition", plotted_owner_main_empty, lambda c, s, t, s2: _cast_of(t, PLOTTED)),
    P("plotted-leaves-exile-unplotted", ("400.7",), "Only a card in exile is plotted: leaving exile ends it.",
      "state", plotted_only_in_exile, lambda c, s: Or(*[s.plotted[j] != 0 for j in range(c.n)])),
    P("make-your-own-luck-plots-at-most-one-nonland", ("702.170c",), "Make Your Own Luck plots at most one nonland card.",
      "transition", luck_plots_at_most_one, lambda c, s, t, s2: t.rule == "choose.luck"),
    P("x-is-zero-when-cast-free", ("107.3b",), "X is 0 on a spell cast without paying its mana cost.",
      "state", x_zero_when_free, lambda c, s: Or(*[And(s.zone[j] == STACK, Or(s.how[j] == PLOTTED, s.how[j] == FREE))
                                                   for j in range(c.n)])),
    P("one-alternative-cost", ("118.9a",), "A spell is cast in exactly one way, with at most one alternative cost.",
      "state", one_alternative_cost, lambda c, s: Or(*[s.zone[j] == STACK for j in range(c.n)])),
    P("mandatory-additional-costs-paid", ("118.8",), "A mandatory additional cost (sacrifice a creature) is always paid.",
      "transition", mandatory_cost_paid,
      lambda c, s, t, s2: _cast_of(t) and c.slots[t.action.card].card.sacrifice_creature),
    P("flashback-spell-always-ends-in-exile", ("702.34a",), "A spell cast with flashback always leaves the stack to exile.",
      "transition", flashback_ends_in_exile,
      lambda c, s, t, s2: Or(*[And(s.zone[j] == STACK, s.fb_exile[j] == 1, s2.zone[j] != STACK) for j in range(c.n)])),
    P("flashback-keeps-timing", ("702.34a", "307.1"), "A sorcery cast with flashback keeps sorcery timing.",
      "transition", flashback_keeps_timing,
      lambda c, s, t, s2: _cast_of(t, FLASHBACK) and not c.slots[t.action.card].card.has_flash),
    P("normal-cast-not-exiled", ("702.34a",), "A card cast normally is not marked for the flashback exile.",
      "transition", normal_cast_not_exiled, lambda c, s, t, s2: _cast_of(t, NORMAL)),
    P("planar-controller-is-active-player-or-successor", ("901.6", "800.4p"),
      "The planar controller is the active player, unless the active player has left.",
      "state", controller_active_or_successor, lambda c, s: c.planechase),
    P("planar-controller-in-game", ("901.6",), "The planar controller is a player still in the game.",
      "state", controller_in_game, lambda c, s: c.planechase),
    P("planar-die-only-active-player-main-empty-stack", ("901.9",),
      "Only the active player rolls the planar die, in a main phase, with an empty stack.",
      "transition", die_timing, lambda c, s, t, s2: t.action.verb == "roll"),
    P("planar-die-cost-rises", ("116.2i",), "The N-th extra roll in a turn costs N.",
      "transition", die_cost_rises, lambda c, s, t, s2: t.action.verb == "roll"),
    P("face-down-plane-loses-counters", ("901.7a",), "A face-down plane has no counters.",
      "state", facedown_no_counters, lambda c, s: c.planechase),
    P("chaos-gives-one-extra-turn-each", ("500.7",), "Each Otaria chaos ability adds exactly one extra turn.",
      "transition", chaos_one_extra_each, lambda c, s, t, s2: s2.chaos_extra == s.chaos_extra + 1),
    P("left-player-begins-no-turn", ("800.4k",), "A player who left the game begins no turn.",
      "transition", left_player_no_turn, lambda c, s, t, s2: s2.turn != s.turn),
    P("every-card-in-one-zone", ("400.1",), "Every card is in exactly one zone.", "state", zones_valid),
    P("stack-ordered", ("405.2",), "Stack positions are 0..size-1, each used once.", "state", stack_ordered,
      lambda c, s: s.stack_size > 0),
    P("object-ids-fresh", ("400.7",), "A card that changes zones gets a fresh object id.", "transition", fresh_ids,
      lambda c, s, t, s2: Or(*[s.zone[j] != s2.zone[j] for j in range(c.n)])),
    P("one-land-per-turn", ("305.2", "305.1"),
      "A player plays at most one land a turn, in their own main phase with an empty stack.",
      "transition", one_land_per_turn, lambda c, s, t, s2: t.action.verb == "play"),
    P("mana-paid-with-its-colours", ("107.4a", "601.2h"),
      "Mana spent is mana the pool holds, of the colours the cost asks: no pool goes below zero.",
      "state", pool_holds_what_was_paid, lambda c, s: c.lands),
    P("mana-pool-empties-between-steps", ("500.4",), "With lands, unused mana empties when a step ends.",
      "transition", pool_empties, lambda c, s, t, s2: And(c.lands, Or(s2.step != s.step, s2.turn != s.turn))),
    P("hand-size-after-cleanup", ("514.1", "402.2"),
      "A turn ends with its player holding no more than their maximum hand size, seven cards "
      "(before the next turn's draw).",
      "transition", hand_size_after_cleanup,
      lambda c, s, t, s2: And(s2.turn != s.turn, hand_count(c, s, s.active) > MAX_HAND_SIZE)),
    P("no-deadlock", ("117.3", "117.4", "603.3d", "800.4a", "104.2a"),
      "Unless the game is over, some player has a legal action other than leaving the game.", "state", game_goes_on,
      lambda c, s: s.game_over == 0),
)

BY_ID = {p.id: p for p in PROPERTIES}
__all__ = ["PROPERTIES", "BY_ID", "Property", "Not", "GRAVEYARD", "Any"]
