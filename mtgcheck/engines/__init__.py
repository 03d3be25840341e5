"""Engine adapters: start an engine from an ``--engine SPEC``.

``cmd:COMMAND`` (JSON lines, any language), ``python:module:Class`` (in process),
``phase`` (phase.rs through phase-python), ``forge`` (Forge's WebAssembly build, a Node process), ``model[:VARIANT|:mutant-ID]`` (the reference).
"""

from __future__ import annotations

import importlib
import json
import threading
from typing import Any, Callable

from mtgcheck.engines.base import Applied, Engine, EngineError, EngineInfo, EngineRefused, EngineSpecError
from mtgcheck.engines.pipe import PipeEngine, support_of
from mtgcheck.errors import FormatError
from mtgcheck.jsonread import loads as strict_loads


class InProcess:
    """A user's Python engine, guarded: an exception is a crash, a call past its deadline a hang.

    A hung call cannot be killed inside one process; its thread is abandoned (daemon) and
    the engine instance is not used again (the harness makes a fresh one).
    """

    def __init__(self, factory: Callable[[], Any], *, call_timeout: float = 10.0) -> None:
        self.factory = factory
        self.call_timeout = call_timeout
        self.inner: Any = None

    def _call(self, name: str, *args: Any) -> Any:
        if self.inner is None:
            self.inner = self._guarded("start", self.factory)
        return self._guarded(name, getattr(self.inner, name), *args)

    def _guarded(self, name: str, fn: Callable[..., Any], *args: Any) -> Any:
        box: dict[str, Any] = {}

        def run() -> None:
            try:
                box["value"] = fn(*args)
            except EngineRefused as exc:
                box["refused"] = exc
            except BaseException as exc:  # noqa: BLE001 - the engine is untrusted
                box["error"] = exc

        th = threading.Thread(target=run, daemon=True, name=f"engine-{name}")
        th.start()
        th.join(self.call_timeout)
        if th.is_alive():
            self.inner = None
            raise EngineError("hang", f"no answer to {name!r} within {self.call_timeout:g} s")
        if "refused" in box:
            raise box["refused"]
        if "error" in box:
            self.inner = None
            exc = box["error"]
            raise EngineError("crash", f"{name!r} raised {type(exc).__name__}: {str(exc)[:160]}")
        return box["value"]

    @staticmethod
    def _json(name: str, value: Any) -> None:
        """Refuse what a pipe engine could not send either: NaN, a lone surrogate, deep nesting.

        Such a value would otherwise end up in a stored counterexample that no reader accepts.
        """
        try:
            text = json.dumps(value, default=list)
        except (TypeError, ValueError, RecursionError) as exc:
            raise EngineError("protocol", f"{name}: expected JSON values ({str(exc)[:80]})") from None
        try:
            strict_loads(text, source=f"{name} reply")
        except FormatError as exc:
            raise EngineError("garbage", f"{name}: not JSON (expected {exc.expected}, got {exc.got})") from None

    def hello(self) -> EngineInfo:
        info = self._call("hello")
        if isinstance(info, EngineInfo):
            return info
        if isinstance(info, dict) and isinstance(info.get("name"), str) and isinstance(info.get("version"), str):
            return EngineInfo(info["name"], info["version"], support_of(info.get("supports")))
        raise EngineError("protocol", f"hello: expected an EngineInfo or a hello reply object, got {info!r:.60}")

    def setup(self, setup: dict[str, Any]) -> None:
        self._call("setup", setup)

    def actions(self) -> list[dict[str, Any]]:
        acts = self._call("actions")
        if not isinstance(acts, list) or not all(isinstance(a, dict) for a in acts):
            raise EngineError("protocol", f"actions: expected a list of objects, got {acts!r:.60}")
        self._json("actions", acts)
        return acts

    def apply(self, action: dict[str, Any]) -> Applied:
        r = self._call("apply", action)
        if isinstance(r, Applied):
            return r
        if isinstance(r, bool):
            return Applied(r)
        raise EngineError("protocol", f"apply: expected Applied or a boolean, got {r!r:.60}")

    def observe(self) -> dict[str, Any]:
        obs = self._call("observe")
        if not isinstance(obs, dict):
            raise EngineError("protocol", f"observe: expected an object, got {obs!r:.60}")
        self._json("observe", obs)
        return obs

    def close(self) -> None:
        if self.inner is not None and hasattr(self.inner, "close"):
            try:
                self._guarded("close", self.inner.close)
            except EngineError:
                pass
        self.inner = None


def _python_factory(spec: str) -> Callable[[], Any]:
    parts = spec.split(":")
    if len(parts) != 3 or not all(parts[1:]):
        raise EngineSpecError(f"--engine {spec}: expected python:MODULE:CLASS")
    _, module, cls = parts
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        raise EngineSpecError(f"--engine {spec}: cannot import {module!r} ({exc})") from None
    factory = getattr(mod, cls, None)
    if not callable(factory):
        raise EngineSpecError(f"--engine {spec}: module {module!r} has no class {cls!r}")
    return factory


def open_engine(spec: str, *, call_timeout: float = 10.0) -> Engine:
    """Start the engine an ``--engine`` option names (raises EngineSpecError, exit 2)."""
    if spec.startswith("cmd:"):
        if not spec[4:].strip():
            raise EngineSpecError("--engine cmd:COMMAND: the command is empty")
        return PipeEngine(spec[4:], call_timeout=call_timeout)
    if spec.startswith("python:"):
        return InProcess(_python_factory(spec), call_timeout=call_timeout)
    if spec == "model" or spec.startswith("model:"):
        from mtgcheck.engines.model_engine import ModelEngine

        return ModelEngine(spec)
    if spec == "phase":
        try:
            from mtgcheck.engines.phase_engine import PhaseEngine
        except ImportError as exc:
            raise EngineSpecError(f"--engine phase: phase-python is not installed ({exc}); "
                                  "pip install 'mtgcheck[phase]'") from None
        return InProcess(PhaseEngine, call_timeout=call_timeout)
    if spec == "forge":
        from mtgcheck.engines.forge import command

        return PipeEngine(command(), call_timeout=call_timeout, start_timeout=120.0)
    raise EngineSpecError(f"--engine {spec}: expected cmd:COMMAND, python:MODULE:CLASS, phase, forge or model[:VARIANT]")


__all__ = ["Applied", "Engine", "EngineError", "EngineInfo", "EngineRefused", "EngineSpecError", "open_engine"]
