"""The built-in card pool, read from MTGJSON-shaped records in ``mtgcheck/data/cards.json``.

Costs are parsed once, by :mod:`mtgcheck.model.mana`; the model reads only the facts held
here (types, keywords, costs) and writes each card's effect in its own code.  An unknown
name is an error, never a silent drop.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from contextlib import contextmanager
from functools import cache
from importlib import resources
from typing import Any, Iterator

from .errors import FormatError, UnknownCardError
from .formats import checked, shown_value

from .mana import COLOURS, ManaCost, parse_card_cost, parse_mana_cost

POOL_FILE = "mtgcheck/data/cards.json"
KEYWORDS = frozenset({"Flash", "Flying", "Haste", "Plot", "Flashback", "Kicker", "Prowess"})
TYPES = frozenset({"Artifact", "Creature", "Enchantment", "Instant", "Land", "Sorcery", "Plane"})
SUPERTYPES = frozenset({"Basic", "Legendary"})


@dataclass(frozen=True, slots=True)
class Face:
    """One castable face: the whole card, or one half of a split card (CR 709.3)."""

    name: str
    cost: ManaCost

    @property
    def multicoloured(self) -> bool:
        return len(self.cost.colours) >= 2


@dataclass(frozen=True, slots=True)
class CardDef:
    """The facts of one card of the pool that the rules read."""

    name: str
    types: frozenset[str]
    faces: tuple[Face, ...]  # one face, or the two halves of a split card
    keywords: frozenset[str]
    plot_cost: int | None = None
    flashback_cost: int | None = None
    flashback_life: int = 0
    kicker_cost: int | None = None
    sacrifice_creature: bool = False  # CR 118.8: a mandatory additional cost
    power: int = 0
    toughness: int = 0
    is_test: bool = False
    text: str = ""
    supertypes: frozenset[str] = frozenset()
    #: The costs above with their colours (CR 202.1), which only mana from lands tells apart
    #: (:mod:`.payment`); the amounts above are theirs with X at 0.
    plot_mana: ManaCost | None = None
    flashback_mana: ManaCost | None = None
    kicker_mana: ManaCost | None = None
    #: What a land's mana ability adds (CR 605.1a, 305.6: a basic land's intrinsic ``{T}: Add
    #: {G}``), "" for a card without one.
    produces: str = ""

    @property
    def legendary(self) -> bool:
        """CR 205.4d: the legend rule (CR 704.5j) reads the supertype Legendary."""
        return "Legendary" in self.supertypes

    @property
    def is_split(self) -> bool:
        return len(self.faces) == 2

    @property
    def has_x(self) -> bool:
        return any(f.cost.x for f in self.faces)

    @property
    def mana_value(self) -> int:
        """CR 709.4b: off the stack a split card's mana value is both halves combined."""
        return sum(f.cost.amount for f in self.faces)

    def is_(self, card_type: str) -> bool:
        return card_type in self.types

    @property
    def castable(self) -> bool:
        """CR 305.1: a land is played, not cast (and playing lands is a special action that
        doesn't use the stack, CR 116.2a); every other card of the pool may be cast."""
        return not self.is_("Land")

    @property
    def instant_or_sorcery(self) -> bool:
        return bool(self.types & {"Instant", "Sorcery"})

    @property
    def permanent(self) -> bool:
        """CR 110.4: artifacts, creatures, enchantments and lands are permanent cards."""
        return bool(self.types & {"Artifact", "Creature", "Enchantment", "Land"})

    @property
    def has_flash(self) -> bool:
        return self.is_("Instant") or "Flash" in self.keywords


@dataclass(frozen=True, slots=True)
class PlaneDef:
    """A plane card of the planar deck (CR 311)."""

    name: str
    is_test: bool = False
    text: str = ""


_got = shown_value  # what a FormatError shows after "got": containers only by kind and size


def _field(rec: dict[str, Any], key: str, where: str, kind: type, default: Any = None) -> Any:
    val = rec.get(key, default)
    if val is not default and (not isinstance(val, kind) or (kind is int and isinstance(val, bool))):
        raise FormatError(POOL_FILE, f"{where}.{key}", f"a {kind.__name__}", _got(val))
    return val


def _names(rec: dict[str, Any], key: str, where: str, allowed: frozenset[str]) -> frozenset[str]:
    """A list of names among ``allowed`` (types, keywords); anything else names its index."""
    names = _field(rec, key, where, list, [])
    for i, name in enumerate(names):
        if not isinstance(name, str) or name not in allowed:
            raise FormatError(POOL_FILE, f"{where}.{key}[{i}]", f"one of {', '.join(sorted(allowed))}",
                              _got(name))
    return frozenset(names)


def _costs(text: str, field: str) -> tuple[ManaCost, ...]:
    """The card's cost faces; any ValueError of the parser (e.g. int() of a digit such as
    '²', or of 5,000 digits) is the record's fault, not a bug."""
    try:
        return parse_card_cost(text)
    except ValueError as exc:  # ManaCostError is one
        raise FormatError(POOL_FILE, field, f"a mana cost ({str(exc)[:100]})", text) from None


def _cost(rec: dict[str, Any], key: str, where: str) -> ManaCost | None:
    text = _field(rec, key, where, str)
    if text is None:
        return None
    try:
        return parse_mana_cost(text)
    except ValueError as exc:  # ManaCostError, or int() of a digit such as '²'
        raise FormatError(POOL_FILE, f"{where}.{key}", f"a mana cost ({str(exc)[:100]})", text) from None


def _amount(cost: ManaCost | None) -> int | None:
    return None if cost is None else cost.amount


#: A mana ability's text, as the pool writes the basic lands' (CR 305.6).
_MANA_ABILITY = re.compile(rf"\{{T\}}: Add \{{([{COLOURS}C])\}}\.")


def _produces(types: frozenset[str], text: str, where: str) -> str:
    """The colour a land's mana ability adds; a land whose text has none is refused, so that
    no land silently adds nothing."""
    if "Land" not in types:
        return ""
    m = _MANA_ABILITY.search(text)
    if m is None:
        raise FormatError(POOL_FILE, f"{where}.text", "a land's mana ability, '{T}: Add {C}.' with C one of WUBRGC",
                          text[:60])
    return m.group(1)


def card_from_record(rec: dict[str, Any], where: str) -> CardDef:
    """Build a :class:`CardDef` from one MTGJSON-shaped record, checking every field read."""
    if not isinstance(rec, dict):
        raise FormatError(POOL_FILE, where, "an object", _got(rec))
    name = _field(rec, "name", where, str)
    if not name:
        raise FormatError(POOL_FILE, f"{where}.name", "a non-empty string", name)
    types = _names(rec, "types", where, TYPES)
    if not types:
        raise FormatError(POOL_FILE, f"{where}.types", f"types among {sorted(TYPES)}", "none")
    keywords = _names(rec, "keywords", where, KEYWORDS)
    cost_text = _field(rec, "manaCost", where, str, "")
    costs = _costs(cost_text, f"{where}.manaCost")
    if len(costs) == 2:
        names: list[Any] = [f.get("name") if isinstance(f, dict) else None for f in _field(rec, "faces", where, list, [])]
        if len(names) != 2 or not all(isinstance(n, str) for n in names):
            raise FormatError(POOL_FILE, f"{where}.faces", "two named faces for a split card", _got(names))
        faces = tuple(Face(n, c) for n, c in zip(names, costs, strict=True))
    elif len(costs) == 1:
        faces = (Face(name, costs[0]),)
    else:
        raise FormatError(POOL_FILE, f"{where}.manaCost", "one cost or two split halves", cost_text)

    def stat(key: str) -> int:
        raw = _field(rec, key, where, str, "0")
        if not (raw.isascii() and raw.isdigit() and len(raw) <= 4):  # not '²', not 5,000 digits
            raise FormatError(POOL_FILE, f"{where}.{key}", "a number in a string", raw)
        return int(raw)

    plot, flashback, kicker = (_cost(rec, k, where) for k in ("plot", "flashback", "kicker"))
    text = _field(rec, "text", where, str, "")
    extra = _field(rec, "additionalCost", where, str)
    if extra not in (None, "sacrifice a creature"):
        raise FormatError(POOL_FILE, f"{where}.additionalCost", "'sacrifice a creature' or nothing", extra)
    return CardDef(
        name=name,
        types=types,
        faces=faces,
        keywords=keywords,
        plot_cost=_amount(plot),
        flashback_cost=_amount(flashback),
        flashback_life=_life(rec, where),
        kicker_cost=_amount(kicker),
        sacrifice_creature=extra is not None,
        power=stat("power"),
        toughness=stat("toughness"),
        is_test=bool(_field(rec, "isTest", where, bool, False)),
        text=text,
        supertypes=_names(rec, "supertypes", where, SUPERTYPES),
        plot_mana=plot, flashback_mana=flashback, kicker_mana=kicker,
        produces=_produces(types, text, where),
    )


def _life(rec: dict[str, Any], where: str) -> int:
    life = _field(rec, "flashbackLife", where, int, 0)
    if not 0 <= life <= 1000:
        raise FormatError(POOL_FILE, f"{where}.flashbackLife", "an integer from 0 to 1000", life)
    return life


#: The schema of the pool's format (``mtgcheck/data/cards-1.schema.json``).
SCHEMA = "cards-1"


def pool_from_document(doc: Any) -> tuple[dict[str, CardDef], dict[str, PlaneDef]]:
    """Validate a whole ``mtgcheck.cards/1`` document and index it by name.

    First against the format's schema (:func:`mtgcheck.model.formats.checked`: the
    same words as every format), then what a schema cannot say: a cost that parses, two
    named faces for a split cost, no name twice.
    """
    doc = checked(doc, POOL_FILE, "", schema=SCHEMA, what="a card pool")
    if not isinstance(doc, dict) or doc.get("format") != "mtgcheck.cards/1":
        raise FormatError(POOL_FILE, "format", "'mtgcheck.cards/1'", _got(doc.get("format") if isinstance(doc, dict) else doc))
    cards: dict[str, CardDef] = {}
    for i, rec in enumerate(_field(doc, "cards", "(root)", list, [])):
        card = card_from_record(rec, f"cards[{i}]")
        if card.name in cards:
            raise FormatError(POOL_FILE, f"cards[{i}].name", "a name not used twice", card.name)
        cards[card.name] = card
    planes: dict[str, PlaneDef] = {}
    for i, rec in enumerate(_field(doc, "planes", "(root)", list, [])):
        if not isinstance(rec, dict) or not isinstance(rec.get("name"), str) or rec.get("types") != ["Plane"]:
            raise FormatError(POOL_FILE, f"planes[{i}]", "a plane record with a name and types ['Plane']", _got(rec))
        if rec["name"] in planes or not rec["name"]:
            raise FormatError(POOL_FILE, f"planes[{i}].name", "a non-empty name not used twice", rec["name"])
        planes[rec["name"]] = PlaneDef(rec["name"], bool(_field(rec, "isTest", f"planes[{i}]", bool, False)),
                                       _field(rec, "text", f"planes[{i}]", str, ""))
    return cards, planes


@cache
def _builtin_pool() -> tuple[dict[str, CardDef], dict[str, PlaneDef]]:
    text = resources.files("mtgcheck.data").joinpath("cards.json").read_text(encoding="utf-8")
    return pool_from_document(json.loads(text))


#: Records added for a while by :func:`scratch` (a test's throwaway card), on top of the pool.
_EXTRA: list[tuple[dict[str, CardDef], dict[str, PlaneDef]]] = []


def _pool() -> tuple[dict[str, CardDef], dict[str, PlaneDef]]:
    cards, planes = _builtin_pool()
    for more_cards, more_planes in _EXTRA:
        cards, planes = {**cards, **more_cards}, {**planes, **more_planes}
    return cards, planes


@contextmanager
def scratch(records: list[dict[str, Any]]) -> Iterator[list[CardDef]]:
    """The pool with these card records added (checked like the pool's own), until exit.

    For tests that add a throwaway card the way CONTRIBUTING.md says: its record, then its
    entry in the card registry (:func:`mtgcheck.model.card_rules.scratch`).
    """
    cards, _ = pool_from_document({"format": "mtgcheck.cards/1", "cards": records})
    clash = sorted(set(cards) & set(_builtin_pool()[0]))
    if clash:
        raise ValueError(f"the pool already has {clash[0]!r}")
    _EXTRA.append((cards, {}))
    try:
        yield list(cards.values())
    finally:
        _EXTRA.remove((cards, {}))


def card(name: str) -> CardDef:
    """The card of the pool with this exact name; :class:`UnknownCardError` otherwise."""
    try:
        return _pool()[0][name]
    except KeyError:
        raise UnknownCardError("(card pool)", "card", "a card of the built-in pool", name) from None


def plane(name: str) -> PlaneDef:
    try:
        return _pool()[1][name]
    except KeyError:
        raise UnknownCardError("(card pool)", "plane", "a plane of the built-in pool", name) from None


def card_names() -> frozenset[str]:
    return frozenset(_pool()[0])


def plane_names() -> frozenset[str]:
    return frozenset(_pool()[1])
