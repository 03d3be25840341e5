"""A state packed to its declared ranges: bits per entry of the flat vector, from the layout.

Why: a state is a few hundred small integers (:func:`model.state.flat`), kept as C ints it is
4 bytes each, while its declared ranges (:data:`model.state.LAYOUT`, read by
:func:`model.state.bounds`) need a few bits each.  A search that stores millions of states
stores them packed.  The packing is derived here once, from the layout, for every reader (the
compiled search prints its tables from it, Python unpacks what it returns); nothing restates a
field's range.

An entry whose range is open in the layout (a life total, a count with no declared maximum,
an object id or a turn number) gets a fixed width: :data:`OPEN_BITS` bits around its bound
(centred on 0 when it has none), and :data:`MAX_ID` for ids and turns, the largest value
the compiled search's renumbering handles.  Every other range gets one spare bit, its room
split below and above the range: a broken rule set (a mutant) that writes a value just past an
end (a zone or a position of -1, say) is still searched, and the violation found.  A value outside its entry's
width is never truncated: :func:`pack` raises, and the compiled search stops with an error that the search
reports (and the interpreter searches instead).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from mtgcheck.model.config import Config
from mtgcheck.model.state import LAYOUT, NUM, OID, SCALAR, TURN, Decl, bounds, length

#: Bits of an entry whose declared range is open (a count, a total or a position with no
#: declared bound): wide enough for the positions the rules write before compacting a zone
#: (model/zones.py's _FAR, up to twice it), which a broken rule set (a mutant) leaves in place.
OPEN_BITS = 16
#: The largest object id or turn number a packed state holds (the compiled search's limit too).
MAX_ID = 4095
#: Bits per word of a packed state.
WORD = 64


@dataclass(frozen=True)
class Entry:
    """Where one entry of the flat vector sits in a packed state, and its range."""

    field: str
    lo: int
    bits: int
    word: int
    shift: int

    @property
    def hi(self) -> int:
        return self.lo + (1 << self.bits) - 1


@dataclass(frozen=True)
class Packing:
    """The packing of one configuration's states: per flat entry, its place and width."""

    entries: tuple[Entry, ...]
    words: int

    @property
    def bytes(self) -> int:
        return self.words * WORD // 8


def _range(cfg: Config, d: Decl) -> tuple[int, int]:
    """The declared range of field ``d``'s entries, closed where the layout leaves it open."""
    if d.holds in (OID, TURN):
        lo = 0 if (d.holds == OID and d.none) or d.lo is None else min(d.lo, 0)
        return lo, MAX_ID
    # bounds() reads a state only for ids and turns (handled above): any state's values do.
    lo, hi = bounds(cfg, d, _NO_STATE)
    if lo is None and hi is None:
        return -(1 << (OPEN_BITS - 1)), (1 << (OPEN_BITS - 1)) - 1
    if lo is None:  # a quarter of the room above the bound, the rest below
        return hi - 3 * (1 << (OPEN_BITS - 2)) + 1, hi + (1 << (OPEN_BITS - 2))
    if hi is None:  # a quarter of the room below the bound, the rest above
        return lo - (1 << (OPEN_BITS - 2)), lo + 3 * (1 << (OPEN_BITS - 2)) - 1
    return lo, hi


class _NoState:
    """Stands for the state :func:`model.state.bounds` reads for ids and turns only."""

    def __getattr__(self, name: str) -> int:
        raise AssertionError(f"the packing reads no state's {name}")


_NO_STATE = _NoState()


def packing(cfg: Config) -> Packing:
    """The packing of ``cfg``'s states, in layout order; an entry never straddles a word."""
    out: list[Entry] = []
    word, shift = 0, 0
    for d in LAYOUT:
        lo, hi = _range(cfg, d)
        if d.holds in (OID, TURN) or (d.holds == NUM and None in bounds(cfg, d, _NO_STATE)):  # fixed widths
            bits = max((hi - lo).bit_length(), 1)
        else:  # one spare bit, its room split below and above the range
            bits = (hi - lo).bit_length() + 1
            lo -= ((1 << bits) - (hi - lo + 1)) // 2
        for _ in range(1 if d.index == SCALAR else length(cfg, d.index)):
            if shift + bits > WORD:
                word, shift = word + 1, 0
            out.append(Entry(d.name, lo, bits, word, shift))
            shift += bits
    return Packing(tuple(out), word + (1 if shift else 0))


class OutOfRange(ValueError):
    """A value outside its entry's packed range (never truncated)."""


def pack(p: Packing, values: Sequence[int]) -> list[int]:
    """The words of a flat state (:func:`model.state.flat`)."""
    words = [0] * p.words
    for e, v in zip(p.entries, values, strict=True):
        if not e.lo <= v <= e.hi:
            raise OutOfRange(f"{e.field} = {v} is outside its packed range {e.lo}..{e.hi}")
        words[e.word] |= (v - e.lo) << e.shift
    return words


def unpack(p: Packing, words: Sequence[int]) -> list[int]:
    """The flat state of packed words (unsigned 64-bit)."""
    return [((words[e.word] >> e.shift) & ((1 << e.bits) - 1)) + e.lo for e in p.entries]
