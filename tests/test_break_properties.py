"""Every property of the catalogue can fail: break its rule on purpose, and each checker says so.

For each property of :data:`PROPERTIES` a *broken rule set* (guard conditions dropped with
``disabled``, mutant effect clauses switched off the same way, or the 116.2k reading of plot
timing) and a small position are chosen.  The graph search and the Hypothesis state machine
must report the property violated with a trace; the trace must replay on the interpreter
under the same broken rules and end in a violation of that very property.  With nothing
disabled, the same checkers on the same position must find the property holding, so the
violation comes from the broken rule and not from the position.  Z3 BMC does the same from
the position itself on a few tiny positions by default, and on every break under ``-m deep``
(there also from every initial placement of the cards, the checker's default).

What each break drops, and the trace that shows it, is said by each :class:`Break`'s ``why``;
"(hook)" marks a mutant effect clause of the model (``cfg.on(...)``) rather than a guard.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import pytest

from mtgcheck.check_run import verdict_json
from mtgcheck.checkers import graph, hypo, z3bmc
from mtgcheck.checkers.result import HOLDS, VIOLATED, Verdict
from mtgcheck.configs import CheckConfig
from mtgcheck.model.actions import Action, enabled_transition, step
from mtgcheck.model.setup import build
from mtgcheck.properties.catalogue import BY_ID, PROPERTIES

SEED = 20240417
EXAMPLES = 300  # Hypothesis examples per run (seeded, so the run is reproducible)
HARD = 1000  # for breaks that need a longer random walk (a game ends early when someone leaves)
GRAPH_TIMEOUT = 20.0


from mtgcheck.configs import (AVEN, BOLT, EXTRA_TURN, FLASHBACK, HAND_FLASHBACK, HAND_SIZE, LANDS, LUCK,  # noqa: E402
                              OTARIA, PLOT, RITES, TALLY)


# --- the breaks -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Break:
    prop: str
    conf: CheckConfig
    disabled: frozenset[str] = frozenset()
    variant: str | None = None
    shortest: int = 0  # length of a shortest violating trace (worked out by hand)
    why: str = ""
    examples: int = EXAMPLES  # Hypothesis examples to find it (a run stops at the first failure)

    @property
    def id(self) -> str:
        return self.prop


def _b(prop: str, conf: CheckConfig, disabled: Sequence[str] = (), *, variant: str | None = None,
       shortest: int, why: str, examples: int = EXAMPLES) -> Break:
    return Break(prop, conf, frozenset(disabled), variant, shortest, why, examples)


BREAKS: tuple[Break, ...] = (
    _b("plot-only-main-phase-empty-stack", PLOT, variant="116.2k", shortest=3,
       why="the 116.2k reading lets a card be plotted in combat: pass, pass, plot",
       examples=HARD),
    _b("plot-uses-no-stack", PLOT, ("plot.in-hand", "plot.stack-empty"), shortest=2,
       why="plot works on the card while it is a spell on the stack: cast, plot (the stack shrinks); "
           "both conditions are needed, as a card on the stack means the stack is not empty"),
    _b("plotted-never-cast-same-turn", PLOT, ("plotted.later-turn",), shortest=2,
       why="plot the card, then cast it the same turn"),
    _b("plotted-cast-only-by-owner-main-phase-empty-stack", PLOT, ("plotted.stack-empty",), shortest=2,
       why="cast a spell, then cast the plotted card on top of it"),
    _b("plotted-leaves-exile-unplotted", PLOT, ("zones.plotted-ends-on-move",), shortest=1,
       why="(hook) a moved card keeps its plotted status: cast the plotted card, it is plotted on the stack"),
    _b("make-your-own-luck-plots-at-most-one-nonland", LUCK, ("luck.nonland",), shortest=4,
       why="cast, pass, pass (resolves, asks), choose the Forest",
       examples=HARD),
    _b("x-is-zero-when-cast-free", PLOT, ("cost.x-zero", "casting.x-zero-when-free"), shortest=1,
       why="cast the plotted X spell with X=1; the guard (no X > 0 offered) and the effect (X set to 0) "
           "each enforce the rule on their own, so both must go"),
    _b("one-alternative-cost", HAND_FLASHBACK, ("casting.exile-mark-only-flashback",), shortest=1,
       why="(hook) a card with flashback is marked for the flashback exile however it is cast: "
           "a normal cast carries the flashback exile"),
    _b("mandatory-additional-costs-paid", RITES, ("cost.sacrifice",), shortest=1,
       why="cast Village Rites without sacrificing a creature"),
    _b("flashback-spell-always-ends-in-exile", FLASHBACK, ("flashback.exile-on-resolve",), shortest=3,
       why="cast Think Twice with flashback, pass, pass: it resolves into the graveyard"),
    _b("flashback-keeps-timing", FLASHBACK, ("timing.main-phase",), shortest=3,
       why="pass, pass, flashback Faithless Looting in combat",
       examples=HARD),
    _b("normal-cast-not-exiled", HAND_FLASHBACK, ("casting.exile-mark-only-flashback",), shortest=1,
       why="(hook) cast Think Twice from hand: it is marked for the flashback exile"),
    _b("planar-controller-is-active-player-or-successor", EXTRA_TURN, ("turns.planar-control-follows-turn",),
       shortest=3, why="(hook) pass three times: player 1's turn begins, player 0 stays planar controller"),
    _b("planar-controller-in-game", EXTRA_TURN, ("turns.skip-left-player",), shortest=3,
       why="(hook) player 1 leaves, pass, pass: player 1's extra turn begins all the same, and the active "
           "player becomes planar controller",
       examples=HARD),
    _b("planar-die-only-active-player-main-empty-stack", OTARIA, ("roll.stack-empty",), shortest=2,
       why="roll chaos (its trigger is on the stack), roll again"),
    _b("planar-die-cost-rises", OTARIA, ("planechase.roll-cost-rises",), shortest=2,
       why="(hook) roll, roll: the second roll is free; dropping the guard roll.cost is not enough, "
           "since the effect still pays {N}"),
    _b("face-down-plane-loses-counters", TALLY, ("planechase.face-down-loses-counters",), shortest=3,
       why="(hook) roll planeswalk, pass, pass: the plane goes face down with its counter",
       examples=HARD),
    _b("chaos-gives-one-extra-turn-each", OTARIA, ("planechase.one-extra-turn-per-chaos",), shortest=3,
       why="(hook) roll chaos, pass, pass: Otaria's chaos queues two extra turns",
       examples=HARD),
    _b("left-player-begins-no-turn", EXTRA_TURN, ("turns.skip-left-player",), shortest=3,
       why="(hook) player 1 leaves, pass, pass: player 1's queued extra turn begins",
       examples=HARD),
    _b("every-card-in-one-zone", BOLT, ("leaving.owned-cards-kept-outside",), shortest=1,
       why="(hook) player 1 leaves: their cards are dropped from every zone"),
    _b("stack-ordered", BOLT, ("zones.stack-renumbered",), shortest=1,
       why="(hook) cast Lightning Bolt: its stack position is never renumbered"),
    _b("object-ids-fresh", BOLT, ("zones.fresh-oid",), shortest=1,
       why="(hook) cast Lightning Bolt: the card on the stack keeps its object id"),
    _b("one-land-per-turn", LANDS, ("land.one-per-turn",), shortest=2,
       why="play the Mountain, then the second Island the same turn"),
    _b("mana-paid-with-its-colours", LANDS, ("cost.colours",), shortest=2,
       why="tap the Island, cast Lightning Bolt: its {R} paid with blue leaves the red pool below zero"),
    _b("mana-pool-empties-between-steps", LANDS, ("turns.pool-empties",), shortest=3,
       why="(hook) tap the Island, pass, pass: the main phase ends with the mana still in the pool"),
    _b("hand-size-after-cleanup", HAND_SIZE, ("turns.discard-to-hand-size",), shortest=2,
       why="(hook) pass, pass: player 0's turn ends with eight cards in hand"),
    _b("no-deadlock", AVEN, ("settle.unanswerable-choice-removed",), shortest=7,
       why="(hook) Bolt, pass, Aven Interrupter, pass, pass, pass, then Bolt's controller concedes: "
           "the trigger's target choice stays pending with no candidate, and nobody can act",
       examples=HARD),
)
BY_PROP = {b.prop: b for b in BREAKS}
# Breaks cheap enough for Z3 in the default run (each builds its own transition relation).
Z3_FAST = ("object-ids-fresh", "stack-ordered", "every-card-in-one-zone", "mandatory-additional-costs-paid",
           "normal-cast-not-exiled", "planar-die-cost-rises", "face-down-plane-loses-counters",
           "chaos-gives-one-extra-turn-each")


def test_every_property_is_broken_once() -> None:
    assert sorted(BY_PROP) == sorted(p.id for p in PROPERTIES)
    assert len(BREAKS) == len(PROPERTIES)


# --- replaying a trace ----------------------------------------------------------------------

def replay_breaks(b: Break, trace: Sequence[Action]) -> None:
    """``trace`` is legal under the broken rules, keeps the property until its last step, and
    the last step (or the state it reaches) violates it."""
    prop = BY_ID[b.prop]
    cfg, s = build(b.conf.position, disabled=b.disabled, variant=b.variant)
    assert trace, "a violation needs a trace"
    if prop.kind == "state":
        assert prop.holds(cfg, s), "the property already fails in the initial state"
    for i, a in enumerate(trace):
        t = enabled_transition(cfg, s, a)
        assert t is not None, f"step {i + 1} ({a}) is illegal under the broken rules"
        s2 = t.effect(s)
        assert step(cfg, s, a) == s2
        ok = prop.holds(cfg, s, t, s2) if prop.kind == "transition" else prop.holds(cfg, s2)
        if i < len(trace) - 1:
            assert ok, f"the property fails already at step {i + 1} of {len(trace)}"
        else:
            assert not ok, "the trace ends without violating the property"
        s = s2


def _violated(v: Verdict, b: Break) -> None:
    assert v.property == b.prop
    assert v.status == VIOLATED, f"{v.checker}: {v.summary()}"
    assert v.trace, f"{v.checker}: a violation without a trace"
    replay_breaks(b, v.trace)
    json.dumps(verdict_json(v))  # its row of the --json report (a Position in its stats once broke it)


# --- graph search ---------------------------------------------------------------------------

@cache
def _graph_intact(conf: CheckConfig) -> dict[str, Verdict]:
    props = [BY_ID[b.prop] for b in BREAKS if b.conf == conf]
    verdicts, ex = graph.check(conf, props, timeout=GRAPH_TIMEOUT)
    assert ex.complete
    return {v.property: v for v in verdicts}


@pytest.mark.parametrize("b", BREAKS, ids=lambda b: b.id)
def test_graph_finds_the_break(b: Break) -> None:
    (v,), _ = graph.check(b.conf, [BY_ID[b.prop]], timeout=GRAPH_TIMEOUT, disabled=b.disabled,
                           variant=b.variant)
    _violated(v, b)
    # BFS: the first violation is on a shortest path.
    assert v.depth == len(v.trace) == b.shortest


def test_graph_trace_is_a_shortest_one() -> None:
    """Plot then cast the same turn: no single action can both plot a card and cast it."""
    b = BY_PROP["plotted-never-cast-same-turn"]
    (v,), _ = graph.check(b.conf, [BY_ID[b.prop]], timeout=GRAPH_TIMEOUT, disabled=b.disabled)
    assert [a.verb for a in v.trace] == ["plot", "cast"]
    assert len(v.trace) == 2
    assert v.trace[1].card == v.trace[0].card


@pytest.mark.parametrize("b", BREAKS, ids=lambda b: b.id)
def test_graph_holds_on_intact_rules(b: Break) -> None:
    v = _graph_intact(b.conf)[b.prop]
    assert v.status == HOLDS, v.summary()


# --- Hypothesis -----------------------------------------------------------------------------

@cache
def _hypo_intact(conf: CheckConfig) -> dict[str, Verdict]:
    props = [BY_ID[b.prop] for b in BREAKS if b.conf == conf]
    return {v.property: v for v in hypo.check(conf, props, seed=SEED, examples=EXAMPLES)}


@pytest.mark.parametrize("b", BREAKS, ids=lambda b: b.id)
def test_hypothesis_finds_the_break(b: Break) -> None:
    (v,) = hypo.check(b.conf, [BY_ID[b.prop]], seed=SEED, examples=b.examples, disabled=b.disabled,
                      variant=b.variant)
    _violated(v, b)
    assert v.depth == len(v.trace) >= b.shortest


@pytest.mark.parametrize("b", BREAKS, ids=lambda b: b.id)
def test_hypothesis_holds_on_intact_rules(b: Break) -> None:
    v = _hypo_intact(b.conf)[b.prop]
    assert v.status == HOLDS, v.summary()


# --- Z3 -------------------------------------------------------------------------------------
# ``symbolic_init=False``: BMC from the configuration's own position (the one the graph search
# and Hypothesis start from), so the trace replays from ``build(position)`` and its length is
# comparable.  The checker's default, every initial placement of the cards, is run under deep.

def _z3(b: Break, *, broken: bool = True, symbolic_init: bool = False) -> Verdict:
    (v,) = z3bmc.check(b.conf, [BY_ID[b.prop]], depth=b.shortest, timeout=120.0,
                       disabled=b.disabled if broken else frozenset(), variant=b.variant if broken else None,
                       induction=False, symbolic_init=symbolic_init)
    return v


def _z3_check(b: Break) -> None:
    v = _z3(b)
    _violated(v, b)
    # BMC deepens one step at a time: its first counterexample is a shortest one too.
    assert v.depth == len(v.trace) == b.shortest


@pytest.mark.parametrize("prop", Z3_FAST)
def test_z3_finds_the_break(prop: str) -> None:
    _z3_check(BY_PROP[prop])


@pytest.mark.deep
@pytest.mark.parametrize("b", BREAKS, ids=lambda b: b.id)
def test_z3_finds_every_break(b: Break) -> None:
    _z3_check(b)


@pytest.mark.deep
@pytest.mark.parametrize("b", BREAKS, ids=lambda b: b.id)
def test_z3_holds_on_intact_rules(b: Break) -> None:
    v = _z3(b, broken=False)
    assert v.status == HOLDS, v.summary()


@pytest.mark.deep
@pytest.mark.parametrize("b", BREAKS, ids=lambda b: b.id)
def test_z3_finds_every_break_from_every_placement(b: Break) -> None:
    """The checker's default: BMC from every placement of the cards, which includes the
    position itself, so a violation comes no later; the checker reports ``violated`` only
    for a trace that it replayed on the interpreter from the placement the solver chose."""
    v = _z3(b, symbolic_init=True)
    assert v.status == VIOLATED, v.summary()
    assert v.trace and v.depth == len(v.trace) <= b.shortest
