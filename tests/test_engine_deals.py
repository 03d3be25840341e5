"""``validate --engine-deals``: games the engine deals, on the example engine (which deals with a seed).

The correct engine agrees with the rules in every dealt game; the planted bug ``draw-bottom``
(the turn's draw takes the bottom card, CR 121.1) is found in dealt games and stored with its
deal, which replays on the rules.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from click.testing import CliRunner

from mtgcheck import dealt
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
    # It replays on the rules: the stored scenario passes (its verdicts are the rules').
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
