"""The rules as one state machine (DESIGN.md).

Importing the package registers the built-in rules of cards and planes (:mod:`.card_texts`,
the planes' triggered abilities in :mod:`.planechase`), so every
reader of the card registry sees them, whichever module it imports first.
"""

from . import card_texts, planechase  # noqa: F401
