"""Mana from lands (``Config.lands``, model/payment.py, model/lands.py): what the scenarios
and the mutants do not already pin down."""

from __future__ import annotations

import json
from dataclasses import replace
from math import comb
from pathlib import Path

import pytest

from mtgcheck.configs import BUILTIN, SMALL
from mtgcheck.errors import FormatError
from mtgcheck.model import cards
from mtgcheck.model.actions import Action, catalogue, legal_actions, step
from mtgcheck.model.config import Config
from mtgcheck.model.payment import spends
from mtgcheck.model.setup import CardPlacement, build
from mtgcheck.model.state import BATTLEFIELD
from mtgcheck.scenario_run import load, start, to_action

LANDS = SMALL["break-lands"]


def _pass_until(cfg: Config, s, turn: int, step_no: int):  # type: ignore[no-untyped-def]
    """Pass priority until the game is at ``turn``, step index ``step_no``."""
    for _ in range(200):
        if (s.turn, s.step) == (turn, step_no):
            return s
        s = step(cfg, s, Action("pass", s.priority))
    raise AssertionError("the game did not get there by passing")


def test_the_active_players_lands_untap_and_no_others() -> None:
    """CR 502.3: the untap step untaps the active player's permanents only."""
    cfg, s = build(replace(LANDS.position, cards=(*LANDS.position.cards,
                                                   CardPlacement("island1", "Island", 1, "battlefield"))))
    ids = [sl.id for sl in cfg.slots]
    mine, theirs = ids.index("island"), ids.index("island1")
    s = step(cfg, s, Action("tap", 0, card=mine))
    s = step(cfg, s, Action("pass", 0))
    s = step(cfg, s, Action("tap", 1, card=theirs))  # player 1 has priority: mana abilities then
    assert (s.tapped[mine], s.tapped[theirs]) == (1, 1)
    s = _pass_until(cfg, s, 2, 1)  # player 1's turn: only player 1's land untaps
    assert (s.tapped[mine], s.tapped[theirs]) == (1, 0)
    s = _pass_until(cfg, s, 3, 1)
    assert s.tapped[mine] == 0 and s.land_played == 0


def test_a_land_played_enters_untapped_as_a_new_object() -> None:
    cfg, s = build(LANDS.position)
    j = [sl.id for sl in cfg.slots].index("mountain")
    s2 = step(cfg, s, Action("play", 0, card=j))
    assert (s2.zone[j], s2.tapped[j], s2.land_played, s2.priority, s2.passes) == (BATTLEFIELD, 0, 1, 0, 0)
    assert s2.oid[j] != s.oid[j]


ABSTRACT = [c for c in BUILTIN if not c.position.lands]


def test_one_built_in_position_has_lands_and_the_others_keep_abstract_mana() -> None:
    assert [c.name for c in BUILTIN if c.position.lands] == ["lands"] and len(ABSTRACT) == len(BUILTIN) - 1


@pytest.mark.parametrize("conf", ABSTRACT, ids=lambda c: c.name)
def test_abstract_mana_has_no_lands_rules(conf) -> None:  # type: ignore[no-untyped-def]
    """Abstract mana: no land is played or tapped, every cost is paid one way."""
    cfg, _ = build(conf.position)
    acts = [t.action for t in catalogue(cfg).transitions]
    assert not cfg.lands and cfg.pool_colours == ""
    assert {a.verb for a in acts}.isdisjoint({"play", "tap"})
    assert all(a.spend == () for a in acts)


def test_every_way_to_pay_generic_mana_is_its_own_action() -> None:
    """CR 107.4b: spends cover every split of the generic part over the pool's colours."""
    cfg, _ = build(LANDS.position)
    assert cfg.pool_colours == "UR"
    most = 4  # player 0 owns four lands (one in the library)
    got = spends(cfg, 0, 10)
    assert len(got) == comb(most + 2, 2) and len(set(got)) == len(got)
    assert all(sum(v) <= most and len(v) == 2 for v in got)
    assert spends(cfg, 0, 1) == ((0, 0), (0, 1), (1, 0))


def test_the_generic_part_is_paid_with_what_the_coloured_part_leaves() -> None:
    """With {U}{R} floating, Think Twice ({1}{U}) is cast one way only: U for {U}, R for {1}."""
    cfg, s = build(LANDS.position)
    ids = [sl.id for sl in cfg.slots]
    s = step(cfg, s, Action("tap", 0, card=ids.index("island")))
    s = step(cfg, s, Action("play", 0, card=ids.index("mountain")))
    s = step(cfg, s, Action("tap", 0, card=ids.index("mountain")))
    casts = [a for a in legal_actions(cfg, s) if a.verb == "cast" and a.card == ids.index("twice")]
    assert sorted(a.spend for a in casts) == [(0, 1)]  # one U for the {U}, the {1} from R: the only way
    after = step(cfg, s, casts[0])
    assert (after.mana[0], after.pool_u[0], after.pool_r[0]) == (0, 0, 0)


def test_lands_and_mana_per_turn_do_not_mix() -> None:
    cfg, _ = build(LANDS.position)
    with pytest.raises(ValueError, match="no mana per turn"):
        replace(cfg, mana_per_turn=(1, 0))


def _scenario(tmp_path: Path, **setup) -> Path:  # type: ignore[no-untyped-def]
    doc = json.loads(Path("tests/scenarios/mana-coloured-costs-need-their-colours.json").read_text())
    doc["setup"].update(setup)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    return path


def test_a_lands_setup_with_mana_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(FormatError) as err:
        load(str(_scenario(tmp_path, mana=[2, 0])))
    assert err.value.field == "setup.mana" and "zeros" in str(err.value)


def test_spend_needs_lands_and_the_lands_colours(tmp_path: Path) -> None:
    sc = load(str(_scenario(tmp_path)))
    cfg, s = start(sc)
    bad = replace(sc.actions[5], args={**sc.actions[5].args, "spend": {"G": 1}})
    with pytest.raises(FormatError) as err:
        to_action(cfg, sc, bad, s)
    assert err.value.field == "actions[5].spend.G"
    sc2 = load(str(_scenario(tmp_path, mana_rules="abstract")))
    cfg2, s2 = start(sc2)
    with pytest.raises(FormatError) as err:
        to_action(cfg2, sc2, sc2.actions[5], s2)
    assert err.value.field == "actions[5].spend"


def test_a_spend_left_out_is_asked_for_when_the_pool_allows_several(tmp_path: Path) -> None:
    sc = load(str(_scenario(tmp_path)))
    cfg, s = start(sc)
    for spec in sc.actions[:5]:
        a = to_action(cfg, sc, spec, s)
        if spec.expect != "illegal":
            s = step(cfg, s, a)
    spec = replace(sc.actions[5], args={k: v for k, v in sc.actions[5].args.items() if k != "spend"})
    with pytest.raises(FormatError) as err:
        to_action(cfg, sc, spec, s)
    assert err.value.field == "actions[5].spend" and "several ways" in str(err.value)


def test_a_land_without_a_mana_ability_is_refused_by_the_pool() -> None:
    rec = {"name": "Test Barren Land", "isTest": True, "type": "Land", "types": ["Land"], "keywords": [],
           "text": "TEST CARD. No abilities."}
    with pytest.raises(FormatError) as err:
        with cards.scratch([rec]):
            pass
    assert err.value.field == "cards[0].text"
