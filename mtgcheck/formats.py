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

The schemas and the translator are defined with the model (:mod:`mtgcheck.model.formats`),
which reads the card pool and imports nothing from the harness; they are re-exported here.
"""

from mtgcheck.jsonread import MAX_BYTES, MAX_DEPTH, loads, read, read_bytes
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
    "schema_file",
    "schema_problems",
    "shown_value",
    "validator",
]
