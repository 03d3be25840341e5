"""pytest plugin: ``pytest --mtgcheck`` runs the matrix of ``mtgcheck check`` as test items.

One item per property x checker x configuration (ids ``z3::plot-uses-no-stack[plot]``), and one
per stored counterexample (``replay::variant-116.2k/plot-only-...json``), so that pytest's
selection (``-k``, ``--lf``), reports (JUnit XML) and parallelism (pytest-xdist) apply to them.

A checker works on a whole configuration at once (the Z3 relation, the graph search), so the
items of one (checker, configuration) *unit* share one run: the first item of a unit to run
computes it and stores its verdicts in a file; the others read that file.  Under pytest-xdist the
items of a unit may land on different workers, so the computation holds an exclusive
``fcntl.flock`` on the unit's lock file and a second worker waits for it, then reads.  A worker
holds at most one lock, and never waits for another while it holds one: no deadlock.  The cache
is a fresh temporary folder per session (the controller makes it and hands it to the workers), and
its keys name the options, the mtgcheck version and a hash of the model's source, so a folder given
with ``--mtgcheck-cache`` can be reused across runs without serving stale verdicts.

Without ``--mtgcheck`` the plugin only adds its options: it is loaded in every pytest run.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import pickle
import shutil
import tempfile
import traceback
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from mtgcheck.checkers import registry

if TYPE_CHECKING:  # the model is imported only when --mtgcheck is given
    from mtgcheck.check_run import Options
    from mtgcheck.checkers.result import Verdict
    from mtgcheck.configs import CheckConfig

FLAG = "mtgcheck"
_PLUGIN = "mtgcheck-session"
_CACHE_KEY = "mtgcheck_cache"  # in xdist's workerinput: the session's cache folder
LOG = "computed.log"  # one line per unit computation (a unit computed twice shows as two lines)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mtgcheck", "mtgcheck: the rules' property matrix as test items")
    group.addoption("--mtgcheck", action="store_true", dest=FLAG,
                    help="Collect only the mtgcheck items (property x checker x configuration, and "
                         "stored counterexamples); the test files are not collected.")
    group.addoption("--mtgcheck-checker", action="append", default=[], metavar="NAME",
                    help=f"Only this checker: {registry.spelled(registry.names())} (repeatable). Default: all of them.")
    group.addoption("--mtgcheck-property", action="append", default=[], metavar="ID",
                    help="Only this property (repeatable). Default: every property.")
    group.addoption("--mtgcheck-config", action="append", default=[], metavar="NAME",
                    help="Only this built-in configuration (repeatable). Default: all of them.")
    group.addoption("--mtgcheck-seed", type=int, default=0, metavar="N", help="Seed of the Hypothesis checker (0).")
    group.addoption("--mtgcheck-depth", type=int, default=None, metavar="N", help="BMC depth for Z3 (default 3).")
    group.addoption("--mtgcheck-timeout", type=float, default=300.0, metavar="S",
                    help="Seconds for one checker on one configuration (300); past it, verdicts are unknown.")
    group.addoption("--mtgcheck-variant", default=None, metavar="NAME",
                    help="Check a named rule variant instead of the default rules.")
    group.addoption("--mtgcheck-store", default=None, metavar="DIR",
                    help="Stored counterexamples to replay (default: counterexamples/ in the current folder).")
    group.addoption("--mtgcheck-manifest", default=None, metavar="FILE",
                    help="Z3 tries the invariants this manifest's proofs closed first, and checks them "
                         "again (as mtgcheck check --manifest; nothing is compared).")
    group.addoption("--mtgcheck-cache", default=None, metavar="DIR",
                    help="Keep the units' verdicts here (default: a temporary folder removed at the end).")


def pytest_configure(config: pytest.Config) -> None:
    """Register the session's plugin only when --mtgcheck is given: otherwise nothing changes."""
    if config.getoption(FLAG):
        config.pluginmanager.register(MtgcheckSession(config, selection(config)), _PLUGIN)


# --- what the options select ----------------------------------------------------------------


@dataclass(frozen=True)
class Selection:
    checkers: tuple[str, ...]
    props: tuple[str, ...]
    configs: tuple[CheckConfig, ...]
    opts: Options
    store: Path


def _usage(option: str, exc: Exception) -> pytest.UsageError:
    """mtgcheck's one-line usage errors, with the plugin's option name."""
    text = str(exc)
    return pytest.UsageError(f"--mtgcheck-{text[2:]}" if text.startswith(f"--{option}") else text)


def selection(config: pytest.Config) -> Selection:
    """The matrix and options, checked as ``mtgcheck check`` checks them (one-line errors)."""
    from mtgcheck import check_run as cr
    from mtgcheck.errors import UsageError
    from mtgcheck.model.config import VARIANTS

    from mtgcheck.rulesets import RuleSet

    get = config.getoption
    known = registry.names()
    checkers = tuple(get("mtgcheck_checker")) or known
    for c in checkers:
        if c not in known:
            raise pytest.UsageError(f"--mtgcheck-checker: expected one of {', '.join(known)}, got {c!r}")
    try:
        props = tuple(cr.properties_named(get("mtgcheck_property")))
    except UsageError as exc:
        raise _usage("property", exc) from None
    try:
        confs = tuple(cr.configs_named(get("mtgcheck_config")))
    except UsageError as exc:
        raise _usage("config", exc) from None
    depth, timeout, variant = get("mtgcheck_depth"), get("mtgcheck_timeout"), get("mtgcheck_variant")
    if depth is not None and not 0 <= depth <= 50:
        raise pytest.UsageError(f"--mtgcheck-depth: expected 0 to 50, got {depth}")
    if not 1 <= timeout <= 86400:
        raise pytest.UsageError(f"--mtgcheck-timeout: expected 1 to 86400 seconds, got {timeout}")
    if variant is not None and variant not in VARIANTS:
        raise pytest.UsageError(f"--mtgcheck-variant: expected one of {', '.join(sorted(VARIANTS))}, got {variant!r}")
    store = get("mtgcheck_store")
    if store is not None and not (config.invocation_params.dir / store).is_dir():
        raise pytest.UsageError(f"--mtgcheck-store: no folder {store!r}")
    here = config.invocation_params.dir  # as `mtgcheck replay`: relative to the current folder
    from mtgcheck import manifest as mf

    recorded = None
    if get("mtgcheck_manifest") is not None:
        from mtgcheck.errors import FormatError

        try:
            recorded = mf.load(here / get("mtgcheck_manifest"))
        except FormatError as exc:
            raise pytest.UsageError(f"--mtgcheck-manifest: {exc}") from None
    opts = cr.Options(depth=depth, timeout=timeout, seed=get("mtgcheck_seed"), rules=RuleSet.from_build(variant),
                      **mf.hint_options(recorded))
    return Selection(checkers, props, confs, opts, here / (store or "counterexamples"))


# --- the units' verdicts, computed once per session --------------------------------------------


def source_digest() -> str:
    """A hash of everything a verdict depends on besides the options: the model, the properties,
    the checkers, the card pool, and the solvers' versions."""
    import hypothesis
    import networkx
    import z3

    import mtgcheck
    import mtgcheck.model
    import mtgcheck.properties

    h = hashlib.sha256(f"{mtgcheck.__version__} {z3.get_version_string()} {hypothesis.__version__} "
                       f"{networkx.__version__}".encode())
    for pkg in (mtgcheck, mtgcheck.model, mtgcheck.properties):
        root = Path(str(pkg.__file__)).parent
        for f in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".json")):
            h.update(f.relative_to(root).as_posix().encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


@dataclass(frozen=True)
class Unit:
    """One checker on one configuration, for the properties its collected items ask about."""

    checker: str
    conf: CheckConfig
    props: tuple[str, ...]

    def key(self, opts: Options, digest: str) -> str:
        text = json.dumps([self.checker, self.conf.name, self.props, asdict(opts), digest], sort_keys=True, default=str)
        return f"{self.checker}-{self.conf.name}-{hashlib.sha256(text.encode()).hexdigest()[:16]}"


@dataclass
class UnitCache:
    """Verdict files under ``root``, one per unit key, written once under an exclusive lock."""

    root: Path
    opts: Options
    memo: dict[str, Any] = field(default_factory=dict)
    _digest: str = ""

    def verdicts(self, unit: Unit) -> tuple[dict[str, Verdict], str]:
        """The unit's verdicts by property, and who computed them (this item or another)."""
        self._digest = self._digest or source_digest()
        key = unit.key(self.opts, self._digest)
        if key not in self.memo:
            self.memo[key] = self._read_or_compute(unit, key)
        found, how = self.memo[key]
        if isinstance(found, str):  # the unit's run raised: every item of it fails with that
            raise UnitError(f"{unit.checker} on {unit.conf.name} raised:\n{found}")
        self.memo[key] = (found, "shared")
        return {v.property: v for v in found}, how

    def _read_or_compute(self, unit: Unit, key: str) -> tuple[list[Verdict] | str, str]:
        data = self.root / f"{key}.pickle"
        with open(self.root / f"{key}.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or when the worker dies
            if data.exists():
                return pickle.loads(data.read_bytes()), "shared"
            found = _run(unit, self.opts)
            tmp = data.with_suffix(".tmp")
            tmp.write_bytes(pickle.dumps(found))
            os.replace(tmp, data)
            with open(self.root / LOG, "a") as log:
                log.write(f"{key} {unit.checker} {unit.conf.name} {_worker()} {os.getpid()}\n")
            return found, "computed"


def _run(unit: Unit, opts: Options) -> list[Verdict] | str:
    """The unit run as ``mtgcheck check`` runs it (its plan: Hypothesis seed slots, shards
    merged), or the traceback it raised (kept, so the unit is not re-run per item)."""
    from mtgcheck.check_run import merge_shards, plan, run_unit

    try:
        return merge_shards([v for u in plan([unit.checker], unit.props, [unit.conf], opts)
                             for v in run_unit(u.checker, u.conf, u.prop_ids, opts, u.slots)])
    except Exception:  # noqa: BLE001 - a bug in a checker fails the unit's items, with its traceback
        return traceback.format_exc()


def _worker() -> str:
    return os.environ.get("PYTEST_XDIST_WORKER", "main")


class UnitError(Exception):
    """A unit's checker raised."""


class MtgcheckFailure(Exception):
    """An item's verdict is not a pass; the message is the whole report."""


# --- the session: collection, items, summary ---------------------------------------------------


class MtgcheckSession:
    """Hooks active only under --mtgcheck: the items replace the collected test files."""

    def __init__(self, config: pytest.Config, sel: Selection) -> None:
        self.config, self.sel = config, sel
        self.units: dict[tuple[str, str], Unit] = {}
        self.reported: list[Verdict] = []
        self.owned: Path | None = None
        winput = getattr(config, "workerinput", None)
        if winput is not None and _CACHE_KEY in winput:
            root = Path(winput[_CACHE_KEY])
        elif config.getoption("mtgcheck_cache"):
            root = config.invocation_params.dir / config.getoption("mtgcheck_cache")
            root.mkdir(parents=True, exist_ok=True)
        else:
            root = self.owned = Path(tempfile.mkdtemp(prefix="mtgcheck-units-"))
        self.cache = UnitCache(root, sel.opts)

    @property
    def controller(self) -> bool:
        return not hasattr(self.config, "workerinput")

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """pytest-xdist: every worker shares the controller's cache folder."""
        node.workerinput[_CACHE_KEY] = str(self.cache.root)

    @pytest.hookimpl(tryfirst=True)
    def pytest_ignore_collect(self, collection_path: Path, config: pytest.Config) -> bool:
        return True

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, session: pytest.Session, items: list[pytest.Item]) -> None:
        """Replace whatever was collected by the matrix (before -k, -m and --lf select from it)."""
        items[:] = list(session.genitems(Matrix.from_parent(session, name="mtgcheck", nodeid="mtgcheck")))

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Each unit checks the properties of its items that remain after selection."""
        wanted: dict[tuple[str, str], list[str]] = {}
        for item in session.items:
            if isinstance(item, CheckItem):
                wanted.setdefault((item.checker, item.conf.name), []).append(item.prop)
        confs = {c.name: c for c in self.sel.configs}
        self.units = {k: Unit(k[0], confs[k[1]], tuple(p for p in self.sel.props if p in ps))
                      for k, ps in wanted.items()}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call" and self.controller:
            v = verdict_of(dict(report.user_properties))
            if v is not None:
                self.reported.append(v)

    def cells(self) -> list[Any]:
        from mtgcheck.check_run import combine

        return combine(self.reported)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """A property no configuration exercised (vacuous in every one) fails the run, as
        ``mtgcheck check``'s exit code says; on one configuration alone it is only a skip."""
        from mtgcheck.check_run import exit_code

        if self.controller and session.exitstatus == pytest.ExitCode.OK and exit_code(self.cells()) != 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.controller or not self.reported:
            return
        cells = self.cells()
        tr = terminalreporter
        tr.section("mtgcheck")
        counts = {s: sum(1 for c in cells if c.status == s) for s in ("proved", "holds", "violated", "unknown", "vacuous")}
        tr.write_line(f"{len(cells)} cells (property x checker): " + ", ".join(f"{n} {s}" for s, n in counts.items()))
        for c in cells:
            if c.status not in ("proved", "holds"):
                why = " (no configuration exercised it: the run fails)" if c.status == "vacuous" else ""
                tr.write_line(f"  {c.checker}::{c.property}: {c.cell()}{why}")

    def pytest_unconfigure(self) -> None:
        if self.owned is not None:
            shutil.rmtree(self.owned, ignore_errors=True)


def _session(config: pytest.Config) -> MtgcheckSession:
    plugin = config.pluginmanager.get_plugin(_PLUGIN)
    assert isinstance(plugin, MtgcheckSession), "mtgcheck items exist only under --mtgcheck"
    return plugin


class Matrix(pytest.Collector):
    """The items: the registered checkers in order (z3, graph, hypothesis: longest first, a unit's
    items together), then replays."""

    def collect(self) -> Iterator[pytest.Item]:
        sel = _session(self.config).sel
        for checker in sel.checkers:
            for conf in sel.configs:
                for prop in sel.props:
                    name = f"{checker}::{prop}[{conf.name}]"
                    yield CheckItem.from_parent(self, name=name, nodeid=name, checker=checker, conf=conf, prop=prop)
        if sel.store.is_dir():
            from mtgcheck.store import stored

            for path in stored(sel.store):
                name = f"replay::{path.relative_to(sel.store).as_posix()}"
                yield ReplayItem.from_parent(self, name=name, nodeid=name, file=path)


class _Item(pytest.Item):
    """An item whose failure is a plain text report, not a traceback of the plugin."""

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, (MtgcheckFailure, UnitError)):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, None, str]:
        # Not the bare name: the terminal would turn the dots of a file name into "::".
        return self.path, None, f"mtgcheck {self.name}"


class CheckItem(_Item):
    def __init__(self, *, checker: str, conf: CheckConfig, prop: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.checker, self.conf, self.prop = checker, conf, prop

    def runtest(self) -> None:
        session = _session(self.config)
        verdicts, how = session.cache.verdicts(session.units[(self.checker, self.conf.name)])
        v = verdicts[self.prop]
        self.user_properties += verdict_properties(v) + [("mtgcheck_unit", f"{how} ({_worker()})")]
        outcome(v, session.sel)


def verdict_properties(v: Verdict) -> list[tuple[str, Any]]:
    """What JUnit XML keeps of a verdict, and what the controller combines into cells."""
    from mtgcheck.check_run import combine

    return [("mtgcheck_checker", v.checker), ("mtgcheck_property", v.property), ("mtgcheck_config", v.config),
            ("mtgcheck_status", v.status), ("mtgcheck_cell", combine([v])[0].cell()), ("mtgcheck_detail", v.detail),
            ("mtgcheck_depth", v.depth), ("mtgcheck_k", v.k), ("mtgcheck_seconds", round(v.seconds, 2)),
            ("mtgcheck_unit_seconds", v.stats.get("unit_seconds")), ("mtgcheck_scope", v.stats.get("scope"))]


def verdict_of(props: dict[str, Any]) -> Verdict | None:
    """The verdict an item reported (enough of it for ``check_run.combine``)."""
    from mtgcheck.checkers.result import Verdict

    if "mtgcheck_status" not in props:
        return None
    v = Verdict(props["mtgcheck_checker"], props["mtgcheck_property"], props["mtgcheck_config"],
                props["mtgcheck_status"], props["mtgcheck_detail"], props["mtgcheck_depth"], props["mtgcheck_k"])
    if props.get("mtgcheck_scope") not in (None, "None"):  # a search's scope: combining reads a fixpoint's
        v.stats["scope"] = props["mtgcheck_scope"]
    return v


def outcome(v: Verdict, sel: Selection) -> None:
    """Pass on proved or holds; skip on vacuous (this configuration never exercised the property:
    the cell, in the summary, fails the run if none did); fail on anything else."""
    from mtgcheck.checkers.result import HOLDS, PROVED, VACUOUS, VIOLATED

    if v.status in (PROVED, HOLDS):
        return
    if v.status == VACUOUS:
        pytest.skip(f"vacuous on {v.config}: the property's antecedent never held here ({v.detail or 'no detail'})")
    if v.status == VIOLATED:
        raise MtgcheckFailure(violation_report(v, sel))
    raise MtgcheckFailure(f"{v.checker}::{v.property} on {v.config}: {v.summary()} (no answer is never a pass)")


def violation_report(v: Verdict, sel: Selection) -> str:
    """The property and its CR rules, then the minimized counterexample narrated action by action."""
    from mtgcheck.minimize import minimize
    from mtgcheck.model import cards as pool
    from mtgcheck.model.config import VARIANTS
    from mtgcheck.properties.catalogue import BY_ID
    from mtgcheck.replay import Counterexample, from_verdict
    from mtgcheck.scenario_format import parse_scenario
    from mtgcheck.show import narrate

    conf = next(c for c in sel.configs if c.name == v.config)
    prop = BY_ID[v.property]
    rules = sel.opts.rules
    doc = minimize(from_verdict(v, conf.position, seed=sel.opts.seed, rules=rules))
    sc = parse_scenario(doc["scenario"], source="(minimized)", known_cards=pool.card_names(),
                        known_planes=pool.plane_names(), known_variants=tuple(VARIANTS))
    cx = Counterexample("minimized counterexample", doc["violates"], doc["found_by"], doc["target"], doc["seed"], sc, doc)
    was = doc.get("minimized_from", {})
    return "\n".join([
        f"{v.checker}::{v.property} violated on {v.config} at depth {v.depth} (CR {', '.join(prop.rules)})",
        f"  {prop.statement}",
        f"  trace of {len(v.trace)} actions, minimized to {doc['trace_length']}"
        + (f" (cards {was.get('cards')} -> {len(doc['scenario']['setup']['cards'])})" if was else ""),
        narrate(cx)])


class ReplayItem(_Item):
    def __init__(self, *, file: Path, **kw: Any) -> None:
        super().__init__(**kw)
        self.file = file

    def runtest(self) -> None:
        """As ``mtgcheck replay``: it reproduces on its target and violates nothing on the reference."""
        from mtgcheck.errors import MtgcheckError
        from mtgcheck.replay import load, replay_divergence, replay_property

        try:
            cx = load(self.file)
        except MtgcheckError as exc:
            raise MtgcheckFailure(str(exc)) from None
        ok, line = replay_divergence(cx) if cx.violates == "divergence" else replay_property(cx, strict=True)
        self.user_properties.append(("mtgcheck_replay", line))
        if not ok:
            raise MtgcheckFailure(f"{cx.path}: {line}")
