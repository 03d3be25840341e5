"""The formats layer of the harness: one JSON Schema per public format, one strict reader,
one translator of schema errors into plain words.

Every reader of a public format goes through it: scenario files
(:mod:`mtgcheck.scenario_format`), configuration files (:mod:`mtgcheck.configs`),
counterexamples (:mod:`mtgcheck.replay`) and the manifest (:mod:`mtgcheck.manifest`) are read
by :func:`read` / :func:`loads` (:mod:`mtgcheck.jsonread`: size, regular files, duplicate keys,
NaN, depth), checked against their schema by :func:`schema_problems`, then by the reader's own
cross-field checks; every problem is a one-line :class:`~mtgcheck.errors.FormatError` naming
the file and the field.  The card pool (:mod:`mtgcheck.model.cards`) is checked against its
schema the same way, but the built-in pool, package data, is parsed with the standard
``json.loads``: the model imports nothing from the harness, its reader included.

Each closed word set of the model (steps, zones, verbs, ways to cast, choices, observation
and expectation keys) is declared once, in the model; :func:`word_sets` says where each goes
in the schemas and :func:`schema_drift` what differs (a test keeps it empty).

The schemas and the translator are defined with the model (:mod:`mtgcheck.model.formats`),
which reads the card pool and imports nothing from the harness; they are re-exported here.
"""

from typing import Any

from mtgcheck.jsonread import MAX_BYTES, MAX_DEPTH, loads, read, read_bytes
from mtgcheck.model.observe import EXPECTATION_KEYS, OBSERVATION_KEYS
from mtgcheck.model.state import STEPS, ZONES
from mtgcheck.model.vocabulary import (CAST_HALVES, CAST_HOWS, CHOICES, FLASHBACK_ABILITIES, PLOT_SOURCES,
                                       ROLL_RESULTS, SETUP_ZONES, VERBS)
from mtgcheck.model.formats import (
    PATTERN_WORDS,
    SCHEMAS,
    TYPE_WORDS,
    Said,
    describe,
    field_path,
    checked,
    load_schema,
    normalized,
    schema,
    schema_file,
    schema_problems,
    shown_value,
    validator,
)



def word_sets() -> dict[tuple[str, str], tuple[str, ...]]:
    """Where each closed word set of the model goes in the schemas: (schema, place) -> the
    words, the place a dotted path into the schema (``$defs.step.enum``).

    The schemas are public files that other tools read, so they hold the words themselves;
    the model is where each set is declared (:mod:`mtgcheck.model.vocabulary`, :mod:`mtgcheck.model.observe`, :mod:`mtgcheck.model.state`),
    and ``tests/test_formats.py`` fails naming the place and the words whenever a schema
    drifts from it.  A place ending in ``.properties`` holds an object's keys.  Sets that a
    registry extends at run time (ability kinds, checker names) are not here: their schemas
    hold a pattern or a string, and the loaders check them against the registry in force.
    """
    return {
        ("scenario-1", "$defs.step.enum"): STEPS,
        ("scenario-1", "$defs.setupZone.enum"): SETUP_ZONES,
        ("scenario-1", "$defs.expectZone.enum"): ZONES,
        ("scenario-1", "$defs.action.properties.do.enum"): VERBS,
        ("scenario-1", "$defs.plotAction.properties.from.enum"): PLOT_SOURCES,
        ("scenario-1", "$defs.castAction.properties.how.enum"): CAST_HOWS,
        ("scenario-1", "$defs.castAction.properties.half.enum"): CAST_HALVES,
        ("scenario-1", "$defs.castAction.properties.flashback.enum"): FLASHBACK_ABILITIES,
        ("scenario-1", "$defs.rollAction.properties.result.enum"): ROLL_RESULTS,
        ("scenario-1", "$defs.choice.enum"): CHOICES,
        ("scenario-1", "$defs.expectKeys.properties"): EXPECTATION_KEYS,
        ("scenario-1", "$defs.expect.properties"): EXPECTATION_KEYS,
        ("scenario-1", "$defs.actionExpect.properties"): ("verdict", *EXPECTATION_KEYS),
        ("engine-protocol-1", "$defs.observation.properties"): OBSERVATION_KEYS,
        ("engine-protocol-1", "$defs.supports.properties.verbs.items.enum"): VERBS,
        ("engine-protocol-1", "$defs.supports.properties.hows.items.enum"): CAST_HOWS,
        ("engine-protocol-1", "$defs.supports.properties.observe.items.enum"): OBSERVATION_KEYS,
    }


def schema_drift() -> list[str]:
    """Each place where a schema's words differ from the model's (:func:`word_sets`), in
    words: the schema, the place, what it holds and what the model says.  [] if none."""
    out = []
    for (name, place), words in word_sets().items():
        node: Any = schema(name)
        for part in place.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        held = list(node) if isinstance(node, (dict, list)) else node
        if held != list(words):
            out.append(f"{schema_file(name)}: {place}: holds {held}, the model says {list(words)}")
    return out


__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "PATTERN_WORDS",
    "SCHEMAS",
    "TYPE_WORDS",
    "Said",
    "checked",
    "describe",
    "field_path",
    "load_schema",
    "loads",
    "normalized",
    "read",
    "read_bytes",
    "schema",
    "schema_drift",
    "schema_file",
    "schema_problems",
    "shown_value",
    "validator",
    "word_sets",
]
