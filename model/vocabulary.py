"""The rule vocabulary: :class:`Action`, :class:`Cond`, :class:`Transition` and refusals.

Every rule module writes its rules in these words; the catalogue and the interpreter
(:mod:`.actions`) read them.  They live apart from the catalogue so that a rule module
imports only the vocabulary, and the catalogue imports the rule modules: one direction, no
import cycle (a test walks the package's import graph).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable

from .errors import MtgcheckError

from .state import FLASHBACKS, HALVES, HAND, HOWS, LIBRARY, PENDINGS, STACK, STEPS, ZONES, OUTSIDE, State

# --- the closed word sets of the model, each declared once --------------------------------
#
# The scenario format, the engine protocol and the reports spell actions and positions in
# these words; their schemas' enums are generated from them (``mtgcheck.model.formats.WORD_SETS``,
# a test fails when a schema drifts) and the harness imports them.  The steps, zones, ways
# to cast, split halves, flashback abilities and choices are the state's own (``.state``);
# the ability kinds are the card registry's (``.card_rules``), which allocates them.

#: What a player does (an :class:`Action`'s ``verb``): CR 117.3d, 702.170a, 601.2, 608.2d,
#: 901.9, 104.3a; with lands, 305.1 (play a land) and 605.3a (tap one for mana).
VERBS = ("pass", "plot", "cast", "choose", "roll", "leave", "play", "tap")
#: The zones a card may start in; ``stack`` and ``outside`` (left the game with its owner,
#: CR 800.4a) are reached by playing only.
SETUP_ZONES = tuple(z for i, z in enumerate(ZONES) if i not in (STACK, OUTSIDE))
#: The ways to cast (``HOWS`` without its "not cast" placeholder), split halves and
#: flashback abilities, and the choices a game waits for, as the formats spell them.
CAST_HOWS, CAST_HALVES, FLASHBACK_ABILITIES, CHOICES = HOWS[1:], HALVES[1:], FLASHBACKS[1:], PENDINGS[1:]
#: Where a card is plotted from (CR 702.170a: the hand; 702.170f: the top of the library).
PLOT_SOURCES = (ZONES[HAND], ZONES[LIBRARY])
#: The results of the planar die (CR 901.9).
ROLL_RESULTS = ("blank", "chaos", "planeswalk")
#: Every closed word set, by what it names (the schemas' generator and the docs read them).
WORDS: dict[str, tuple[str, ...]] = {
    "verbs": VERBS, "steps": STEPS, "zones": ZONES, "setup zones": SETUP_ZONES, "hows": CAST_HOWS,
    "halves": CAST_HALVES, "flashbacks": FLASHBACK_ABILITIES, "choices": CHOICES, "plot sources": PLOT_SOURCES,
    "roll results": ROLL_RESULTS,
}


@dataclass(frozen=True, slots=True, order=True)
class Action:
    """A player's action, as a user (or a scenario file) names it."""

    verb: str
    player: int
    card: int = -1
    how: int = 0
    x: int = 0
    kicker: int = 0
    half: int = 0
    flashback: int = 0
    target: int = -1  # -1 none; 0..P-1 player; P + j card slot j
    sacrifice: int = -1
    cards: tuple[int, ...] = ()
    result: str = ""
    source: str = ""  # plot: "hand" or "library"
    #: With lands: how much of the generic cost each pool colour pays (:mod:`.payment`).
    spend: tuple[int, ...] = ()


#: Every guard condition id of the catalogue (``Cond.id``; each Cond carries its CR number):
#: ``mutant-ID`` names these or effect clauses (``config.EFFECT_CLAUSES``), so a misspelt id is
#: refused instead of checking the reference rules under a mutant's name (a test keeps it
#: equal to the ids the Cond constructors of model/ are given).
GUARD_CONDITIONS: frozenset[str] = frozenset({
    "cast.from-hand", "cast.target", "choose.pending", "cost.mana",
    "cost.sacrifice", "cost.x-zero", "discard.count", "discard.in-hand",
    "flashback.granted", "flashback.in-graveyard", "free.omniscience", "game.no-pending-choice",
    "game.on", "game.player-in", "luck.among-top-three", "luck.nonland",
    "plot.cost", "plot.in-hand", "plot.main-phase", "plot.own-turn",
    "plot.stack-empty", "plotted.in-exile", "plotted.is-plotted", "plotted.later-turn",
    "plotted.main-phase", "plotted.own-turn", "plotted.stack-empty", "priority.all-passed",
    "priority.has", "priority.others-to-pass", "roll.active-player", "roll.cost",
    "roll.main-phase", "roll.stack-empty", "stack.empty", "stack.top-ability",
    "stack.top-card", "timing.main-phase", "timing.own-turn", "timing.stack-empty",
    "cost.life", "legend.clash", "legend.on-battlefield", "plot.fblthp",
    "plot.library-top", "trigger.target",
    "cost.colours", "land.in-hand", "land.one-per-turn", "tap.on-battlefield", "tap.untapped",
})


@dataclass(frozen=True, slots=True)
class Cond:
    """One named condition of a guard: what it enforces, and the rule that says so."""

    id: str
    cr: str
    why: str
    # Called with a state only; ``...`` admits the guards that bind their loop variables as
    # defaults (``lambda s, k=k: ...``), the cure for late binding (ruff B023).
    test: Callable[..., Any]


@dataclass(frozen=True, slots=True)
class Transition:
    action: Action
    rule: str  # the rule id, e.g. "cast", "plot", "pass.resolve"
    cr: str
    conds: tuple[Cond, ...]
    effect: Callable[..., State]  # called with a state only (see Cond.test)
    #: The card whose own effect this rule is (Make Your Own Luck's choice), "" for a rule
    #: of the game: reports name the card beside the CR number (:func:`cited`).
    card: str = ""
    #: A staged effect (:func:`staged`): ``effect(s) == then(head(s))``, where ``then`` is one
    #: function object shared by every transition of a family of choices (the cards to
    #: discard, ...), and ``head`` is what differs between them.  None: not staged.
    head: Callable[..., State] | None = None
    then: Callable[..., State] | None = None

    def enabled(self, s: State) -> bool:
        return all(c.test(s) for c in self.conds)

    def first_failure(self, s: State) -> tuple[int, Cond] | None:
        for i, c in enumerate(self.conds):
            if not c.test(s):
                return i, c
        return None


def staged(t: Transition, then: Callable[..., State]) -> Transition:
    """``t`` followed by ``then``: its effect ``then(t.effect(s))``, built from the two so that
    it cannot differ from them, and the two kept (``head``, ``then``).

    Why: the transitions of one choice (which card to discard, which pair) differ only in
    their first part, and go on the same way (the next turn, the spell finishing).  The Z3
    relation builds the shared part once over the choices' merged first parts
    (``relation.staged_effects``), not once per choice; concrete runs just call ``effect``."""
    assert t.then is None, "staged once: the head is the transition's own effect"
    head = t.effect
    return replace(t, effect=lambda s: then(head(s)), head=head, then=then)


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why an action is illegal: the rule and the reason (python-chess style: by cause)."""

    cr: str
    why: str
    cond: str = ""
    #: The card whose own effect refuses it ("" for a rule of the game): see :func:`cited`.
    card: str = ""

    def text(self) -> str:
        """The refusal in words: ``Make Your Own Luck, CR 702.170c: only a nonland card ...``."""
        return f"{cited(self.cr, self.card)}: {self.why}"


def cited(cr: str, card: str = "") -> str:
    """A rule as reports cite it: ``CR 117.3d``, or ``Make Your Own Luck, CR 702.170c`` when
    the rule is that card's own effect (the CR number alone would not say which card)."""
    rule = f"CR {cr}" if cr else "CR -"
    return f"{card}, {rule}" if card else rule


class IllegalAction(MtgcheckError):
    exit_code = 1

    def __init__(self, action: Action, refusal: Refusal) -> None:
        self.action, self.refusal = action, refusal
        super().__init__(f"illegal {action.verb} by player {action.player}: CR {refusal.cr}: {refusal.why}")
