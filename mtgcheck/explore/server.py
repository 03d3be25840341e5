"""Serve the explore page on 127.0.0.1 with the standard library's HTTP server.

Why the standard library: a step is answered in about a millisecond of model time
(``bench/explore_step.py``), far under the 100 ms the page needs, so a framework would add a
dependency and nothing a user sees.  Why these checks, on a machine shared with others:

* it binds 127.0.0.1 only;
* a request whose ``Host`` is not the server's own (``127.0.0.1:PORT`` or ``localhost:PORT``)
  is refused, so a page on another site that rebinds its DNS name to 127.0.0.1 cannot read or
  drive it;
* every API request carries the per-session token printed in the URL (header
  ``X-Mtgcheck-Token``): another local user, or a page that guesses the port, gets 403;
* a file is written only at the absolute path the user typed, and an existing file is
  replaced only when the request says so after the user confirmed (409 first).
"""

from __future__ import annotations

import contextlib
import hmac
import json
import secrets
import socket
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any, Callable, Iterator
from urllib.parse import urlsplit

from mtgcheck.explore.session import EXPECT_KEYS, BadRequest, Explorer, save

TOKEN_HEADER = "X-Mtgcheck-Token"
MAX_BODY = 1 << 20  # a trace of thousands of actions fits; more is not a page's request


def page() -> bytes:
    return resources.files("mtgcheck.explore").joinpath("static/index.html").read_bytes()


class ExploreServer(ThreadingHTTPServer):
    """One explorer, one token, bound to 127.0.0.1."""

    daemon_threads = True

    def __init__(self, explorer: Explorer, port: int = 0, token: str | None = None) -> None:
        self.explorer = explorer
        self.token = token or secrets.token_urlsafe(24)
        super().__init__(("127.0.0.1", port), Handler)
        self.port = self.server_address[1]
        self.hosts = {f"127.0.0.1:{self.port}", f"localhost:{self.port}"}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/?token={self.token}"

    @contextlib.contextmanager
    def running(self) -> Iterator["ExploreServer"]:
        """Serve in a background thread while the block runs (tests and benches), then close
        the server and the explorer's engine, if any."""
        threading.Thread(target=self.serve_forever, daemon=True).start()
        try:
            yield self
        finally:
            self.shutdown()
            self.server_close()
            self.explorer.close()


class Handler(BaseHTTPRequestHandler):
    server: ExploreServer
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in two writes: without this, Nagle's algorithm holds the
        # second until the client's delayed ACK, 40 ms per request on Linux.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass  # the terminal shows the URL, not every request

    def _send(self, status: int, body: bytes, ctype: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Referrer-Policy", "no-referrer")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, doc: Any) -> None:
        self._send(status, json.dumps(doc).encode())

    def _error(self, status: int, text: str) -> None:
        self._json(status, {"error": text})

    def _host_ok(self) -> bool:
        if self.headers.get("Host") not in self.server.hosts:
            self._error(HTTPStatus.FORBIDDEN, "wrong Host header: this server answers only to "
                        + " or ".join(sorted(self.server.hosts)))
            return False
        return True

    def _token_ok(self) -> bool:
        given = self.headers.get(TOKEN_HEADER, "")
        if not hmac.compare_digest(given.encode(), self.server.token.encode()):
            self._error(HTTPStatus.FORBIDDEN, "missing or wrong session token: open the URL mtgcheck explore printed")
            return False
        return True

    def do_GET(self) -> None:  # noqa: N802 - the base class's name
        if not self._host_ok():
            return
        path = urlsplit(self.path).path
        if path == "/":
            self._send(HTTPStatus.OK, page(), "text/html; charset=utf-8")
        elif path == "/api/open":
            if self._token_ok():
                o = self.server.explorer.opened
                self._json(HTTPStatus.OK, {"trace": o.trace, "at": o.at, "name": o.name, "rules": list(o.rules),
                                           "expect_keys": list(EXPECT_KEYS)})
        else:
            self._error(HTTPStatus.NOT_FOUND, f"no such page: {path}")

    def do_POST(self) -> None:  # noqa: N802 - the base class's name
        if not self._host_ok() or not self._token_ok():
            self._drain()
            return
        routes: dict[str, Callable[[dict[str, Any]], Any]] = {"/api/view": self._view, "/api/save": self._save}
        route = routes.get(urlsplit(self.path).path)
        if route is None:
            self._drain()
            self._error(HTTPStatus.NOT_FOUND, "no such request")
            return
        try:
            body = self._body()
            self._json(HTTPStatus.OK, route(body))
        except BadRequest as exc:
            self._error(HTTPStatus.BAD_REQUEST, str(exc))
        except FileExistsError as exc:
            self._json(HTTPStatus.CONFLICT, {"error": f"{exc} exists: overwrite it?", "exists": str(exc)})

    def _drain(self) -> None:
        n = int(self.headers.get("Content-Length") or 0)
        if 0 < n <= MAX_BODY:
            self.rfile.read(n)
        else:
            self.close_connection = True

    def _body(self) -> dict[str, Any]:
        if self.headers.get("Content-Type", "").split(";")[0].strip() != "application/json":
            self._drain()
            raise BadRequest("Content-Type: expected application/json")
        n = int(self.headers.get("Content-Length") or 0)
        if not 0 < n <= MAX_BODY:
            self.close_connection = True
            raise BadRequest(f"Content-Length: expected 1..{MAX_BODY}")
        try:
            doc = json.loads(self.rfile.read(n))
        except ValueError:
            raise BadRequest("body: expected a JSON object") from None
        if not isinstance(doc, dict):
            raise BadRequest("body: expected a JSON object")
        return doc

    def _view(self, body: dict[str, Any]) -> Any:
        trace, at = body.get("trace", []), body.get("at")
        if not isinstance(trace, list) or not (at is None or (isinstance(at, int) and not isinstance(at, bool))):
            raise BadRequest("expected {trace: [...], at: int}")
        return self.server.explorer.view(trace, at, illegal=bool(body.get("illegal")))

    def _save(self, body: dict[str, Any]) -> Any:
        path, trace = body.get("path"), body.get("trace")
        if not isinstance(path, str) or not path.strip():
            raise BadRequest("path: expected the file to write (an absolute path)")
        if not isinstance(trace, list):
            raise BadRequest("trace: expected a list of actions")
        marks, keys = body.get("marks", []), body.get("expect", [])
        rules = body.get("rules", [])
        if not isinstance(marks, list) or not isinstance(keys, list) or not isinstance(rules, list) \
                or not all(isinstance(r, str) for r in rules):
            raise BadRequest("expected marks, expect and rules as lists")
        name = body.get("name")
        doc = self.server.explorer.scenario(trace, marks, keys, name if isinstance(name, str) else "", rules)
        written = save(path.strip(), doc, overwrite=body.get("overwrite") is True)
        return {"saved": str(written), "scenario": doc}
