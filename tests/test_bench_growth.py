"""``bench/z3_scale.py``'s growth exponents: the shape of the ladder's cost curve, read on
the rungs with the first rung's player count."""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _growth():  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import z3_scale
    finally:
        sys.path.remove(str(ROOT / "bench"))
    return z3_scale.growth


def _rung(name: str, players: int, slots: int, terms: int, seconds: float, rlimit: float) -> dict[str, object]:
    return {"name": name, "players": players, "slots": slots, "terms": terms,
            "seeded": [rlimit, rlimit * 2, rlimit / 2], "seeded_wall": [seconds, seconds / 3, seconds * 3]}


def test_the_exponents_read_linear_and_quadratic_growth_on_one_player_count() -> None:
    growth = _growth()
    rungs = [_rung(f"r{s}", 2, s, 100 * s * s, 0.5 * s, 0.01 * s * s) for s in (8, 10, 12, 14)]
    rungs.append(_rung("four players", 4, 10, 99, 1e6, 1e6))  # another count: not read
    text = growth(rungs)
    found = [float(x) for x in re.findall(r"\^(\d+\.\d+)", text)]
    assert found == [1.0, 0.5, 2.0, 1.0], text  # seconds/slots, seconds/terms, rlimit/slots, rlimit/terms
    assert "r8, r10, r12, r14" in text and "four players" not in text


def test_fewer_than_three_rungs_give_no_exponent() -> None:
    growth = _growth()
    assert growth([_rung("a", 2, 8, 10, 1.0, 1.0), _rung("b", 2, 10, 20, 2.0, 2.0)]) == ""
