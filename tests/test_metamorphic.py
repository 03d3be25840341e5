"""Metamorphic tests (issue 11): renamings the rules must not see change no verdict.

* Every scenario file under tests/scenarios, and scenarios made of traces the graph search
  reaches on the built-in configurations, run against their variants: the setup's card list
  permuted (each library keeping its order), the card ids renamed, the seats rotated. The
  variant's per-action verdicts (legal, and the rule that refused) and its final observation,
  mapped back, must equal the original's.
* States the graph search reaches on the built-in configurations (and on a position with
  legendary pairs), against the same state in a configuration whose card slots are
  permuted: the legal actions (mapped) and the observation after each must be equal.
* Positions the scenario files lack (two legend-rule clashes at once), against the same
  variants.

A bug such as a lambda that captures a loop variable late (a condition that reads the hand
of whoever owns the last card slot) shows up here as a difference. A failure prints both
scenarios as JSON: save either to a file and replay it with ``mtgcheck scenario FILE``.

The default tier runs every scenario file and a few hundred reachable states; ``-m deep``
runs more permutations and larger samples.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Callable

import pytest

from mtgcheck.configs import BUILTIN, SMALL, CheckConfig
from mtgcheck.model.actions import Action
from mtgcheck.model.mutants import MUTANTS
from mtgcheck.model.setup import CardPlacement as C, Position, build
from mtgcheck.scenario_write import scenario_from_trace

from .conftest import SCENARIOS
from .metamorphic import (bfs_sample, compare_oid_renaming, compare_runs, compare_state, permute_cards, random_oid_renaming,
                          random_perm, rename_prefix, rotate_seats, seed_of, trace_to, variants)

# Scenario files whose meaning a transformation does not preserve, each with its reason.
# None so far: the card list's order only fixes library order (kept) and object ids (which
# the rules compare for identity only, never against a seat or a slot); seats are only
# ever named relative to the turn order, which a rotation keeps.
EXPECTED_TO_DIFFER: dict[tuple[str, str], str] = {}


def _doc(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _check_all(doc: dict[str, Any], name: str, permutations: int) -> None:
    failures: list[str] = []
    for var in variants(doc, name, permutations):
        if (name, var.kind.split("[")[0]) in EXPECTED_TO_DIFFER:
            continue
        failures += compare_runs(doc, name, var)
    assert not failures, "\n".join(failures)


# --- every scenario file -----------------------------------------------------------------------

@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario_file_is_invariant(path: Path) -> None:
    """3 permutations of the card list, 2 renamings of the ids, every rotation of the seats."""
    _check_all(_doc(path), path.name, permutations=3)


@pytest.mark.deep
@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario_file_is_invariant_deep(path: Path) -> None:
    _check_all(_doc(path), path.name + "#deep", permutations=20)


# --- traces the graph search reaches, as scenarios ---------------------------------------------

def _traces(conf: CheckConfig, limit: int, count: int) -> list[list[Action]]:
    """``count`` traces to states among the first ``limit`` a BFS reaches, spread evenly
    (the deepest last), deterministic."""
    cfg, s0 = build(conf.position)
    order, parent = bfs_sample(cfg, s0, conf.max_turn, limit)
    picks = sorted({len(order) - 1 - (i * len(order)) // count for i in range(count)})
    return [trace_to(parent, order[i]) for i in picks]


def _trace_docs(confs: tuple[CheckConfig, ...], limit: int, count: int) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for conf in confs:
        cfg, _ = build(conf.position)
        for k, trace in enumerate(_traces(conf, limit, count)):
            name = f"{conf.name}-trace{k}"
            out.append((name, scenario_from_trace(name, [], conf.position, cfg, trace)))
    return out


# The legend rule's pending choice names its group by a card slot (model/legend.py): a
# position with legendary pairs of both players, so that the slot renaming meets it.
LEGENDS = CheckConfig("legends", Position(
    players=2, turn=1, active=0, step="main1", life=(20, 20), mana=(3, 3),
    cards=(C("lilah_b", "Lilah, Undefeated Slickshot", 0, "hand"),
           C("fblthp_a", "Fblthp, Lost on the Range", 1, "battlefield"),
           C("lilah_a", "Lilah, Undefeated Slickshot", 0, "battlefield"),
           C("fblthp_b", "Fblthp, Lost on the Range", 1, "hand"),
           C("lib0", "Island", 0, "library"), C("lib1", "Island", 1, "library"))), max_turn=2)

_CONFS = (*BUILTIN, LEGENDS)
_ALL_CONFS = (*BUILTIN, LEGENDS, *SMALL.values())


@pytest.mark.parametrize("conf", _CONFS, ids=[c.name for c in _CONFS])
def test_reachable_traces_are_invariant(conf: CheckConfig) -> None:
    """Traces to 12 states among the first 2,000 the search reaches, each as a scenario whose
    actions are all legal, against the same variants as the scenario files. Seat rotation
    of reachable positions is checked here (the slot permutation below keeps the seats)."""
    failures: list[str] = []
    for name, doc in _trace_docs((conf,), limit=2000, count=12):
        for var in variants(doc, name, permutations=2):
            failures += compare_runs(doc, name, var)
    assert not failures, "\n".join(failures)


@pytest.mark.deep
@pytest.mark.parametrize("conf", _ALL_CONFS, ids=[c.name for c in _ALL_CONFS])
def test_reachable_traces_are_invariant_deep(conf: CheckConfig) -> None:
    failures: list[str] = []
    for name, doc in _trace_docs((conf,), limit=20000, count=60):
        for var in variants(doc, name, permutations=4):
            failures += compare_runs(doc, name, var)
    assert not failures, "\n".join(failures)


# --- reachable states in a configuration with its card slots permuted --------------------------

def _check_reachable(conf: CheckConfig, cfg: Any, s0: Any, limit: int, sample: int, rounds: int,
                     diffs_of: Callable[[Any, int], tuple[str, list[str]]]) -> None:
    """``sample`` states spread evenly over the first ``limit`` a BFS reaches (the shallow
    ones and the deep ones), each compared ``rounds`` times: ``diffs_of(state, round)`` says
    what was done to it and how the result differs.  A failure names the state and gives the
    trace to it as a scenario."""
    reached, parent = bfs_sample(cfg, s0, conf.max_turn, limit)
    states = [reached[(i * len(reached)) // sample] for i in range(min(sample, len(reached)))]
    failures: list[str] = []
    for k in range(rounds):
        for s in states:
            what, diffs = diffs_of(s, k)
            if diffs:
                replay = scenario_from_trace(f"{conf.name}: a reachable state", [], conf.position, cfg,
                                             trace_to(parent, s))
                failures.append(f"{conf.name}: a reachable state, {what}, differs:")
                failures += ["  " + d for d in diffs]
                failures.append("  the state: " + repr(s))
                failures.append("  the trace to it, as a scenario: " + json.dumps(replay))
        if len(failures) > 40:
            break
    assert not failures, "\n".join(failures)


def _check_states(conf: CheckConfig, limit: int, sample: int, rounds: int) -> None:
    """Reachable states against ``rounds`` seeded permutations of the card slots."""
    cfg, s0 = build(conf.position)
    moves = [random_perm(cfg.n, random.Random(seed_of(conf.name, "slots", k))) for k in range(rounds)]

    def diffs_of(s: Any, k: int) -> tuple[str, list[str]]:
        slots = ", ".join(f"{sl.id}->{moves[k][j]}" for j, sl in enumerate(cfg.slots))
        return f"card slots moved ({slots})", compare_state(cfg, s, moves[k])

    _check_reachable(conf, cfg, s0, limit, sample, rounds, diffs_of)


# --- reachable states with their object ids renamed ---------------------------------------------

def _check_oid_renaming(conf: CheckConfig, limit: int, sample: int, rounds: int, mutant: Any = None) -> None:
    """The graph search keys states by object ids numbered in order of appearance, not by
    value (:func:`mtgcheck.checkers.symmetry.canonical`): sound only if no rule and no
    property reads two ids in use by order.  Reachable states, each with its ids renamed one
    to one in a random order, against the state itself (under a mutant's rules too:
    ``mtgcheck mutants`` searches with the same reduction)."""
    from mtgcheck.properties.catalogue import PROPERTIES

    cfg, s0 = build(conf.position) if mutant is None else build(conf.position, variant=mutant.variant,
                                                                  disabled=mutant.disabled)
    rngs = [random.Random(seed_of(conf.name, "oids", k)) for k in range(rounds)]

    def diffs_of(s: Any, k: int) -> tuple[str, list[str]]:
        return "object ids renamed", compare_oid_renaming(cfg, s, random_oid_renaming(s, rngs[k]), PROPERTIES)[:5]

    _check_reachable(conf, cfg, s0, limit, sample, rounds, diffs_of)


#: The renamings of reachable states, and per renaming (states sampled, rounds) in the default
#: tier (among the first 2,000 states the search reaches) and in the deep tier (20,000).
_RENAMINGS = {"card-slots": _check_states, "object-ids": _check_oid_renaming}
_SIZES = {"card-slots": ((250, 2), (2000, 4)), "object-ids": ((150, 2), (3000, 3))}


@pytest.mark.parametrize("renaming", list(_RENAMINGS))
@pytest.mark.parametrize("conf", _CONFS, ids=[c.name for c in _CONFS])
def test_reachable_states_renamed(conf: CheckConfig, renaming: str) -> None:
    sample, rounds = _SIZES[renaming][0]
    _RENAMINGS[renaming](conf, limit=2000, sample=sample, rounds=rounds)


@pytest.mark.deep
@pytest.mark.parametrize("renaming", list(_RENAMINGS))
@pytest.mark.parametrize("conf", _ALL_CONFS, ids=[c.name for c in _ALL_CONFS])
def test_reachable_states_renamed_deep(conf: CheckConfig, renaming: str) -> None:
    sample, rounds = _SIZES[renaming][1]
    _RENAMINGS[renaming](conf, limit=20000, sample=sample, rounds=rounds)


@pytest.mark.deep
@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.id for m in MUTANTS])
def test_reachable_states_object_id_renaming_under_each_mutant(mutant: Any) -> None:
    _check_oid_renaming(SMALL[mutant.position], limit=5000, sample=500, rounds=2, mutant=mutant)


def test_the_object_id_renaming_catches_an_order_comparison() -> None:
    """A property that compares two ids in use by order is caught (the check can fail)."""
    from mtgcheck.properties.base import Property

    conf = next(c for c in BUILTIN if c.name == "plot")
    cfg, s0 = build(conf.position)
    older = Property("test-first-card-older", (), "card slot 0's object is older than slot 1's", "state",
                     lambda c, s: s.oid[0] < s.oid[1])
    rng = random.Random(0)
    caught = sum(bool(compare_oid_renaming(cfg, s, random_oid_renaming(s, rng), [older]))
                 for s in bfs_sample(cfg, s0, conf.max_turn, 200)[0])
    assert caught > 0


def test_the_hand_written_object_id_fields_are_the_layouts() -> None:
    from mtgcheck.model.state import OID_FIELDS

    from .metamorphic import OID_RENAMED

    assert sorted(OID_RENAMED) == sorted(OID_FIELDS)


# --- positions the scenario files lack ------------------------------------------------------------

def _legend_clashes(owners: tuple[int, int]) -> dict[str, Any]:
    """Two legend-rule clashes at once (CR 704.5j): the setup puts two Lilahs (owner
    ``owners[0]``) and two Fblthps (owner ``owners[1]``) onto the battlefield; the
    state-based actions are first checked after the first action. The player(s) then answer
    one choice per clash. Which choice is asked first must not depend on the order in which
    the setup lists the cards (CR 704.3: state-based actions happen simultaneously; CR 101.4:
    simultaneous choices in APNAP order)."""
    names = {"la": "Lilah, Undefeated Slickshot", "lb": "Lilah, Undefeated Slickshot",
             "fa": "Fblthp, Lost on the Range", "fb": "Fblthp, Lost on the Range"}
    cards = [{"id": i, "card": n, "owner": owners[i[0] == "f"], "zone": "battlefield"} for i, n in names.items()]
    cards += [{"id": f"lib{p}", "card": "Island", "owner": p, "zone": "library"} for p in (0, 1)]
    return {"format": "mtgcheck.scenario/1", "name": "two legend-rule clashes at once", "rules": ["704.5j", "704.3"],
            "setup": {"players": 2, "turn": 1, "active": 0, "step": "main1", "mana": [0, 0], "cards": cards},
            "actions": [{"player": 0, "do": "pass"},
                        {"player": owners[1], "do": "choose", "cards": ["fa"]},
                        {"player": owners[0], "do": "choose", "cards": ["la"]},
                        {"player": owners[1], "do": "choose", "cards": ["fa"]}]}


@pytest.mark.parametrize("owners", [(0, 0), (0, 1)], ids=["one-player", "two-players"])
def test_simultaneous_legend_clashes_are_invariant(owners: tuple[int, int]) -> None:
    _check_all(_legend_clashes(owners), f"legend-clashes-{owners[0]}{owners[1]}", permutations=4)


# --- the transformations themselves --------------------------------------------------------------

def test_rotation_maps_every_player_index() -> None:
    """A rotation moves every field docs/scenario.md lists as a player index."""
    doc = {"format": "mtgcheck.scenario/1", "name": "n", "rules": [],
           "setup": {"players": 3, "turn": 1, "active": 0, "step": "main1", "life": [1, 2, 3],
                     "mana": [4, 5, 6], "left": [2], "extra_turns": [1, 0],
                     "cards": [{"id": "a", "card": "Island", "owner": 1, "zone": "library"}],
                     "planechase": {"decks": [["Otaria"], [], []],
                                    "plane": {"name": "Otaria", "owner": 1, "counters": 0}, "controller": 0}},
           "actions": [{"player": 0, "do": "cast", "card": "a", "how": "normal", "targets": ["player:1"],
                        "expect": {"verdict": "legal", "priority": 2, "active": 1, "life": [1, 2, 3],
                                   "pending": {"choice": "discard", "player": 2, "source": "a"}}}],
           "expect": {"active": 0, "planar_controller": 1, "life": [1, 2, 3], "mana": [4, 5, 6],
                      "extra_turns": [0, 1], "in_game": [0, 1], "priority": 1,
                      "pending": {"choice": "legend-rule", "player": 0}}}
    v = rotate_seats(doc, 1)
    mid = v.doc["actions"][0]["expect"]
    assert (mid["priority"], mid["active"], mid["life"], mid["pending"]) == (
        0, 2, [3, 1, 2], {"choice": "discard", "player": 0, "source": "a"})
    assert (v.doc["expect"]["priority"], v.doc["expect"]["pending"]) == (2, {"choice": "legend-rule", "player": 1})
    st, ex = v.doc["setup"], v.doc["expect"]
    assert (st["active"], st["life"], st["mana"], st["left"], st["extra_turns"]) == (1, [3, 1, 2], [6, 4, 5], [0], [2, 1])
    assert st["cards"][0]["owner"] == 2
    assert st["planechase"]["decks"] == [[], ["Otaria"], []]
    assert (st["planechase"]["plane"]["owner"], st["planechase"]["controller"]) == (2, 1)
    assert v.doc["actions"][0]["player"] == 1 and v.doc["actions"][0]["targets"] == ["player:2"]
    assert (ex["active"], ex["planar_controller"], ex["life"], ex["mana"], ex["extra_turns"], ex["in_game"]) == (
        1, 2, [3, 1, 2], [6, 4, 5], [1, 2], [1, 2])


def test_renaming_maps_the_card_ids_of_every_expectation() -> None:
    """The final expect and an action's expect object alike: zones, stack, plotted, the
    pending choice's source."""
    doc = {"setup": {"players": 2, "cards": [{"id": "a", "card": "Island", "owner": 0, "zone": "hand"}]},
           "actions": [{"player": 0, "do": "choose", "cards": ["a"],
                        "expect": {"zones": {"a": "hand"}, "stack": ["a", "ability:prowess"], "plotted": ["a"],
                                   "pending": {"choice": "discard", "player": 0, "source": "a"}}}],
           "expect": {"not_plotted": ["a"], "pending": None}}
    v = rename_prefix(doc)
    mid = v.doc["actions"][0]["expect"]
    assert (mid["zones"], mid["stack"], mid["plotted"], mid["pending"]["source"]) == (
        {"r0_a": "hand"}, ["r0_a", "ability:prowess"], ["r0_a"], "r0_a")
    assert v.doc["expect"] == {"not_plotted": ["r0_a"], "pending": None} and v.doc["actions"][0]["cards"] == ["r0_a"]


def test_permutation_keeps_each_library_in_order() -> None:
    cards = [{"id": f"{z[0]}{o}{i}", "card": "Island", "owner": o, "zone": z}
             for z in ("library", "hand") for o in (0, 1) for i in range(4)]
    doc = {"setup": {"players": 2, "cards": cards}}
    moved = 0
    for k in range(5):
        new = permute_cards(doc, random.Random(k), k).doc["setup"]["cards"]
        assert sorted(c["id"] for c in new) == sorted(c["id"] for c in cards)
        for o in (0, 1):
            assert [c["id"] for c in new if c["zone"] == "library" and c["owner"] == o] == [f"l{o}{i}" for i in range(4)]
        moved += new != cards
    assert moved == 5


def test_the_hand_written_renaming_covers_every_reference_the_layout_declares() -> None:
    """permute_state renames references by hand (independent of symmetry.py); a field the
    layout declares as pointing at a card slot and missing here would go unrenamed."""
    from mtgcheck.model.state import LAYOUT, REF, SLOT, SOURCE

    from .metamorphic import RENAMED_REFERENCES

    declared = {d.name for d in LAYOUT if d.holds in (REF, SLOT, SOURCE)}
    assert declared == RENAMED_REFERENCES
