"""When a choice is asked (docs/scenario.md, "Choices"): whenever at least one card could be
chosen, even if only one answer is legal, and never when no card can be: then the only
answer would be "none" (CR 608.2d), and nothing is asked."""

from __future__ import annotations

from mtgcheck.configs import BUILTIN, SMALL
from mtgcheck.model.config import VARIANTS
from mtgcheck.model.actions import legal_actions
from mtgcheck.model.observe import observe
from mtgcheck.model.setup import build
from mtgcheck.model.setup import Position
from mtgcheck.model.state import PENDINGS
from mtgcheck.scenario_run import load

from .conftest import SCENARIOS
from .metamorphic import bfs_sample


def _starts() -> list[tuple[str, Position, int, str | None]]:
    """The built-in and small configurations, and every scenario file's setup."""
    out: list[tuple[str, Position, int, str | None]] = [
        (c.name, c.position, c.max_turn, None) for c in (*BUILTIN, *SMALL.values())]
    for path in SCENARIOS:
        sc = load(str(path))
        out.append((path.stem, sc.setup, sc.setup.turn, sc.variant if sc.variant in VARIANTS else None))
    return out


def test_a_pending_choice_always_has_a_card_to_choose() -> None:
    """Over the reachable states of every built-in and small configuration and of every
    scenario's setup: each pending
    choice has a legal answer naming a card, answered by the player it is asked of; and
    every kind of choice is asked somewhere (the check is not empty)."""
    kinds: set[str] = set()
    single: set[str] = set()  # kinds asked with exactly one legal answer (asked all the same)
    for name, position, max_turn, variant in _starts():
        cfg, s0 = build(position, variant=variant)
        states, _ = bfs_sample(cfg, s0, max_turn, 1000)
        for s in states:
            pending = observe(cfg, s)["pending"]
            if pending is None or s.game_over:
                continue
            kinds.add(pending["choice"])
            answers = [a for a in legal_actions(cfg, s) if a.verb == "choose"]
            assert answers and all(a.player == pending["player"] for a in answers), (name, pending, answers)
            assert any(a.cards for a in answers), f"{name}: {pending} asked with no card to choose"
            if len(answers) == 1:
                single.add(pending["choice"])
    assert kinds == set(PENDINGS[1:]), sorted(kinds)
    assert single, "no choice with a single answer was reached: the rule's first half is untested"
