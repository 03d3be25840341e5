"""The Z3 reading of the rules agrees with the interpreter (legality and the unique successor).

States are reached by random legal play from the built-in configurations and from scenario
setups; at each, transitions (enabled or not) are evaluated both ways.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from mtgcheck.configs import BUILTIN, SMALL, load_config
from mtgcheck.conformance import check_transition
from mtgcheck.model.actions import catalogue, legal_actions, step
from mtgcheck.model.setup import build
from mtgcheck.scenario_run import load, start

from .conftest import SCENARIOS

_STARTS = [build(c.position) for c in BUILTIN]
_STARTS += [start(load(str(p))) for p in SCENARIOS[::6]]
# Mana from lands (model/payment.py, model/lands.py): its own rules, none of them in the built-ins.
_STARTS += [build(SMALL["break-lands"].position)] + [start(load(str(p))) for p in SCENARIOS if p.stem.startswith("mana-")]


def _walk(idx: int, seed: int, length: int):  # type: ignore[no-untyped-def]
    cfg, s = _STARTS[idx % len(_STARTS)]
    rng = random.Random(seed)
    for _ in range(length):
        acts = legal_actions(cfg, s)
        if not acts:
            break
        s = step(cfg, s, rng.choice(acts))
    return cfg, s


def _check(idx: int, seed: int, length: int, picks: int) -> None:
    cfg, s = _walk(idx, seed, length)
    ts = catalogue(cfg).transitions
    rng = random.Random(seed ^ 0x5EED)
    enabled = [t for t in ts if t.enabled(s)]
    chosen = rng.sample(enabled, min(len(enabled), picks)) + rng.sample(list(ts), min(len(ts), 1))
    for t in chosen:
        problems = check_transition(cfg, t, s)
        assert not problems, "\n".join(problems)


@settings(max_examples=120)
@given(st.integers(0, 10_000), st.integers(0, 2**32), st.integers(0, 40))
def test_symbolic_agrees_with_interpreter(idx: int, seed: int, length: int) -> None:
    _check(idx, seed, length, picks=1)


@pytest.mark.deep
@pytest.mark.parametrize("shard", range(4))  # 4 x 500 = 2,000 examples, spread over the workers
@settings(max_examples=500)
@given(st.integers(0, 10_000), st.integers(0, 2**32), st.integers(0, 60))
def test_symbolic_agrees_with_interpreter_deep(shard: int, idx: int, seed: int, length: int) -> None:
    # the shard moves the walk, so that shards differ even where Hypothesis draws the same examples
    _check(idx + shard, seed ^ (shard << 33), length, picks=2)


def test_conformance_check_catches_a_drift() -> None:
    """A condition whose concrete and symbolic readings differ is reported (the check can fail)."""
    from mtgcheck.model.actions import Action, Cond, Transition
    from mtgcheck.model.logic import symbolic_mode

    cfg, s = _STARTS[0]
    drift = Cond("drift", "117.1", "test", lambda st_: st_.turn == (2 if symbolic_mode() else 1))
    t = Transition(Action("pass", 0), "drift", "117.1", (drift,), lambda st_: st_.replace(turn=st_.turn + 1))
    assert any("drift" in p for p in check_transition(cfg, t, s))
    ok = Transition(Action("pass", 0), "ok", "117.1", (), lambda st_: st_.replace(turn=st_.turn + 1))
    assert check_transition(cfg, ok, s) == []


def test_python_branching_on_a_state_value_is_reported() -> None:
    """A rule that branches with Python's ``if`` on a state value is caught.  Over Z3 variables
    an order comparison cannot be branched on (reported, not raised), and an equality is
    decided by comparing the terms (a variable is no constant), so the symbolic reading
    differs at the field.  (On Z3 constants, as this check used to evaluate, the equality
    compared two equal constants and agreed with the interpreter.)"""
    from mtgcheck.model.actions import Action, Transition

    cfg, s = _STARTS[0]
    ordered = Transition(Action("pass", 0), "ordered", "117.1", (),
                         lambda st_: st_.replace(turn=st_.turn + 1 if st_.turn <= s.turn else st_.turn))
    (problem,) = check_transition(cfg, ordered, s)
    assert problem.startswith("ordered: the rules cannot be read over Z3 variables")
    equal = Transition(Action("pass", 0), "equal", "117.1", (),
                       lambda st_: st_.replace(turn=st_.turn + 1 if st_.turn == s.turn else st_.turn))
    assert check_transition(cfg, equal, s) == [f"equal: field turn is {s.turn + 1} concretely, {s.turn} symbolically"]


def test_the_settled_effect_is_the_relation_s(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A catalogue transition is checked as the relation reads it: its effect before the
    state-based actions, then ``settle`` built once over its own variables.  A drift of
    ``settle``'s symbolic reading is caught on the catalogue's transitions."""
    import mtgcheck.conformance as conformance
    import mtgcheck.model.settle as settle_module
    from mtgcheck.model.logic import symbolic_mode

    cfg, s = _STARTS[0]
    t = next(t for t in catalogue(cfg).transitions if t.enabled(s))
    assert check_transition(cfg, t, s) == []
    real = settle_module.settle

    def drifting(cfg_, st_):  # type: ignore[no-untyped-def]
        out = real(cfg_, st_)
        return out.replace(turn=out.turn + 1) if symbolic_mode() else out

    monkeypatch.setattr(settle_module, "settle", drifting)  # the catalogue's effects keep the real one
    conformance._reading.cache_clear()
    try:
        assert any(p.startswith(f"{t.rule}: field turn is ") for p in check_transition(cfg, t, s))
    finally:
        conformance._reading.cache_clear()


@pytest.mark.parametrize("idx", range(len(_STARTS)))
def test_compiled_guards_agree_with_each_transition(idx: int) -> None:
    """The catalogue's compiled guard tree (shared conditions tested once) enables exactly
    the transitions whose own conditions all hold, in catalogue order, on reachable states."""
    checked = 0
    for seed in range(12):
        cfg, s0 = _STARTS[idx]
        cat = catalogue(cfg)
        rng = random.Random(seed)
        s = s0
        for _ in range(30):
            want = [i for i, t in enumerate(cat.transitions) if t.enabled(s)]
            assert cat.enabled(s) == want, (idx, seed, s)
            checked += 1
            acts = legal_actions(cfg, s)
            if not acts:
                break
            s = step(cfg, s, rng.choice(acts))
    assert checked >= 12


def test_the_sorting_bookkeeping_agrees_with_the_counting() -> None:
    """Library and stack positions are renumbered by counting in the relation and by sorting
    on concrete states (:func:`zones.compact`, "not a rule but bookkeeping"): the two agree on
    states of random play whose zones and raw positions are scrambled (ties, gaps, negative
    and far positions, as a move leaves them before it compacts).  A sort that breaks a tie
    otherwise than the counting does fails here."""
    from mtgcheck.model.logic import symbolic
    from mtgcheck.model.state import LIBRARY, STACK
    from mtgcheck.model.zones import compact

    where = {"zone": (LIBRARY, LIBRARY, STACK, STACK, 0), "ab_kind": (0, 1)}  # field -> scrambled values
    rng = random.Random(7)
    ties = checked = 0
    for idx in range(len(_STARTS)):
        for seed in range(3):
            cfg, s = _walk(idx, seed, rng.randrange(30))
            for _ in range(4):
                raw = s.replace(**{f: tuple(rng.choice(vals) for _ in getattr(s, f)) for f, vals in where.items()},
                                **{f: tuple(rng.choice([-10_000 + i, 0, 1, 2, 20_000 + i]) for i in range(len(getattr(s, f))))
                                   for f in ("pos", "ab_pos")})
                with symbolic():  # the counting, on concrete values
                    counted = compact(cfg, raw)
                assert compact(cfg, raw) == counted, (idx, seed, raw)
                checked += 1
                ties += len(raw.pos) - len(set(raw.pos))
    assert checked >= 40 and ties >= 40


# --- deferred renumbering (model/zones.py, the note "Deferred renumbering") -------------------

_LADDER = [build(load_config(p).position) for p in sorted(Path(__file__).parent.parent.glob("examples/scale/*plot-14.json"))]


def _renumbering_forced(monkeypatch, renumber: bool) -> None:  # type: ignore[no-untyped-def]
    """Every move of the model (and every removal of an ability) renumbers, or none does,
    whatever its caller says; and every ability put on the stack reads the positions as
    renumbered (its place and the stack's size), or none does."""
    import sys

    from mtgcheck.model import zones

    for name, kwarg in (("move", "renumber"), ("remove_ability", "renumber"), ("push_ability", "renumbered")):
        real = getattr(zones, name)

        def forced(*args, _real=real, _kw=kwarg, **kw):  # type: ignore[no-untyped-def]
            return _real(*args, **{**kw, _kw: renumber})

        for mod in list(sys.modules.values()):
            if getattr(mod, "__name__", "").startswith("mtgcheck.model") and getattr(mod, name, None) is real:
                monkeypatch.setattr(mod, name, forced)


def _scrambled(rng: random.Random, s):  # type: ignore[no-untyped-def]
    """``s`` with its positions renumbered as no compacted state has them (gaps, negative and
    far values, ties in a library), keeping their order so that the top of the stack is
    still its top: the states before a step in the Z3 relation are arbitrary."""
    step, offset = rng.choice([1, 2, 5]), rng.choice([0, 3, -4, 9_000])
    pos = [p * step + offset + (rng.random() < 0.2) for p in s.pos]
    ab_pos = [p * step + offset for p in s.ab_pos]
    size = (s.stack_size - 1) * step + offset + 1 if s.stack_size else 0  # the top is still the top
    return s.replace(pos=tuple(pos), ab_pos=tuple(ab_pos), stack_size=size)


def _steps(monkeypatch, renumber: bool | None, cases):  # type: ignore[no-untyped-def]
    """Each case's transition taken (its effect, then ``settle``), with the renumbering as
    written (None) or forced."""
    with monkeypatch.context() as mp:
        if renumber is not None:
            _renumbering_forced(mp, renumber)
        return [t.effect(s) for cfg, t, s in cases]


def _deferral_cases():  # type: ignore[no-untyped-def]
    rng = random.Random(11)
    cases = []
    for cfg, s0 in _STARTS + _LADDER * 6:
        for _ in range(4):
            s, wrng = s0, random.Random(rng.random())
            for _ in range(40):  # every state of the walk, scrambled
                raw = _scrambled(rng, s)
                # (a player may leave in every state: one state in ten is plenty for that)
                cases += [(cfg, t, raw) for t in catalogue(cfg).transitions
                          if t.enabled(raw) and (t.rule != "leave" or rng.random() < 0.1)]
                # leaving is checked above, as a case; taken, it would end most walks
                acts = [a for a in legal_actions(cfg, s) if a.verb != "leave"]
                if not acts:
                    break
                # half the time a spell or a choice, so that resolutions and their choices come
                busy = [a for a in acts if a.verb in ("cast", "choose")]
                s = step(cfg, s, wrng.choice(busy if busy and wrng.random() < 0.5 else acts))
    return cases


def test_a_deferred_renumbering_changes_no_step(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The moves that leave their renumbering to a later one (``renumber=False``) give every
    transition the result it has when every move renumbers at once, on states whose
    positions are scrambled.  The same check, with *every* move deferring, finds steps that
    differ (a draw of two reads the top of the library between its moves): it can fail."""
    cases = _deferral_cases()
    rules = {t.rule for _, t, _ in cases}
    assert len(cases) >= 500 and {"choose.discard", "choose.hand-size"} <= rules
    assert sum(r.startswith("pass.resolve") for r in rules) >= 6
    renumbered = _steps(monkeypatch, True, cases)
    as_written = _steps(monkeypatch, None, cases)
    bad = [(t.rule, s) for (_, t, s), x, y in zip(cases, as_written, renumbered, strict=True) if x != y]
    assert not bad, bad[:3]
    none_renumber = _steps(monkeypatch, False, cases)
    assert any(x != y for x, y in zip(none_renumber, renumbered, strict=True))
