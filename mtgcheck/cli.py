"""The ``mtgcheck`` command line.

Exit codes (DESIGN.md, CLI): 0 all hold, 1 a property or expectation failed, 2 bad input
or usage, 3 inconclusive.  A user error is one line on stderr, never a traceback.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any, Callable, Iterator

import click

from mtgcheck import __version__
from mtgcheck.budget import GRAPH_BACKENDS, MAX_SEARCH_THREADS
from mtgcheck.checkers import registry
from mtgcheck.errors import MtgcheckError, OutputError


def _guard(fn: Callable[..., int]) -> Callable[..., None]:
    """Turn user errors into one line and exit 2; pass exit codes through."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        try:
            code = fn(*args, **kwargs)
        except MtgcheckError as exc:
            click.echo(f"mtgcheck: error: {exc}", err=True)
            sys.exit(exc.exit_code if exc.exit_code != 1 else 2)
        sys.exit(code)

    return wrapper


class CheckerChoice(click.Choice):
    """The registered checkers' names (read when the command line is parsed, not when this
    module is imported: a checker registered later is a choice too); the keywords keep only
    the checkers with that capability (:func:`mtgcheck.checkers.registry.names`)."""

    def __init__(self, **capability: bool) -> None:
        self.capability = capability
        super().__init__((), case_sensitive=True)

    @property  # type: ignore[override]
    def choices(self) -> tuple[str, ...]:
        return registry.names(**self.capability)

    @choices.setter
    def choices(self, _value: Any) -> None:
        pass


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mtgcheck")
def main() -> None:
    """Formal verification and property testing of the rules of Magic: The Gathering."""


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--json", "json_out", type=click.Path(dir_okay=False), help="Write the verdicts as JSON here.")
@click.option("-q", "--quiet", is_flag=True, help="Print only failures and the summary.")
@_guard
def scenario(files: tuple[str, ...], json_out: str | None, quiet: bool) -> int:
    """Run scenario files (mtgcheck.scenario/1) on the reference model."""
    from mtgcheck.atomic import write_json
    from mtgcheck.errors import FormatError
    from mtgcheck.scenario_run import load, run

    reports: list[dict[str, Any]] = []
    loaded, malformed, failed = [], 0, 0
    for path in files:  # every file is checked before any scenario runs
        try:
            loaded.append(load(path))
        except FormatError as exc:
            click.echo(f"mtgcheck: error: {exc}", err=True)
            malformed += 1
            reports.append({"file": path, "error": str(exc)})
    for sc in loaded:
        try:
            rep = run(sc)
        except FormatError as exc:
            # Some errors show only as the file runs (a split card cast without a half, two
            # targets): that file is malformed, and the other files still run.
            click.echo(f"mtgcheck: error: {exc}", err=True)
            malformed += 1
            reports.append({"file": sc.path, "error": str(exc)})
            continue
        reports.append(rep.to_json())
        if not rep.passed:
            failed += 1
        if quiet and rep.passed:
            continue
        click.echo(f"{'PASS' if rep.passed else 'FAIL'} {rep.path}: {rep.name} (CR {', '.join(rep.rules)})")
        for v in rep.verdicts:
            verdict = "legal" if v.legal else f"illegal ({v.refusal.text()})" if v.refusal else "illegal"
            mark = "  " if v.ok else "!!"
            by = f" by CR {v.rule}" if v.rule else ""
            want = f" [expected {v.expected or 'legal'}{by}]" if not v.ok else ""
            click.echo(f"  {mark} #{v.index} {v.text}: {verdict}{want}")
        for m in rep.mismatches:
            click.echo(f"  !! {m}")
    click.echo(f"{len(files) - failed - malformed} passed, {failed} failed" + (f", {malformed} malformed" if malformed else ""))
    if json_out:
        write_json(json_out, {"format": "mtgcheck.scenario-report/1", "reports": reports})
    return 2 if malformed else 1 if failed else 0


def _interactive() -> bool:
    import os

    return sys.stderr.isatty() and not os.environ.get("CI")


@main.command()
@click.option("--checker", "checkers", multiple=True, type=CheckerChoice(),
              help="Run only this checker (repeatable). Default: all three.")
@click.option("--property", "props", multiple=True, metavar="ID", help="Check only this property (repeatable).")
@click.option("--config", "configs", multiple=True, metavar="NAME|FILE",
              help="Only this built-in configuration, or a configuration file (mtgcheck.config/1; repeatable).")
@click.option("--depth", type=click.IntRange(0, 50), default=None, help="BMC depth for Z3 (default: 3).")
@click.option("--timeout", type=click.FloatRange(1, 86400), default=300.0, show_default=True,
              help="Seconds for one checker on one configuration; past it, verdicts are unknown.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the Hypothesis checker.")
@click.option("--examples", type=click.IntRange(1, 10**7), default=None, help="Hypothesis examples per configuration.")
@click.option("--shards", type=click.IntRange(1, 1000), default=1, show_default=True,
              help="Hypothesis units per configuration: the examples split over this many seed slots "
              "(slot i seeded SEED + i * 1000000), run in parallel.")
@click.option("--jobs", "-j", type=click.IntRange(1, 256), default=2, show_default=True, help="Worker processes.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run the work on this Dask scheduler (tcp://HOST:PORT) instead of local processes "
              "(needs pip install mtgcheck[dask]).")
@click.option("--json", "json_out", type=click.Path(dir_okay=False), help="Write every verdict as JSON here.")
@click.option("--junit", "junit_out", type=click.Path(dir_okay=False), help="Write JUnit XML here.")
@click.option("--variant", type=click.Choice(sorted(__import__("mtgcheck.model.config", fromlist=["VARIANTS"]).VARIANTS)),
              default=None, help="Check a named rule variant instead of the default rules.")
@click.option("--store", "store_dir", type=click.Path(file_okay=False), default="counterexamples", show_default=True,
              help="Where counterexamples are stored (one file each, deduplicated).")
@click.option("--no-store", is_flag=True, help="Don't store counterexamples.")
@click.option("--export-graph", "export_dir", type=click.Path(file_okay=False), default=None,
              help="Write the graph checker's explored state graphs here (GraphML, one per configuration).")
@click.option("--strengthen", is_flag=True, help="Z3: look for strengthening invariants (Houdini) for what plain "
              "induction can't prove; slower.")
@click.option("--exhaustive", is_flag=True, help="Graph search: no turn bound, to the end of every game; a search "
              "that reaches its fixpoint proves each property for every reachable state of the position "
              "(cut by --timeout or --max-memory: holds to the depth reached; no state budget).")
@click.option("--max-memory", "max_memory", type=click.IntRange(1, 10**7), default=None, metavar="MB",
              help="Graph search with --exhaustive: stop when the compiled search holds more than this many "
              "megabytes (its visited set and queue); the verdicts say what stopped the search.")
@click.option("--fingerprints", is_flag=True, help="Graph search with --exhaustive, compiled: keep a 64-bit fingerprint per visited "
              "state instead of the state itself (less memory). No exact proof: a search to its fixpoint says "
              "'holds', with a bound on the probability that two states shared a fingerprint.")
@click.option("--search-threads", type=click.IntRange(0, MAX_SEARCH_THREADS), default=0, show_default=True,
              help="Graph search, compiled: threads that expand the states of one search (its transitions, "
              "keys and properties); the visited set is updated in one thread, in order, so the verdicts, "
              "counts and traces are the same for any number. 0: the cores the jobs running at once leave "
              "idle (one position's search on two cores: 2).")
@click.option("--graph-backend", type=click.Choice(list(GRAPH_BACKENDS)), default="auto", show_default=True,
              help="Graph search: the interpreter (python), the same relation compiled to C (native; needs a C "
              "compiler, CC), or auto: compiled for a long search to the fixpoint (its program cached, or the "
              "search still going after its first states) when a compiler is found. Same verdicts.")
@click.option("--manifest", "manifest_in", type=click.Path(dir_okay=False), default=None,
              help="Compare with this manifest (manifest.json): exit 1 when a figure shrank. Z3 tries "
                   "the invariants its proofs closed there first (and checks them again).")
@click.option("--write-manifest", "manifest_out", type=click.Path(dir_okay=False), default=None,
              help="Write this run's figures as the manifest (run the default check for it).")
@_guard
def check(checkers: tuple[str, ...], props: tuple[str, ...], configs: tuple[str, ...], depth: int | None,
          timeout: float, seed: int, examples: int | None, shards: int, jobs: int, scheduler: str | None,
          json_out: str | None, junit_out: str | None, variant: str | None, store_dir: str, no_store: bool,
          strengthen: bool, exhaustive: bool, export_dir: str | None, graph_backend: str, manifest_in: str | None,
          manifest_out: str | None, max_memory: int | None, fingerprints: bool, search_threads: int) -> int:
    """Check every property with every checker on the built-in configurations.

    Exit 0: every property proved or holds; 1: a property is violated or vacuous (no
    configuration exercised it), a rule of the catalogue never fired (the whole default run,
    graph or hypothesis), or a figure of --manifest shrank; 3: inconclusive (an unknown).
    """
    import time as _time

    from mtgcheck import check_run as cr
    from mtgcheck.atomic import write_json, write_text
    from mtgcheck.junit import junit_xml
    from mtgcheck.model.setup import build
    from mtgcheck.properties.catalogue import BY_ID
    from mtgcheck.rulesets import RuleSet
    from mtgcheck.scenario_run import describe

    chosen = list(checkers) or list(registry.names())
    if graph_backend == "native" and "graph" in chosen:
        from mtgcheck.checkers import native
        from mtgcheck.errors import UsageError

        if not native.available():
            raise UsageError(f"--graph-backend native: {native.NO_COMPILER}")
    failed_writes: list[str] = []  # outputs that could not be written: exit 2 after the others
    prop_ids = cr.properties_named(props)
    confs = cr.configs_named(configs)
    from mtgcheck import coverage, manifest as mf
    from mtgcheck.executors import make_executor

    exempt = coverage.load_exempt()
    expected = mf.load(manifest_in) if manifest_in else None
    opts = cr.Options(depth=depth, timeout=timeout, seed=seed, examples=examples, rules=RuleSet.from_build(variant),
                      strengthen=strengthen, exhaustive=exhaustive, export_dir=export_dir, hypothesis_slots=shards,
                      graph_backend=graph_backend, max_memory=max_memory, fingerprints=fingerprints,
                      search_threads=search_threads,
                      **mf.hint_options(expected))

    schedule = mf.unit_seconds(expected) if expected else None  # the longest units first
    executor = make_executor(scheduler, jobs) if scheduler else None  # before any work: a bad address is exit 2
    click.echo(f"mtgcheck check: {len(prop_ids)} properties x {len(chosen)} checkers x {len(confs)} configurations"
               f" (seed {seed}, {f'scheduler {scheduler}' if scheduler else f'{jobs} jobs'})", err=True)
    t0 = _time.monotonic()
    try:
        if _interactive():
            from rich.progress import Progress

            with Progress(transient=True) as prog:
                task = prog.add_task("checking", total=len(cr.plan(chosen, prop_ids, confs, opts)))
                verdicts = cr.run_check(chosen, prop_ids, confs, opts, jobs=jobs, executor=executor, expected=schedule,
                                        on_done=lambda c, n: prog.advance(task))
        else:
            verdicts = cr.run_check(chosen, prop_ids, confs, opts, jobs=jobs, executor=executor, expected=schedule)
    finally:
        if executor is not None:
            executor.shutdown()
    wall = _time.monotonic() - t0
    failed_writes += [v.stats["write_error"] for v in verdicts if "write_error" in v.stats]
    combined = cr.combine(verdicts)
    cells = {(c.property, c.checker): c for c in combined}
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"mtgcheck check ({wall:.0f} s)")
    table.add_column("property")
    table.add_column("CR")
    for c in chosen:
        table.add_column(c)
    for pid in prop_ids:
        row = [pid, ", ".join(BY_ID[pid].rules)]
        for c in chosen:
            comb = cells.get((pid, c))
            row.append(comb.cell() if comb else "-")
        table.add_row(*row)
    Console(width=200 if not sys.stdout.isatty() else None, soft_wrap=False).print(table)
    descr = {conf.name: (lambda cfg: (lambda a: describe(cfg, a)))(build(conf.position)[0]) for conf in confs}
    for comb in combined:
        if comb.status == "violated" and comb.verdict:
            v = comb.verdict
            slot = f", seed slot {v.stats['slot']} (Hypothesis seed {v.stats['seed']})" if "slot" in v.stats else ""
            click.echo(f"VIOLATED {comb.checker}::{comb.property} on {v.config} "
                       f"(CR {', '.join(BY_ID[comb.property].rules)}){slot}, trace of {len(v.trace)}:")
            for a in v.trace:
                click.echo(f"    {descr[v.config](a)}")
    if not no_store:
        from mtgcheck.replay import from_verdict
        from mtgcheck.store import store

        positions = {conf.name: conf.position for conf in confs}
        for v in verdicts:
            if v.status == "violated" and v.trace:
                from mtgcheck.minimize import minimize

                try:
                    path, new = store(store_dir, minimize(from_verdict(v, positions[v.config], seed=seed,
                                                                       rules=opts.rules)))
                except OutputError as exc:  # the reports are still written, then exit 2
                    failed_writes.append(str(exc))
                    break
                click.echo(f"    {'stored' if new else 'already stored'}: {path}")
    code = cr.exit_code(combined)
    cov = coverage.merge(coverage.collect(verdicts), chosen, registry.names(counts_rules=True))
    gate = coverage.gate(cov, exempt, full={c.name for c in confs} >= {c.name for c in cr.BUILTIN})
    figures = mf.build(opts, prop_ids, verdicts, cov.units)
    compared = mf.compare(expected, figures) if expected else None
    for line in coverage.summary(cov, exempt) + gate.notes + gate.failures + (
            compared.lines(manifest_in) if compared else []):
        click.echo(line)
    if gate.failed or (compared and compared.shrinks):
        code = 1
    if manifest_out:
        with _deferred(failed_writes):
            write_json(manifest_out, figures)
            click.echo(f"manifest written: {manifest_out}")
    counts = {s: sum(1 for c in combined if c.status == s) for s in ("proved", "holds", "violated", "unknown", "vacuous")}
    click.echo(", ".join(f"{n} {s}" for s, n in counts.items()) + f"; {wall:.1f} s; seed {seed}")
    if json_out:
        with _deferred(failed_writes):
            write_json(json_out, {
                "format": "mtgcheck.check-report/1", "seed": seed, "seconds": round(wall, 2),
                "exit": 2 if failed_writes else code,
                "combined": [{"property": c.property, "checker": c.checker, "status": c.status, "cell": c.cell()}
                             for c in combined],
                "verdicts": [cr.verdict_json(v, descr[v.config]) for v in verdicts],
                "coverage": coverage.to_json(cov, gate, exempt),
                **({"manifest": {"file": manifest_in, **compared.__dict__}} if compared else {})})
    if junit_out:
        cases = []
        for c in combined:
            v = c.verdict
            body = "\n".join(descr[v.config](a) for a in v.trace) if v else ""
            cases.append((f"{c.checker}::{c.property}", c.status, sum(x.seconds for x in c.per_config) / max(1, len(c.per_config)),
                          c.cell(), body))
        cases += _gate_cases(gate, compared, manifest_in)
        with _deferred(failed_writes):
            write_text(junit_out, junit_xml("mtgcheck", cases))
    return _after_writes(failed_writes, code)


@contextlib.contextmanager
def _deferred(failed: list[str]) -> Iterator[None]:
    """Note a write that failed and carry on: every other output is still written."""
    try:
        yield
    except OutputError as exc:
        failed.append(str(exc))


def _after_writes(failed: list[str], code: int) -> int:
    """The exit code once every output was tried: 2 (one line each) if a write failed."""
    for message in dict.fromkeys(failed):
        click.echo(f"mtgcheck: error: {message}", err=True)
    return 2 if failed else code


def _gate_cases(gate: Any, compared: Any, manifest_in: str | None) -> list[tuple[str, str, float, str, str]]:
    """JUnit testcases for the coverage gate (when it applied) and the manifest (when given)."""
    cases = []
    if gate.applied:
        cases.append(("coverage::catalogue", "uncovered" if gate.failed else "holds", 0.0,
                      f"{len(gate.failures)} rules never fired" if gate.failed else "every rule fired or is exempt",
                      "\n".join(gate.failures)))
    if compared is not None:
        cases.append((f"manifest::{manifest_in}", "shrunk" if compared.shrinks else "holds", 0.0,
                      f"{len(compared.shrinks)} figures shrank" if compared.shrinks else "no figure shrank",
                      "\n".join(compared.shrinks)))
    return cases


@main.command()
def properties() -> None:
    """List the property catalogue: id, CR rules, statement."""
    from mtgcheck.properties.catalogue import PROPERTIES

    for p in PROPERTIES:
        click.echo(f"{p.id}  [CR {', '.join(p.rules)}]  {p.statement}")


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
@click.option("--engine", "engine_spec", default=None, metavar="SPEC",
              help="Replay engine divergences on this engine (cmd:COMMAND, python:MODULE:CLASS, phase, model).")
@click.option("--call-timeout", type=float, default=10.0, show_default=True, help="Seconds per engine call.")
@_guard
def replay(paths: tuple[str, ...], engine_spec: str | None, call_timeout: float) -> int:
    """Replay stored counterexamples (default: everything under counterexamples/).

    On its target rule set each must still violate its property; on the reference model it
    must violate nothing.  An engine's divergence replays on the reference model as a
    scenario (the rules' verdicts must hold), and with --engine on that engine (does it
    still diverge?).  Exit 1 if a counterexample no longer reproduces on its target, the
    reference model violates a property, or an engine still diverges; 2 a malformed file.
    """
    from pathlib import Path

    from mtgcheck.errors import FormatError
    from mtgcheck.replay import load as load_cx, replay_divergence, replay_property
    from mtgcheck.store import stored

    files: list[Path] = []
    for p in paths or ("counterexamples",):
        files += stored(p) if Path(p).is_dir() else [Path(p)]
    loaded, malformed = [], 0
    for f in files:  # every file is checked before anything runs
        try:
            loaded.append(load_cx(f))
        except FormatError as exc:  # one bad file is named; the others still replay
            click.echo(f"mtgcheck: error: {exc}", err=True)
            malformed += 1
    driver = None
    on_engine: Any = None
    if engine_spec is not None:
        from mtgcheck.validate import Driver, replay_on_engine as on_engine

        driver = Driver(engine_spec, call_timeout=call_timeout)
    bad = 0
    try:
        for cx in loaded:
            ok, line = (replay_divergence(cx, driver, on_engine) if cx.violates == "divergence"
                        else replay_property(cx, strict=True))
            bad += 0 if ok else 1
            click.echo(f"{cx.path}: {line}")
    finally:
        if driver is not None:
            driver.close()
    click.echo(f"{len(loaded) - bad} passed, {bad} failed" + (f", {malformed} malformed" if malformed else ""))
    return 2 if malformed else 1 if bad else 0


@main.command()
@click.argument("rules_a")
@click.argument("rules_b")
@click.option("--config", "config_name", default=None, metavar="NAME", help="Built-in configuration (default: each in turn).")
@click.option("--out", type=click.Path(dir_okay=False), help="Write the separating scenario here.")
@click.option("--checker", type=CheckerChoice(separates=True), default="graph", show_default=True,
              help="Search the histories explicitly (graph) or symbolically (Z3 BMC, iterative deepening).")
@_guard
def diff(rules_a: str, rules_b: str, config_name: str | None, out: str | None, checker: str) -> int:
    """Find the shortest scenario on which two rule sets disagree.

    A rule set is `reference` (the CR as the model reads it), a variant (`116.2k`), a
    mutant (`mutant-ID`, see `mtgcheck mutants`) or `mutant-COND[+COND...]` (guard conditions
    switched off).  Prints the scenario, which
    `mtgcheck scenario` runs as written (under RULES_B).  Exit 0 when one is found, 3 when
    none is within the configurations' bounds (every reachable state compared), 4 when none
    was found but a search was cut by its budget (states, time or Z3's depth) before it had
    compared them all.
    """
    import json as _json

    from mtgcheck import check_run as cr
    from mtgcheck.atomic import write_json
    from mtgcheck.configs import CheckConfig
    from mtgcheck.diff import Difference, SearchCut, as_scenario, parse_rule_set

    ra, rb = parse_rule_set(rules_a), parse_rule_set(rules_b)
    confs = cr.configs_named([config_name] if config_name else [])
    search = registry.get(checker).separate
    found: list[tuple[CheckConfig, Difference]] = []
    cut: list[tuple[str, SearchCut]] = []  # a cut search is no answer: never "no difference"
    for conf in confs:
        try:
            d = search(conf, ra, rb)
        except SearchCut as exc:
            cut.append((conf.name, exc))
            continue
        if d is not None:
            found.append((conf, d))
    cuts = "; ".join(f"on {name} the search was cut by {exc.budget} after comparing {exc.compared}"
                     for name, exc in cut)
    if not found:
        if cut:
            whole = [c.name for c in confs if c.name not in {name for name, _ in cut}]
            click.echo(f"no difference found between {rules_a} and {rules_b}, but the search is not complete: {cuts}"
                       + (f" (searched in full, no difference: {', '.join(whole)})" if whole else ""))
            return 4
        click.echo(f"no difference between {rules_a} and {rules_b} within the bounds of "
                   + ", ".join(c.name for c in confs) + " (every state both reach compared)")
        return 3
    conf, d = min(found, key=lambda cd: len(cd[1].trace))
    doc = as_scenario(conf, rules_a, rules_b, d)
    click.echo(f"{rules_a} and {rules_b} part after {len(d.trace)} common actions on {conf.name}: "
               f"{doc['description']}", err=True)
    if cut:  # the difference stands, but a cut configuration may hold a shorter one
        click.echo(f"(not necessarily the shortest: {cuts})", err=True)
    if out:
        write_json(out, doc)
    click.echo(_json.dumps(doc, indent=2))
    return 0


@main.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--svg", "svg_out", type=click.Path(dir_okay=False), help="Write a picture of the trace (SVG).")
@click.option("--itf", "itf_out", type=click.Path(dir_okay=False), help="Write the trace as ITF JSON.")
@_guard
def show(file: str, svg_out: str | None, itf_out: str | None) -> int:
    """Narrate a stored counterexample turn by turn, with the CR rule it breaks."""
    from mtgcheck.atomic import write_json, write_text
    from mtgcheck.replay import load as load_cx
    from mtgcheck.show import itf, narrate, svg

    cx = load_cx(file)
    click.echo(narrate(cx))
    if svg_out:
        write_text(svg_out, svg(cx))
    if itf_out:
        write_json(itf_out, itf(cx))
    return 0


@main.command()
@click.option("--checker", "checkers", multiple=True, type=CheckerChoice(),
              help="Run only this checker (repeatable). Default: all three.")
@click.option("--mutant", "mutant_ids", multiple=True, metavar="ID", help="Only this mutant (repeatable).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the Hypothesis checker.")
@click.option("--timeout", type=click.FloatRange(1, 86400), default=120.0, show_default=True,
              help="Seconds for one checker on one mutant.")
@click.option("--jobs", "-j", type=click.IntRange(1, 256), default=2, show_default=True)
@click.option("--json", "json_out", type=click.Path(dir_okay=False), help="Write the kill matrix as JSON here.")
@click.option("--junit", "junit_out", type=click.Path(dir_okay=False), help="Write JUnit XML here (mutant::ID).")
@_guard
def mutants(checkers: tuple[str, ...], mutant_ids: tuple[str, ...], seed: int, timeout: float, jobs: int,
            json_out: str | None, junit_out: str | None) -> int:
    """Run every checker on every mutant and print the kill matrix.

    Exit 0 only when every mutant is killed by at least one checker.
    """
    from mtgcheck.atomic import write_json, write_text
    from mtgcheck.errors import UsageError
    from mtgcheck.junit import junit_xml
    from mtgcheck.model.mutants import BY_ID as MUT, MUTANTS
    from mtgcheck.mutants_run import median_time_to_kill, run_all

    for i in mutant_ids:
        if i not in MUT:
            raise UsageError(f"--mutant: no mutant {i!r}")
    chosen = [MUT[i] for i in mutant_ids] or list(MUTANTS)
    cks = list(checkers) or list(registry.names())
    click.echo(f"mtgcheck mutants: {len(chosen)} mutants x {len(cks)} checkers (seed {seed})", err=True)
    kills = run_all(cks, chosen, seed=seed, timeout=timeout, jobs=jobs)
    cell = {(k.mutant, k.checker): k for k in kills}
    from rich.console import Console
    from rich.table import Table

    table = Table(title="kill matrix")
    table.add_column("mutant")
    table.add_column("CR")
    for c in cks:
        table.add_column(c)
    survivors = []
    for m in chosen:
        row = [m.id, m.cr]
        for c in cks:
            k = cell[(m.id, c)]
            row.append(f"killed ({k.trace_length})" if k.killed else "survived")
        if not any(cell[(m.id, c)].killed for c in cks):
            survivors.append(m.id)
        table.add_row(*row)
    Console(width=200 if not sys.stdout.isatty() else None).print(table)
    score = (len(chosen) - len(survivors)) / len(chosen)
    for c in cks:
        med = median_time_to_kill(kills, c)
        n = sum(1 for k in kills if k.checker == c and k.killed)
        click.echo(f"{c}: kills {n}/{len(chosen)}" + (f", median time to kill {med:.1f} s" if med is not None else ""))
    click.echo(f"mutation score {score:.0%} ({len(chosen) - len(survivors)}/{len(chosen)})"
               + (f"; survivors: {', '.join(survivors)}" if survivors else ""))
    if json_out:
        write_json(json_out, {"format": "mtgcheck.mutants-report/1", "seed": seed, "score": score,
                              "kills": [k.__dict__ for k in kills]})
    if junit_out:
        cases = []
        for m in chosen:
            killers = [cell[(m.id, c)] for c in cks if cell[(m.id, c)].killed]
            status = "holds" if killers else "violated"
            msg = ("killed by " + ", ".join(f"{k.checker} ({k.trace_length})" for k in killers)) if killers \
                else f"survived: no checker detects '{m.breaks}' (CR {m.cr})"
            cases.append((f"mutant::{m.id}", status, sum(cell[(m.id, c)].seconds for c in cks), msg, ""))
        write_text(junit_out, junit_xml("mtgcheck-mutants", cases))
    return 0 if not survivors else 1



@main.command()
@click.option("--engine", "engine_spec", required=True, metavar="SPEC",
              help="cmd:COMMAND (JSON lines), python:MODULE:CLASS, phase, or model[:VARIANT|:mutant-ID].")
@click.option("--budget", type=click.IntRange(0, 1_000_000), default=200, show_default=True,
              help="Generated games (besides every scenario and stored counterexample in scope).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the generated games.")
@click.option("--json", "json_out", type=click.Path(dir_okay=False), help="Write the report as JSON here.")
@click.option("--store", "store_dir", type=click.Path(file_okay=False), default="counterexamples", show_default=True,
              help="Where divergences are stored (under <engine>-<version>/).")
@click.option("--no-store", is_flag=True, help="Don't store divergences.")
@click.option("--scenarios", "scenario_dirs", multiple=True, type=click.Path(exists=True, file_okay=False),
              help="A folder of scenario files to replay on the engine besides tests/scenarios (repeatable).")
@click.option("--no-default-scenarios", is_flag=True, help="Don't replay tests/scenarios (only --scenarios folders).")
@click.option("--max-faults", type=click.IntRange(0, 1_000_000), default=3, show_default=True,
              help="Stop after this many identical engine faults (hangs, crashes...; 0: never stop).")
@click.option("--call-timeout", type=click.FloatRange(0.1, 3600), default=10.0, show_default=True,
              help="Seconds an engine may take to answer one call before it counts as hung.")
@click.option("--max-steps", type=click.IntRange(1, 500), default=30, show_default=True,
              help="Actions per generated game.")
@click.option("--engine-deals", is_flag=True,
              help="Games the engine shuffles and deals (for engines that cannot be set up; docs/engine-deals.md).")
@_guard
def validate(engine_spec: str, budget: int, seed: int, json_out: str | None, store_dir: str, no_store: bool,
             scenario_dirs: tuple[str, ...], no_default_scenarios: bool, max_faults: int, call_timeout: float,
             max_steps: int, engine_deals: bool = False) -> int:
    """Differential testing: drive an engine and the rules through the same actions.

    Every divergence (legality, the list of legal actions, the position after a step, or
    an engine that crashes, hangs or answers garbage) is minimized, stored as a
    counterexample and reported with the CR rule at stake.  Exit 0 no divergence, 1
    divergences, 2 bad input or usage, 3 nothing could be compared.
    """
    from pathlib import Path

    from mtgcheck import validate as val
    from mtgcheck.model.vocabulary import cited
    from mtgcheck.atomic import write_json
    from mtgcheck.store import stored

    import os
    import sys

    default = [] if no_default_scenarios else [p for p in (Path("tests/scenarios"),) if p.is_dir()]
    dirs = list(dict.fromkeys([*default, *(Path(d) for d in scenario_dirs)]))
    files = list(dict.fromkeys(f for d in dirs for f in sorted(d.glob("*.json"))))
    if Path(store_dir).is_dir():
        files += stored(store_dir)
    click.echo(f"validating --engine {engine_spec} (seed {seed}, budget {budget})", err=True)
    if engine_deals:
        from mtgcheck import dealt

        rep = dealt.run(engine_spec, budget=budget, seed=seed, store_dir=None if no_store else store_dir,
                        call_timeout=call_timeout, max_steps=max_steps, progress=lambda m: click.echo(m, err=True))
    else:
        rep = val.run(engine_spec, budget=budget, seed=seed, store_dir=None if no_store else store_dir,
                      scenario_files=files, call_timeout=call_timeout, max_steps=max_steps, max_faults=max_faults,
                      show_progress=sys.stderr.isatty() and not os.environ.get("CI"),
                      progress=lambda m: click.echo(m, err=True),
                      warn=lambda m: click.echo(f"mtgcheck: warning: {m}", err=True))
    for tr, path, new in rep.found:
        d = tr.divergence
        assert d is not None
        click.echo(f"DIVERGENCE {d.kind} [{d.field}]" + (f" {cited(d.rule, d.card)}" if d.rule else "") + f": {d.why}")
        click.echo(f"  {len(tr.actions)} actions, from {tr.source}"
                   + (f"; {'stored' if new else 'already stored'}: {path}" if path else ""))
    click.echo(f"{rep.engine} {rep.version}: {rep.traces} traces ({', '.join(f'{n} {k}' for k, n in rep.sources.items())}), "
               f"{rep.steps} steps, {rep.refused} positions refused, {rep.restarts} engine restarts, "
               f"{rep.diverged} traces diverged, {len(rep.found)} distinct divergences, {rep.seconds:.1f} s (seed {seed})")
    cov = rep.coverage
    if cov:
        click.echo(f"rule coverage: {cov['rules_reached']} of {cov['rules_in_catalogue']} rules of the catalogue reached"
                   + (f" (never: {', '.join(cov['missing'])})" if cov["missing"] else ""))
    if rep.stopped:
        click.echo(rep.stopped)
    failed_writes = [str(rep.write_error)] if rep.write_error is not None else []
    if json_out:
        with _deferred(failed_writes):
            write_json(json_out, rep.to_json())
    return _after_writes(failed_writes, 1 if rep.found else 0 if rep.traces else 3)


@main.command()
@click.argument("file", required=False, metavar="[FILE]")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port on 127.0.0.1 (0: a free port the system picks).")
@click.option("--no-browser", is_flag=True, help="Serve without opening a browser (print the URL only).")
@click.option("--engine", "engine_spec", default=None, metavar="SPEC",
              help="Also play the trace on this engine (as validate's --engine) and mark the first divergence.")
@_guard
def explore(file: str | None, port: int, no_browser: bool, engine_spec: str | None) -> int:
    """Explore a position in a local web page: step the rules, see refusals and properties.

    FILE is a scenario, a configuration file, a stored counterexample or a built-in
    configuration name (default: the first built-in).  The page is served on 127.0.0.1 only;
    the URL printed holds the session's token, without which it answers nothing.
    """
    from mtgcheck.errors import UsageError
    from mtgcheck.explore.server import ExploreServer
    from mtgcheck.explore.session import Explorer, open_source

    explorer = Explorer(open_source(file), engine_spec)
    try:
        server = ExploreServer(explorer, port)
    except OSError as exc:
        explorer.close()
        raise UsageError(f"--port: cannot listen on 127.0.0.1:{port} ({exc.strerror})") from None
    click.echo(f"mtgcheck explore: {explorer.opened.source} at {server.url}  (Ctrl-C stops)", err=True)
    if not no_browser:
        import webbrowser

        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        explorer.close()
    return 0


if __name__ == "__main__":  # pragma: no cover
    main()
