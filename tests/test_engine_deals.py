"""``validate --engine-deals``: games the engine deals, on the example engine (which deals with a seed).

The correct engine agrees with the rules in every dealt game; the planted bug ``draw-bottom``
(the turn's draw takes the bottom card, CR 121.1) is found in dealt games and stored with its
deal, which replays on the rules.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mtgcheck import dealt, hidden_draws
from mtgcheck.cli import main

ENGINE = f"cmd:{sys.executable} tests/engines/example_engine.py"


def test_correct_engine_agrees_in_dealt_games() -> None:
    rep = dealt.run(ENGINE, budget=12, seed=3, store_dir=None)
    assert rep.traces == 12 and rep.sources == {"dealt": 12}
    assert rep.steps > 12 * 5  # games were played, not only dealt
    assert rep.found == []


def test_planted_bug_is_found_in_dealt_games_and_stored_with_its_deal(tmp_path: Path) -> None:
    rep = dealt.run(ENGINE + " --broken=draw-bottom", budget=12, seed=3, store_dir=str(tmp_path))
    assert len(rep.found) == 1
    tr, path, new = rep.found[0]
    assert tr.divergence is not None and tr.divergence.field.startswith("zones.")
    assert path is not None and new
    doc = json.loads(Path(path).read_text())
    setup = doc["scenario"]["setup"]
    # The deal as the engine showed it: two cards in each hand, the rest in the library.
    assert [sum(c["zone"] == "hand" and c["owner"] == p for c in setup["cards"]) for p in (0, 1)] == [2, 2]
    assert len(setup["cards"]) == 2 * dealt.DECK
    _replays_on_the_rules(doc, tmp_path)


def _replays_on_the_rules(doc: dict[str, Any], tmp_path: Path) -> None:
    """The stored scenario passes (its verdicts are the rules')."""
    scenario = tmp_path / "replay.json"
    scenario.write_text(json.dumps(doc["scenario"]))
    result = CliRunner().invoke(main, ["scenario", str(scenario)])
    assert result.exit_code == 0, result.output


def test_deals_are_reproducible_from_the_seed() -> None:
    a = dealt.run(ENGINE + " --broken=draw-bottom", budget=6, seed=11, store_dir=None)
    b = dealt.run(ENGINE + " --broken=draw-bottom", budget=6, seed=11, store_dir=None)
    assert [tr.source for tr, _, _ in a.found] == [tr.source for tr, _, _ in b.found]
    assert a.steps == b.steps


def test_cli_engine_deals_exits_1_on_the_planted_bug() -> None:
    result = CliRunner().invoke(main, ["validate", "--engine", ENGINE + " --broken=draw-bottom", "--engine-deals",
                                       "--budget", "6", "--seed", "2", "--no-store"])
    assert result.exit_code == 1, result.output
    assert "DIVERGENCE observation" in result.output and "dealt (seed 2" in result.output


def test_engine_without_deal_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["validate", "--engine", "model", "--engine-deals", "--budget", "1", "--no-store"])
    assert result.exit_code == 2, result.output
    assert "--engine-deals: expected an engine speaking JSON lines" in result.output


# -- hidden libraries: each draw is an observation ------------------------------------------

HIDDEN = ENGINE + " --hide-library"


def test_hidden_libraries_diverge_on_draws_without_following_them() -> None:
    rep = dealt.run(HIDDEN, budget=12, seed=3, store_dir=None, follow=False)
    assert rep.diverged > 0
    assert all(tr.divergence is not None and tr.divergence.field.startswith("zones.") and tr.divergence.rule == "121.2"
               for tr, _, _ in rep.found)


def test_hidden_libraries_agree_when_draws_are_followed() -> None:
    rep = dealt.run(HIDDEN, budget=12, seed=3, store_dir=None)
    assert rep.traces == 12 and rep.found == []
    assert rep.steps > 12 * 10  # the games went on past their draws


def test_a_bug_beside_hidden_draws_is_found_and_replays_on_the_rules(tmp_path: Path) -> None:
    rep = dealt.run(HIDDEN + " --broken=plot-timing", budget=12, seed=3, store_dir=str(tmp_path))
    assert rep.found
    for tr, path, _ in rep.found:
        assert path is not None and tr.divergence is not None and tr.divergence.rule == "702.170a"
        _replays_on_the_rules(json.loads(Path(path).read_text()), tmp_path)


def test_followed_draws_leave_the_order_the_engine_showed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Each trace ends with the library order its draws showed, not the deal's guess: from it,
    # the whole trace replays on the rules and ends where the engine's last observation was;
    # from the deal's guessed order it does not.
    from mtgcheck.engines.vocab import scenario_doc
    from mtgcheck.validate import Driver

    deals: dict[int, dict[str, Any]] = {}
    traces: list[tuple[Any, dict[str, Any]]] = []
    ask, play = dealt.ask_deal, Driver.play

    def recording(driver: Any, decks: list[list[str]], seed: int, mana: list[int]) -> tuple[dict[str, Any], bool]:
        setup, hidden = ask(driver, decks, seed, mana)
        deals[seed] = setup
        return setup, hidden

    def keeping(self: Driver, *args: Any, **kw: Any) -> Any:
        tr = play(self, *args, **kw)
        traces.append((tr, dict(self.seen["zones"])))
        return tr

    monkeypatch.setattr(dealt, "ask_deal", recording)
    monkeypatch.setattr(Driver, "play", keeping)
    rep = dealt.run(HIDDEN, budget=6, seed=3, store_dir=None)
    assert rep.found == [] and len(traces) == 6

    def replays(setup: dict[str, Any], tr: Any, zones: dict[str, Any]) -> bool:
        path = tmp_path / "trace.json"
        path.write_text(json.dumps({**scenario_doc(setup, tr.actions), "expect": {"zones": zones}}))
        return CliRunner().invoke(main, ["scenario", str(path)]).exit_code == 0

    guessed = 0
    for tr, zones in traces:
        deal = deals[int(tr.source.split("deal seed ")[1].rstrip(")"))]
        assert replays(tr.setup, tr, zones)
        guessed += not replays(deal, tr, zones)
    assert guessed  # draws were followed: the deal's order would have drawn other cards


def test_draw_bottom_cannot_be_told_from_a_hidden_order() -> None:
    # What the mode cannot find, said by a test: with the order hidden, drawing the bottom card
    # is one of the draws a shuffled library allows (docs/engine-deals.md).
    rep = dealt.run(HIDDEN + " --broken=draw-bottom", budget=12, seed=3, store_dir=None)
    assert rep.found == []


def _position(players_libraries: list[list[str]]) -> tuple[Any, Any]:
    from mtgcheck.engines.vocab import Session

    cards = [{"id": f"p{p}l{i}", "card": name, "owner": p, "zone": "library"}
             for p, lib in enumerate(players_libraries) for i, name in enumerate(lib)]
    se = Session.begin({"players": 2, "turn": 1, "active": 0, "step": "end", "mana_rules": "lands", "cards": cards},
                       source="(test)")
    return se.cfg, se.start


def test_drawn_instead_pairs_only_the_drawing_players_library() -> None:
    from mtgcheck.model.actions import enabled_transition, legal_actions

    cfg, s = _position([["Island", "Mountain", "Island"], ["Mountain", "Island"]])
    after = s
    for _ in range(2):  # both pass in the end step: player 1's turn begins, they draw
        t = enabled_transition(cfg, after, next(x for x in legal_actions(cfg, after) if x.verb == "pass"))
        assert t is not None
        after = t.effect(after)
    zones = {sl.id: "library" for sl in cfg.slots}
    # Under the rules player 1 drew p1l0; the engine shows p1l1 drawn instead: one pair.
    assert after.zone[[sl.id for sl in cfg.slots].index("p1l0")] != hidden_draws.LIBRARY
    assert hidden_draws.drawn_instead(cfg, s, s, after, {**zones, "p1l1": "hand"}) == [(3, 4)]
    # A card of the other player's library shown drawn pairs with nothing (player 0 drew none).
    assert hidden_draws.drawn_instead(cfg, s, s, after, {**zones, "p0l1": "hand"}) == []
    # The engine showing the model's own draw: nothing to follow.
    assert hidden_draws.drawn_instead(cfg, s, s, after, {**zones, "p1l0": "hand"}) == []
    # Swapping follows the pair: the engine's card is now on top.
    swapped = hidden_draws.swap(s, [(3, 4)])
    assert (swapped.pos[3], swapped.pos[4]) == (s.pos[4], s.pos[3])


def test_cards_an_engine_looked_at_go_on_top_of_the_models_library() -> None:
    # Make Your Own Luck's three cards, as the engine shows them (library_top): swapped onto
    # the top of the model's guessed order, only within the looking player's library.
    cfg, s = _position([["Island", "Mountain", "Island", "Lightning Bolt", "Mountain"], ["Mountain", "Island"]])
    ids = [sl.id for sl in cfg.slots]
    top = lambda st, p, n: sorted((k for k, sl in enumerate(cfg.slots) if sl.owner == p), key=lambda k: st.pos[k])[:n]  # noqa: E731
    pairs = hidden_draws.shown_on_top(cfg, s, s, {"0": ["p0l1", "p0l3", "p0l4"]})
    assert pairs == [(0, 3), (2, 4)]  # p0l1 is on top already; p0l0 and p0l2 give way
    assert {ids[k] for k in top(hidden_draws.swap(s, pairs), 0, 3)} == {"p0l1", "p0l3", "p0l4"}
    # The engine showing the model's own top: nothing to follow.
    assert hidden_draws.shown_on_top(cfg, s, s, {"0": ["p0l1", "p0l0"]}) == []
    # A card of another player's library, or one the model has left in no library: no pair.
    assert hidden_draws.shown_on_top(cfg, s, s, {"0": ["p1l1"]}) == []
    assert hidden_draws.shown_on_top(cfg, s, s, {"0": ["nope"]}) == []


def test_a_finished_game_compares_no_priority_and_not_where_the_losers_cards_went() -> None:
    # A two-player game over (CR 104.2a): the rules take the loser's cards out of the game
    # (CR 800.4a, "outside"), an engine that just ends the game leaves them; no one has priority.
    from mtgcheck.engines.base import Support
    from mtgcheck.validate import _compare_observations

    support = Support(cards=frozenset(), observe=frozenset({"zones", "priority", "game_over", "in_game", "life"}))
    rules = {"zones": {"a": "outside", "b": "hand"}, "priority": 0, "game_over": True, "in_game": [0], "life": [3, 0]}
    engine = {"zones": {"a": "hand", "b": "hand"}, "priority": 1, "game_over": True, "in_game": [0], "life": [3, 0]}
    assert _compare_observations(support, rules, engine) == []
    # Anything else still differs; and while the game goes on, all of it is compared.
    assert [d[0] for d in _compare_observations(support, rules, {**engine, "life": [3, 1]})] == ["life"]
    assert [d[0] for d in _compare_observations(support, rules, {**engine, "zones": {"a": "hand", "b": "graveyard"}})] \
        == ["zones.b"]
    going = {**rules, "game_over": False}
    assert {d[0] for d in _compare_observations(support, going, {**engine, "game_over": False})} == {"zones.a", "priority"}


def test_a_cast_that_could_have_paid_otherwise_leaves_the_pools_colours_unknown() -> None:
    # With Island, Mountain and Island tapped, Think Twice ({1}{U}) pays its generic with U or
    # with R: an engine that pays as it likes may keep either, so the colours left are a guess.
    from mtgcheck.engines.vocab import Session, another_spend_was_legal
    from mtgcheck.model.actions import legal_actions, step

    lands = ["Island", "Mountain", "Island"]
    cards = [{"id": f"l{i}", "card": n, "owner": 0, "zone": "battlefield"} for i, n in enumerate(lands)]
    cards += [{"id": "tt", "card": "Think Twice", "owner": 0, "zone": "hand"}]
    se = Session.begin({"players": 2, "turn": 1, "active": 0, "step": "main1", "mana_rules": "lands", "cards": cards},
                       source="(test)")
    cfg, s = se.cfg, se.start
    for a in se.to_model([{"player": 0, "do": "tap", "card": f"l{i}"} for i in range(3)], s, source="(test)", field="a"):
        s = step(cfg, s, a)
    legal = legal_actions(cfg, s)
    think = [a for a in legal if a.verb == "cast" and cfg.slots[a.card].id == "tt"]
    assert len(think) == 2 and all(another_spend_was_legal(a, legal) for a in think)
    # An action without a spend guesses nothing.
    assert not another_spend_was_legal(next(a for a in legal if a.verb == "pass"), legal)
