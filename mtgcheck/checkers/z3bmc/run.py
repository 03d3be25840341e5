"""The checker's entry point: BMC and k-induction for every property, one verdict each."""

from __future__ import annotations

import time
from typing import Any, Collection, Sequence

from mtgcheck.configs import CheckConfig
from mtgcheck.model.config import Config
from mtgcheck.model.setup import build
from mtgcheck.model.state import State
from mtgcheck.properties.base import Property

from ..result import HOLDS, PROVED, UNKNOWN, VACUOUS, Verdict
import mtgcheck.checkers.z3bmc.closure as closure  # the module, so that a test may patch its functions
import mtgcheck.checkers.z3bmc.reuse as proof_cache  # by name, as closure: no import cycle with the package
from .bmc import Bmc, constrain
from .budget import RLIMIT, Budget, rlimit_count
from .closure import SAMPLE_CAP
from .context import in_fresh_context
from .induction import MAX_K, Induction
from .initial import initial_placements
from .relation import Encoding


#: The share of BMC's time the closing of invariants for BMC alone may take
#: (``bmc_invariants``); what it leaves is BMC's, plain if the closing did not end.
CLOSING_SHARE = 0.5


@in_fresh_context
def check(conf: CheckConfig, props: Sequence[Property], *, depth: int | None = None, timeout: float = 60.0,
          variant: str | None = None, disabled: frozenset[str] = frozenset(),
          induction: bool = True, symbolic_init: bool = True, strengthen: bool = False,
          rlimit: int | None = None, max_k: int = MAX_K, invariants: bool = True,
          sample_cap: int = SAMPLE_CAP, first_violation: bool = False,
          hints: Collection[str] = (), bmc_invariants: bool = False,
          split_hints: Collection[str] = (), reuse: bool = False) -> list[Verdict]:
    """BMC to ``depth`` and k-induction for every property; one verdict each.

    ``first_violation``: BMC stops after the first depth at which some property fails
    (every property failing there is reported; the others hold to that depth).

    ``timeout`` is the whole run's wall-clock safety net (what it stops is unknown);
    ``rlimit`` bounds each induction query deterministically (default :data:`RLIMIT`);
    ``invariants``: strengthen induction with the invariants found on the configuration
    (mined from at most ``sample_cap`` reachable states, kept by Houdini); ``hints``: the
    names of the candidates an earlier run's proofs closed (the manifest's ``invariants``),
    tried first (:class:`Induction`): checked, never trusted; ``split_hints``: those of them
    whose chunk of the closure had to be split (the manifest's ``split``), whose chunks are
    split at once (:class:`Closure`): how a query is asked, never what it answers.

    ``reuse``: without ``hints``, the candidates an earlier run on a position of the same
    shape closed (:mod:`.reuse`, the cache) are the hints, checked again on this position
    (mined again, initiation, consecution) like any hint, never trusted; the candidates this
    run's proofs closed are recorded for the next position of the shape.

    BMC's states are constrained by the candidates the k = 0 induction closed into an
    inductive set and by the state properties it proved, its steps by the transition
    properties it proved (:meth:`Unroller.constrain`, :meth:`Unroller.constrain_steps`).  With
    ``induction=False``, ``bmc_invariants`` finds and closes the candidates for BMC alone
    (:func:`closed_invariants`, ``hints`` first), the state properties closed with them and
    the transition properties every step from them keeps constraining BMC as the
    induction's do; otherwise BMC is plain (the mutants'
    kill matrix: a shallow violation is found faster than the invariants are closed)."""
    cfg, s0 = build(conf.position, variant=variant, disabled=disabled)
    enc = Encoding.build(cfg, s0)
    depth = conf.depth if depth is None else depth
    deadline = time.monotonic() + timeout
    t0 = time.monotonic()
    bmc = Bmc(enc, conf, props, deadline, symbolic_init)
    bmc.initially()
    budget = Budget(RLIMIT if rlimit is None else rlimit, deadline)
    init_of = (lambda st: initial_placements(cfg, s0, st)) if symbolic_init else None
    found: Any = None
    reused: proof_cache.Entry | None = None
    if reuse and induction and invariants and not hints:
        reused = proof_cache.load(cfg)
        if reused is not None:
            hints, split_hints = reused.invariants, reused.split

    def start_induction() -> Induction | None:
        """The induction of the properties not decided yet, with the invariants found."""
        nonlocal found, hints
        todo = [p for p in props if p.id not in bmc.status]
        if not induction or bmc.vacuous or not todo:
            return None
        if invariants and time.monotonic() < deadline:
            found = closure.find_invariants(enc, conf, init_of, budget, cap=sample_cap)
            if reused is not None and found.complete:  # this position's values of the names' forms
                hints = proof_cache.with_counterparts(reused.invariants, [c.name for c in found.live])
        return Induction(enc, todo, budget, init_of=init_of, strengthen=strengthen,
                          invariants=found.live if found and found.complete else (), hints=hints,
                          split_hints=split_hints, hinted_props=reused.proved if reused is not None else None)

    bmc_seconds = time.monotonic() - t0  # the initial states' checks, then BMC's queries
    constrained, closing_seconds = 0, 0.0  # BMC's constraints (proved facts) and closing them for BMC alone
    closed_props: list[Property] = []  # the properties proved with them (``bmc_invariants``)
    if induction and not first_violation:
        # Induction first: a property proved at k = 0 needs no BMC (its base case is the
        # initial states, checked above); BMC then runs for the others, for their
        # counterexamples and the base cases of k >= 1.  (``first_violation``, the mutants'
        # kill matrix, wants the shortest violation at once: BMC first.)
        tb = time.monotonic()
        bmc.run_exists(0)
        bmc_seconds += time.monotonic() - tb
        ind = start_induction()
        if ind is not None:
            ind.run(bmc.reached, range(1))
            constrained = constrain(bmc.un, enc, ind.closure, ind.done)
        tb = time.monotonic()
        bmc.deepen([p for p in props if ind is None or p.id not in ind.proved], depth)
        bmc_seconds += time.monotonic() - tb
        if ind is not None:
            ind.run(bmc.reached, range(1, max_k + 1))
    else:
        if bmc_invariants:
            tb = time.monotonic()
            # At most a share of the time left: a closing that does not end in it leaves BMC
            # plain, with the rest of the time, instead of starved.
            closing_deadline = time.monotonic() + (deadline - time.monotonic()) * CLOSING_SHARE
            closed = closure.closed_invariants(enc, conf, [p for p in props if p.id not in bmc.status], init_of,
                                               Budget(budget.rlimit, closing_deadline), hints, sample_cap,
                                               split_hints)
            closed_props = closed.proven_properties() if closed is not None else []
            constrained = constrain(bmc.un, enc, closed, closed_props)
            closing_seconds = time.monotonic() - tb
        tb = time.monotonic()
        bmc.deepen(props, depth, first_violation)
        bmc_seconds += time.monotonic() - tb
        ind = start_induction()
        if ind is not None:
            ind.run(bmc.reached, range(max_k + 1))
    out = [_verdict(p, conf, bmc, ind, budget, depth) for p in props]
    inv_use = ind.summary() if ind is not None else {}
    if reuse and inv_use.get("names") and not budget.cut:
        proof_cache.store(cfg, inv_use["names"], inv_use.get("split", []), sorted(ind.proved) if ind else [],
                          position=conf.name)
    for v in out:
        v.seconds = bmc_seconds
        v.stats.update(build_seconds=round(enc.build_seconds, 2), transitions=len(enc.actions),
                       initial="every placement" if symbolic_init else "the configuration's position",
                       bmc_constrained_by=constrained, **budget.summary(),
                       # Z3 counts one rlimit per context: the unit's whole work (BMC, the
                       # induction's queries, asserting), of which the induction's is a part
                       context_rlimit=rlimit_count(bmc.sol))
        if bmc_invariants:
            v.stats["bmc_invariant_seconds"] = round(closing_seconds, 2)
            v.stats["bmc_closed_properties"] = [q.id for q in closed_props]
        cti = inv_use.get("ctis", {}).get(v.property)
        if cti is not None and v.status == HOLDS:
            v.stats["induction_cti"] = _shown_cti(cfg, cti)
        if found is not None:
            v.stats["invariants"] = {"mined": found.mined, "initially_true": len(found.live),
                                     "sample_states": found.sample_states, "mining_seconds": round(found.seconds, 2),
                                     "per_template": found.per_template,
                                     **{k_: x for k_, x in inv_use.items() if k_ not in ("ctis", "names", "split")}}
            # The candidates the proofs closed, and those of them whose chunk was split, for
            # the manifest (the next run's hints): lists shared by the unit's verdicts, left out
            # of the report's rows.
            v.stats["proof_invariants"] = inv_use.get("names", [])
            v.stats["proof_split"] = inv_use.get("split", [])
            if reuse:  # how many candidate names the cache gave (0: none for this shape)
                v.stats["invariants"]["reused"] = len(reused.invariants) if reused is not None else 0
    return out


def _verdict(p: Property, conf: CheckConfig, bmc: Bmc, ind: Induction | None, budget: Budget,
             depth: int) -> Verdict:
    """``p``'s verdict: BMC's (violated or unknown), else proved, else why not: the time ran
    out (unknown, never holds), the relation is vacuous, or it holds to the depth reached."""
    reached = bmc.reached[p.id]
    if p.id in bmc.status:
        return bmc.status[p.id]
    if ind is not None and p.id in ind.proved:
        pr = ind.proved[p.id]
        # depth: what BMC reached, if it ran for it (a proof at k = 0 needs no BMC)
        return Verdict("z3", p.id, conf.name, PROVED, "rests on " + ", ".join(pr.core) if pr.core else "", k=pr.k,
                       depth=reached or None)
    if budget.cut:
        return Verdict("z3", p.id, conf.name, UNKNOWN, "time ran out during induction", depth=reached)
    if bmc.vacuous:
        return Verdict("z3", p.id, conf.name, VACUOUS, "the initial state and the transition relation are "
                       "unsatisfiable together", depth=0)
    if reached < depth and time.monotonic() >= bmc.deadline:
        return Verdict("z3", p.id, conf.name, UNKNOWN, f"time ran out at depth {reached}", depth=reached)
    return Verdict("z3", p.id, conf.name, HOLDS, "BMC", depth=reached)


def _shown_cti(cfg: Config, cti: tuple[State, Any]) -> dict[str, Any]:
    """The step case's counterexample at k = 0, under every invariant still live: a state
    (unreachable, or BMC would have found it) and the action that breaks it."""
    from mtgcheck.model.observe import observe

    try:
        shown: Any = observe(cfg, cti[0])
    except Exception:  # an unreachable state may hold values no position has
        shown = repr(cti[0])
    return {"action": str(cti[1]), "state": shown}
