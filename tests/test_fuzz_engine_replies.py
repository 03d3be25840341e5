"""Engine replies are untrusted input: every spoiled reply ends in an EngineError (one line)
or is read as a well-typed answer, and the differential driver turns whatever the engine
says into a divergence or agreement, never into a traceback."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from mtgcheck.configs import BUILTIN
from mtgcheck.engines import EngineError, EngineRefused, InProcess
from mtgcheck.engines.model_engine import ModelEngine
from mtgcheck.engines.pipe import MAX_REPLY, PipeEngine
from mtgcheck.scenario_write import setup_of
from mtgcheck.validate import Driver, KINDS
from tests.fuzzing import encode, malformed_documents, malformed_inputs

SETUP = setup_of(BUILTIN[0].position)


def _valid_replies() -> dict[str, dict[str, Any]]:
    eng = ModelEngine()
    info = eng.hello()
    eng.setup(SETUP)
    return {"hello": {"ok": True, "name": "e", "version": "1", "supports": info.support.to_json()},
            "setup": {"ok": True},
            "actions": {"ok": True, "actions": eng.actions()},
            "apply": {"ok": True, "legal": True},
            "observe": {"ok": True, "observation": eng.observe()}}


VALID = _valid_replies()
CALLS = {"hello": lambda e: e.hello(), "setup": lambda e: e.setup(SETUP), "actions": lambda e: e.actions(),
         "apply": lambda e: e.apply({"player": 0, "do": "pass"}), "observe": lambda e: e.observe()}


class _Scripted(PipeEngine):
    """The pipe client with its transport replaced by one scripted reply line."""

    def __init__(self, line: bytes) -> None:
        super().__init__("true")
        self.line = line

    def _start(self) -> Any:
        return self

    def call(self, request: dict[str, Any]) -> dict[str, Any]:
        self.proc = self  # type: ignore[assignment]  # looks started: no greeting
        return super().call(request)

    # what call() touches of a process
    stdin = type("W", (), {"write": lambda self, b: None, "flush": lambda self: None})()
    stdout = stdin

    def _read_line(self, op: object, timeout: float) -> bytes:
        if len(self.line) > MAX_REPLY:
            raise self._fail("garbage", f"reply to {op!r} longer than {MAX_REPLY} bytes")
        return self.line.split(b"\n")[0]

    def kill(self) -> None:
        self.proc = None


@pytest.mark.parametrize("op", sorted(CALLS))
@settings(max_examples=80, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_spoiled_replies_are_engine_errors_or_answers(op: str, data: st.DataObject) -> None:
    bad = data.draw(malformed_inputs(VALID[op]))
    eng = _Scripted(bad.value)
    try:
        CALLS[op](eng)
    except (EngineError, EngineRefused) as exc:
        assert "\n" not in str(exc)
        if isinstance(exc, EngineError):
            assert exc.kind in KINDS


class _Liar:
    """An in-process engine whose lists and observations are spoiled documents."""

    def __init__(self, actions: Any, observation: Any) -> None:
        self.inner = ModelEngine()
        self.acts, self.obs = actions, observation

    def hello(self) -> Any:
        return self.inner.hello()

    def setup(self, setup: dict[str, Any]) -> None:
        self.inner.setup(setup)

    def actions(self) -> Any:
        return self.acts

    def apply(self, action: dict[str, Any]) -> Any:
        return self.inner.apply(action)

    def observe(self) -> Any:
        return self.obs

    def close(self) -> None:
        pass


@settings(max_examples=120, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_driver_survives_any_answer(data: st.DataObject) -> None:
    acts = data.draw(malformed_documents(VALID["actions"]["actions"])).value
    obs = data.draw(malformed_documents(VALID["observe"]["observation"])).value
    # through JSON, as a pipe would deliver it (spoiled documents may hold raw JSON text)
    try:
        acts, obs = json.loads(encode(acts)), json.loads(encode(obs))
    except (ValueError, RecursionError):
        return  # not JSON: the pipe client refuses it (the test above)
    driver = Driver.__new__(Driver)
    driver.spec, driver.call_timeout, driver.max_steps, driver.steps, driver.restarts = "fuzz", 5.0, 3, 0, 0
    driver.engine = InProcess(lambda: _Liar(acts, obs))
    driver.info = driver.engine.hello()
    driver.restart = lambda: None  # type: ignore[method-assign]
    tr = driver.play(SETUP, lambda i, cfg, s, legal: legal[0] if legal else None)
    if tr.divergence is not None:
        assert tr.divergence.kind in KINDS and "\n" not in tr.divergence.why

