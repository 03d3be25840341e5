"""The formats layer: every public format's JSON Schema, and its errors in plain words.

Each public format (scenario, configuration, counterexample, manifest, card pool, engine
protocol) has a JSON Schema in ``mtgcheck/data/<name>.schema.json``; its reader checks a
document against it here, then makes the cross-field checks a schema cannot state.  A
schema error becomes a :class:`~mtgcheck.errors.FormatError` on one line, naming the file,
the field (``setup.cards[1].card``), what was expected and what was found, in the same
words whatever the format:

>>> pool = {"format": "mtgcheck.cards/1", "cards": [{"name": 3, "types": ["Instant"]}]}
>>> problems = schema_problems(pool, "pool.json", "", schema="cards-1", what="a card pool")
>>> str(problems[0])
'pool.json: cards[0].name: expected a string, got 3'

It lives with the model (as its errors do, :mod:`mtgcheck.model.errors`) because the card
pool is read by the model, which imports nothing from the harness; the harness reaches it
as :mod:`mtgcheck.formats`.  Every schema of ``mtgcheck/data`` is registered under its
``$id``, so one format may build on another (``urn:mtgcheck:schema:scenario-1#/$defs/setup``).
"""

from __future__ import annotations

import copy
import functools
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from typing import TYPE_CHECKING, Any

from .errors import FormatError, one_line

if TYPE_CHECKING:  # jsonschema is imported when a document is first checked, not with the model
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
    from jsonschema.exceptions import ValidationError  # type: ignore[import-untyped]
    from referencing import Registry

__all__ = [
    "SCHEMAS",
    "Said",
    "describe",
    "field_path",
    "load_schema",
    "checked",
    "normalized",
    "schema",
    "schema_file",
    "schema_problems",
    "shown_value",
    "validator",
]

#: Every public format's schema, by name: ``mtgcheck/data/<name>.schema.json``.
SCHEMAS = ("scenario-1", "config-1", "counterexample-1", "manifest-1", "cards-1", "engine-protocol-1")

_PLAIN_KEY_RE = re.compile(r"[A-Za-z0-9_-]+")

# Plain words for the schemas' patterns and types: (one, several).
PATTERN_WORDS: dict[str, tuple[str, str]] = {
    "^[0-9]{3}(\\.[0-9]+[a-z]?)?$": ("a CR rule number such as 702.170d, 601.2 or 702",
                                     "CR rule numbers such as 702.170d, 601.2 or 702"),
    "^[A-Za-z0-9_-]+$": ("a card id (letters, digits, _ and - only)",
                         "card ids (letters, digits, _ and - only)"),
    "^([A-Za-z0-9_-]+|player:[0-9]+)$": ('a card id or "player:N"', 'card ids or "player:N" strings'),
    "^[0-9]{1,4}$": ("a number in a string (at most 4 digits)", "numbers in strings (at most 4 digits)"),
    "^[0-9a-f]{64}$": ("a SHA-256 in hexadecimal (64 digits)", "SHA-256 digests in hexadecimal"),
    "^ability:[a-z0-9-]+$": ("ability:KIND", "ability:KIND strings"),
}
TYPE_WORDS: dict[str, tuple[str, str]] = {
    "integer": ("an integer", "integers"),
    "number": ("a number", "numbers"),
    "string": ("a string", "strings"),
    "array": ("a list", "lists"),
    "object": ("an object", "objects"),
    "boolean": ("true or false", "true or false values"),
    "null": ("null", "nulls"),
}


class Said(str):
    """Text shown as is after "got" (FormatError shows ``got`` with repr()).

    A ``str``, so ``error.got`` stays a plain value for callers, but shown without quotes,
    so that "got a list of 3 items" or "got null" don't read as if the file held that text.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return str(self)


# ---------------------------------------------------------------------------------------
# The schemas


def schema_file(name: str) -> str:
    """The file name of a schema in ``mtgcheck/data`` (``scenario-1.schema.json``)."""
    return f"{name}.schema.json"


@functools.cache
def schema(name: str) -> dict[str, Any]:
    """The schema ``name`` (one of :data:`SCHEMAS`), read once; do not change it."""
    text = resources.files("mtgcheck.data").joinpath(schema_file(name)).read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


_schema_named = schema  # schema_problems takes a parameter of that name


def load_schema(name: str) -> dict[str, Any]:
    """The schema ``name`` as a fresh dict (callers may change it)."""
    return copy.deepcopy(schema(name))


@functools.cache
def _registry() -> Registry:
    """Every schema, by its ``$id``: a ``urn:mtgcheck:schema:...`` reference resolves offline."""
    from referencing import Registry, Resource

    return Registry().with_resources((schema(name)["$id"], Resource.from_contents(schema(name)))
                                     for name in SCHEMAS)


@functools.cache
def _by_id() -> dict[str, dict[str, Any]]:
    return {schema(name)["$id"]: schema(name) for name in SCHEMAS}


@functools.cache
def validator(name: str, definition: str | None = None) -> Draft202012Validator:
    """A Draft 2020-12 validator of the schema ``name`` (or of its ``$defs/<definition>``),
    resolving the other schemas by ``$id``."""
    from jsonschema import Draft202012Validator

    if definition is None:
        return Draft202012Validator(schema(name), registry=_registry())
    pointer = {"$ref": f"{schema(name)['$id']}#/$defs/{definition}"}
    return Draft202012Validator(pointer, registry=_registry())


# ---------------------------------------------------------------------------------------
# Field paths and plain words


def field_path(prefix: str, path: Iterable[str | int]) -> str:
    """``setup.cards[1].card`` for the path ("setup", "cards", 1, "card") after ``prefix``."""
    out = prefix
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _PLAIN_KEY_RE.fullmatch(part):
            out += f".{part}" if out else part
        else:  # a key with spaces, dots or control characters: quoted, escaped, one line
            out += f"[{json.dumps(part)}]"
    return out or "(top level)"


def shown_value(value: object) -> object:
    """What to show after "got": scalars as they are, containers summarized.

    A whole list or object would make a long line (and repr() of a deeply nested value
    can itself fail), and the field already says where it is.
    """
    if value is None:
        return Said("null")
    if isinstance(value, bool):
        return Said("true" if value else "false")
    if isinstance(value, (str, int, float)):
        return value
    if isinstance(value, list):
        return Said(f"a list of {len(value)} item{'' if len(value) == 1 else 's'}")
    if isinstance(value, dict):
        return Said("an object")
    return Said(f"a Python {type(value).__name__}")


def checked(doc: object, shown: str, prefix: str = "", *, schema: str, what: str,
            definition: str | None = None, skip: Sequence[str] = ()) -> Any:
    """The document once its schema holds (else its first problem is raised), with integral
    floats made ints: every reader of a format then gets ``2.0`` as the ``2`` the schema
    accepted as an integer, instead of refusing it in a check of its own, or keeping a float."""
    problems = schema_problems(doc, shown, prefix, schema=schema, definition=definition, what=what, skip=skip)
    if problems:
        raise problems[0]
    return normalized(doc)


def normalized(value: object) -> object:
    """A copy with integral floats made ints: JSON Schema counts 2.0 as an integer.

    A loop with a stack, not recursion: a document may be nested as deeply as the strict
    reader allows (:data:`mtgcheck.jsonread.MAX_DEPTH`, 512), past what Python's recursion
    limit leaves to a recursive copy.
    """

    def leaf(item: object) -> object:
        return int(item) if isinstance(item, float) and item.is_integer() else item

    if not isinstance(value, (list, dict)):
        return leaf(value)
    root: list[object] | dict[str, object] = [] if isinstance(value, list) else {}
    todo: list[tuple[object, list[object] | dict[str, object]]] = [(value, root)]
    while todo:
        source, copy_ = todo.pop()
        items: Iterable[tuple[Any, object]] = (enumerate(source) if isinstance(source, list)
                                               else source.items())  # type: ignore[attr-defined]
        for key, item in items:
            if isinstance(item, (list, dict)):
                child: list[object] | dict[str, object] = [] if isinstance(item, list) else {}
                todo.append((item, child))
                made: object = child
            else:
                made = leaf(item)
            if isinstance(copy_, list):
                copy_.append(made)
            else:
                copy_[key] = made
    return root


def _resolve(sub: object, root: Mapping[str, Any]) -> dict[str, Any]:
    """Follow the ``$ref`` of a subschema: ``#/$defs/NAME`` of ``root`` (else of the scenario
    schema, which the others build on), or ``URN#/$defs/NAME`` / ``URN`` of another schema."""
    for _ in range(16):  # no schema of ours chains references this far
        if not (isinstance(sub, dict) and "$ref" in sub):
            break
        ref = sub["$ref"]
        base, _, pointer = ref.partition("#")
        doc = _by_id().get(base) if base else None
        if base and doc is None:
            return {}
        name = pointer.removeprefix("/$defs/") if pointer.startswith("/$defs/") else None
        if doc is not None:
            sub = doc["$defs"].get(name, {}) if name else doc
        elif name in root.get("$defs", {}):
            sub = root["$defs"][name]
        else:
            sub = schema("scenario-1")["$defs"].get(name or "", {})
    return sub if isinstance(sub, dict) else {}


def _is_player(sub: object) -> bool:
    """The ``player`` definition of a schema (an index), or a reference to one."""
    if not isinstance(sub, dict):
        return False
    if list(sub) == ["$ref"] and isinstance(sub["$ref"], str):
        return sub["$ref"].endswith("#/$defs/player")
    return any(sub is s.get("$defs", {}).get("player") for s in _by_id().values())


def _types(sub: Mapping[str, Any], *, several: bool = False) -> str:
    kinds = sub.get("type")
    kinds = [kinds] if isinstance(kinds, str) else list(kinds or [])
    return " or ".join(TYPE_WORDS.get(kind, (kind, kind))[several] for kind in kinds)


def describe(sub: object, *, several: bool = False, root: Mapping[str, Any] | None = None) -> str:
    """A subschema in plain words, e.g. "an integer from 2 to 4" ("integers from 2 to 4").

    ``root`` is the schema it belongs to (its ``#/$defs/...`` references); the scenario
    schema by default.
    """
    root = schema("scenario-1") if root is None else root
    if _is_player(sub):
        return ("player indexes (integers >= 0)" if several
                else "a player index (an integer >= 0)")
    sub = _resolve(sub, root)
    if "const" in sub:
        return repr(sub["const"])
    if "enum" in sub:
        return ("each one of " if several else "one of ") + ", ".join(map(str, sub["enum"]))
    if "pattern" in sub:
        return PATTERN_WORDS.get(sub["pattern"], (f"a string matching {sub['pattern']}",
                                                  f"strings matching {sub['pattern']}"))[several]
    words = _types(sub, several=several)
    integer = TYPE_WORDS["integer"][several]
    low, high = sub.get("minimum"), sub.get("maximum")
    if low is not None and high is not None:
        words = words.replace(integer, f"{integer} from {low} to {high}", 1)
    elif low is not None:
        words = words.replace(integer, f"{integer} >= {low}", 1)
    if sub.get("minLength") == 1:
        words = words.replace(TYPE_WORDS["string"][several],
                              "non-empty strings" if several else "a non-empty string", 1)
    if "items" in sub and words == TYPE_WORDS["array"][several]:
        words += f" of {describe(sub['items'], several=True, root=root)}"
    return words or "a valid value"


# ---------------------------------------------------------------------------------------
# The structural check


def schema_problems(doc: object, shown: str, prefix: str = "", *, schema: str = "scenario-1",
                    definition: str | None = None, what: str = "a scenario",
                    skip: Sequence[str] = ()) -> list[FormatError]:
    """Schema errors as FormatErrors: the format key first, then best_match, then the rest.

    ``shown`` names the file (on one line: :func:`mtgcheck.errors.display`), ``prefix`` is
    the field path of the document inside it (``"scenario"``), ``schema`` the name of the
    schema to check against (its ``$defs/<definition>`` if given) and ``what`` names the document ("a scenario") when it is
    nested too deeply to check.  Errors below a top-level key of ``skip`` are left to
    another reader (a counterexample's ``scenario``: the scenario loader, which also knows
    the card names).  [] if none.
    """
    from jsonschema.exceptions import best_match

    root = _schema_named(schema)
    try:
        errors = [error for error in validator(schema, definition).iter_errors(doc)
                  if not (error.absolute_path and error.absolute_path[0] in skip)]
        if not errors:
            return []
        best = best_match(errors, key=_relevance)
        translated = [(error, _translate(error, shown, prefix, root)) for error in errors]
    except RecursionError:
        return [FormatError(shown, field_path(prefix, ()), f"{what} nested less deeply",
                            Said("nesting too deep to check"))]
    format_field = field_path(prefix, ("format",))
    # A file of another format (a counterexample given to `scenario`, or a future
    # version) should be told so, not told about each of its keys.
    translated.sort(key=lambda pair: (
        not any(problem.field == format_field for problem in pair[1]),
        pair[0] is not best,
    ))
    seen: set[str] = set()
    problems = []
    for _, batch in translated:
        for problem in batch:
            if problem.field not in seen:  # e.g. one missing key reported per required error
                seen.add(problem.field)
                problems.append(problem)
    return problems


def _relevance(error: ValidationError) -> tuple[int, bool, bool]:
    """jsonschema's relevance without its tie-break on the path.

    Its default prefers, among siblings, the *last* in the document (``actions[14]`` over
    ``actions[0]``); without the path in the key, ``max`` keeps the first of equals, so
    the first mistake in the file is the one shown, as a reader would fix them.
    """
    from jsonschema.exceptions import STRONG_MATCHES, WEAK_MATCHES

    return (-len(error.path), error.validator not in WEAK_MATCHES,
            error.validator in STRONG_MATCHES)


def _translate(error: ValidationError, shown: str, prefix: str, root: Mapping[str, Any]) -> list[FormatError]:
    """One jsonschema error in plain words, with a readable field path."""
    path = list(error.absolute_path)
    field = field_path(prefix, path)
    kind, instance = error.validator, error.instance
    value: Any = error.validator_value
    sub: Mapping[str, Any] = error.schema if isinstance(error.schema, Mapping) else {}

    def words(of: object, *, several: bool = False) -> str:
        return describe(of, several=several, root=root)

    if "propertyNames" in error.absolute_schema_path:
        # The key itself is wrong (jsonschema checks it as if it were a value).
        return [FormatError(shown, field, f"keys that are {words(sub, several=True)}", shown_value(instance))]
    if kind == "required" and isinstance(instance, dict):
        properties = sub.get("properties", {})
        return [FormatError(shown, field_path(prefix, [*path, key]), words(properties.get(key)),
                            Said("nothing (the key is missing)"))
                for key in value if key not in instance]
    if kind == "additionalProperties" and isinstance(instance, dict):
        known = list(sub.get("properties", {}))
        verb = instance.get("do") if "allOf" in error.absolute_schema_path else None
        if isinstance(verb, str):
            owner = f"keys of a {verb!r} action"
        else:
            owner = f"keys of {field_path(prefix, path)}" if path or prefix else "top-level keys"
        expected = f"one of the {owner}: {', '.join(known)}"
        return [FormatError(shown, field_path(prefix, [*path, key]), expected, Said("an unknown key"))
                for key in instance if key not in known]
    if kind == "type":
        return [FormatError(shown, field, _types(sub), shown_value(instance))]
    if kind == "const":
        return [FormatError(shown, field, repr(value), shown_value(instance))]
    if kind == "enum":
        return [FormatError(shown, field, "one of " + ", ".join(map(str, value)), shown_value(instance))]
    if kind in ("minimum", "maximum", "pattern", "minLength"):
        return [FormatError(shown, field, words(sub), shown_value(instance))]
    if kind == "minItems":
        items = f"item{'' if value == 1 else 's'}"
        return [FormatError(shown, field, f"a list of at least {value} {items}", shown_value(instance))]
    if kind == "maxItems":
        items = f"item{'' if value == 1 else 's'}"
        got = Said(f"{len(instance)} items") if isinstance(instance, list) else shown_value(instance)
        return [FormatError(shown, field, f"a list of at most {value} {items} (the model's bound)", got)]
    if kind == "uniqueItems" and isinstance(instance, list):
        repeated = next((item for i, item in enumerate(instance) if item in instance[:i]), None)
        return [FormatError(shown, field, "a list without repeated items",
                            Said(f"{one_line(repr(repeated))} twice"))]
    return [FormatError(shown, field, one_line(error.message)[:200], None)]  # pragma: no cover
