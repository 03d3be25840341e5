"""One parser for mana costs: ``{3}{G}{U}``, ``{X}{R}``, split ``{1}{R} // {1}{U}``.

The model treats mana as an abstract amount per player (DESIGN.md), so a cost reduces to
an amount plus the facts the rules read from its symbols: how many {X} (CR 107.3) and which
colours (for "multicolored", CR 105.2). Everything that reads a cost goes through here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

COLOURS = "WUBRG"
_SYMBOL = re.compile(r"\{([^{}]*)\}")


class ManaCostError(ValueError):
    """A mana cost string that is not made of the symbols the pool uses."""


@dataclass(frozen=True, slots=True)
class ManaCost:
    """A parsed mana cost of one face.

    >>> parse_mana_cost("{3}{G}{U}")
    ManaCost(generic=3, coloured='UG', x=0)
    >>> parse_mana_cost("{X}{R}").amount, parse_mana_cost("{X}{R}").x
    (1, 1)
    """

    generic: int
    coloured: str
    x: int

    @property
    def amount(self) -> int:
        """Mana to pay with every X at 0 (CR 202.3: the mana value counts X as 0)."""
        return self.generic + len(self.coloured)

    @property
    def colours(self) -> frozenset[str]:
        """CR 105.2: a face's colours are those of the coloured symbols in its cost."""
        return frozenset(self.coloured)


def parse_mana_cost(text: str) -> ManaCost:
    """Parse one face's cost. ``""`` and ``{0}`` are a cost of nothing.

    >>> parse_mana_cost("{0}").amount
    0
    """
    text = text.strip()
    if text == "":
        return ManaCost(0, "", 0)
    pos, generic, coloured, x = 0, 0, [], 0
    for m in _SYMBOL.finditer(text):
        if m.start() != pos:
            raise ManaCostError(f"unexpected text {text[pos:m.start()]!r} in mana cost {text!r}")
        pos = m.end()
        sym = m.group(1)
        if sym.isdigit():
            generic += int(sym)
        elif sym == "X":
            x += 1
        elif sym in COLOURS:
            coloured.append(sym)
        else:
            raise ManaCostError(f"unknown mana symbol {{{sym}}} in {text!r}")
    if pos != len(text):
        raise ManaCostError(f"unexpected text {text[pos:]!r} in mana cost {text!r}")
    return ManaCost(generic, "".join(sorted(coloured, key=COLOURS.index)), x)


def parse_card_cost(text: str) -> tuple[ManaCost, ...]:
    """Parse a card's whole cost: one face, or the halves of a split card joined by ``//``.

    >>> [c.amount for c in parse_card_cost("{1}{R} // {1}{U}")]
    [2, 2]
    """
    return tuple(parse_mana_cost(part) for part in text.split("//"))
