"""The counterexample store: ``counterexamples/<target>/<property>-<hash8>.json``.

A counterexample is a scenario (``mtgcheck.scenario/1``) plus ``violates``, ``found_by``,
``target``, ``seed`` and ``hash`` (format ``mtgcheck.counterexample/1``).  The hash is the
SHA-256 of the canonical JSON of everything but the hash and the finder's details, so the
same counterexample found twice (by two checkers, two workers, two runs) is one file.

Writes are atomic and never overwrite: the file is written to a temporary name in the same
folder and then hard-linked to its final name, which fails if that name exists; so a
killed writer leaves at most a temporary file (cleaned on the next write) and two writers
of the same counterexample leave exactly one file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from mtgcheck.errors import OutputError

FORMAT = "mtgcheck.counterexample/1"
_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")
#: The longest folder or file stem written (file systems allow 255 bytes per component).
MAX_NAME = 120
# Keys that say who found it and how: not part of what the counterexample *is*.
_NOT_HASHED = ("hash", "found_by", "seed", "found_at", "minimized_from", "trace_length")


def content_hash(doc: dict[str, Any]) -> str:
    body = {k: v for k, v in doc.items() if k not in _NOT_HASHED}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def safe_name(text: str) -> str:
    """``text`` as one path component that stays inside its folder.

    An engine's name and version become a folder name (``<name>-<version>``), and an
    engine is untrusted: ``..``, ``/``, a NUL, a leading dot (a hidden file, or ``..``)
    or an empty name must not lead outside the store, nor a 300-character one fail the
    write.  Only letters, digits, ``_``, ``.`` and ``-`` are kept, no leading dot or dash,
    at most :data:`MAX_NAME` characters; nothing left is ``unnamed``.
    """
    return _SAFE.sub("-", text).lstrip("-.")[:MAX_NAME].strip("-") or "unnamed"


def store(root: str | Path, doc: dict[str, Any]) -> tuple[Path, bool]:
    """Store a counterexample document; returns its path and whether it was new.

    Raises OutputError (one line, exit 2) when it cannot be written, and when the target
    folder is a symbolic link: the store writes below ``root`` and nowhere else.
    """
    doc = dict(doc)
    doc["format"] = FORMAT
    digest = content_hash(doc)
    doc["hash"] = digest
    folder = Path(root) / safe_name(str(doc["target"]))
    final = folder / f"{safe_name(str(doc['violates']))}-{digest[:8]}.json"
    try:
        return _store(folder, final, doc)
    except OSError as exc:
        raise OutputError.of(final, exc) from None


def _store(folder: Path, final: Path, doc: dict[str, Any]) -> tuple[Path, bool]:
    if folder.is_symlink():
        raise OutputError(folder, "the folder is a symbolic link (the store follows none)")
    folder.mkdir(parents=True, exist_ok=True)
    if folder.is_symlink():  # made one between the check and mkdir
        raise OutputError(folder, "the folder is a symbolic link (the store follows none)")  # pragma: no cover
    if final.exists():
        return final, False
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(doc, fh, indent=2, ensure_ascii=False)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.link(tmp, final)  # atomic, and refuses to overwrite
            new = True
        except FileExistsError:
            new = False
    finally:
        os.unlink(tmp)
    return final, new


def stored(root: str | Path) -> list[Path]:
    """Every stored counterexample below ``root`` (temporary files excluded), sorted."""
    return sorted(p for p in Path(root).rglob("*.json") if not p.name.startswith(".tmp-"))
