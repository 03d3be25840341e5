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


def test_the_run_memo_changes_nothing(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The Hypothesis checker keeps, per run, each state's legal actions and property outcomes
    and each step's successor: the same verdicts, witness counts and steps without them (a
    memo of one entry is emptied before every new one)."""
    from mtgcheck.checkers import hypo

    conf = next(c for c in BUILTIN if c.name == "planechase")

    def run() -> list[tuple[object, ...]]:
        return [(v.property, v.status, v.stats["witnesses"], v.stats["steps"], v.stats["examples"])
                for v in hypo.check(conf, PROPERTIES, seed=3, examples=60)]

    kept = run()
    monkeypatch.setattr(hypo, "_MEMO", 1)
    assert run() == kept
    assert sum(w for _, _, w, _, _ in kept) > 0


def test_the_choices_settle_reads_are_the_catalogues_choose_guards_all_of_them() -> None:
    """settle removes a pending choice that no ``choose`` can answer (CR 603.3d); the guards it
    reads must be exactly the catalogue's ``choose`` guards, or a choice could be dropped while
    an answer exists (or kept with none): the same conditions, and the same answer on the states
    of random games of every built-in and small position."""
    import random

    from mtgcheck.configs import BUILTIN, SMALL
    from mtgcheck.model.actions import catalogue, legal_actions, step
    from mtgcheck.model.settle import answerable, choose_guards
    from mtgcheck.model.setup import build

    rng = random.Random(0)
    asked = 0
    for conf in (*BUILTIN, *SMALL.values()):
        cfg, s0 = build(conf.position)
        chooses = [t for t in catalogue(cfg).transitions if t.action.verb == "choose"]
        assert [[(c.id, c.cr) for c in g] for g in choose_guards(cfg)] == [[(c.id, c.cr) for c in t.conds]
                                                                          for t in chooses], conf.name
        for _ in range(30):
            s = s0
            for _ in range(25):
                assert bool(answerable(cfg, s)) == any(t.enabled(s) for t in chooses)
                asked += s.pending != 0
                acts = legal_actions(cfg, s)
                if not acts:
                    break
                s = step(cfg, s, rng.choice(acts))
    assert asked > 0  # some pending choice was met, so the comparison said something
