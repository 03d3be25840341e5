"""``mtgcheck check``: every property, every checker, the built-in configurations.

Work is split into units and run behind a ``concurrent.futures`` executor: a local process
pool by default (one Z3 context per process), or a Dask cluster (``mtgcheck.executors``).
The checkers are those of :mod:`mtgcheck.checkers.registry`, in its order; each says how a
configuration's work splits (``Checker.units``):

* Z3 and the graph search: one unit per configuration, since their cost is the
  per-configuration build (the transition relation, the state space), which every
  property shares.
* Hypothesis: one unit per *shard* = a subset of the properties x a range of seed slots.
  The configuration's example budget N (``--examples`` or ``hypothesis_examples``) is
  split over ``k = min(hypothesis_slots, N)`` seed slots (``--shards k``, default 1); slot ``i``
  runs ``N // k`` examples (one more for ``i < N % k``) with the Hypothesis seed
  ``slot_seed(S, i) = S + i * 1,000,000`` for the run seed ``S`` (``--seed``), so slot 0 is
  the run seed itself and one slot is exactly the unsharded run.  The properties are dealt
  round-robin into ``hypothesis_groups`` subsets (default 1: every property together, which
  shares the simulated games).  The layout depends only on the options, never on the
  executor or the number of workers: a failure found on any worker is found again by the
  same command run locally (``--seed S``, same ``--examples`` and ``--shards``), and each
  verdict records its Hypothesis seed and slot (``stats``).  One slot is the default because
  every slot that finds a violation shrinks it on its own (a violation costs k shrinks), and
  in the built-in run the Z3 and graph units, not Hypothesis, are the longest.

The shards of one (property, checker, configuration) are merged back into one verdict
(:func:`merge_shards`), then verdicts are combined per property and checker across
configurations (:func:`combine`).  Units return verdicts and never write anything: the main
process stores counterexamples.
"""

from __future__ import annotations

import time
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence

from mtgcheck.budget import MAX_SEARCH_THREADS, SEED_STRIDE, Options, slot_examples, slot_seed
from mtgcheck.checkers import registry
from mtgcheck.checkers.result import EVERY_REACHABLE_STATE, HOLDS, PROVED, UNKNOWN, VACUOUS, VIOLATED, Verdict
from mtgcheck.configs import BUILTIN, CheckConfig
from mtgcheck.properties.catalogue import BY_ID, PROPERTIES

__all__ = ["SEED_STRIDE", "Options", "slot_examples", "slot_seed", "Unit", "plan", "run_unit", "run_check",
           "submission_order", "Combined", "combine", "merge_shards", "exit_code", "verdict_json", "configs_named", "properties_named"]


def __getattr__(name: str) -> Any:
    if name == "CHECKERS":  # the registered checkers' names, in order (read live: tests register more)
        return registry.names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class Unit:
    """One piece of work: a checker, a configuration, properties, and (Hypothesis) seed slots."""

    checker: str
    conf: CheckConfig
    prop_ids: tuple[str, ...]
    slots: tuple[int, ...] = ()


def plan(checkers: Sequence[str], prop_ids: Sequence[str], configs: Sequence[CheckConfig],
         opts: Options) -> list[Unit]:
    """Every unit of a run, in the registry's order (longest first: Z3, then the graph search),
    so the pool's tail is short; each checker says how a configuration's work splits."""
    order = registry.names()
    units: list[Unit] = []
    for checker in sorted(checkers, key=order.index):
        split = registry.get(checker).units
        for conf in configs:
            units += [Unit(checker, conf, props, slots) for props, slots in split(conf, list(prop_ids), opts)]
    return units


def run_unit(checker: str, conf: CheckConfig, prop_ids: Sequence[str], opts: Options,
             slots: Sequence[int] = ()) -> list[Verdict]:
    """One checker on one configuration (a picklable unit of work); for Hypothesis, only the
    given seed slots."""
    props = [BY_ID[p] for p in prop_ids]
    t0 = time.monotonic()
    out = registry.get(checker).check(conf, props, opts.rules, opts, slots)
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
            ks = [x.k for x in self.per_config if x.k is not None]
            # Z3 proves by k-induction; the graph search by reaching its fixpoint.
            return f"proved (k={max(ks)})" if ks else "proved (every reachable state)"
        if self.status == HOLDS:
            # a proof covers every depth: the bound is the least of those that hold
            depths = [x.depth or 0 for x in self.per_config if x.status == HOLDS]
            return f"holds to depth {min(depths)}" if depths else "holds"
        if self.status == UNKNOWN and v is not None:
            return f"unknown ({v.detail})" if v.detail else "unknown"
        return self.status


def _vacuous_everywhere(v: Verdict) -> bool:
    """A vacuous verdict of a search that saw every reachable state of its position."""
    return v.status == VACUOUS and v.stats.get("scope") == EVERY_REACHABLE_STATE


def combine(verdicts: Sequence[Verdict]) -> list[Combined]:
    by: dict[tuple[str, str], list[Verdict]] = {}
    for v in verdicts:
        by.setdefault((v.property, v.checker), []).append(v)
    out = []
    for (prop, checker), vs in by.items():
        pick = lambda st: next((v for v in vs if v.status == st), None)  # noqa: E731, B023
        if (v := pick(VIOLATED)) is not None:
            out.append(Combined(prop, checker, VIOLATED, v, vs))
        elif (v := pick(UNKNOWN)) is not None:
            out.append(Combined(prop, checker, UNKNOWN, v, vs))
        elif checker in registry.REGISTRY and registry.REGISTRY[checker].proves and any(
                v.status == PROVED for v in vs) and all(v.status == PROVED or _vacuous_everywhere(v) for v in vs):
            # Proved where the property says something, and vacuously true (its antecedent
            # never held in every reachable state) where it says nothing: proved.
            out.append(Combined(prop, checker, PROVED, pick(PROVED), vs))
        elif any(v.status in (HOLDS, PROVED) for v in vs):
            out.append(Combined(prop, checker, HOLDS, pick(HOLDS) or vs[0], vs))
        else:
            out.append(Combined(prop, checker, VACUOUS, vs[0], vs))
    return out


def _merge(shards: list[Verdict]) -> Verdict:
    """The shards of one (checker, property, configuration) as one verdict.

    As :func:`combine` does across configurations: a violation wins (the shortest trace, the
    lowest slot among equals: it keeps its own seed and slot, to replay it), then an
    unknown; otherwise the property holds if any shard saw its antecedent, else it is
    vacuous.  Examples, steps and witnesses add up.
    """
    shards = sorted(shards, key=lambda v: v.stats.get("slot", 0))
    for status in (VIOLATED, UNKNOWN):
        hits = [v for v in shards if v.status == status]
        if hits:
            best = min(hits, key=lambda v: len(v.trace))
            return replace(best, stats={**best.stats, "slots": len(shards)})
    stats: dict[str, Any] = {key: sum(v.stats.get(key, 0) for v in shards) for key in ("examples", "steps", "witnesses")}
    if any("coverage" in v.stats for v in shards):
        from mtgcheck.coverage import added

        stats["coverage"] = added(v.stats["coverage"] for v in shards if "coverage" in v.stats)
    stats.update(slots=len(shards), seeds=[v.stats.get("seed") for v in shards],
                 unit_seconds=max(v.stats.get("unit_seconds", 0.0) for v in shards))
    first, seconds = shards[0], sum(v.seconds for v in shards)
    if any(v.status in (HOLDS, PROVED) for v in shards):
        detail = f"{stats['examples']} examples, {len(shards)} seed slots from seed {first.stats.get('seed')}"
        depth = max(v.depth or 0 for v in shards if v.status in (HOLDS, PROVED))
        return replace(first, status=HOLDS, detail=detail, depth=depth, seconds=seconds, stats=stats)
    return replace(first, status=VACUOUS, seconds=seconds, stats=stats)


def merge_shards(verdicts: Sequence[Verdict]) -> list[Verdict]:
    """One verdict per (checker, property, configuration), in the order first seen, whatever
    the number of shards: the report and :func:`combine` see what they saw before sharding."""
    cells: dict[tuple[str, str, str], list[Verdict]] = {}
    for v in verdicts:
        cells.setdefault((v.checker, v.property, v.config), []).append(v)
    return [vs[0] if len(vs) == 1 else _merge(vs) for vs in cells.values()]


def submission_order(units: Sequence[Unit], expected: Mapping[tuple[str, str], float] | None) -> list[int]:
    """The order the units go to the workers: the longest expected first (``expected``:
    (checker, configuration) -> seconds, the manifest's record of an earlier run), so that
    no long unit starts last and leaves one worker idle at the end.  A unit with no record
    goes first (it may be long), and equal ones keep the plan's order; with no record at
    all, the plan's order.  Only when the work starts depends on it, never a verdict."""
    if not expected:
        return list(range(len(units)))
    return sorted(range(len(units)), key=lambda i: -expected.get((units[i].checker, units[i].conf.name), float("inf")))


def search_threads(asked: int, jobs: int, units: int, cores: int | None, on_cluster: bool) -> int:
    """Threads for each compiled graph search: ``asked``, or for 0 the cores that the units
    running at once leave idle (one search of a user's position on two cores gets both; the
    built-ins' many units one each), at most :data:`~mtgcheck.budget.MAX_SEARCH_THREADS`.  On
    a cluster, one: its workers' cores are its own."""
    if asked > 0:
        return asked
    if on_cluster:
        return 1
    return min(MAX_SEARCH_THREADS, max(1, (cores or 1) // max(1, min(max(jobs, 1), units))))


def run_check(checkers: Sequence[str], prop_ids: Sequence[str], configs: Sequence[CheckConfig], opts: Options,
              jobs: int = 2, on_done: Callable[[str, str], None] | None = None,
              executor: Executor | None = None,
              expected: Mapping[tuple[str, str], float] | None = None) -> list[Verdict]:
    """Run every unit of :func:`plan` (in this process when ``jobs`` is 1 and no executor is
    given; on workers, longest expected first: :func:`submission_order`), then merge the
    shards.  Results are put back in plan order, so the verdicts do not depend on which
    worker finished first."""
    import os

    units = plan(checkers, prop_ids, configs, opts)
    opts = replace(opts, search_threads=search_threads(opts.search_threads, jobs if executor is None else 1, len(units),
                                                       os.cpu_count(), executor is not None))
    results: list[list[Verdict]] = [[] for _ in units]
    if jobs <= 1 and executor is None:
        for i, u in enumerate(units):
            results[i] = run_unit(u.checker, u.conf, u.prop_ids, opts, u.slots)
            if on_done:
                on_done(u.checker, u.conf.name)
        return merge_shards([v for r in results for v in r])
    # On a Dask cluster with --exhaustive, each graph search is spread over the whole cluster,
    # driven from here (mtgcheck.checkers.distributed_search); the other units go to the workers.
    from mtgcheck.checkers.distributed_search import runner

    spread = runner(executor, opts)
    own = executor is None
    ex = executor or ProcessPoolExecutor(max_workers=jobs)
    order = submission_order(units, expected)
    try:
        spread_here = {i for i in order if spread is not None and registry.get(units[i].checker).spreads}
        futs = {ex.submit(run_unit, units[i].checker, units[i].conf, units[i].prop_ids, opts, units[i].slots): i
                for i in order if i not in spread_here}
        for i in order:
            if i in spread_here:
                assert spread is not None
                results[i] = spread(units[i].conf, units[i].prop_ids)
                if on_done:
                    on_done(units[i].checker, units[i].conf.name)
        for fut in as_completed(futs):
            results[futs[fut]] = fut.result()
            if on_done:
                on_done(units[futs[fut]].checker, units[futs[fut]].conf.name)
    finally:
        if own:
            ex.shutdown()
    return merge_shards([v for r in results for v in r])


def exit_code(combined: Sequence[Combined]) -> int:
    """1 a violation or a vacuous property (nothing was checked: CI must not pass it),
    3 an unknown, 0 otherwise."""
    if any(c.status in (VIOLATED, VACUOUS) for c in combined):
        return 1
    if any(c.status == UNKNOWN for c in combined):
        return 3
    return 0


#: Stats a verdict carries for the harness, not for its row of the report: ``coverage`` (the
#: report's own section), ``proof_invariants`` and ``proof_split`` (the manifest's),
#: ``initial_position`` (the start of the stored counterexample, a Position; the row shows
#: ``initial_state``).
NOT_IN_ROWS = ("coverage", "proof_invariants", "proof_split", "initial_position")


def verdict_json(v: Verdict, describe: Callable[[Any], str] | None = None) -> dict[str, Any]:
    return {"checker": v.checker, "property": v.property, "config": v.config, "status": v.status,
            "summary": v.summary(), "detail": v.detail, "depth": v.depth, "k": v.k,
            "trace": [describe(a) if describe else repr(a) for a in v.trace], "seconds": round(v.seconds, 3),
            "stats": {k: x for k, x in v.stats.items() if k not in NOT_IN_ROWS}}


def configs_named(names: Sequence[str]) -> list[CheckConfig]:
    """The configurations ``--config`` names: built-in names, or configuration files.

    A value that is not a built-in name is a file if it ends in ``.json``, holds a path
    separator or names an existing file; every file is loaded (and any malformed one
    refused) before any work starts.
    """
    import os

    from mtgcheck.configs import load_config
    from mtgcheck.errors import UsageError

    if not names:
        return list(BUILTIN)
    known = {c.name: c for c in BUILTIN}
    out = []
    for n in names:
        if n in known:
            out.append(known[n])
        elif n.endswith(".json") or os.sep in n or os.path.isfile(n):
            out.append(load_config(n))
        else:
            raise UsageError(f"--config: expected one of {', '.join(known)} or a configuration file (.json), got {n!r}")
    seen = [c.name for c in out]
    twice = next((n for i, n in enumerate(seen) if n in seen[:i]), None)
    if twice is not None:
        raise UsageError(f"--config: two configurations named {twice!r} (names must differ: reports key on them)")
    return out


def properties_named(ids: Sequence[str]) -> list[str]:
    if not ids:
        return [p.id for p in PROPERTIES]
    from mtgcheck.errors import UsageError

    for i in ids:
        if i not in BY_ID:
            raise UsageError(f"--property: no property {i!r} (see `mtgcheck properties`)")
    return list(ids)
