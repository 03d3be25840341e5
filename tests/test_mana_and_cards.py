"""The one mana-cost parser, and the card pool loader's errors."""

from __future__ import annotations

import copy
import json
from importlib import resources

import pytest

from mtgcheck.errors import FormatError, UnknownCardError
from mtgcheck.model import cards
from mtgcheck.model.mana import ManaCostError, parse_card_cost, parse_mana_cost


@pytest.mark.parametrize("text,generic,coloured,x,amount", [
    ("{3}{G}{U}", 3, "UG", 0, 5), ("{X}{R}", 0, "R", 1, 1), ("{U}{U}", 0, "UU", 0, 2),
    ("{7}{U}{U}{U}", 7, "UUU", 0, 10), ("{0}", 0, "", 0, 0), ("", 0, "", 0, 0), ("{R}{W}", 0, "WR", 0, 2),
    ("{10}", 10, "", 0, 10), ("{X}{X}{B}", 0, "B", 2, 1),
])
def test_parse(text: str, generic: int, coloured: str, x: int, amount: int) -> None:
    c = parse_mana_cost(text)
    assert (c.generic, c.coloured, c.x, c.amount) == (generic, coloured, x, amount)


def test_split_cost() -> None:
    halves = parse_card_cost("{1}{R} // {1}{U}")
    assert [h.amount for h in halves] == [2, 2]
    assert [sorted(h.colours) for h in halves] == [["R"], ["U"]]


@pytest.mark.parametrize("bad", ["{", "{Q}", "3{G}", "{G}x", "{2/W}", "{G}{"])
def test_parse_rejects(bad: str) -> None:
    with pytest.raises(ManaCostError):
        parse_mana_cost(bad)


def test_pool_facts() -> None:
    assert cards.card("Make Your Own Luck").mana_value == 5
    assert cards.card("Make Your Own Luck").faces[0].multicoloured
    fi = cards.card("Fire // Ice")
    assert fi.is_split and fi.mana_value == 4 and not fi.faces[0].multicoloured  # CR 709.4b, 709.3
    assert cards.card("Deep Analysis").flashback_cost == 2 and cards.card("Deep Analysis").flashback_life == 3
    assert cards.card("Burst Lightning").kicker_cost == 4
    assert cards.card("Village Rites").sacrifice_creature
    assert cards.card("Blaze").has_x and not cards.card("Lightning Bolt").has_x
    assert cards.card("Aven Interrupter").has_flash and cards.card("Aven Interrupter").plot_cost == 3
    assert cards.card("Test Plotted Fireball").is_test and not cards.card("Lightning Bolt").is_test
    assert "Otaria" in cards.plane_names()


def test_test_cards_are_marked() -> None:
    for name in cards.card_names():
        assert cards.card(name).is_test == name.startswith("Test "), name


def test_unknown_card() -> None:
    with pytest.raises(UnknownCardError, match="Black Lotus"):
        cards.card("Black Lotus")
    with pytest.raises(UnknownCardError):
        cards.plane("Tazeem")


def _pool_doc() -> dict:  # type: ignore[type-arg]
    return json.loads(resources.files("mtgcheck.data").joinpath("cards.json").read_text())


@pytest.mark.parametrize("mutate,field", [
    (lambda d: d["cards"][0].__setitem__("manaCost", "{Q}"), "cards[0].manaCost"),
    (lambda d: d["cards"][0].__setitem__("types", ["Tribal"]), "cards[0].types"),
    (lambda d: d["cards"][1].__setitem__("plot", 3), "cards[1].plot"),
    (lambda d: d["cards"][1].__setitem__("power", "many"), "cards[1].power"),
    (lambda d: d["cards"].append(copy.deepcopy(d["cards"][0])), "name"),
    (lambda d: d.__setitem__("format", "other"), "format"),
    (lambda d: d["cards"][0].__setitem__("keywords", ["Storm"]), "cards[0].keywords"),
])
def test_pool_loader_errors(mutate, field: str) -> None:  # type: ignore[no-untyped-def]
    doc = _pool_doc()
    mutate(doc)
    with pytest.raises(FormatError) as exc:
        cards.pool_from_document(doc)
    assert field in str(exc.value) and "\n" not in str(exc.value)
