"""The Hypothesis checker's state machines, run as ordinary pytest tests (one per configuration)."""

from __future__ import annotations

from hypothesis import settings

from mtgcheck.checkers.hypo import Tally, machine_for
from mtgcheck.configs import BUILTIN
from mtgcheck.properties.catalogue import PROPERTIES

_TALLIES: dict[str, Tally] = {}

for _conf in BUILTIN:
    _TALLIES[_conf.name] = Tally()
    _machine = machine_for(_conf, PROPERTIES, _TALLIES[_conf.name])
    _machine.TestCase.settings = settings(max_examples=40, stateful_step_count=30, deadline=None)
    globals()[f"TestRules_{_conf.name}"] = _machine.TestCase


def test_machines_take_steps() -> None:
    """The machines are not idle: run one and check it took actions of several verbs."""
    conf = BUILTIN[0]
    tally = Tally()
    machine = machine_for(conf, PROPERTIES, tally)
    from hypothesis.stateful import run_state_machine_as_test

    run_state_machine_as_test(machine, settings=settings(max_examples=30, stateful_step_count=30, deadline=None,
                                                         database=None))
    assert tally.steps > 30
    assert len({rule.split(".")[0] for rule in tally.fired}) >= 3
