"""Invariants carried across positions of one shape (mtgcheck/checkers/z3bmc/reuse.py).

The candidates one position's proofs closed are the next position's hints when it has the
same shape (the same configuration, another position): checked again there, never trusted.
A name that does not hold on the new position is dropped (its counterpart with this
position's values is tried instead), the verdicts are those of a run from scratch, and the
reuse is measured: the hints suffice, with no more consecution queries than from scratch."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from mtgcheck.checkers import z3bmc
from mtgcheck.checkers.z3bmc import reuse
from mtgcheck.checkers.z3bmc.budget import Budget
from mtgcheck.checkers.z3bmc.initial import initial_placements
from mtgcheck.configs import SMALL
from mtgcheck.model.setup import build
from mtgcheck.properties.catalogue import PROPERTIES

RITES = SMALL["break-rites"]


def _seven_life(conf):  # type: ignore[no-untyped-def]
    """The same shape (card pool, players, bounds), another position: player 0 starts at 7 life."""
    return dataclasses.replace(conf, name=f"{conf.name}-low",
                               position=dataclasses.replace(conf.position, life=(7, *conf.position.life[1:])))


LOW = _seven_life(RITES)


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MTGCHECK_CACHE", str(tmp_path))
    return tmp_path


def _check(conf, reuse_: bool):  # type: ignore[no-untyped-def]
    return z3bmc.check(conf, list(PROPERTIES), depth=2, timeout=600, reuse=reuse_)


def _statuses(vs) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {v.property: v.status for v in vs}


def _live_names(conf) -> set[str]:  # type: ignore[no-untyped-def]
    """The candidates mined on ``conf`` and true in each of its initial states."""
    cfg, s0 = build(conf.position)
    enc = z3bmc.Encoding.build(cfg, s0)
    found = z3bmc.find_invariants(enc, conf, lambda st: initial_placements(cfg, s0, st), Budget(10**7, 1e18))
    assert found.complete
    return {c.name for c in found.live}


def test_the_shape_is_the_configuration_not_the_position() -> None:
    (cfg_a, _), (cfg_b, _) = build(RITES.position), build(LOW.position)
    assert reuse.shape_key(cfg_a) == reuse.shape_key(cfg_b)
    other, _ = build(SMALL["break-plot"].position)
    assert reuse.shape_key(other) != reuse.shape_key(cfg_a)


def test_a_second_position_of_the_shape_reuses_the_first_and_drops_what_fails_there() -> None:
    first = _check(RITES, True)
    cfg, _ = build(RITES.position)
    stored = reuse.load(cfg)
    assert stored is not None and sorted(stored.invariants) == sorted(first[0].stats["proof_invariants"])
    assert stored.proved == sorted(v.property for v in first if v.status == "proved")
    # Some of them do not hold on the new position (mined from its reachable states, true
    # in each of its initial states): 7 life is not 20.
    foreign = set(stored.invariants) - _live_names(LOW)
    assert foreign, "the second position should break some of the first's invariants"
    again = _check(LOW, True)
    fresh = _check(LOW, False)
    inv_again, inv_fresh = again[0].stats["invariants"], fresh[0].stats["invariants"]
    assert inv_again["reused"] == len(stored.invariants) and "reused" not in inv_fresh
    # never trusted: what fails on this position is in none of its proofs; the verdicts are
    # those of the run from scratch
    assert not foreign & set(again[0].stats["proof_invariants"])
    assert _statuses(again) == _statuses(fresh)
    assert all(v.status == "proved" for v in again)
    # The hints suffice: a proof on the first position read its ``life[0] == 20``, and the
    # hints carry this position's ``life[0] == 7`` in its place (``reuse.with_counterparts``);
    # without it, the property was left to the closure of every candidate.  And no more
    # consecution queries (the hinted closure's and the one after it) than from scratch.  Not
    # fewer any more: from scratch, the passes prove nearly every candidate without a query
    # (bounds read under the transitions' guards, ``z3bmc/bound_pass.py``), two queries in all.
    # (with the hints sufficing, the run's closure is the hinted one: its queries are counted
    # once, under ``hints_queries``; ``consecution_queries`` names the same closure's)
    assert inv_again["hints_sufficed"]
    queries_again = inv_again["hints_queries"]
    assert queries_again == inv_again["consecution_queries"]
    assert queries_again <= inv_fresh["consecution_queries"], (queries_again, inv_fresh["consecution_queries"])


def test_a_name_of_another_position_brings_its_counterpart_here() -> None:
    """A recorded name not mined here brings those mined here that say the same of the same
    entries with other values; a name mined here brings nothing more, and a slot or player
    index is no value."""
    mined = ["life[0] == 7", "life[1] == 20", "zone[a] == 2 -> pos[a] == 0", "zone[a] == 3 -> pos[a] == 0",
             "pending in [0, 2]"]
    recorded = ["life[0] == 20", "zone[a] == 2 -> pos[a] == 0", "pending in [0]"]
    assert reuse.with_counterparts(recorded, mined) == sorted([*recorded, "life[0] == 7", "pending in [0, 2]"])
    assert reuse.form("ab_kind[1] in [0]") == reuse.form("ab_kind[1] in [0, 3]") != reuse.form("ab_kind[2] in [0]")


def test_a_reused_name_that_is_not_inductive_here_is_dropped() -> None:
    """An entry naming every candidate true initially, junk included: the closure drops the
    junk (consecution counterexamples), the proofs rest only on what it closed."""
    cfg, _ = build(LOW.position)
    live = _live_names(LOW)
    assert reuse.store(cfg, sorted(live), [], [p.id for p in PROPERTIES])
    vs = _check(LOW, True)
    inv = vs[0].stats["invariants"]
    assert inv["reused"] == len(live)
    assert inv["dropped"] > 0
    proof = set(vs[0].stats["proof_invariants"])
    assert proof < live
    assert all(v.status == "proved" for v in vs)


def test_an_entry_that_is_corrupt_or_of_another_key_is_ignored(own_cache: Path) -> None:
    cfg, _ = build(RITES.position)
    assert reuse.store(cfg, ["a", "b"], ["b"], ["stack-ordered"])
    assert reuse.load(cfg) == reuse.Entry(["a", "b"], ["b"], ["stack-ordered"])
    f = own_cache / "z3-invariants" / f"{reuse.shape_key(cfg)}.json"
    doc = json.loads(f.read_text())
    f.write_text(json.dumps({**doc, "key": "0" * 32}))
    assert reuse.load(cfg) is None
    f.write_text(json.dumps({**doc, "invariants": [1, 2]}))
    assert reuse.load(cfg) is None
    f.write_text("{not json")
    assert reuse.load(cfg) is None
    assert [p.name for p in f.parent.iterdir()] == [f.name]  # atomic writes leave no temporary file


def test_hints_the_passes_close_are_tried_as_from_scratch_first() -> None:
    """When every hinted candidate is closed by the interval and difference passes (no query),
    each property is first tried on them, as a run from scratch tries it: on ``break-bolt``
    the second position then asks no consecution query at all, where closing the hints in
    chunks first asked the state properties' step cases together in one; the verdicts are
    those of a run from scratch."""
    bolt = SMALL["break-bolt"]
    low = _seven_life(bolt)
    _check(bolt, True)
    again, fresh = _check(low, True), _check(low, False)
    inv = again[0].stats["invariants"]
    assert inv["reused"] > 0 and inv["hints_sufficed"]
    assert inv["hints_queries"] == 0 and not [q for q in again[0].stats["induction_queries"] if "at once" in q]
    assert _statuses(again) == _statuses(fresh) and all(v.status == "proved" for v in again)
