"""The one strict JSON reader of every file and reply mtgcheck reads.

Scenario files, configuration files, counterexamples, the manifest and an engine's replies
are all JSON written by someone else (by hand, by another tool, by an untrusted engine), so
they are read the same way and refused the same way, with a one-line
:class:`~mtgcheck.errors.FormatError` naming the file, the field and what was expected:

- at most :data:`MAX_BYTES` (1 MiB), read as at most that plus one byte: a file that grows
  while read, or a device, is still refused without reading it all;
- only regular files: a FIFO or a device named ``*.json`` is refused *before* it is opened
  for reading (``os.stat``), and opened with ``O_NONBLOCK`` in case it changes in between,
  so a reader never blocks on one;
- UTF-8 (a byte-order mark allowed), no key twice in an object (Python keeps the last
  silently), no ``NaN`` or ``Infinity`` (not JSON), no integer of more than 4300 digits
  (Python refuses them, and parsing them is quadratic), no lone surrogate (``"\\ud800"``:
  half a character that can be neither printed nor written as UTF-8), and no nesting past
  :data:`MAX_DEPTH` (no file or reply of ours comes near; a recursive checker would crash).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from mtgcheck.errors import FormatError, display, one_line
from mtgcheck.model.formats import Said

__all__ = ["MAX_BYTES", "MAX_DEPTH", "display", "one_line", "read", "read_bytes", "loads", "non_regular"]

#: Larger files are refused unread: no hand-written file comes near, and a cap keeps a
#: stray multi-gigabyte file from exhausting memory in the parser.
MAX_BYTES = 1 << 20
#: The deepest nesting of arrays and objects read (scenarios nest about 5 deep): a deeper
#: document is refused here, in one line, not by whichever recursive checker runs out of
#: stack first (the schema checks still catch that for documents nested less deeply).
MAX_DEPTH = 512


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


class _NotJsonConstant(Exception):
    def __init__(self, name: str) -> None:
        self.name = name


def _pairs_once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # Python's json keeps the last of two equal keys without a word; in a hand-written
    # file the first one is then silently ignored, so refuse it instead.
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    # NaN and Infinity are accepted by Python's json but are not JSON (RFC 8259).
    raise _NotJsonConstant(name)


def non_regular(path: str | Path) -> str | None:
    """What the path is if it is not a regular file to read ("a FIFO", "a broken symbolic
    link", ...), or None for a regular file (through symbolic links).

    Opening a FIFO for reading blocks until a writer comes, and a device may never end:
    folder readers skip them (with a warning) rather than open them.
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "a broken symbolic link" if os.path.islink(path) else "no such file"
    except PermissionError:
        return "permission denied"
    except OSError as exc:
        return one_line(exc.strerror or type(exc).__name__)
    return _kind(mode)


def _kind(mode: int) -> str | None:
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"  # pragma: no cover


def read_bytes(path: str | Path, *, what: str, limit: int = MAX_BYTES) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, or a FormatError ``(file)``.

    Never blocks: the path is checked with ``os.stat`` before it is opened, and opened
    non-blocking; at most ``limit + 1`` bytes are read whatever the file claims.
    """
    shown = display(str(path))

    def file_error(got: str) -> FormatError:
        return FormatError(shown, "(file)", what, Said(got))

    def too_large(got: str) -> FormatError:
        return FormatError(shown, "(file)", f"a file of at most 1 MiB ({limit} bytes)", Said(got))

    kind = non_regular(path)
    if kind is not None:
        raise file_error(kind)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise file_error("no such file") from None
    except PermissionError:
        raise file_error("permission denied") from None
    except OSError as exc:
        raise file_error(one_line(exc.strerror or type(exc).__name__)) from None
    try:
        info = os.fstat(fd)
        kind = _kind(info.st_mode)  # it may have been replaced since the stat above
        if kind is not None:
            raise file_error(kind)
        if info.st_size > limit:
            raise too_large(f"{info.st_size} bytes")
        chunks: list[bytes] = []
        size = 0
        while size <= limit:  # one byte past the cap: a file that grew is still refused
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise file_error(one_line(exc.strerror or type(exc).__name__)) from None
    finally:
        os.close(fd)
    if size > limit:
        raise too_large("a larger file")
    return b"".join(chunks)


def loads(data: bytes | str, *, source: str, max_depth: int = MAX_DEPTH) -> object:
    """The JSON value of ``data``, or a FormatError with field ``(json)`` naming ``source``.

    ``data`` as bytes is decoded as UTF-8 (a byte-order mark is skipped).  Refuses what
    the module docstring lists, whatever the size (the caller caps it).
    """
    shown = display(source)

    def json_error(expected: str, got: str) -> FormatError:
        return FormatError(shown, "(json)", expected, Said(got))

    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise json_error("UTF-8 text", f"a byte that is not UTF-8 at offset {exc.start}") from None
    else:
        text = data
    try:
        doc = json.loads(text, object_pairs_hook=_pairs_once, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        # The place goes in "expected": "got" is cut at 60 characters.
        raise json_error(f"valid JSON at line {exc.lineno}, column {exc.colno}", exc.msg) from None
    except RecursionError:
        raise json_error("JSON nested less deeply", "nesting too deep to read") from None
    except _DuplicateKey as exc:
        raise json_error("each key at most once in an object",
                         f"the key {one_line(repr(exc.key))} twice") from None
    except _NotJsonConstant as exc:
        raise json_error("valid JSON (NaN and Infinity are not JSON)", exc.name) from None
    except ValueError as exc:
        if "digits" in str(exc):  # Python's guard against quadratic int parsing
            raise json_error("integers of at most 4300 digits", "a longer one") from None
        raise json_error("valid JSON", one_line(str(exc))) from None  # pragma: no cover
    problem = _walk(doc, max_depth)
    if problem is not None:
        raise json_error(*problem)
    return doc


def read(path: str | Path, *, what: str = "a readable JSON file", limit: int = MAX_BYTES) -> object:
    """The JSON value of a file: :func:`read_bytes` then :func:`loads`, one FormatError if not.

    ``what`` names the file in a ``(file)`` error ("a readable scenario file").
    """
    return loads(read_bytes(path, what=what, limit=limit), source=str(path))


def _walk(doc: object, max_depth: int) -> tuple[str, str] | None:
    """The first problem of a parsed document (too deep, a lone surrogate) as
    (expected, got), or None.

    A loop with a stack, not recursion: the document may be nested almost as deeply as
    the parser allows.
    """
    todo: list[tuple[object, int]] = [(doc, 0)]
    while todo:
        value, depth = todo.pop()
        if isinstance(value, (dict, list)):
            if depth >= max_depth:
                return (f"JSON nested at most {max_depth} deep", "deeper nesting")
            if isinstance(value, dict):
                todo.extend((key, depth) for key in value)
                todo.extend((item, depth + 1) for item in value.values())
            else:
                todo.extend((item, depth + 1) for item in value)
        elif isinstance(value, str) and not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                # "\ud800" is valid JSON but half a character: it can be neither printed nor hashed.
                return ("Unicode text (a \\ud800-\\udfff escape only as half of a pair)",
                        f"a lone surrogate in {one_line(repr(value[:40]))}")
    return None
