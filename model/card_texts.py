"""What each card of the pool does: one entry per card (or face, or plane), registered once.

The card's facts (types, costs, keywords) are in ``mtgcheck/data/cards.json``; its rules
text is here, written with the dual helpers like every rule, so the interpreter and Z3 read
the same words.  Faces are keyed by face name (a split card has one entry per half: CR
709.3); cards by card name; planes by plane name.  See :mod:`.card_rules` for what each kind
of entry holds, and CONTRIBUTING.md for adding a card.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any, Iterable

from .card_rules import (CardRules, CastTrigger, FaceRules, PlaneRules, ability_kind, register_ability,
                         register_card, register_cast_trigger, register_face, register_plane)
from .cards import CardDef, Face
from .common import ask_choice, clear_choice, discarded_from_hand, game_on, pending_cond
from .config import Config
from .logic import And, Count, If, Or, put
from .plot import make_plotted
from .state import (BATTLEFIELD, EXILE, FLASHBACK, FREE,
                    GRAVEYARD, HAND, LIBRARY, NORMAL, P_AVEN_TARGET, P_LOOT, P_LUCK, P_SNAP_TARGET,
                    PL_FACEUP, PLOTTED, STACK, State, branch)
from .targets import deal_damage, still_legal
from .turns import give_priority_to_active
from .vocabulary import Action, Cond, Transition
from .zones import draw, hand_count, move, push_ability

# The cards' triggered abilities, as they show on the stack (ability:NAME).  Allocated in this
# order, which is the order simultaneous cast triggers go on the stack (card_rules.ability_kind).
AB_SHOWOFF = ability_kind("show-off-pump")  # Slickshot Show-Off
AB_PROWESS = ability_kind("prowess")  # CR 702.108a
AB_LILAH_PLOT = ability_kind("lilah-plot")  # Lilah, Undefeated Slickshot
AB_AVEN = ability_kind("aven-exile")  # Aven Interrupter's enters trigger
AB_SNAP = ability_kind("snapcaster-grant")  # Snapcaster Mage's enters trigger


def _owner(cfg: Config, j: int) -> int:
    return cfg.slots[j].owner


def _target_cards(cfg: Config, s: State, j: int) -> list[Any]:
    """For each card slot: is it the target of the spell in slot ``j``?"""
    t, P = s.target[j], cfg.players
    return [t == P + k for k in range(cfg.n)]


# --- damage --------------------------------------------------------------------------------

def _damage(amount: int) -> FaceRules:
    """Deals ``amount`` damage to any target (CR 120.3)."""
    return FaceRules(target="any", resolve=lambda cfg, s, j: deal_damage(cfg, s, s.target[j], amount))


for _name, _amount in (("Lightning Bolt", 3), ("Fire", 2), ("Test Plotted Shock", 2)):
    register_face(_name, _damage(_amount))
# Burst Lightning: 2 damage, 4 if kicked (CR 702.33).
register_face("Burst Lightning", FaceRules(
    target="any", resolve=lambda cfg, s, j: deal_damage(cfg, s, s.target[j], If(s.kicked[j] == 1, 4, 2))))
for _name in ("Blaze", "Test Plotted Fireball"):  # X damage (CR 107.3)
    register_face(_name, FaceRules(target="any", resolve=lambda cfg, s, j: deal_damage(cfg, s, s.target[j], s.x[j])))


# --- spells that act on spells ------------------------------------------------------------

def _counterspell(cfg: Config, s: State, j: int) -> State:
    # CR 701.6a: counter = put into its owner's graveyard (exile instead for a flashback
    # spell: CR 702.34a, in zones.move).
    # Renumbered later: the spell then leaves the stack (resolution.finish_spell), blind to
    # positions (zones: "Deferred renumbering").
    return move(cfg, s, _target_cards(cfg, s, j), GRAVEYARD, renumber=False)


def _remand(cfg: Config, s: State, j: int) -> State:
    # Remand: return target spell to its owner's hand (CR 702.34a applies as for a counter),
    # then draw a card.
    s = move(cfg, s, _target_cards(cfg, s, j), HAND)
    return draw(cfg, s, _owner(cfg, j))


register_face("Counterspell", FaceRules(target="spell", resolve=_counterspell))
register_face("Remand", FaceRules(target="spell", resolve=_remand))


# --- destroy, draw -----------------------------------------------------------------------------

def _destroy(cfg: Config, s: State, j: int) -> State:
    # CR 701.8a: destroy.  Renumbered later, as for Counterspell.
    return move(cfg, s, _target_cards(cfg, s, j), GRAVEYARD, renumber=False)


register_face("Bone Splinters", FaceRules(target="creature", resolve=_destroy, destroys=True))
register_face("Ancient Grudge", FaceRules(target="artifact", resolve=_destroy, destroys=True))


def _draws(count: int) -> FaceRules:
    # The last draw's renumbering is left to a later one: the spell then finishes
    # (resolution.finish_spell), blind to positions up to its own (zones: "Deferred renumbering").
    return FaceRules(resolve=lambda cfg, s, j: draw(cfg, s, _owner(cfg, j), count, renumber=False))


register_face("Think Twice", _draws(1))
# Ice: tapping is not modelled (no rule in scope reads it); it targets a permanent and draws.
register_face("Ice", FaceRules(target="permanent", resolve=lambda cfg, s, j: draw(cfg, s, _owner(cfg, j))))
register_face("Village Rites", _draws(2))
register_face("Memory Deluge", _draws(2))  # simplified to "draw two" (README, Rules covered)


def _deep_analysis(cfg: Config, s: State, j: int) -> State:
    t = s.target[j]
    for q in range(cfg.players):  # target player draws two
        s = branch(t == q, lambda s=s, q=q: draw(cfg, s, q, 2), lambda s=s: s)
    return s


register_face("Deep Analysis", FaceRules(target="player", resolve=_deep_analysis))


def _kicked_rites(cfg: Config, s: State, j: int) -> State:
    p = _owner(cfg, j)
    s = draw(cfg, s, p)
    return branch(s.kicked[j] == 1, lambda s=s: draw(cfg, s, p), lambda s=s: s)


register_face("Test Kicked Rites", FaceRules(resolve=_kicked_rites))


# --- flashback granted -------------------------------------------------------------------------

def _past_in_flames(cfg: Config, s: State, j: int) -> State:
    # Instants and sorceries in your graveyard gain flashback equal to their mana cost until
    # end of turn (CR 514.2 ends it).
    p = _owner(cfg, j)
    mine = [k for k, sl in enumerate(cfg.slots) if sl.owner == p and sl.card.instant_or_sorcery]
    return s.replace(granted_fb=tuple(If(s.zone[k] == GRAVEYARD, 1, s.granted_fb[k]) if k in mine else s.granted_fb[k]
                                      for k in range(cfg.n)))


register_face("Past in Flames", FaceRules(resolve=_past_in_flames))


# --- Make Your Own Luck (CR 702.170c) ----------------------------------------------------------

def _looked_at(cfg: Config, s: State, p: int) -> list[Any]:
    """Make Your Own Luck looks at the top three cards (all of them if fewer: ruling 1)."""
    return [And(s.zone[k] == LIBRARY, s.pos[k] < 3) if sl.owner == p else False for k, sl in enumerate(cfg.slots)]


def _luck(cfg: Config, s: State, j: int) -> State:
    p = _owner(cfg, j)
    looked = _looked_at(cfg, s, p)
    nonland = Or(*[looked[k] for k, sl in enumerate(cfg.slots) if not sl.card.is_("Land") and looked[k] is not False])
    # With a nonland card among them, its owner chooses; with none, nothing to choose: the
    # cards go to hand and the spell is done.
    return branch(nonland, lambda: ask_choice(s, True, P_LUCK, p, j), lambda: move(cfg, s, looked, HAND))


def _luck_choices(cfg: Config, m: int) -> Iterable[Transition]:
    p = _owner(cfg, m)
    mine = [k for k, o in enumerate(cfg.slots) if o.owner == p]
    picks: list[tuple[int, ...]] = [(), *[(k,) for k in mine if k != m]]
    for pick in picks:
        conds = [game_on(cfg), pending_cond(P_LUCK, p, m)]
        if pick:
            k = pick[0]
            if cfg.slots[k].card.is_("Land"):
                # Make Your Own Luck exiles only a nonland card (a land stays for the hand).
                conds.append(Cond("luck.nonland", "702.170c", "only a nonland card can be exiled and plotted",
                                  lambda s: False))
            conds.append(Cond("luck.among-top-three", "702.170c",
                              "the card is not among the top three cards of your library",
                              lambda s, k=k: And(s.zone[k] == LIBRARY, s.pos[k] < 3)))
        yield Transition(Action("choose", p, cards=pick), "choose.luck", "702.170c", tuple(conds),
                         lambda s, pick=pick: _luck_done(cfg, s, p, pick))


def _luck_done(cfg: Config, s: State, p: int, pick: tuple[int, ...]) -> State:
    looked = _looked_at(cfg, s, p)
    s = move(cfg, s, [k in pick for k in range(cfg.n)], EXILE)
    for k in pick:
        s = make_plotted(s, k)  # CR 702.170c: an effect makes the exiled card plotted
    return move(cfg, s, [False if k in pick else looked[k] for k in range(cfg.n)], HAND)


register_face("Make Your Own Luck", FaceRules(resolve=_luck, asks=True))
register_card("Make Your Own Luck", CardRules(choices=_luck_choices, finishes=True))


# --- Faithless Looting (CR 701.9a) -------------------------------------------------------------

def _loot(cfg: Config, s: State, j: int) -> State:
    p = _owner(cfg, j)
    # The last draw's renumbering is settle's: asking and finishing read no position (zones:
    # "Deferred renumbering").
    s = draw(cfg, s, p, 2, renumber=False)
    return ask_choice(s, hand_count(cfg, s, p) > 0, P_LOOT, p, j)  # then discard two


def _loot_choices(cfg: Config, m: int) -> Iterable[Transition]:
    p = _owner(cfg, m)
    others = [k for k, o in enumerate(cfg.slots) if o.owner == p and k != m]
    for size in (1, 2):
        for pick in combinations(others, size):
            conds = [game_on(cfg), pending_cond(P_LOOT, p, m),
                     discarded_from_hand(pick),
                     # CR 701.9a: the hand counted is the discarding player's own.
                     Cond("discard.count", "701.9a", "discard two cards (all of them if you have fewer)",
                          lambda s, pick=pick: hand_count(cfg, s, p) == len(pick) if len(pick) < 2
                          else hand_count(cfg, s, p) >= 2)]
            yield Transition(Action("choose", p, cards=pick), "choose.discard", "701.9a", tuple(conds),
                             # renumbered later: the spell then finishes (choice_transitions), blind
                             # to positions (zones: "Deferred renumbering")
                             lambda s, pick=pick: move(cfg, s, [k in pick for k in range(cfg.n)], GRAVEYARD,
                                                       renumber=False))


register_face("Faithless Looting", FaceRules(resolve=_loot, asks=True))
register_card("Faithless Looting", CardRules(choices=_loot_choices, finishes=True))


# --- enters-the-battlefield triggers with a target (CR 603.3d) ----------------------------------

def _target_choices(pending: int, ability: int, candidates: Any, legal_zone: int) -> Any:
    """The ``choose`` transitions of an enters trigger: pick the target as it goes on the stack."""
    def choices(cfg: Config, m: int) -> Iterable[Transition]:
        p = _owner(cfg, m)
        for k in candidates(cfg, m):
            conds = (game_on(cfg), pending_cond(pending, p, m, cr="603.3d"),
                     Cond("trigger.target", "603.3d", "not a legal target for the triggered ability",
                          lambda s, k=k: s.zone[k] == legal_zone))
            yield Transition(Action("choose", p, cards=(k,)), "choose.target", "603.3d", conds,
                             lambda s, k=k: _target_done(cfg, s, m, k, ability))
    return choices


def _targeting_trigger(enters: Any, pending: int, ability: int, candidates: Any, legal_zone: int,
                       **rules: Any) -> CardRules:
    """A card's rules with an enters trigger that asks for its target as it goes on the stack
    (CR 603.3d): its ability kind named once, for the choices that put it there and for
    ``triggers`` (what a game with the card resolves, ``card_rules.game_ability_kinds``)."""
    return CardRules(enters=enters, triggers=(ability,),
                     choices=_target_choices(pending, ability, candidates, legal_zone), **rules)


def _target_done(cfg: Config, s: State, m: int, k: int, ability: int) -> State:
    s = clear_choice(s)
    s = push_ability(cfg, s, ability, _owner(cfg, m), m, target=cfg.players + k, target_oid=s.oid[k])
    return give_priority_to_active(cfg, s)


def _aven_enters(cfg: Config, s: State, j: int) -> State:
    # CR 603.3d: with no legal target (no spell on the stack), the ability is removed.
    return ask_choice(s, Or(*[s.zone[k] == STACK for k in range(cfg.n)]), P_AVEN_TARGET, _owner(cfg, j), j)


def _aven_tax(cfg: Config, s: State, k: int, caster: int, how: int) -> Any:
    """Spells its controller's opponents cast from graveyards or from exile cost {2} more
    (CR 601.2f: increases add up, one per Aven)."""
    if _owner(cfg, k) == caster or how not in (FLASHBACK, PLOTTED):
        return 0
    return If(s.zone[k] == BATTLEFIELD, 2, 0)


def _aven_exile(cfg: Config, s: State, a: int) -> State:
    # Aven Interrupter: exile target spell; it becomes plotted (CR 702.170c).
    ok = still_legal(cfg, s, "spell", s.ab_target[a], s.ab_target_oid[a])
    hit = [And(ok, s.ab_target[a] == cfg.players + k) for k in range(cfg.n)]
    s = move(cfg, s, hit, EXILE)
    for k in range(cfg.n):
        s = make_plotted(s, k, when=hit[k])
    return s


register_card("Aven Interrupter", _targeting_trigger(
    _aven_enters, P_AVEN_TARGET, AB_AVEN, lambda cfg, m: [k for k, o in enumerate(cfg.slots)
                                                          if k != m and not o.card.is_("Land")], STACK,
    cost_increase=_aven_tax))
register_ability(AB_AVEN, _aven_exile)


def _snap_candidates(cfg: Config, m: int) -> list[int]:
    p = _owner(cfg, m)
    return [k for k, o in enumerate(cfg.slots) if o.owner == p and o.card.instant_or_sorcery]


def _snap_enters(cfg: Config, s: State, j: int) -> State:
    mine = _snap_candidates(cfg, j)
    return ask_choice(s, Or(*[s.zone[k] == GRAVEYARD for k in mine]) if mine else False, P_SNAP_TARGET, _owner(cfg, j), j)


def _snap_grant(cfg: Config, s: State, a: int) -> State:
    # Target instant or sorcery card in your graveyard gains flashback until end of turn.
    t, toid, P = s.ab_target[a], s.ab_target_oid[a], cfg.players
    return s.replace(granted_fb=tuple(If(And(t == P + k, s.zone[k] == GRAVEYARD, s.oid[k] == toid), 1, s.granted_fb[k])
                                      for k in range(cfg.n)))


register_card("Snapcaster Mage", _targeting_trigger(_snap_enters, P_SNAP_TARGET, AB_SNAP, _snap_candidates, GRAVEYARD))
register_ability(AB_SNAP, _snap_grant)


# --- static abilities --------------------------------------------------------------------------

register_card("Omniscience", CardRules(lets_cast_free=True))
# Fblthp: the top card of your library has plot; you may plot nonland cards from there.
register_card("Fblthp, Lost on the Range", CardRules(plots_top_of_library=True))


# --- cast triggers (CR 603.2) and what they do ---------------------------------------------------

def _pump(power: int, toughness: int) -> Any:
    """+N/+M until end of turn on the ability's source (CR 613.4c): power and toughness are
    raised apart, so lethal damage reads the raised toughness (CR 704.5g)."""
    def resolve(cfg: Config, s: State, a: int) -> State:
        src, n = s.ab_src[a], cfg.n
        here = [And(src == k, s.zone[k] == BATTLEFIELD) for k in range(n)]
        return s.replace(power_bonus=tuple(If(here[k], s.power_bonus[k] + power, s.power_bonus[k]) for k in range(n)),
                         toughness_bonus=tuple(If(here[k], s.toughness_bonus[k] + toughness, s.toughness_bonus[k])
                                               for k in range(n)))
    return resolve


def _noncreature(card: CardDef, face: Face, how: int) -> bool:
    return not card.is_("Creature")


# Slickshot Show-Off: whenever you cast a noncreature spell, +2/+0 until end of turn.
register_cast_trigger(CastTrigger(AB_SHOWOFF, lambda c: c.name == "Slickshot Show-Off", _noncreature))
register_ability(AB_SHOWOFF, _pump(2, 0))
# CR 702.108a: prowess, +1/+1 until end of turn whenever you cast a noncreature spell.
register_cast_trigger(CastTrigger(AB_PROWESS, lambda c: "Prowess" in c.keywords, _noncreature))
register_ability(AB_PROWESS, _pump(1, 1))


def _lilah_triggers_on(card: CardDef, face: Face, how: int) -> bool:
    # A multicoloured instant or sorcery spell cast from your hand. CR 709.3: on the stack a
    # split card has only the half cast, so Fire is not multicoloured.
    return card.instant_or_sorcery and face.multicoloured and how in (NORMAL, FREE)


def _lilah_plot(cfg: Config, s: State, a: int) -> State:
    # Exile that spell instead of putting it into your graveyard as it resolves (and it
    # becomes plotted: resolution.finish_spell).
    ok = still_legal(cfg, s, "spell", s.ab_target[a], s.ab_target_oid[a])
    return s.replace(plot_on_resolve=tuple(If(And(ok, s.ab_target[a] == cfg.players + k), 1, s.plot_on_resolve[k])
                                           for k in range(cfg.n)))


register_cast_trigger(CastTrigger(AB_LILAH_PLOT, lambda c: c.name == "Lilah, Undefeated Slickshot",
                                  _lilah_triggers_on, targets_spell=True))
register_ability(AB_LILAH_PLOT, _lilah_plot)


# --- planes (CR 311) -----------------------------------------------------------------------------

def _otaria_chaos(cfg: Config, s: State, k: int, a: int, mine: Any) -> State:
    """Whenever chaos ensues, the planar controller takes an extra turn after this one
    (CR 500.7). Mutant clause "planechase.one-extra-turn-per-chaos": two extra turns."""
    ctrl = s.ab_ctrl[a]
    adds = 1 if cfg.on("planechase.one-extra-turn-per-chaos") else 2
    for _ in range(adds):
        cnt = Count(e != -1 for e in s.extra)
        full = cnt >= cfg.extra_slots
        s = s.replace(extra=tuple(If(And(mine, cnt == i), ctrl, s.extra[i]) for i in range(cfg.extra_slots)),
                      overflow=If(And(mine, full), 1, s.overflow))
    return s.replace(chaos_extra=s.chaos_extra + If(mine, 1, 0))


def _tally_chaos(cfg: Config, s: State, k: int, a: int, mine: Any) -> State:
    """Test plane: chaos puts a counter on it (if it is still the object that triggered)."""
    same = And(mine, s.pl_zone[k] == PL_FACEUP, s.pl_oid[k] == s.ab_target_oid[a])
    return s.replace(pl_counters=put(s.pl_counters, k, If(same, s.pl_counters[k] + 1, s.pl_counters[k])))


def _still_waters_chaos(cfg: Config, s: State, k: int, a: int, mine: Any) -> State:
    """Test plane: chaos gives its controller ("you", CR 311.5) 2 life."""
    ctrl = s.ab_ctrl[a]
    return s.replace(life=tuple(If(And(mine, ctrl == p), s.life[p] + 2, s.life[p]) for p in range(cfg.players)))


register_plane("Otaria", PlaneRules(chaos=_otaria_chaos, grants_flashback=True, gives_extra_turns=True))
register_plane("Test Plane Tally Grounds", PlaneRules(chaos=_tally_chaos))
register_plane("Test Plane Still Waters", PlaneRules(chaos=_still_waters_chaos))
