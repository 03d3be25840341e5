"""``--engine "cmd:COMMAND"``: an engine in any language, JSON lines over stdin/stdout.

The child is untrusted: every reply is read with a deadline (a hang is killed and
reported, never waited on forever), capped in size, parsed and shape-checked; a child that
exits is a crash, with the last lines of its stderr in the report.  The protocol is
documented in ``docs/engine-protocol.md``.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import time
from collections import deque
from typing import Any

from mtgcheck import formats, jsonread
from mtgcheck.engines.base import PROTOCOL, Applied, EngineError, EngineInfo, EngineRefused, Support
from mtgcheck.errors import FormatError, display, one_line

MAX_REPLY = jsonread.MAX_BYTES
#: The protocol's schema (``mtgcheck/data/engine-protocol-1.schema.json``).
PROTOCOL_SCHEMA = "engine-protocol-1"


def _strings(reply: dict[str, Any], key: str) -> frozenset[str]:
    v = reply.get(key, [])
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise EngineError("protocol", f"hello reply: supports.{key}: expected a list of strings, got {v!r:.60}")
    return frozenset(v)


def support_of(doc: object) -> Support:
    """Read a ``supports`` object (the hello reply), checking every field's type.

    First against the protocol's schema (``$defs/supports`` of
    ``mtgcheck/data/engine-protocol-1.schema.json``), in every format's words: a misspelt
    key (``"observes"``) is refused, not silently ignored.  Once per engine start, so
    it costs nothing; the replies of the game loop keep the checks below (see
    docs/engine-protocol.md, "Errors").
    """
    try:
        doc = formats.checked(doc, "hello reply", "supports", schema=PROTOCOL_SCHEMA, definition="supports",
                              what="a supports object")
    except FormatError as exc:
        raise EngineError("protocol", str(exc)) from None
    if not isinstance(doc, dict):
        raise EngineError("protocol", f"hello reply: supports: expected an object, got {doc!r:.60}")
    players = doc.get("players", [2])
    if not isinstance(players, list) or not all(isinstance(p, int) and not isinstance(p, bool) and 2 <= p <= 4
                                                  for p in players):
        raise EngineError("protocol", f"hello reply: supports.players: expected a list of 2..4, got {players!r:.60}")
    max_x = doc.get("max_x", 3)
    if not isinstance(max_x, int) or isinstance(max_x, bool) or not 0 <= max_x <= 20:
        raise EngineError("protocol", f"hello reply: supports.max_x: expected an integer 0..20, got {max_x!r:.60}")
    lists = doc.get("lists_actions", True)
    if not isinstance(lists, bool):
        raise EngineError("protocol", f"hello reply: supports.lists_actions: expected a boolean, got {lists!r:.60}")
    kw: dict[str, Any] = {k: _strings(doc, k) for k in ("cards", "verbs", "hows", "observe", "planes", "lacks")
                          if k in doc}
    if "cards" not in kw:
        raise EngineError("protocol", "hello reply: supports.cards: expected a list of card names, got nothing")
    return Support(players=frozenset(players), max_x=max_x, lists_actions=lists, **kw)


class PipeEngine:
    """A child process speaking ``mtgcheck.engine/1``; one request, one reply, each with a deadline."""

    def __init__(self, command: str, *, call_timeout: float = 10.0, start_timeout: float = 30.0) -> None:
        self.command = command
        self.call_timeout = call_timeout
        #: ``hello`` also waits for the program to start (an interpreter, a card database), and
        #: ``deal`` for a new game (Forge boots a fresh engine: 3-6 s, more on a loaded machine).
        self.start_timeout = max(start_timeout, call_timeout)
        self.stderr_tail: deque[str] = deque(maxlen=5)
        self.proc: subprocess.Popen[bytes] | None = None
        self._buf = b""

    # -- transport ---------------------------------------------------------------
    def _start(self) -> subprocess.Popen[bytes]:
        if self.proc is None:
            try:
                self.proc = subprocess.Popen(["sh", "-c", self.command], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                             stderr=subprocess.PIPE, start_new_session=True)
            except OSError as exc:
                raise EngineError("crash", f"cannot start {self.command!r}: {exc.strerror}") from None
            os.set_blocking(self.proc.stdout.fileno(), False)  # type: ignore[union-attr]
            os.set_blocking(self.proc.stderr.fileno(), False)  # type: ignore[union-attr]
            self._buf = b""
        return self.proc

    def _fail(self, kind: str, what: str) -> EngineError:
        self.kill()
        tail = " | ".join(self.stderr_tail)
        return EngineError(kind, what + (f" (stderr: {tail[-200:]})" if tail else ""))

    def _drain_stderr(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        try:
            chunk = self.proc.stderr.read()
        except (BlockingIOError, ValueError):
            return
        if chunk:
            for line in chunk.decode("utf-8", "replace").splitlines():
                if line.strip():
                    self.stderr_tail.append(display(line.strip()[:200]))

    def call(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send one request; return the reply object (``ok`` true) or raise EngineError.

        A process started afresh (after a fault) is greeted with ``hello`` first, as the
        protocol says, before the request.
        """
        if self.proc is None and request.get("op") != "hello":
            self._start()
            self.call({"op": "hello", "protocol": PROTOCOL})
        proc = self._start()
        assert proc.stdin is not None and proc.stdout is not None
        op = request.get("op")
        try:
            proc.stdin.write((json.dumps(request, separators=(",", ":")) + "\n").encode())
            proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self._drain_stderr()
            raise self._fail("crash", f"engine exited before {op!r} (exit code {proc.poll()})") from None
        line = self._read_line(op, self.start_timeout if op in ("hello", "deal") else self.call_timeout)
        try:
            # The strict reader of files: NaN, a key twice, a lone surrogate, bad UTF-8, a
            # 5,000-digit integer or deep nesting is garbage, never stored in a counterexample.
            reply = jsonread.loads(line, source=f"reply to {op!r}")
        except FormatError as exc:
            raise self._fail("garbage", f"reply to {op!r} is not JSON: {line[:60]!r} "
                                        f"(expected {exc.expected}, got {exc.got})") from None
        if not isinstance(reply, dict) or not isinstance(reply.get("ok"), bool):
            raise self._fail("protocol", f"reply to {op!r}: expected an object with a boolean 'ok', got {line[:60]!r}")
        if not reply["ok"]:
            if op == "setup" and reply.get("unsupported") is True:
                raise EngineRefused(one_line(str(reply.get("error", "unsupported position"))[:200]))
            raise self._fail("protocol", f"engine error on {op!r}: "
                                        f"{one_line(str(reply.get('error', '(no message)'))[:200])}")
        return reply

    def _read_line(self, op: object, timeout: float) -> bytes:
        proc = self.proc
        assert proc is not None and proc.stdout is not None and proc.stderr is not None
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ, "out")
            sel.register(proc.stderr, selectors.EVENT_READ, "err")
            while b"\n" not in self._buf:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise self._fail("hang", f"no reply to {op!r} within {timeout:g} s")
                for key, _ in sel.select(left):
                    if key.data == "err":
                        self._drain_stderr()
                        continue
                    try:
                        chunk = proc.stdout.read(65536)
                    except BlockingIOError:
                        continue
                    if not chunk:
                        time.sleep(0.01)
                        self._drain_stderr()
                        code = proc.poll()
                        raise self._fail("crash", f"engine exited while answering {op!r} (exit code {code})")
                    self._buf += chunk
                    if len(self._buf) > MAX_REPLY and b"\n" not in self._buf:
                        raise self._fail("garbage", f"reply to {op!r} longer than {MAX_REPLY} bytes")
        line, _, self._buf = self._buf.partition(b"\n")
        return line

    def kill(self) -> None:
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, 9)
            except (ProcessLookupError, PermissionError):
                pass
            for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                try:
                    f.close()  # type: ignore[union-attr]
                except (OSError, ValueError):
                    pass
            self.proc.wait()
            self.proc = None

    # -- the engine interface ------------------------------------------------------
    def hello(self) -> EngineInfo:
        r = self.call({"op": "hello", "protocol": PROTOCOL})
        name, version = r.get("name"), r.get("version")
        if not isinstance(name, str) or not name or not isinstance(version, str) or not version:
            raise self._fail("protocol", "hello reply: expected non-empty strings 'name' and 'version'")
        # Untrusted text shown on terminals and in folder names: a right-to-left override,
        # a NUL or an escape sequence is kept escaped (\u202e), everywhere it goes.
        return EngineInfo(display(name), display(version), support_of(r.get("supports")))

    def setup(self, setup: dict[str, Any]) -> None:
        self.call({"op": "setup", "setup": setup})

    def actions(self) -> list[dict[str, Any]]:
        acts = self.call({"op": "actions"}).get("actions")
        if not isinstance(acts, list) or not all(isinstance(a, dict) for a in acts):
            raise self._fail("protocol", f"actions reply: actions: expected a list of objects, got {acts!r:.60}")
        return acts

    def apply(self, action: dict[str, Any]) -> Applied:
        r = self.call({"op": "apply", "action": action})
        legal = r.get("legal")
        if not isinstance(legal, bool):
            raise self._fail("protocol", f"apply reply: legal: expected a boolean, got {legal!r:.60}")
        return Applied(legal, one_line(str(r.get("reason", ""))[:200]))

    def observe(self) -> dict[str, Any]:
        obs = self.call({"op": "observe"}).get("observation")
        if not isinstance(obs, dict):
            raise self._fail("protocol", f"observe reply: observation: expected an object, got {obs!r:.60}")
        return obs

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.write(b'{"op":"quit"}\n')
                self.proc.stdin.flush()
                self.proc.stdin.close()
                self.proc.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired, ValueError):
                pass
        self.kill()
