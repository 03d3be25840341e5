"""The card registry: each card's behaviour in one place, keyed by card, face or plane name.

The facts of a card (types, costs, keywords) are data in ``mtgcheck/data/cards.json``; what
a card *does* is written once, as an entry here, in :mod:`.card_texts`.  The rule modules
ask the registry instead of testing names: casting reads a face's target kind and the cast
triggers, resolution a face's effect and the choices a card asks for, plot whether a card
lets its owner plot from the library, Planechase a plane's chaos ability.

So a card whose behaviour the pool already knows (another burn spell, another counterspell)
is one record in ``cards.json`` and one entry; a new keyword is one :class:`CastTrigger` (or
one entry) registered once.  CONTRIBUTING.md walks through both.

Entries are plain values; :func:`scratch` gives a temporary copy of the registry for tests
that add a throwaway card.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from .ability_kinds import ABILITY_KINDS

if TYPE_CHECKING:
    from .cards import CardDef, Face
    from .config import Config
    from .state import State
    from .vocabulary import Transition

def ability_kind(name: str) -> int:
    """Allocate the next ability kind, shown on the stack as ``ability:NAME``; its number.

    Kinds are numbered in the order they are allocated: cast triggers go on the stack in
    the order of their kinds (CR 603.3b lets their controller order them; the model fixes
    one order, the same whatever the setup), so allocate a card's kinds in that order.
    """
    kind = ABILITY_KINDS.allocate(name)
    _changed()  # a catalogue built before knows fewer kinds
    return kind


#: A face's effect: (configuration, state, card slot of the resolving spell) -> state.
Effect = Callable[["Config", "State", int], "State"]


@dataclass(frozen=True)
class FaceRules:
    """What one castable face does (a whole card, or one half of a split card: CR 709.3)."""

    #: The kind of its one target (``any``, ``player``, ``spell``, ``creature``, ``permanent``,
    #: ``artifact``: :mod:`.targets`), or None for a spell with no target (CR 115.1).
    target: str | None = None
    #: Its effect as it resolves (CR 608.2); the spell then leaves the stack (CR 608.2n).
    resolve: Effect | None = None
    #: The effect may ask a player to choose (a pending choice with this spell as source):
    #: then the spell stays on the stack until the choice, and the choice finishes it.
    asks: bool = False
    #: Its effect destroys its target (CR 701.8a): what a report cites when the target goes
    #: to the graveyard, rather than the state-based action for lethal damage (CR 704.5g).
    destroys: bool = False


@dataclass(frozen=True)
class CardRules:
    """What a card does beyond its faces' effects (a permanent's abilities, mostly)."""

    #: An enters-the-battlefield trigger that asks for its target as it goes on the stack
    #: (CR 603.3d): (configuration, state, slot) -> state with the choice pending.
    enters: Effect | None = None
    #: The ``choose`` transitions the card's effects ask for: (configuration, slot) -> them.
    #: ``finishes`` says whether a choice ends the resolving spell (CR 608.2n).
    choices: Callable[["Config", int], Iterable["Transition"]] | None = None
    finishes: bool = False
    #: Extra mana a spell costs its caster while this permanent is on the battlefield
    #: (CR 601.2f): (configuration, state, this slot, caster, how the spell is cast) -> amount.
    cost_increase: Callable[["Config", "State", int, int, int], Any] | None = None
    #: Its owner may cast nonland cards from hand without paying their mana costs (CR 118.9).
    lets_cast_free: bool = False
    #: Its owner may plot nonland cards from the top of their library (CR 702.170f).
    plots_top_of_library: bool = False
    #: The kinds of triggered ability its own triggers put on the stack (an enters trigger's,
    #: CR 603.3d; a cast trigger names its kind itself): read by :func:`game_ability_kinds`.
    triggers: tuple[int, ...] = ()


@dataclass(frozen=True)
class CastTrigger:
    """A triggered ability of a permanent that triggers when its controller casts a spell
    (CR 603.2): prowess, Slickshot Show-Off's pump, Lilah's plot.

    Cast triggers go on the stack in the order of their ability kinds (then of card slots),
    a fixed order that does not depend on how the setup lists its cards.
    """

    kind: int  # the ability kind on the stack (allocated by :func:`ability_kind`)
    applies_to: Callable[["CardDef"], bool]  # which permanents have this ability
    #: Whether it triggers on this spell: (card cast, face cast, how) -> bool (concrete).
    triggers_on: Callable[["CardDef", "Face", int], bool]
    targets_spell: bool = False  # its target is the spell that made it trigger


@dataclass(frozen=True)
class PlaneRules:
    """What a plane does (CR 311): its chaos ability, and static abilities the model reads."""

    #: Its chaos ability as it resolves: (configuration, state, plane slot, ability slot, mine)
    #: -> state, where ``mine`` says the resolving ability is this plane's (CR 311.7).
    chaos: Callable[["Config", "State", int, int, Any], "State"] | None = None
    #: Instants and sorceries in graveyards have flashback equal to their mana cost (Otaria).
    grants_flashback: bool = False
    #: Its chaos ability gives extra turns (Otaria): a game with it needs extra turns (CR 500.7).
    gives_extra_turns: bool = False


@dataclass
class Registry:
    faces: dict[str, FaceRules] = field(default_factory=dict)
    cards: dict[str, CardRules] = field(default_factory=dict)
    planes: dict[str, PlaneRules] = field(default_factory=dict)
    cast_triggers: list[CastTrigger] = field(default_factory=list)
    #: How each triggered ability kind resolves: (configuration, state, ability slot) -> state.
    abilities: dict[int, Callable[["Config", "State", int], "State"]] = field(default_factory=dict)


_REGISTRY = Registry()
_NONE_FACE, _NONE_CARD, _NONE_PLANE = FaceRules(), CardRules(), PlaneRules()
#: Called when the registry in force changes (the catalogue's cache registers itself here,
#: so that this module needs no import of the catalogue).
ON_CHANGE: list[Callable[[], None]] = []


def registry() -> Registry:
    """The registry in force (the built-in entries are registered by :mod:`.card_texts`,
    which every rule module that reads the registry imports)."""
    return _REGISTRY


def face_rules(name: str) -> FaceRules:
    return registry().faces.get(name, _NONE_FACE)


def card_rules(name: str) -> CardRules:
    return registry().cards.get(name, _NONE_CARD)


def plane_rules(name: str) -> PlaneRules:
    return registry().planes.get(name, _NONE_PLANE)


@lru_cache(maxsize=64)
def game_ability_kinds(cfg: "Config") -> frozenset[int]:
    """The kinds of triggered ability a game of this configuration can put on the stack: its
    cards' own (:attr:`CardRules.triggers`), the cast triggers one of its cards has, and the
    planes' (Planechase).

    Why: an ability resolves by its kind (``resolution.resolve_ability``), a case split over
    the kinds the game can have, in each ability slot.  Over every registered kind, each slot
    of the Z3 relation carried Aven Interrupter's exile and Snapcaster Mage's grant on
    positions with neither card: on ``examples/scale/04-plot-14`` 51k terms against 36k.
    :func:`.zones.push_ability` refuses a kind not in this set, so a card that puts an
    ability on the stack without declaring it fails as the rules are built, never silently.
    """
    from .state import PLANE_SOURCED

    found = {k for sl in cfg.slots for k in card_rules(sl.card.name).triggers}
    found |= {t.kind for t in _REGISTRY.cast_triggers if any(t.applies_to(sl.card) for sl in cfg.slots)}
    if cfg.planechase:
        found |= set(PLANE_SOURCED)
    return frozenset(found)


ON_CHANGE.append(game_ability_kinds.cache_clear)  # a scratch registry has other cards and triggers


def register_face(name: str, rules: FaceRules) -> None:
    _unique(_REGISTRY.faces, name, "face")
    _REGISTRY.faces[name] = rules


def register_card(name: str, rules: CardRules) -> None:
    _unique(_REGISTRY.cards, name, "card")
    if rules.choices is not None:
        rules = replace(rules, choices=_named(name, rules.choices))
    _REGISTRY.cards[name] = rules
    _changed()


def _named(name: str, choices: Callable[["Config", int], Iterable["Transition"]]
           ) -> Callable[["Config", int], Iterable["Transition"]]:
    """The card's ``choose`` transitions, each marked as this card's own effect
    (``Transition.card``), so that a refusal or a divergence names the card."""
    def marked(cfg: "Config", m: int) -> Iterator["Transition"]:
        for t in choices(cfg, m):
            yield t if t.card else replace(t, card=name)
    return marked


def register_plane(name: str, rules: PlaneRules) -> None:
    _unique(_REGISTRY.planes, name, "plane")
    _REGISTRY.planes[name] = rules


def register_cast_trigger(trigger: CastTrigger) -> None:
    if any(t.kind == trigger.kind for t in _REGISTRY.cast_triggers):
        raise ValueError(f"a cast trigger of ability kind {trigger.kind} is registered twice")
    _REGISTRY.cast_triggers.append(trigger)
    _REGISTRY.cast_triggers.sort(key=lambda t: t.kind)
    _changed()


def register_ability(kind: int, resolve: Callable[["Config", "State", int], "State"]) -> None:
    _unique(_REGISTRY.abilities, kind, "ability kind")
    _REGISTRY.abilities[kind] = resolve


def _changed() -> None:
    """A registration can change what a configuration's cards do (its ability kinds,
    :func:`game_ability_kinds`; its catalogue): the per-configuration caches start again."""
    for hook in ON_CHANGE:
        hook()


def _unique(table: dict[Any, Any], key: Any, what: str) -> None:
    """An entry registered twice is a mistake (two modules writing one card's rules)."""
    if key in table:
        raise ValueError(f"{what} {key!r} is registered twice")


@contextmanager
def scratch() -> Iterator[Registry]:
    """A temporary copy of the registry (for a test's throwaway card), restored on exit.

    The catalogue is cached per configuration, so it is cleared on the way in and out: a
    configuration built inside sees the scratch entries, and none leaks out.
    """
    global _REGISTRY
    saved = _REGISTRY
    kinds = len(ABILITY_KINDS)
    _REGISTRY = Registry(dict(saved.faces), dict(saved.cards), dict(saved.planes), list(saved.cast_triggers),
                         dict(saved.abilities))
    _changed()
    try:
        yield _REGISTRY
    finally:
        _REGISTRY = saved
        ABILITY_KINDS.restore(kinds)
        _changed()
