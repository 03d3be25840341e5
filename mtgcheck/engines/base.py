"""The engine adapter interface: what mtgcheck needs from a rules engine to validate it.

An engine is driven in the scenario file's vocabulary (``docs/scenario.md``), so that a
divergence is a scenario anyone can run: ``setup`` takes a scenario's ``setup`` object,
``actions`` lists legal actions as scenario action objects (``{"player": 0, "do": "plot",
"card": "show"}``), ``apply`` takes one, and ``observe`` answers with the keys of
``mtgcheck.model.observe`` that the engine reports.  The same interface is served in
process (``python:module:Class``), over a JSON-lines pipe (``cmd:COMMAND``,
``docs/engine-protocol.md``) and by the built-in phase.rs adapter (``phase``).

An engine may support part of the scope: it declares the cards, planes, verbs, ways to
cast and observation keys it supports (``Support``), and the harness generates only what
it declares and compares only what it observes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from mtgcheck.errors import MtgcheckError
from mtgcheck.model.observe import OBSERVATION_KEYS
from mtgcheck.model.vocabulary import VERBS  # noqa: F401 - re-exported: the engines import it from here

PROTOCOL = "mtgcheck.engine/1"

#: Observation keys an engine may report, and the verbs it may implement: the model's, declared
#: once there (``mtgcheck.model.observe``, ``mtgcheck.model.vocabulary``).
OBSERVABLE = OBSERVATION_KEYS
#: Features of the rules an engine may declare it lacks (``supports.lacks``): the harness then
#: generates no position or play that needs one, instead of the engine refusing setups.
FEATURES = ("extra_turns", "spend")


@dataclass(frozen=True)
class Support:
    """What an engine declares it implements; the harness stays inside it."""

    cards: frozenset[str]
    verbs: frozenset[str] = frozenset({"pass", "plot", "cast"})
    hows: frozenset[str] = frozenset({"normal", "plotted"})
    observe: frozenset[str] = frozenset({"zones", "plotted", "turn", "active", "step", "stack"})
    planes: frozenset[str] = frozenset()
    players: frozenset[int] = frozenset({2})
    max_x: int = 3
    #: Does the engine list every legal action (``actions``)?  If not, only ``apply`` is compared.
    lists_actions: bool = True
    #: Features it does not implement (:data:`FEATURES`), e.g. extra turns (CR 500.7).
    lacks: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        """A name outside the built-in pool is an error, not a silent drop: a misspelt card
        would otherwise never be generated, and the engine never tested on it."""
        from mtgcheck.model import cards as pool

        if unknown := sorted(self.lacks - set(FEATURES)):
            raise EngineError("protocol", f"hello reply: supports.lacks: expected features among "
                              f"{', '.join(FEATURES)}, got {unknown[0]!r}")
        for key, known in (("cards", pool.card_names()), ("planes", pool.plane_names())):
            unknown = sorted(getattr(self, key) - known)
            if unknown:
                raise EngineError("protocol", f"hello reply: supports.{key}: expected names of the built-in "
                                  f"pool, got {unknown[0]!r}" + (f" and {len(unknown) - 1} more" if len(unknown) > 1 else ""))

    def to_json(self) -> dict[str, Any]:
        return {"cards": sorted(self.cards), "verbs": sorted(self.verbs), "hows": sorted(self.hows),
                "observe": sorted(self.observe), "planes": sorted(self.planes), "players": sorted(self.players),
                "max_x": self.max_x, "lists_actions": self.lists_actions, "lacks": sorted(self.lacks)}


@dataclass(frozen=True)
class EngineInfo:
    name: str
    version: str
    support: Support
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def target(self) -> str:
        """The counterexample store's folder for this engine: ``<name>-<version>``."""
        return f"{self.name}-{self.version}"


@dataclass(frozen=True)
class Applied:
    legal: bool
    reason: str = ""


@runtime_checkable
class Engine(Protocol):
    """What an adapter implements (in process, or behind the JSON-lines pipe)."""

    def hello(self) -> EngineInfo:
        """Name, version and what the engine supports."""

    def setup(self, setup: dict[str, Any]) -> None:
        """Start a new game at the scenario ``setup`` position (raises EngineRefused if unsupported)."""

    def actions(self) -> list[dict[str, Any]]:
        """The legal actions of the player to act, as scenario action objects (without ``expect``)."""

    def apply(self, action: dict[str, Any]) -> Applied:
        """Apply an action, or refuse it as illegal (the state is then unchanged)."""

    def observe(self) -> dict[str, Any]:
        """The position, with the declared observation keys."""

    def close(self) -> None:
        """Release the engine (end the child process)."""


class EngineError(MtgcheckError):
    """The engine misbehaved: crashed, hung, answered garbage or broke the protocol.

    ``kind`` is one of ``crash``, ``hang``, ``garbage``, ``protocol``; the harness records
    it with the trace that provoked it and carries on with a fresh engine.
    """

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class EngineRefused(MtgcheckError):
    """The engine cannot set up this position (outside what it supports): not a divergence."""


class EngineSpecError(MtgcheckError):
    """``--engine SPEC`` names no engine we can start (a usage error, exit 2)."""
