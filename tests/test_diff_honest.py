"""``mtgcheck diff`` tells a search that ended from one its budget cut short.

"No difference within the bounds" is a claim about every state both rule sets reach; a
search stopped by its state, time or depth budget has not looked at them all, so it must
say how far it got (exit 4), not claim equality (exit 3)."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from click.testing import CliRunner

import mtgcheck.check_run as cr
import mtgcheck.diff as diff
from mtgcheck.cli import main
from mtgcheck.configs import BUILTIN, SMALL, CheckConfig
from mtgcheck.diff import SearchCut, find, find_z3

COSTS = next(c for c in BUILTIN if c.name == "costs")
PLOT = next(c for c in BUILTIN if c.name == "plot")


def test_a_search_cut_by_its_state_budget_raises_and_says_how_far_it_got() -> None:
    assert find(COSTS, "reference", "reference") is None  # the whole search: a real "no difference"
    with pytest.raises(SearchCut) as cut:
        find(COSTS, "reference", "reference", max_states=50)
    assert cut.value.budget == "its budget of 50 states"
    assert cut.value.compared.endswith("states (50 reached)") and not cut.value.compared.startswith("0 ")


def test_a_difference_within_the_budget_is_still_found() -> None:
    d = find(COSTS, "reference", "mutant-cost.sacrifice", max_states=50)
    assert d is not None and d.legal_b and not d.legal_a


@pytest.mark.parametrize("budget, says", [({"max_depth": 1}, "its depth bound of 1 common action"),
                                          ({"timeout": 0.001}, "its time budget of 0.001 s")])
def test_a_z3_search_stopped_short_raises(budget: dict[str, Any], says: str) -> None:
    with pytest.raises(SearchCut) as cut:
        find_z3(SMALL["break-plot"], "reference", "reference", **budget)
    assert cut.value.budget == says


def test_cli_says_a_cut_search_is_not_complete(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(diff, "find", functools.partial(find, max_states=50))
    r = CliRunner().invoke(main, ["diff", "reference", "reference", "--config", "costs"])
    assert r.exit_code == 4, r.output
    assert "no difference between" not in r.output and "within the bounds" not in r.output
    assert "not complete" in r.output and "cut by its budget of 50 states after comparing" in r.output
    assert "(50 reached)" in r.output


def test_cli_says_a_complete_search_found_no_difference() -> None:
    r = CliRunner().invoke(main, ["diff", "reference", "reference", "--config", "costs"])
    assert r.exit_code == 3, r.output
    assert "no difference between reference and reference within the bounds of costs" in r.output
    assert "cut" not in r.output


def test_cli_names_a_cut_beside_a_difference_found_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    """The difference stands (exit 0), but a cut configuration might have held a shorter one."""
    def search(conf: CheckConfig, a: Any, b: Any) -> Any:
        if conf.name == "costs":
            raise SearchCut("7 states (50 reached)", "its budget of 50 states")
        return find(conf, a, b)

    monkeypatch.setattr(cr, "configs_named", lambda names: [PLOT, COSTS])
    monkeypatch.setattr(diff, "find", search)
    r = CliRunner().invoke(main, ["diff", "reference", "116.2k"])
    assert r.exit_code == 0, r.output
    assert "part after 2 common actions on plot" in r.output
    assert "not necessarily the shortest: on costs the search was cut by its budget of 50 states" in r.output


def test_help_documents_the_exit_codes() -> None:
    text = " ".join(CliRunner().invoke(main, ["diff", "--help"]).output.split())
    assert "3 when none is within the configurations' bounds" in text and "4 when none was found" in text
