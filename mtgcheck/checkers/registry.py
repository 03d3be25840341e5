"""The checkers, registered once: every command, the pytest plugin, the mutants' kill matrix,
the manifest and the JUnit report iterate over :data:`REGISTRY`.

A checker is one class (the :class:`Checker` protocol; :class:`BaseChecker` gives the
defaults) registered with :func:`register`::

    @register
    class MyChecker(BaseChecker):
        name = "mine"

        def check(self, conf, props, rules, budget, slots=()):
            return [Verdict(self.name, p.id, conf.name, HOLDS, depth=0) for p in props]

``check(configuration, properties, rule set, budget)`` returns one verdict per property;
``budget`` is the run's :class:`mtgcheck.budget.Options` (depth, timeout, seed, examples,
...).  The order of registration is the order of the work (longest first) and of the report's
columns.  This module imports no checker: each adapter imports its checker when it runs, so
the command line and the pytest plugin stay quick to load.  A test registers a throwaway
checker inside :func:`scratch`, which restores the registry afterwards.  The local process pool
forks, so its workers see what was registered; a Dask worker imports mtgcheck afresh and knows
the checkers registered on import (the built-in ones, and any a module registers when imported).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

if TYPE_CHECKING:
    from mtgcheck.budget import Options
    from mtgcheck.checkers.result import Verdict
    from mtgcheck.configs import CheckConfig
    from mtgcheck.diff import Difference
    from mtgcheck.rulesets import RuleSet


@runtime_checkable
class Checker(Protocol):
    """One way of checking the properties of one configuration."""

    name: str
    #: Its ``proved`` verdicts, when every configuration has one (or is vacuous at a search's
    #: fixpoint there), combine into ``proved`` (else into ``holds``).
    proves: bool
    #: It fires concrete transitions and reports rule coverage (the coverage gate counts it).
    counts_rules: bool
    #: It can search for the shortest history on which two rule sets part (``mtgcheck diff``).
    separates: bool
    #: The options its manifest figures depend on (figures recorded under others are not compared).
    depends: tuple[str, ...]
    #: One unit of it can run as one search spread over a Dask cluster.
    spreads: bool

    def units(self, conf: CheckConfig, prop_ids: Sequence[str],
              budget: Options) -> list[tuple[tuple[str, ...], tuple[int, ...]]]:
        """How one configuration's work splits into units: (properties, seed slots) each."""

    def check(self, conf: CheckConfig, props: Sequence[Any], rules: RuleSet, budget: Options,
              slots: Sequence[int] = ()) -> list[Verdict]:
        """One verdict per property (for the given seed slots, when the checker has them)."""

    def figures(self, unit: dict[str, Any], v: Verdict) -> None:
        """Add this checker's own figures of a verdict to its manifest unit."""

    def version(self) -> str | None:
        """The version of what its figures depend on (recorded in the manifest): its solver's, or
        the graph search's reduction; or None."""

    def separate(self, conf: CheckConfig, a: RuleSet, b: RuleSet) -> Difference | None:
        """The shortest common history after which rule sets ``a`` and ``b`` part (if ``separates``)."""


class BaseChecker:
    """Defaults: one unit per configuration, no proofs, no coverage, no figures of its own."""

    name: ClassVar[str] = ""
    proves: ClassVar[bool] = False
    counts_rules: ClassVar[bool] = False
    separates: ClassVar[bool] = False
    depends: ClassVar[tuple[str, ...]] = ("variant",)
    #: One unit of it can run as a single search spread over a Dask cluster (``--scheduler`` with
    #: ``--exhaustive``: :mod:`mtgcheck.checkers.distributed_search`).
    spreads: ClassVar[bool] = False

    def units(self, conf: CheckConfig, prop_ids: Sequence[str],
              budget: Options) -> list[tuple[tuple[str, ...], tuple[int, ...]]]:
        return [(tuple(prop_ids), ())]

    def check(self, conf: CheckConfig, props: Sequence[Any], rules: RuleSet, budget: Options,
              slots: Sequence[int] = ()) -> list[Verdict]:
        raise NotImplementedError

    def figures(self, unit: dict[str, Any], v: Verdict) -> None:
        return None

    def version(self) -> str | None:
        return None

    def separate(self, conf: CheckConfig, a: RuleSet, b: RuleSet) -> Difference | None:
        raise NotImplementedError(f"the {self.name} checker does not separate rule sets")


#: name -> checker, in registration order (the order of the work and of the report's columns).
REGISTRY: dict[str, Checker] = {}


def register(cls: type) -> type:
    """Register a checker class (one instance, under its ``name``); usable as a decorator."""
    checker = cls()
    if not isinstance(checker, Checker) or not checker.name:
        raise TypeError(f"{cls.__name__} is not a Checker with a name")
    if checker.name in REGISTRY:
        raise ValueError(f"a checker named {checker.name!r} is already registered")
    REGISTRY[checker.name] = checker
    return cls


def get(name: str) -> Checker:
    try:
        return REGISTRY[name]
    except KeyError:
        raise ValueError(f"no checker {name!r} (registered: {', '.join(REGISTRY)})") from None


def names(*, proves: bool | None = None, counts_rules: bool | None = None,
          separates: bool | None = None) -> tuple[str, ...]:
    """The registered checkers' names, in order; the keywords keep only those with that capability."""
    want = {k: v for k, v in (("proves", proves), ("counts_rules", counts_rules), ("separates", separates))
            if v is not None}
    return tuple(n for n, c in REGISTRY.items() if all(getattr(c, k) == v for k, v in want.items()))


#: Who finds an engine's divergences: differential testing (``mtgcheck validate``), not a checker.
DIFFERENTIAL = "differential"


def finders() -> tuple[str, ...]:
    """Who may have found a stored counterexample (its ``found_by``): every registered
    checker, then differential testing.  Read when a counterexample is loaded, so one found
    by a checker added through :func:`register` alone replays (the schema leaves it a string)."""
    return (*names(), DIFFERENTIAL)


def spelled(items: Sequence[str]) -> str:
    """``a, b or c``: the names in a help text."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


@contextlib.contextmanager
def scratch() -> Iterator[dict[str, Checker]]:
    """A temporary copy of the registry: whatever is registered inside is gone afterwards."""
    saved = dict(REGISTRY)
    try:
        yield REGISTRY
    finally:
        REGISTRY.clear()
        REGISTRY.update(saved)


# --- the built-in checkers, longest first ------------------------------------------------------


@register
class Z3Checker(BaseChecker):
    """Bounded model checking and k-induction (:mod:`mtgcheck.checkers.z3bmc`)."""

    name = "z3"
    proves = True
    separates = True
    depends = ("variant", "depth", "strengthen", "z3")

    def check(self, conf: CheckConfig, props: Sequence[Any], rules: RuleSet, budget: Options,
              slots: Sequence[int] = ()) -> list[Verdict]:
        from mtgcheck.checkers import z3bmc

        depth = budget.depth if budget.depth is not None else min(conf.depth, 3)
        return z3bmc.check(conf, props, depth=depth, timeout=budget.timeout, variant=rules.variant,
                           disabled=rules.disabled, strengthen=budget.strengthen, induction=budget.induction,
                           rlimit=budget.rlimit, first_violation=budget.first_violation,
                           hints=(budget.hints or {}).get(conf.name, ()),
                           split_hints=(budget.split_hints or {}).get(conf.name, ()),
                           # no manifest hints: those of a position of the same shape, re-checked
                           reuse=not (budget.hints or {}).get(conf.name))

    def figures(self, unit: dict[str, Any], v: Verdict) -> None:
        from mtgcheck.checkers.result import PROVED

        proved = unit.setdefault("proved", {})
        if v.status == PROVED:
            proved[v.property] = v.k or 0
        if v.stats.get("proof_invariants"):  # the next run's hints (z3bmc.check's ``hints``)
            unit["invariants"] = sorted(v.stats["proof_invariants"])
        if v.stats.get("proof_split"):  # and which of them to ask split at once (``split_hints``)
            unit["split"] = sorted(v.stats["proof_split"])

    def version(self) -> str | None:
        import z3

        return str(z3.get_version_string())

    def separate(self, conf: CheckConfig, a: RuleSet, b: RuleSet) -> Difference | None:
        from mtgcheck.diff import find_z3

        return find_z3(conf, a, b)


def _bounded_backend(backend: str, unbounded: bool) -> str:
    """The backend of a search to the turn bound: "auto" keeps it on the interpreter (only a
    search with no turn bound may pay for a compile; graph.BACKENDS)."""
    return backend if backend != "auto" or unbounded else "python"


@register
class GraphChecker(BaseChecker):
    """Breadth-first search of the state space (:mod:`mtgcheck.checkers.graph`)."""

    name = "graph"
    counts_rules = True
    separates = True
    # A search that reached its fixpoint says ``proved``: every reachable state (with --exhaustive,
    # or by default within a state budget: graph.check_to_the_end).
    proves = True
    # "graph": its symmetry reduction (``version``), which its state counts depend on.
    depends = ("variant", "exhaustive", "graph")
    spreads = True

    def check(self, conf: CheckConfig, props: Sequence[Any], rules: RuleSet, budget: Options,
              slots: Sequence[int] = ()) -> list[Verdict]:
        from mtgcheck.checkers import graph
        from mtgcheck.errors import OutputError

        if budget.exhaustive or budget.first_violation:
            # --exhaustive has no state budget: the fixpoint, --timeout or --max-memory stops it.
            out, ex = graph.check(conf, props, timeout=budget.timeout, variant=rules.variant, disabled=rules.disabled,
                                  unbounded=budget.exhaustive, first_violation=budget.first_violation,
                                  backend=_bounded_backend(budget.graph_backend, budget.exhaustive),
                                  max_states=None if budget.exhaustive else 300_000,
                                  keep_edges=bool(budget.export_dir),
                                  max_bytes=(budget.max_memory or 0) * 2**20, fingerprints=budget.fingerprints,
                                  threads=budget.search_threads)
        else:
            out, ex = graph.check_to_the_end(conf, props, timeout=budget.timeout, variant=rules.variant,
                                             disabled=rules.disabled, backend=budget.graph_backend)
        if budget.export_dir:
            try:
                graph.export(ex, f"{budget.export_dir}/{conf.name}.graphml")
            except OutputError as exc:
                # The verdicts stand; the CLI writes its reports, then reports this (exit 2).
                for v in out:
                    v.stats["write_error"] = str(exc)
        return list(out)

    def figures(self, unit: dict[str, Any], v: Verdict) -> None:
        unit["states"] = v.stats.get("states", 0)

    def version(self) -> str | None:
        from mtgcheck.checkers.symmetry import REDUCTION

        return REDUCTION

    def separate(self, conf: CheckConfig, a: RuleSet, b: RuleSet) -> Difference | None:
        from mtgcheck.diff import find

        return find(conf, a, b)


@register
class HypothesisChecker(BaseChecker):
    """Random games (:mod:`mtgcheck.checkers.hypo`), split into seed slots and property groups
    (:mod:`mtgcheck.check_run`'s docstring)."""

    name = "hypothesis"
    counts_rules = True
    depends = ("variant", "seed", "examples", "hypothesis")

    def units(self, conf: CheckConfig, prop_ids: Sequence[str],
              budget: Options) -> list[tuple[tuple[str, ...], tuple[int, ...]]]:
        slots = min(budget.hypothesis_slots, budget.examples or conf.hypothesis_examples)
        groups = [tuple(prop_ids[g::budget.hypothesis_groups]) for g in range(budget.hypothesis_groups)]
        return [(group, (slot,)) for group in groups if group for slot in range(slots)]

    def check(self, conf: CheckConfig, props: Sequence[Any], rules: RuleSet, budget: Options,
              slots: Sequence[int] = ()) -> list[Verdict]:
        """The given seed slots of one configuration, each verdict tagged with its seed and slot.

        No slots: the whole budget in one run seeded with the run seed (``mtgcheck mutants``
        runs a unit like this: one configuration, nothing to spread).
        """
        import warnings

        from mtgcheck.budget import slot_examples, slot_seed
        from mtgcheck.checkers import hypo

        if not slots:
            return hypo.check(conf, props, seed=budget.seed, examples=budget.examples, timeout=budget.timeout,
                              variant=rules.variant, disabled=rules.disabled)
        total = budget.examples or conf.hypothesis_examples
        count = min(budget.hypothesis_slots, total)
        out: list[Verdict] = []
        with warnings.catch_warnings():
            # On a Dask worker, the worker's own threads use the global `random` while a draw
            # runs; Hypothesis reads that as a strategy using it.  Our strategies never do (the
            # runs stay reproducible: tests/test_executors.py), so the warning is noise.
            warnings.filterwarnings("ignore", message="Do not use the `random` module")
            for slot in slots:
                seed = slot_seed(budget.seed, slot)
                for v in hypo.check(conf, props, seed=seed, examples=slot_examples(total, count, slot),
                                    timeout=budget.timeout, variant=rules.variant, disabled=rules.disabled):
                    v.stats.update(seed=seed, slot=slot)
                    out.append(v)
        return out

    def version(self) -> str | None:
        import hypothesis

        return str(hypothesis.__version__)


__all__ = ["BaseChecker", "Checker", "REGISTRY", "get", "names", "register", "scratch", "spelled"]
