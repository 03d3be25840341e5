"""Mutants: rule sets that each break one clause of one rule (data, never a copied rule).

A mutant switches off guard conditions (their ``Cond.id``) or effect clauses (the model's
``cfg.on(...)`` hooks), or takes a named variant reading.  ``mtgcheck mutants`` runs every
checker on every mutant, on the small position named by ``position`` (the configurations
are in :mod:`mtgcheck.configs`), and reports which checker kills it.  A harness that cannot
kill a mutant has a hole.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mutant:
    id: str
    cr: str
    breaks: str  # the clause it breaks, in words
    disabled: frozenset[str]
    position: str  # a name in mtgcheck.configs.SMALL
    variant: str | None = None
    #: How deep Z3's BMC looks for the kill: its shortest run that breaks a property is this long
    #: (six actions serve every mutant but the dead end, which takes seven to set up).
    depth: int = 6


def _m(id_: str, cr: str, breaks: str, disabled: tuple[str, ...], position: str,
       variant: str | None = None, depth: int = 6) -> Mutant:
    return Mutant(id_, cr, breaks, frozenset(disabled), position, variant, depth)


MUTANTS: tuple[Mutant, ...] = (
    _m("plotted-cast-same-turn", "702.170d", "a plotted card may be cast the turn it became plotted",
       ("plotted.later-turn",), "break-plot"),
    _m("plotted-instant-speed", "702.170d", "a plotted card may be cast outside a main phase or over a spell",
       ("plotted.main-phase", "plotted.stack-empty"), "break-plot"),
    _m("x-kept-when-free", "107.3b", "X keeps its chosen value when the spell is cast without paying its mana cost",
       ("cost.x-zero", "casting.x-zero-when-free"), "break-plot"),
    _m("plot-with-stack", "702.170a", "a card may be plotted while the stack is not empty",
       ("plot.stack-empty",), "break-plot"),
    _m("plot-outside-main-phase", "702.170a", "a card may be plotted outside a main phase",
       ("plot.main-phase",), "break-plot"),
    _m("plotted-status-survives-move", "400.7", "a plotted card that leaves exile stays plotted",
       ("zones.plotted-ends-on-move",), "break-plot"),
    _m("luck-plots-a-land", "702.170c", "Make Your Own Luck may plot a land",
       ("luck.nonland",), "break-luck"),
    _m("mandatory-cost-skipped", "118.8", "the mandatory additional cost (sacrifice a creature) may be skipped",
       ("cost.sacrifice",), "break-rites"),
    _m("flashback-countered-to-graveyard", "702.34a", "a flashback spell that is countered goes to the graveyard",
       ("flashback.exile-on-leave",), "break-counter"),
    _m("flashback-resolves-to-graveyard", "702.34a", "a flashback spell that resolves goes to the graveyard",
       ("flashback.exile-on-resolve",), "break-flashback"),
    _m("flashback-sorcery-any-time", "307.1", "a sorcery cast with flashback ignores the main-phase timing",
       ("timing.main-phase",), "break-flashback"),
    _m("normal-cast-marked-for-exile", "702.34a", "a card with flashback cast from hand is exiled as if flashed back",
       ("casting.exile-mark-only-flashback",), "break-hand-flashback"),
    _m("roll-over-the-stack", "901.9", "the planar die may be rolled while the stack is not empty",
       ("roll.stack-empty",), "break-otaria"),
    _m("roll-by-non-active-player", "901.9", "a player other than the active player may roll the planar die",
       ("roll.active-player",), "break-otaria"),
    _m("roll-outside-main-phase", "901.9", "the planar die may be rolled outside a main phase",
       ("roll.main-phase",), "break-otaria"),
    _m("roll-cost-never-rises", "116.2i", "every roll of the planar die is free",
       ("planechase.roll-cost-rises",), "break-otaria"),
    _m("chaos-two-extra-turns", "500.7", "one chaos ability of Otaria queues two extra turns",
       ("planechase.one-extra-turn-per-chaos",), "break-otaria"),
    _m("face-down-plane-keeps-counters", "901.7a", "a plane turned face down keeps its counters",
       ("planechase.face-down-loses-counters",), "break-tally"),
    _m("planar-control-stays", "901.6", "the planar controller does not change when the active player does",
       ("turns.planar-control-follows-turn",), "break-extra-turn"),
    _m("left-player-takes-extra-turn", "800.4k", "a queued extra turn of a player who left begins",
       ("turns.skip-left-player",), "break-extra-turn"),
    _m("leaver-cards-stay", "800.4a", "the cards of a player who leaves do not leave the game properly",
       ("leaving.owned-cards-kept-outside",), "break-bolt"),
    _m("object-id-kept", "400.7", "a card that changes zones keeps its object id",
       ("zones.fresh-oid",), "break-bolt"),
    _m("unanswerable-choice-kept", "603.3d", "a pending choice whose last candidate left the game stays pending",
       ("settle.unanswerable-choice-removed",), "break-aven", depth=7),
    _m("stack-not-renumbered", "405.2", "stack positions are not renumbered when objects leave",
       ("zones.stack-renumbered",), "break-bolt"),
    _m("two-lands-a-turn", "305.2", "a player may play a second land in one turn",
       ("land.one-per-turn",), "break-lands"),
    _m("colours-unchecked", "107.4a", "a coloured mana symbol may be paid with mana of another colour",
       ("cost.colours",), "break-lands"),
    _m("mana-pool-kept", "500.4", "unused mana stays in the pool when a step ends",
       ("turns.pool-empties",), "break-lands"),
    _m("no-cleanup-discard", "514.1", "the active player ends the turn with more cards than their maximum hand size",
       ("turns.discard-to-hand-size",), "break-hand-size"),
)

BY_ID = {m.id: m for m in MUTANTS}
