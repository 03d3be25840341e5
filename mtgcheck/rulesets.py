"""Rule sets: the reference model, a named rule variant, or a mutant, in one grammar.

Every place that names a rule set reads it with :meth:`RuleSet.parse` and writes it with
``str``: ``mtgcheck diff RULES_A RULES_B``, ``mtgcheck check --variant``, the ``target`` of a
counterexample file, ``--engine model:RULES`` and the mutants of ``mtgcheck mutants``::

    rule set  := "reference" | "702.170a"                 the CR as the model reads it
               | VARIANT | "variant-" VARIANT             a named reading (model/config.py VARIANTS)
               | "mutant-" MUTANT                         a mutant of model/mutants.py (its variant
                                                          and its switched-off conditions)
               | "mutant-" COND ("+" COND)*               these guard conditions or effect clauses
                                                          switched off (ids hold a dot: plot.main-phase)

``str`` gives the canonical spelling (``reference``, ``variant-116.2k``, ``mutant-ID``,
``mutant-C1+C2`` with the conditions sorted), and ``RuleSet.parse(str(r)) == r``.  The model's
``build(position, variant=r.variant, disabled=r.disabled)`` takes the rule set apart.

A mutant's name never holds a dot and a condition's always does, so ``mutant-`` means one
thing wherever it is read.  This module imports only the model's two tables (VARIANTS and
MUTANTS), so the harness and the model-facing code (engines, replay) import it without cycles.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Union

REFERENCE_ALIASES = ("reference", "702.170a")
KINDS = ("reference", "variant", "mutant")


class RuleSetError(ValueError):
    """A name that is no rule set (the callers turn it into their own one-line error)."""


def _variants() -> dict[str, str]:
    from mtgcheck.model.config import VARIANTS

    return VARIANTS


def _mutants() -> dict[str, Any]:
    from mtgcheck.model.mutants import BY_ID

    return dict(BY_ID)


def grammar() -> str:
    """The accepted spellings, for error messages."""
    return (f"reference, a variant ({', '.join(sorted(_variants()))}), mutant-ID (see `mtgcheck mutants`) "
            "or mutant-COND[+COND...]")


@dataclass(frozen=True)
class RuleSet:
    """One rule set. ``id``: the variant's name, the mutant's id, or the sorted ``+``-joined
    conditions of an anonymous mutant; empty for the reference."""

    kind: Literal["reference", "variant", "mutant"] = "reference"
    id: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise RuleSetError(f"rule set kind: expected one of {', '.join(KINDS)}, got {self.kind!r}")
        if (self.kind == "reference") != (self.id == ""):
            raise RuleSetError(f"rule set: the reference has no id, a {self.kind} needs one")

    # --- reading and writing ------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str) -> RuleSet:
        """The rule set ``text`` names (any spelling of the grammar); RuleSetError otherwise."""
        if not isinstance(text, str):
            raise RuleSetError(f"rule set: expected a name, got {text!r}")
        if text in REFERENCE_ALIASES:
            return REFERENCE
        name = text[len("variant-"):] if text.startswith("variant-") else text
        if name in _variants():
            return cls("variant", name)
        if text.startswith("mutant-"):
            rest = text[len("mutant-"):]
            if rest in _mutants():
                return cls("mutant", rest)
            conds = rest.split("+")
            if all(c and "." in c and c.strip() == c for c in conds):
                from mtgcheck.model.actions import unknown_conditions

                unknown = unknown_conditions(conds)
                if unknown:
                    raise RuleSetError(f"rule set {text!r}: {unknown}")
                return cls("mutant", "+".join(sorted(set(conds))))
            raise RuleSetError(f"rule set {text!r}: no mutant {rest!r} (see `mtgcheck mutants`), and not "
                               "condition ids (each holds a dot)")
        raise RuleSetError(f"rule set: expected {grammar()}, got {text!r}")

    @classmethod
    def of(cls, value: RuleSet | str | None) -> RuleSet:
        """A rule set, or the one a name (or None: the reference) names."""
        if value is None:
            return REFERENCE
        return value if isinstance(value, RuleSet) else cls.parse(value)

    @classmethod
    def from_build(cls, variant: str | None = None, disabled: frozenset[str] = frozenset()) -> RuleSet:
        """The rule set of the model's ``build(variant=..., disabled=...)`` arguments: the
        conditions switched off if any (as a counterexample's ``target`` has always named
        them), else the variant, else the reference."""
        if disabled:
            return cls("mutant", "+".join(sorted(disabled)))
        if variant is not None:
            if variant not in _variants():
                raise RuleSetError(f"rule set: expected {grammar()}, got {variant!r}")
            return cls("variant", variant)
        return REFERENCE

    def __str__(self) -> str:
        return self.kind if self.kind == "reference" else f"{self.kind}-{self.id}"

    # --- what the model's build(...) takes ----------------------------------------------------

    @property
    def named_mutant(self) -> bool:
        return self.kind == "mutant" and self.id in _mutants()

    @property
    def variant(self) -> str | None:
        if self.kind == "variant":
            return self.id
        if self.named_mutant:
            variant: str | None = _mutants()[self.id].variant
            return variant
        return None

    @property
    def disabled(self) -> frozenset[str]:
        if self.kind != "mutant":
            return frozenset()
        if self.named_mutant:
            return frozenset(_mutants()[self.id].disabled)
        return frozenset(self.id.split("+"))


REFERENCE = RuleSet()

RuleSetLike = Union[RuleSet, str, None]

__all__ = ["REFERENCE", "RuleSet", "RuleSetError", "RuleSetLike", "grammar"]
