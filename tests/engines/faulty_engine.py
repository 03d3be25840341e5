"""An engine that misbehaves on purpose, to show the harness survives engines it can't trust.

It serves the reference model over the JSON-lines protocol (docs/engine-protocol.md) and,
after ``--after N`` apply requests, does what ``--fault`` says: ``crash`` (exits),
``hang`` (stops answering), ``garbage`` (prints a line that is not JSON), ``lie`` (says an
illegal action is legal), ``error`` (answers ``ok: false``).  ``none`` is a faithful engine.
``FaultyEngine`` is the same thing in process (``python:faulty_engine:FaultyEngine``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from mtgcheck.engines.base import Applied, EngineInfo
from mtgcheck.engines.model_engine import ModelEngine


class FaultyEngine(ModelEngine):
    """In process: ``MTGCHECK_FAULT`` (crash or hang) after ``MTGCHECK_FAULT_AFTER`` applies."""

    def __init__(self) -> None:
        super().__init__("model")
        self.fault = os.environ.get("MTGCHECK_FAULT", "crash")
        self.after = int(os.environ.get("MTGCHECK_FAULT_AFTER", "3"))
        self.applied = 0

    def hello(self) -> EngineInfo:
        info = super().hello()
        return EngineInfo("faulty", "1", info.support)

    def apply(self, action: dict[str, Any]) -> Applied:
        self.applied += 1
        if self.applied > self.after:
            if self.fault == "hang":
                time.sleep(3600)
            raise RuntimeError("the engine fell over")
        return super().apply(action)


def serve(fault: str, after: int, name: str | None = None, version: str = "1") -> None:
    engine = ModelEngine("model")
    applies = 0
    for line in sys.stdin:
        req = json.loads(line)
        op = req["op"]
        reply: dict[str, Any] = {"ok": True}
        if op == "quit":
            return
        if op == "hello":
            info = engine.hello()
            reply.update(name=f"faulty-{fault}" if name is None else name, version=version,
                         supports=info.support.to_json())
        elif op == "setup":
            engine.setup(req["setup"])
        elif op == "actions":
            reply["actions"] = engine.actions()
        elif op == "observe":
            reply["observation"] = engine.observe()
        elif op == "apply":
            applies += 1
            if applies > after and fault == "crash":
                sys.stderr.write("faulty engine: segmentation fault (simulated)\n")
                sys.stderr.flush()
                os._exit(139)
            if applies > after and fault == "hang":
                time.sleep(3600)
            if applies > after and fault == "garbage":
                sys.stdout.write("Traceback (most recent call last): oops\n")
                sys.stdout.flush()
                continue
            if applies > after and fault == "error":
                reply = {"ok": False, "error": "internal error"}
            else:
                r = engine.apply(req["action"])
                reply["legal"] = True if fault == "lie" and applies > after else r.legal
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--fault", choices=("none", "crash", "hang", "garbage", "lie", "error"), default="none")
    ap.add_argument("--after", type=int, default=3)
    # The name and version its hello gives, as JSON strings (so they may hold any character).
    ap.add_argument("--name", type=json.loads, default=None)
    ap.add_argument("--version", type=json.loads, default='"1"')
    args = ap.parse_args()
    serve(args.fault, args.after, args.name, args.version)
