"""Invariants carried across positions of one shape: closed once, reused, re-checked every time.

The invariant templates (:mod:`..invariants`) are written over the state layout, and a
candidate's name says which entries it reads (``zone[bolt] == 2 -> pos[bolt] < ab_pos[0]``):
its meaning depends on the configuration's *shape* (:class:`~mtgcheck.model.config.Config`:
the card pool, its slots and owners, the player count, the bounds, the rules switched off),
not on the position (the zones, life totals and mana the game starts from).  So the
candidates the proofs of one position closed are the likeliest to close on another position
of the same shape, and closing them first (the ``hints`` of :class:`.induction.Induction`)
is far cheaper than finding them among every candidate mined, one counterexample at a time.

Nothing read here is trusted.  An entry gives names only: a name counts on the position at
hand only if the same template instance is mined there again (true in every state its
explicit-state search reaches) and true in each of its initial states (initiation), and it is
then kept only inside a set the closure finds inductive on this position's relation
(consecution, :class:`.closure.Closure`); a name that fails either is dropped like any other
candidate.  A corrupt, foreign or stale entry is ignored, as if absent.

Entries live in ``<MTGCHECK_CACHE>/z3-invariants/<key>.json``, written atomically (a reader
never sees half an entry), keyed by content: a hash of the shape and of the sources the names'
meaning depends on (the model, the properties, the templates, this checker, Z3's version).
The key is written inside the entry too and checked on reading, so that a file renamed or
copied under another key is not read as that key's.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

import z3

from mtgcheck.atomic import write_json
from mtgcheck.cache import cache_root
from mtgcheck.errors import OutputError
from mtgcheck.model.config import Config

#: The entries' format; a change of it changes every key.
FORMAT = "mtgcheck.z3-invariants/1"


def folder() -> Path:
    return cache_root() / "z3-invariants"


@lru_cache(maxsize=1)
def sources_digest() -> str:
    """A hash of the sources a candidate's name and its check depend on."""
    import mtgcheck.model
    import mtgcheck.properties

    from .. import invariants

    h = hashlib.sha256(f"{FORMAT} {z3.get_version_string()}".encode())
    roots = [Path(str(mtgcheck.model.__file__)).parent, Path(str(mtgcheck.properties.__file__)).parent,
             Path(__file__).parent]
    files = [f for root in roots for f in sorted(root.rglob("*.py"))] + [Path(str(invariants.__file__))]
    for f in files:
        h.update(f.name.encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def shape_key(cfg: Config) -> str:
    """The key of a configuration's shape: everything the configuration holds (the pool, its
    slots' ids and owners, the players, the bounds, the rules off), none of the position."""
    return hashlib.sha256(f"{sources_digest()}\n{_canonical(cfg)}".encode()).hexdigest()[:32]


def _canonical(x: Any) -> str:
    """A text of ``x`` that is the same in every process: dataclasses field by field, sets
    sorted (a set's ``repr`` follows the string hashing, which differs between processes)."""
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        fields = ",".join(f"{f.name}={_canonical(getattr(x, f.name))}" for f in dataclasses.fields(x)
                          if not f.name.startswith("_"))
        return f"{type(x).__name__}({fields})"
    if isinstance(x, (set, frozenset)):
        return "{" + ",".join(sorted(_canonical(v) for v in x)) + "}"
    if isinstance(x, (list, tuple)):
        return "[" + ",".join(_canonical(v) for v in x) + "]"
    if isinstance(x, dict):
        return "{" + ",".join(sorted(f"{_canonical(k)}:{_canonical(v)}" for k, v in x.items())) + "}"
    return repr(x)


@dataclasses.dataclass(frozen=True)
class Entry:
    """What an earlier run on a position of the shape left: the candidates its proofs closed,
    those of them whose chunk had to be split, and the properties it proved (only a schedule:
    which properties to try under these candidates alone before the others)."""

    invariants: list[str]
    split: list[str]
    proved: list[str]


#: A set of values (``in [1, 3]``), or an integer outside brackets: a constant of the
#: position (``life[0] == 20``), not a slot, player or entry (``life[0]``, ``ab_kind[1]``).
_CONSTANT = re.compile(r"in \[[^\]]*\]|(?<![\w\[-])-?\d+(?![\w\]])")


def form(name: str) -> str:
    """A candidate's name with its constants blanked: what it says of which entries, not of
    which values (``life[0] == 20`` and ``life[0] == 7`` are one form)."""
    return _CONSTANT.sub("#", name)


def with_counterparts(names: Sequence[str], mined: Sequence[str]) -> list[str]:
    """The names recorded on another position of the shape, and for each one not mined here,
    those mined here of the same form: the same statement about the same entries with this
    position's values (its life total, not the other's).  Why: a proof that read the other
    position's ``life[0] == 20`` needs this one's ``life[0] == 7``, which is no name recorded,
    and the hints alone would then leave that property to the closure of every candidate.
    Hints only: each is checked as any candidate is (module docstring)."""
    here = set(mined)
    missing = {form(n) for n in names if n not in here}
    return sorted({*names, *(m for m in mined if m not in names and form(m) in missing)})


def load(cfg: Config) -> Entry | None:
    """What an earlier run on this shape left, or None: no entry, or one that is unreadable,
    foreign or of another key."""
    key = shape_key(cfg)
    try:
        doc = json.loads((folder() / f"{key}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("key") != key:
        return None
    names, split, proved = doc.get("invariants"), doc.get("split", []), doc.get("proved", [])
    if not all(isinstance(xs, list) and all(isinstance(x, str) for x in xs) for xs in (names, split, proved)):
        return None
    return Entry(names, split, proved)


def store(cfg: Config, names: list[str], split: list[str], proved: list[str], **about: Any) -> bool:
    """Record the names the proofs of a position of this shape closed; False if the cache
    cannot be written (a proof never depends on it, so that is no error)."""
    key = shape_key(cfg)
    try:
        write_json(folder() / f"{key}.json", {"format": FORMAT, "key": key, "invariants": sorted(names),
                                               "split": sorted(split), "proved": sorted(proved), **about})
    except OutputError:
        return False
    return True
