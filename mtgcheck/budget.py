"""The options of a check run: the budget every checker's ``check`` is given, and the rule set.

(:mod:`mtgcheck.check_run` re-exports all of it; it lives here so that the checker registry,
which the check run imports, can name it without an import cycle.)
"""

from __future__ import annotations

from dataclasses import dataclass

from mtgcheck.rulesets import REFERENCE, RuleSet


@dataclass(frozen=True)
class Options:
    """The budget of a run (what bounds each checker) and the rule set it checks."""

    depth: int | None = None
    timeout: float = 300.0  # a safety net: proofs are bounded by Z3's rlimit, not by time
    seed: int = 0
    examples: int | None = None
    rules: RuleSet = REFERENCE  # the rule set checked: the reference, a variant or a mutant
    strengthen: bool = False
    export_dir: str | None = None  # graph checker: write each explored graph here (GraphML)
    #: Graph checker: no turn bound, search until no new state appears; a search that reaches
    #: that fixpoint proves its properties for every reachable state of the position.
    exhaustive: bool = False
    induction: bool = True
    #: Stop at the first depth where a property fails (every property that fails there is
    #: still reported; the others hold to that depth under Z3 and are unknown under the graph
    #: search, which stopped short): the mutants' kill matrix needs only a shortest kill, not
    #: every property searched to the end.
    first_violation: bool = False
    #: Graph checker: which reading runs the search (``graph.BACKENDS``): the interpreter, the
    #: compiled relation, or "auto" (compiled for a search to the fixpoint when a C compiler
    #: is found).  The verdicts are the same; only the time differs.  One of GRAPH_BACKENDS.
    graph_backend: str = "auto"
    #: Graph checker with ``exhaustive``: megabytes the compiled search may hold (None: no bound).
    max_memory: int | None = None
    #: Graph checker, compiled search: keep a 64-bit fingerprint per visited state instead of
    #: its (tree-compressed) key: less memory, and no exact proof (the verdicts say "holds",
    #: with the bound on the probability of a collision).
    fingerprints: bool = False
    #: Graph checker, compiled search: threads that expand the states of one search (the
    #: transitions, keys and properties of a batch of states at once); the visited set is
    #: updated by one, in the queue's order, so the verdicts and figures are the same for any.
    #: 0: the cores the run's jobs leave idle (``check_run.search_threads``); at most
    #: :data:`MAX_SEARCH_THREADS`.
    search_threads: int = 1
    rlimit: int | None = None  # Z3: resource limit of one induction query (None: the checker's default)
    hypothesis_slots: int = 1  # seed slots per configuration (--shards; mtgcheck.check_run's docstring)
    hypothesis_groups: int = 1  # property subsets per configuration
    #: Z3: configuration name -> the invariant candidates an earlier run's proofs closed (the
    #: manifest's ``invariants``, read with --manifest), tried first and checked again.
    hints: dict[str, tuple[str, ...]] | None = None
    #: Z3: configuration name -> those of the hints whose chunk of the closure an earlier run
    #: had to split (the manifest's ``split``): their chunks are split at once.
    split_hints: dict[str, tuple[str, ...]] | None = None


#: The most threads one compiled graph search expands states with (the compiled program is
#: printed with it: ``checkers/native.py``).
MAX_SEARCH_THREADS = 8


#: Which reading runs the graph search (``Options.graph_backend``; mtgcheck.checkers.graph's
#: ``check`` says what each does).
GRAPH_BACKENDS = ("auto", "native", "python")


#: Seed slot i of a run seeded S uses the Hypothesis seed S + i * SEED_STRIDE: slot 0 is the
#: run seed, and runs whose seeds differ by less than the stride share no slot.
SEED_STRIDE = 1_000_000


def slot_seed(run_seed: int, slot: int) -> int:
    """The Hypothesis seed of one seed slot (deterministic: a failure replays anywhere)."""
    return run_seed + slot * SEED_STRIDE


def slot_examples(total: int, slots: int, slot: int) -> int:
    """Slot ``slot``'s share of ``total`` examples over ``slots`` slots (they sum to total)."""
    return total // slots + (1 if slot < total % slots else 0)
