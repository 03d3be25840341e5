"""``mtgcheck mutants``: every checker on every mutant; the kill matrix and the mutation score."""

from __future__ import annotations

import statistics
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Sequence

from mtgcheck.check_run import Options, run_unit
from mtgcheck.configs import SMALL
from mtgcheck.model.mutants import MUTANTS, Mutant
from mtgcheck.properties.catalogue import PROPERTIES
from mtgcheck.rulesets import RuleSet


@dataclass
class Kill:
    mutant: str
    checker: str
    killed: bool
    trace_length: int | None
    property: str | None
    seconds: float


def run_one(m: Mutant, checker: str, seed: int, timeout: float) -> Kill:
    conf = SMALL[m.position]
    opts = Options(depth=m.depth, timeout=timeout, seed=seed, rules=RuleSet("mutant", m.id), induction=False,
                   first_violation=True)
    t0 = time.monotonic()
    vs = run_unit(checker, conf, [p.id for p in PROPERTIES], opts)
    secs = time.monotonic() - t0
    hits = sorted((v for v in vs if v.status == "violated"), key=lambda v: (v.depth or 0, v.property))
    if hits:
        return Kill(m.id, checker, True, hits[0].depth, hits[0].property, secs)
    return Kill(m.id, checker, False, None, None, secs)


def run_all(checkers: Sequence[str], mutants: Sequence[Mutant], *, seed: int, timeout: float, jobs: int) -> list[Kill]:
    """Every checker named (registered: :mod:`mtgcheck.checkers.registry`) on every mutant."""
    units = [(m, c) for m in mutants for c in checkers]
    if jobs <= 1:
        return [run_one(m, c, seed, timeout) for m, c in units]
    out = []
    with ProcessPoolExecutor(max_workers=jobs) as ex:
        futs = [ex.submit(run_one, m, c, seed, timeout) for m, c in units]
        for f in as_completed(futs):
            out.append(f.result())
    return out


def median_time_to_kill(kills: Sequence[Kill], checker: str) -> float | None:
    ts = [k.seconds for k in kills if k.checker == checker and k.killed]
    return statistics.median(ts) if ts else None


__all__ = ["MUTANTS", "run_all", "run_one", "Kill", "median_time_to_kill"]
