"""``bench/z3_scale.py``'s growth exponents: the shape of the ladder's cost curve, read on
the rungs with the first rung's player count."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _bench():  # type: ignore[no-untyped-def]
    """``bench/z3_scale.py`` as a module."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import z3_scale
    finally:
        sys.path.remove(str(ROOT / "bench"))
    return z3_scale


def _growth():  # type: ignore[no-untyped-def]
    return _bench().growth


def _rung(name: str, players: int, slots: int, terms: int, seconds: float, rlimit: float,
          order: int = 0, transitions: int = 1) -> dict[str, object]:
    return {"name": name, "players": players, "slots": slots, "terms": terms, "order_terms": order,
            "transitions": transitions,
            "seeded": [rlimit, rlimit * 2, rlimit / 2], "seeded_wall": [seconds, seconds / 3, seconds * 3]}


def test_the_exponents_read_linear_and_quadratic_growth_on_one_player_count() -> None:
    growth = _growth()
    # the relation: an order part quadratic in the slots, the rest linear; the transitions cubic
    rungs = [_rung(f"r{s}", 2, s, 100 * s * s + 7 * s, 0.5 * s, 0.01 * s * s, order=100 * s * s, transitions=s ** 3)
             for s in (8, 10, 12, 14)]
    rungs.append(_rung("four players", 4, 10, 99, 1e6, 1e6, order=1, transitions=10**6))  # another count: not read
    text = growth(rungs)
    found = [float(x) for x in re.findall(r"\^(\d+\.\d+)", text)]
    # seconds/slots, seconds/terms, rlimit/slots, rlimit/terms; terms, order, rest, transitions per slot
    assert found == pytest.approx([1.0, 0.5, 2.0, 1.0, 2.0, 2.0, 1.0, 3.0], abs=0.02), text
    assert "r8, r10, r12, r14" in text and "four players" not in text


def test_the_cost_model_recovers_a_cost_per_slot_and_transition() -> None:
    """Seconds made as 1.5 s + 4 ms per slot and transition, with transitions growing with
    the slots: the product fit finds those figures with no residual, the fit in slots alone
    leaves one (the curve is not a line in the slots)."""
    growth = _growth()
    shape = [(8, 100), (10, 100), (12, 121), (14, 179)]
    rungs = [_rung(f"r{s}", 2, s, 1000 * s, 1.5 + 0.004 * s * t, 1.0, order=s, transitions=t) for s, t in shape]
    text = growth(rungs)
    fit = re.search(r"(\d+\.\d+) \+ (\d+\.\d+) ms x slots x transitions, largest residual (\d+\.\d+) s; "
                    r"(-?\d+\.\d+) \+ (\d+\.\d+) s x slots, largest residual (\d+\.\d+) s", text)
    assert fit, text
    assert [float(fit[i]) for i in (1, 2, 3)] == [1.5, 4.0, 0.0]
    assert float(fit[6]) > 0.3


def test_fewer_than_three_rungs_give_no_exponent() -> None:
    growth = _growth()
    assert growth([_rung("a", 2, 8, 10, 1.0, 1.0), _rung("b", 2, 10, 20, 2.0, 2.0)]) == ""


def test_library_rungs_add_slots_and_no_transition() -> None:
    """The rungs grown by library cards add two slots each (a card per player) and leave the
    transitions as they were: what they measure is what a slot costs, no card's choices."""
    from mtgcheck.configs import load_config
    from mtgcheck.model.actions import catalogue
    from mtgcheck.model.setup import build

    first = load_config(ROOT / "examples" / "scale" / "01-plot-08.json")
    rungs = _bench().library_rungs(first, 2)
    built = [build(c.position)[0] for c in rungs]
    assert [c.n for c in built] == [8, 10, 12]
    assert [c.name for c in rungs] == ["plot-08", "plot-08+2", "plot-08+4"]
    assert len({len(catalogue(c).transitions) for c in built}) == 1
    added = rungs[2].position.cards[len(first.position.cards):]
    assert sorted((c.owner, c.zone) for c in added) == [(0, "library")] * 2 + [(1, "library")] * 2


def test_footprints_count_a_steps_own_entries_and_what_settle_reaches() -> None:
    """On plot-08 a plot writes its card's entries and a few scalars (not another card's zone),
    and the median step writes under a quarter of the state, while settle's tests of the
    whole state reach over three quarters of it after the step."""
    from mtgcheck.checkers.invariants import entries
    from mtgcheck.checkers.z3bmc.relation import Encoding
    from mtgcheck.configs import load_config
    from mtgcheck.model.setup import build
    from mtgcheck.model.state import flat

    conf = load_config(ROOT / "examples" / "scale" / "01-plot-08.json")
    cfg, s0 = build(conf.position)
    enc = Encoding.build(cfg, s0)
    n, written, reached = _bench().footprints(enc)
    assert n == len(flat(enc.a)) == len(entries(cfg))
    assert 0 < written < n / 4 < 3 * n / 4 < reached <= n
    plot = next(i for i, a in enumerate(enc.actions) if a.verb == "plot" and a.card == 0)
    labels = [entries(cfg)[j].label for j in _bench().written_by(enc, plot)]
    card = cfg.slots[0].id
    assert {f"zone[{card}]", f"plotted[{card}]", "priority"} <= set(labels)
    assert not any(lab.startswith("zone[") and lab != f"zone[{card}]" for lab in labels)
