"""Reusable Hypothesis strategies that spoil a valid JSON input, for fuzzing every reader.

Every file or message mtgcheck reads (scenario files, counterexample files, the card pool,
and later engine replies and configuration files) must turn a malformed input into one
:class:`~mtgcheck.errors.FormatError`, never a traceback, a hang or a half-written output.
The way to show it is the same for each reader: start from an input that loads, spoil it in
the ways real files get spoiled (a key dropped or misspelt, a value of the wrong type, a
number out of any range, a truncated download, a file saved in another encoding) and in the
ways that attack parsers (deep nesting, 1 MB strings, NaN, duplicate keys), and check the
reader's answer. So the mutations live here, apart from any one reader:

* :func:`malformed_documents` mutates a parsed JSON value (a ``dict`` loaded from a valid
  file) and yields a :class:`Malformed` whose ``value`` may hold :class:`RawJSON` pieces:
  text that no Python value serializes to (``NaN``, a 10,000-deep list, an object with a
  key twice, an integer of 5,000 digits). :func:`encode` turns it into bytes.
* :func:`malformed_bytes` mutates the bytes of a valid file (truncation, invalid UTF-8,
  byte-order marks, random bytes, padding past a size cap).
* :func:`malformed_inputs` is both, as bytes: what a fuzz test of a file reader draws.

Each :class:`Malformed` carries a ``label`` (the mutation applied, for counting and for the
failure report) and ``surely_invalid``: whether the mutation can never give an input that a
strict reader accepts *whatever the format* (truncated JSON, invalid UTF-8, NaN). Other
mutations (dropping a key that may be optional, a huge integer where any integer is fine)
may leave the input valid; a test then only checks that the reader does not crash, unless
it knows its format closes every object (see ``closed_objects`` of
:func:`malformed_documents`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

__all__ = ["Malformed", "RawJSON", "encode", "json_paths", "malformed_bytes",
           "malformed_documents", "malformed_inputs"]

#: A path into a JSON value: object keys and list indexes, from the root.
Path = tuple[str | int, ...]

#: Values of every JSON type, to put where a value of another type belongs.
SCALARS_AND_CONTAINERS: tuple[Any, ...] = (
    None, True, False, 0, -1, 1, 2.5, -0.0, "", "x", "0", "player:9", [], [0], ["x"], {}, {"k": "v"},
)
#: Integers far outside any bound a reader may have (and one that Python refuses to print).
HUGE_INTEGERS: tuple[Any, ...] = (10**30, -(10**30), 2**63, -(2**63) - 1, 2**64)
#: Floats, integral or not; ``1e400`` is read by Python as infinity, without a NaN token.
FLOATS: tuple[str, ...] = ("0.5", "-1.5", "1e308", "-1e308", "1e400", "-1e400", "2.0", "1e-400")
#: Tokens Python's json accepts and JSON (RFC 8259) does not.
NON_JSON_CONSTANTS: tuple[str, ...] = ("NaN", "Infinity", "-Infinity")
#: Strings that are hard to print on one line or to encode: a newline, a lone surrogate
#: (valid JSON, not encodable as UTF-8), a NUL, right-to-left marks, combining marks.
AWKWARD_STRINGS: tuple[str, ...] = (
    r'"a\nb"', r'"\ud800"', r'"\u0000"', r'"\u202e\u200f"', r'"e\u0301\u0301\u0301"', r'"\t"', r'" "',
)
ONE_MIB = 1 << 20


@dataclass(frozen=True)
class RawJSON:
    """JSON text to splice into a document as is, for what no Python value dumps to."""

    text: str


class Malformed:
    """One spoiled input: what was done (``label``), the result, and whether it is surely bad.

    ``value`` is a JSON-like Python value (possibly holding :class:`RawJSON`) for
    :func:`malformed_documents`, bytes for :func:`malformed_bytes`. A plain class, not a
    dataclass: Hypothesis prints dataclasses field by field, and a 1 MB value would fill
    the failure report; this ``repr`` is cut short.
    """

    __slots__ = ("label", "surely_invalid", "value")

    def __init__(self, label: str, value: Any, surely_invalid: bool) -> None:
        self.label, self.value, self.surely_invalid = label, value, surely_invalid

    def __repr__(self) -> str:  # the failure report shows this: keep it short
        try:
            shown = repr(self.value)
        except RecursionError:  # a parsed document nested nearly as deep as the parser allows
            shown = f"<a {type(self.value).__name__} nested too deeply to show>"
        return f"Malformed({self.label!r}, {shown[:300] + '...' if len(shown) > 300 else shown})"


def encode(value: Any, *, indent: int | None = 2) -> bytes:
    """The UTF-8 JSON text of a value that may hold :class:`RawJSON` pieces.

    Each piece is first dumped as a placeholder string that no real value contains
    (a NUL is always escaped by json.dumps), then replaced by its text. Lone surrogates
    are kept as they are (``surrogatepass``): the reader must refuse them, not the encoder.
    """
    pieces: list[str] = []

    def swap(node: Any) -> Any:
        if isinstance(node, RawJSON):
            pieces.append(node.text)
            return f"\0RAW{len(pieces) - 1}\0"
        if isinstance(node, list):
            return [swap(item) for item in node]
        if isinstance(node, dict):
            return {key: swap(item) for key, item in node.items()}
        return node

    text = json.dumps(swap(value), indent=indent, ensure_ascii=False, allow_nan=True)
    for i, piece in enumerate(pieces):
        text = text.replace(json.dumps(f"\0RAW{i}\0"), piece, 1)
    return text.encode("utf-8", "surrogatepass")


def json_paths(value: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    """Every (path, value) of a JSON value, the root first, in document order."""
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from json_paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from json_paths(item, (*path, i))


def _replace(value: Any, path: Path, change: Callable[[Any], Any]) -> Any:
    """A copy of ``value`` with the value at ``path`` replaced by ``change(old)``."""
    if not path:
        return change(value)
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {key: (_replace(item, rest, change) if key == head else item) for key, item in value.items()}
    return [(_replace(item, rest, change) if i == head else item) for i, item in enumerate(value)]


def _json_type(value: Any) -> str:
    if isinstance(value, RawJSON):
        return "raw"
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, (int, float)):
        return "number"
    return type(value).__name__


def _nested(depth: int) -> RawJSON:
    return RawJSON("[" * depth + "]" * depth)


def _with_duplicate_key(obj: dict[str, Any], key: str, second: Any) -> RawJSON:
    """The object's text with ``key`` given twice: first its own value, then ``second``."""
    body = encode(obj, indent=None).decode("utf-8", "surrogatepass")
    extra = f"{json.dumps(key)}: {encode(second, indent=None).decode('utf-8', 'surrogatepass')}"
    return RawJSON(body[:-1] + (", " if obj else "") + extra + "}")


@dataclass(frozen=True)
class _Step:
    """One mutation: its label, the new document, and the path it changed.

    A later step can undo an earlier one (a retyped parent replaces the NaN put inside
    it), so whether the document is surely invalid is decided from the steps that survive.
    """

    label: str
    doc: Any
    path: Path
    surely: bool = False
    dropped: bool = False  # the key at ``path`` was removed
    evidence_is_key: bool = False  # an unknown key at ``path``: a new value there keeps it

    def undoes(self, earlier: _Step) -> bool:
        """Whether this step replaced or removed what ``earlier`` put in the document."""
        if earlier.path[:len(self.path)] != self.path:
            return False  # not at or above it
        return self.dropped or not (earlier.evidence_is_key and earlier.path == self.path)


@st.composite
def _one_mutation(draw: st.DrawFn, doc: Any, closed_objects: bool) -> _Step:
    """One spoiling step applied to ``doc``."""
    paths = list(json_paths(doc))
    objects = [(p, v) for p, v in paths if isinstance(v, dict)]
    keyed = [(p, v) for p, v in objects if v]
    # awkward-string twice: a lone surrogate or a newline only breaks something where a
    # string is printed or hashed, so it needs more tries than the others to land there.
    kinds = ["retype", "huge-int", "float", "non-json-constant", "awkward-string", "awkward-string",
             "long-string", "deep-nesting", "moderate-nesting", "swap-values", "giant-integer"]
    kinds += ["drop-key", "duplicate-key"] if keyed else []
    kinds += ["unknown-key"] if objects else []
    kind = draw(st.sampled_from(kinds))
    if kind in ("drop-key", "duplicate-key"):
        where, obj = draw(st.sampled_from(keyed))
        key = draw(st.sampled_from(sorted(obj)))
        if kind == "drop-key":
            return _Step(kind, _replace(doc, where, lambda o: {k: v for k, v in o.items() if k != key}),
                         (*where, key), dropped=True)
        second = draw(st.sampled_from((obj[key], *SCALARS_AND_CONTAINERS[:6])))
        return _Step(kind, _replace(doc, where, lambda o: _with_duplicate_key(o, key, second)), where, surely=True)
    if kind == "unknown-key":
        where, obj = draw(st.sampled_from(objects))
        key = draw(st.sampled_from(("zz_unknown", "Format", "a\nb", "", " ", "\u202e", "\ud800", "x" * 300)))
        value = draw(st.sampled_from(SCALARS_AND_CONTAINERS))
        added = key not in obj
        return _Step(kind, _replace(doc, where, lambda o: {**o, key: value} if added else o), (*where, key),
                     surely=closed_objects and added, evidence_is_key=True)
    where, old = draw(st.sampled_from(paths))
    new: Any
    surely = False
    if kind == "retype":
        new = draw(st.sampled_from([v for v in SCALARS_AND_CONTAINERS if _json_type(v) != _json_type(old)]))
    elif kind == "huge-int":
        new = draw(st.sampled_from(HUGE_INTEGERS))
    elif kind == "giant-integer":  # more digits than Python's int() reads (4300)
        new = RawJSON(draw(st.sampled_from(("", "-"))) + "9" * draw(st.sampled_from((4301, 5000, 100_000))))
        surely = True
    elif kind == "float":
        new = RawJSON(draw(st.sampled_from(FLOATS)))
    elif kind == "non-json-constant":
        new, surely = RawJSON(draw(st.sampled_from(NON_JSON_CONSTANTS))), True
    elif kind == "awkward-string":
        new = RawJSON(draw(st.sampled_from(AWKWARD_STRINGS)))
    elif kind == "long-string":  # 1 MiB: over any sane size cap; 100 KB: under it
        new = draw(st.sampled_from(("x" * ONE_MIB, "y" * 100_000)))
    elif kind == "deep-nesting":  # far past Python's recursion limit
        new, surely = _nested(draw(st.sampled_from((10_000, 100_000)))), True
    elif kind == "moderate-nesting":  # parses, but deep enough to trouble a recursive checker
        new = _nested(draw(st.sampled_from((100, 500, 900, 990))))
    else:  # swap-values: a value from elsewhere in the same document, e.g. a card id as a player
        new = draw(st.sampled_from([v for _, v in paths if not isinstance(v, (dict, list))] or [None]))
    return _Step(kind, _replace(doc, where, lambda _: new), where, surely=surely)


@st.composite
def malformed_documents(draw: st.DrawFn, valid_doc: Any, *, max_mutations: int = 3,
                        closed_objects: bool = False) -> Malformed:
    """A valid JSON value spoiled by 1 to ``max_mutations`` steps (encode with :func:`encode`).

    ``closed_objects``: the format refuses any key it does not define, so an unknown key
    makes the document surely invalid (scenario and counterexample files; not the card pool,
    whose MTGJSON-shaped records carry keys the model does not read).
    """
    doc, labels = valid_doc, []
    evidence: list[_Step] = []  # the surely invalid steps not undone by a later one
    for _ in range(draw(st.integers(1, max_mutations))):
        if isinstance(doc, RawJSON):
            break  # the whole document became raw text: nothing left to walk into
        step = draw(_one_mutation(doc, closed_objects))
        doc = step.doc
        labels.append(step.label)
        evidence = [old for old in evidence if not step.undoes(old)] + ([step] if step.surely else [])
    return Malformed("+".join(labels), doc, bool(evidence))


@st.composite
def malformed_bytes(draw: st.DrawFn, valid_bytes: bytes, *, size_cap: int = ONE_MIB) -> Malformed:
    """The bytes of a valid JSON file, spoiled as files get spoiled on disk or on the wire.

    ``size_cap`` is the reader's limit: ``padded`` grows the file past it with white space
    (valid JSON, so only a size check refuses it).
    """
    data = valid_bytes.rstrip()
    kind = draw(st.sampled_from((
        "truncated", "random-bytes", "invalid-utf8", "bom", "double-bom", "utf16", "flipped-byte",
        "nul-byte", "empty", "whitespace", "unclosed-nesting", "padded", "trailing-garbage", "two-documents",
    )))
    at = draw(st.integers(0, max(len(data) - 1, 0)))
    if kind == "truncated":  # cut at a byte that leaves the outermost value unclosed
        return Malformed(kind, data[:at], True)
    if kind == "random-bytes":
        return Malformed(kind, draw(st.binary(min_size=1, max_size=300)), False)
    if kind == "invalid-utf8":
        bad = draw(st.sampled_from((b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x80", b"\xe2\x82")))
        return Malformed(kind, data[:at] + bad + data[at:], True)
    if kind == "bom":  # one UTF-8 byte-order mark may be allowed by a reader
        return Malformed(kind, b"\xef\xbb\xbf" + data, False)
    if kind == "double-bom":
        return Malformed(kind, b"\xef\xbb\xbf\xef\xbb\xbf" + data, True)
    if kind == "utf16":
        text = data.decode("utf-8", "surrogatepass")
        return Malformed(kind, text.encode("utf-16", "surrogatepass"), True)
    if kind == "flipped-byte":
        byte = draw(st.integers(0, 255))
        return Malformed(kind, data[:at] + bytes([byte]) + data[at + 1:], False)
    if kind == "nul-byte":
        return Malformed(kind, data[:at] + b"\0" + data[at:], True)
    if kind == "empty":
        return Malformed(kind, b"", True)
    if kind == "whitespace":
        return Malformed(kind, b" \n\t\r " * draw(st.integers(1, 100)), True)
    if kind == "unclosed-nesting":
        return Malformed(kind, b"[" * draw(st.sampled_from((1, 1000, 100_000))), True)
    if kind == "padded":
        return Malformed(kind, data + b" " * (size_cap + 1 - len(data)), True)
    if kind == "trailing-garbage":
        return Malformed(kind, data + draw(st.sampled_from((b"x", b",", b"}", b"]", b"\0", b"//"))), True)
    return Malformed(kind, data + b"\n" + data, True)  # two-documents: JSON lines are not one file


def malformed_inputs(valid_doc: Any, *, closed_objects: bool = False,
                     size_cap: int = ONE_MIB) -> st.SearchStrategy[Malformed]:
    """Spoiled files as bytes: a spoiled document, or the valid file's bytes spoiled."""
    documents = malformed_documents(valid_doc, closed_objects=closed_objects).map(
        lambda m: Malformed(m.label, encode(m.value), m.surely_invalid))
    return st.one_of(documents, malformed_bytes(encode(valid_doc), size_cap=size_cap))
