"""Write files atomically: a temp file in the same folder, then a rename (never half-written).

A write that fails (disk full, a read-only folder, a file where a folder should be, a name
too long) is an :class:`~mtgcheck.errors.OutputError`: one line and exit 2, not a traceback,
and no temporary file left behind.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from mtgcheck.errors import OutputError


def write_text(path: str | Path, text: str) -> None:
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:200]}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise OutputError.of(path, exc) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise OutputError.of(path, exc) from None
        raise


def write_json(path: str | Path, doc: Any) -> None:
    write_text(path, json.dumps(doc, indent=2, sort_keys=False) + "\n")
