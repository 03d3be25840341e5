"""The ability kinds: one closed word set that the card registry extends.

Apart from :mod:`.card_rules` because the state's layout (:mod:`.state`) declares its
``ab_kind`` field over it, and the registry's types refer to the state: this module imports
nothing, so neither depends on the other through it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import overload

__all__ = ["ABILITY_KINDS", "AbilityKinds"]


class AbilityKinds(Sequence[str]):
    """The kinds of triggered abilities on the stack, by number (0: none), as they show on
    it (``ability:NAME``): one closed word set, which the registry extends.

    The game's own kinds (a plane's chaos ability and the planeswalker symbol's, CR 311.7,
    901.9c) are allocated by ``state.py``; a card's, where its entry is written
    (:func:`mtgcheck.model.card_rules.ability_kind`), so that a new triggered keyword is one line of
    ``card_texts.py``, not a constant, a name and a schema edit in three places.  The state's
    ``ab_kind`` field ranges over this sequence as it is when a configuration is built.
    """

    def __init__(self, names: Iterable[str]) -> None:
        self._names = list(names)

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[str, ...]: ...
    def __getitem__(self, i: int | slice) -> str | tuple[str, ...]:
        return tuple(self._names[i]) if isinstance(i, slice) else self._names[i]

    def __len__(self) -> int:
        return len(self._names)

    def __repr__(self) -> str:
        return f"AbilityKinds({self._names!r})"

    __hash__ = object.__hash__  # one live set (a field's declaration holds it)

    def allocate(self, name: str) -> int:
        if name in self._names:
            raise ValueError(f"ability kind {name!r} is allocated twice")
        self._names.append(name)
        return len(self._names) - 1

    def restore(self, size: int) -> None:
        """Forget the kinds allocated after the first ``size`` (a scratch registry's)."""
        del self._names[size:]


#: Every ability kind; ``"-"`` (0) is none.
ABILITY_KINDS = AbilityKinds(["-"])
