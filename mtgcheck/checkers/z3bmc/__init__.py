"""Z3: bounded model checking and k-induction over the transition relation of the one spec.

The relation is *derived*: each transition's guard and effect from ``model/`` are run on
symbolic states (inside :class:`mtgcheck.model.logic.symbolic`), giving
``T_i(a, b) = guard_i(a) & b == settle(effect_i(a))``; nothing is written twice.  It is built
once per configuration over template states and instantiated at each depth by substitution.
Its form is lean: one action variable ``act`` picks the transition (``act == i`` implies
guard i); the state after the action is a frame term per entry (the entry as it was unless a
transition that writes it is taken); the state-based actions (``settle``) are built once,
after it, not once per transition; and the renumbering of positions after a move is built
once and instantiated by substitution (:class:`SharedCompaction`).

Every guard condition is wrapped as ``en(cond) -> cond``; the ``en`` literals are passed as
assumptions, so the unsat core of a proof names the rules it rests on, and a mutant is the
same relation with some ``en`` false.

* BMC (iterative deepening): the first depth at which a property can fail is the length
  of a shortest counterexample; its trace is replayed on the interpreter before it is
  reported (a trace that doesn't replay would be an encoding bug, reported as such).
* The renumbering lemma (:mod:`.renumbering`), first: every step ends by renumbering the
  stack, and ``compact``'s ranks are 0..size-1, each once, for any input; proved once per
  configuration in small queries, it proves ``stack-ordered`` after every step with no
  induction hypothesis.
* k-induction (k = 0 up to ``max_k``, 1 by default): from *any* state (not only reachable ones), a path of k steps
  on which the property held (and every property proved before it holds throughout) takes
  one more step that keeps it; the base case is the BMC run to depth >= k.  The smallest
  k that works is reported.  The step case assumes invariants *found* on the configuration
  (:mod:`.invariants`: templates over the state layout, filtered by the states the
  explicit-state search reaches and by every initial state); a proof counts only once the
  candidates its unsat core names are closed into an inductive set (Houdini restricted to
  what proofs use, :class:`Closure`), and the core names them.  A property is first tried
  on the candidates closed so far alone; a candidate's consecution first gets a small
  limit, and out of it the candidate is set aside, given back only if a counterexample
  breaks it (most of what a core names without needing it costs an eightieth of a query
  so); a bound the layout declares against another entry gets the whole share at once.
  Opt-in, the hand-written lemmas are proved initial and inductive (Houdini) and then
  assumed like proved properties.
* Every induction query has a fixed Z3 resource limit (``rlimit``, deterministic), so what
  is proved does not depend on the machine's load; the run's wall-clock ``timeout`` is a
  safety net only, and what it stops is ``unknown``: never ``holds``, never ``proved``.

The package, one module per part, each readable alone:

* :mod:`.relation`: the transition relation (:class:`Encoding`), derived from the spec;
* :mod:`.unroll`: states s0..sk and the relation between them in one solver (:class:`Unroller`);
* :mod:`.initial`: the initial states (every placement of the cards);
* :mod:`.bmc`: BMC by iterative deepening, and the replay of its counterexamples;
* :mod:`.path`: the step case of k-induction (:class:`Path`), with its case split by transition;
* :mod:`.closure`: the candidates mined on the configuration, closed into an inductive set (Houdini);
* :mod:`.induction`: k-induction, one property at a time;
* :mod:`.lemmas`: the hand-written strengthening lemmas (opt-in);
* :mod:`.reuse`: the invariants closed on one position, kept in the cache for every position
  of its shape (the configuration), and re-checked on each: never trusted;
* :mod:`.budget`: each query's resource limit; :mod:`.context`: a fresh Z3 context per unit;
* :mod:`.run`: :func:`check`, the checker's entry point.
"""

from mtgcheck.model.state import flat, symbolic_state

from . import bmc, closure, path, reuse, run
from .bmc import BMC_OPTIONS, WITNESS_CAP, Bmc, witness
from .budget import RLIMIT, Budget
from .closure import CHUNK_SPLIT_RLIMITS, CLOSE_CHUNK, SAMPLE_CAP, SAMPLE_STARTS, Closure, closed_invariants, find_invariants
from .context import fresh_context, in_fresh_context
from .induction import MAX_K, Induction, Proof, prove_by_induction, prove_each
from .initial import initial_placements, placement_zones, placements, well_formed
from .path import SPLIT_RLIMITS, STEP_SHARE, Path
from .relation import Encoding, SharedCompaction, raw_transitions, state_from_model
from .run import CLOSING_SHARE, check
from .unroll import Unroller

__all__ = ["BMC_OPTIONS", "CHUNK_SPLIT_RLIMITS", "CLOSE_CHUNK", "CLOSING_SHARE", "MAX_K", "RLIMIT", "SAMPLE_CAP",
           "SAMPLE_STARTS", "SPLIT_RLIMITS", "STEP_SHARE", "WITNESS_CAP", "Bmc", "Budget", "Closure", "Encoding",
           "Induction", "Path", "Proof", "SharedCompaction", "Unroller", "bmc", "check", "closed_invariants",
           "closure", "find_invariants", "flat", "fresh_context", "in_fresh_context",
           "initial_placements", "path", "prove_by_induction", "prove_each", "placement_zones", "placements", "raw_transitions", "reuse", "run",
           "state_from_model", "symbolic_state", "well_formed", "witness"]
