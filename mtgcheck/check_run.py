"""``mtgcheck check``: every property, every checker, the built-in configurations.

Work is split into coarse units (one checker on one configuration) and run behind a
``concurrent.futures`` executor: a local process pool by default, one Z3 context per
process.  Verdicts are combined per property and checker across configurations.
"""

from __future__ import annotations

import time
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from mtgcheck.checkers.result import HOLDS, PROVED, UNKNOWN, VACUOUS, VIOLATED, Verdict
from mtgcheck.configs import BUILTIN, CheckConfig
from mtgcheck.properties.catalogue import BY_ID, PROPERTIES

CHECKERS = ("z3", "graph", "hypothesis")


@dataclass(frozen=True)
class Options:
    depth: int | None = None
    timeout: float = 150.0
    seed: int = 0
    examples: int | None = None
    variant: str | None = None
    disabled: frozenset[str] = frozenset()
    strengthen: bool = False
    export_dir: str | None = None  # graph checker: write each explored graph here (GraphML)
    induction: bool = True
    rlimit: int | None = None  # Z3: resource limit of one induction query (None: the checker's default)


def run_unit(checker: str, conf: CheckConfig, prop_ids: Sequence[str], opts: Options) -> list[Verdict]:
    """One checker on one configuration (a picklable unit of work)."""
    props = [BY_ID[p] for p in prop_ids]
    t0 = time.monotonic()
    if checker == "graph":
        from mtgcheck.checkers import graph

        out, ex = graph.check(conf, props, timeout=opts.timeout, variant=opts.variant, disabled=opts.disabled)
        if opts.export_dir:
            graph.export(ex, f"{opts.export_dir}/{conf.name}.graphml")
    elif checker == "hypothesis":
        from mtgcheck.checkers import hypo

        out = hypo.check(conf, props, seed=opts.seed, examples=opts.examples, timeout=opts.timeout,
                         variant=opts.variant, disabled=opts.disabled)
    elif checker == "z3":
        from mtgcheck.checkers import z3bmc

        out = z3bmc.check(conf, props, depth=opts.depth if opts.depth is not None else min(conf.depth, 3),
                          timeout=opts.timeout, variant=opts.variant, disabled=opts.disabled,
                          strengthen=opts.strengthen, induction=opts.induction, rlimit=opts.rlimit)
    else:
        raise ValueError(checker)
    wall = time.monotonic() - t0
    for v in out:
        v.stats["unit_seconds"] = round(wall, 2)
    return out


@dataclass
class Combined:
    property: str
    checker: str
    status: str
    verdict: Verdict | None  # the one that decided (the violation, the unknown, ...)
    per_config: list[Verdict] = field(default_factory=list)

    def cell(self) -> str:
        v = self.verdict
        if self.status == VIOLATED and v is not None:
            return f"violated at depth {v.depth} [{v.config}]"
        if self.status == PROVED:
            return f"proved (k={max(x.k or 0 for x in self.per_config)})"
        if self.status == HOLDS:
            depth = min((x.depth or 0) for x in self.per_config if x.status in (HOLDS, PROVED))
            return f"holds to depth {depth}"
        if self.status == UNKNOWN and v is not None:
            return f"unknown ({v.detail})" if v.detail else "unknown"
        return self.status


def combine(verdicts: Sequence[Verdict]) -> list[Combined]:
    by: dict[tuple[str, str], list[Verdict]] = {}
    for v in verdicts:
        by.setdefault((v.property, v.checker), []).append(v)
    out = []
    for (prop, checker), vs in by.items():
        pick = lambda st: next((v for v in vs if v.status == st), None)  # noqa: E731
        if (v := pick(VIOLATED)) is not None:
            out.append(Combined(prop, checker, VIOLATED, v, vs))
        elif (v := pick(UNKNOWN)) is not None:
            out.append(Combined(prop, checker, UNKNOWN, v, vs))
        elif checker == "z3" and all(v.status == PROVED for v in vs):
            out.append(Combined(prop, checker, PROVED, vs[0], vs))
        elif any(v.status in (HOLDS, PROVED) for v in vs):
            out.append(Combined(prop, checker, HOLDS, pick(HOLDS) or vs[0], vs))
        else:
            out.append(Combined(prop, checker, VACUOUS, vs[0], vs))
    return out


def run_check(checkers: Sequence[str], prop_ids: Sequence[str], configs: Sequence[CheckConfig], opts: Options,
              jobs: int = 2, on_done: Callable[[str, str], None] | None = None,
              executor: Executor | None = None) -> list[Verdict]:
    units = [(c, conf) for conf in configs for c in checkers]
    verdicts: list[Verdict] = []
    if jobs <= 1 and executor is None:
        for c, conf in units:
            verdicts += run_unit(c, conf, prop_ids, opts)
            if on_done:
                on_done(c, conf.name)
        return verdicts
    own = executor is None
    ex = executor or ProcessPoolExecutor(max_workers=jobs)
    try:
        # Longest first (Z3), so that the pool's tail is short.
        order = sorted(units, key=lambda u: CHECKERS.index(u[0]))
        futs = {ex.submit(run_unit, c, conf, tuple(prop_ids), opts): (c, conf.name) for c, conf in order}
        for fut in as_completed(futs):
            verdicts += fut.result()
            if on_done:
                on_done(*futs[fut])
    finally:
        if own:
            ex.shutdown()
    return verdicts


def exit_code(combined: Sequence[Combined]) -> int:
    """1 a violation or a vacuous property (nothing was checked: CI must not pass it),
    3 an unknown, 0 otherwise."""
    if any(c.status in (VIOLATED, VACUOUS) for c in combined):
        return 1
    if any(c.status == UNKNOWN for c in combined):
        return 3
    return 0


def verdict_json(v: Verdict, describe: Callable[[Any], str] | None = None) -> dict[str, Any]:
    return {"checker": v.checker, "property": v.property, "config": v.config, "status": v.status,
            "summary": v.summary(), "detail": v.detail, "depth": v.depth, "k": v.k,
            "trace": [describe(a) if describe else repr(a) for a in v.trace], "seconds": round(v.seconds, 3),
            "stats": {k: x for k, x in v.stats.items() if k != "coverage"}}  # coverage: the report's own section


def configs_named(names: Sequence[str]) -> list[CheckConfig]:
    if not names:
        return list(BUILTIN)
    known = {c.name: c for c in BUILTIN}
    from mtgcheck.errors import UsageError

    for n in names:
        if n not in known:
            raise UsageError(f"--config: expected one of {', '.join(known)}, got {n!r}")
    return [known[n] for n in names]


def properties_named(ids: Sequence[str]) -> list[str]:
    if not ids:
        return [p.id for p in PROPERTIES]
    from mtgcheck.errors import UsageError

    for i in ids:
        if i not in BY_ID:
            raise UsageError(f"--property: no property {i!r} (see `mtgcheck properties`)")
    return list(ids)
