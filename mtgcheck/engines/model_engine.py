"""The reference model behind the engine interface (``--engine model``, ``model:VARIANT``).

It is the yardstick of the harness: validating the model against itself must find no
divergence, and a mutant or rule variant of it (``model:mutant-ID``, ``model:116.2k``) is
an engine that breaks one rule on purpose, so the tests can show the harness finds it.
It also serves the example pipe engine's tests and the protocol's documentation.
"""

from __future__ import annotations

from typing import Any

from mtgcheck import __version__
from mtgcheck.engines.base import OBSERVABLE, VERBS, Applied, EngineInfo, EngineRefused, EngineSpecError, Support
from mtgcheck.engines.vocab import Session, wire_action
from mtgcheck.errors import FormatError
from mtgcheck.model import cards as pool
from mtgcheck.model.actions import enabled_transition, legal_actions, why_illegal
from mtgcheck.model.config import VARIANTS
from mtgcheck.model.observe import observe
from mtgcheck.model.state import HOWS


def rules_of_spec(spec: str) -> tuple[str | None, frozenset[str], str]:
    """``model`` or ``model:RULES`` (a rule set of :mod:`mtgcheck.rulesets`: ``model:116.2k``,
    ``model:mutant-ID``, ...) -> (variant, disabled, name)."""
    from mtgcheck.rulesets import RuleSet, RuleSetError

    rest = spec.partition(":")[2]
    if not rest:
        return None, frozenset(), "model"
    try:
        rules = RuleSet.parse(rest)
    except RuleSetError:
        if rest.startswith("mutant-"):
            raise EngineSpecError(f"--engine {spec}: no mutant {rest[7:]!r} (see `mtgcheck mutants`)") from None
        raise EngineSpecError(f"--engine {spec}: expected model, model:VARIANT ({', '.join(VARIANTS)}) "
                              "or model:mutant-ID") from None
    return rules.variant, rules.disabled, "model" if rules.kind == "reference" else f"model-{rest}"


class ModelEngine:
    """The model as an engine: full support, every observation."""

    def __init__(self, spec: str = "model") -> None:
        self.variant, self.disabled, self.name = rules_of_spec(spec)
        self.session: Session | None = None

    def hello(self) -> EngineInfo:
        support = Support(cards=pool.card_names(), verbs=frozenset(VERBS), hows=frozenset(HOWS[1:]),  # [0]: not cast
                          observe=frozenset(OBSERVABLE), planes=pool.plane_names(), players=frozenset({2, 3, 4}))
        return EngineInfo(self.name, __version__, support)

    def setup(self, setup: dict[str, Any]) -> None:
        try:
            self.session = Session.begin(setup, source="(engine setup)", variant=self.variant, disabled=self.disabled)
        except FormatError as exc:
            raise EngineRefused(str(exc)) from None
        self.state = self.session.start

    def actions(self) -> list[dict[str, Any]]:
        assert self.session is not None
        return [wire_action(self.session.cfg, a) for a in legal_actions(self.session.cfg, self.state)]

    def apply(self, action: dict[str, Any]) -> Applied:
        se = self.session
        assert se is not None
        a = se.to_model([action], self.state, source="(engine request)", field="action")[0]
        t = enabled_transition(se.cfg, self.state, a)
        if t is None:
            r = why_illegal(se.cfg, self.state, a)
            return Applied(False, f"CR {r.cr}: {r.why}" if r else "illegal")
        self.state = t.effect(self.state)
        return Applied(True)

    def observe(self) -> dict[str, Any]:
        assert self.session is not None
        return observe(self.session.cfg, self.state)

    def close(self) -> None:
        self.session = None
