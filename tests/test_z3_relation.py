"""The relation's shared renumbering reaches the model only through the hook the model
declares (``model.zones.SHARED_COMPACT``), only while the relation is built, and only for
the configuration it was built for: no module of the model is patched, and nothing of it
outlives the build (a concrete run or another configuration's build never sees it)."""

from __future__ import annotations

import z3

from mtgcheck.checkers import z3bmc
from mtgcheck.configs import BUILTIN
from mtgcheck.model import zones
from mtgcheck.model.logic import symbolic
from mtgcheck.model.setup import build
from mtgcheck.model.state import equal_states


def test_the_shared_renumbering_is_the_models_own_and_lives_only_while_the_relation_is_built() -> None:
    (plot, costs) = [next(c for c in BUILTIN if c.name == n) for n in ("plot", "costs")]
    cfg, s0 = build(plot.position)
    other, _ = build(costs.position)
    assert zones.SHARED_COMPACT[0] is None
    with z3bmc.fresh_context():
        z3bmc.Encoding.build(cfg, s0)
        assert zones.SHARED_COMPACT[0] is None  # cleared on exit
        shared = z3bmc.SharedCompaction(cfg)
        with symbolic(), shared:
            hook = zones.SHARED_COMPACT[0]
            assert hook is not None
            assert hook(other, z3bmc.symbolic_state(other, "o")) is None  # another configuration: the model's own
            s = z3bmc.symbolic_state(cfg, "s")
            fast = zones.compact(cfg, s)
        assert zones.SHARED_COMPACT[0] is None
        with symbolic():
            own = zones.compact(cfg, s)  # built by the model alone, the hook cleared
            sol = z3.Solver()
            sol.add(z3.Not(equal_states(fast, own)))
        assert sol.check() == z3.unsat  # the same terms, whichever way they were built
