"""NetBox's REST API on 127.0.0.1, over :class:`~tests.netbox.fake.FakeNetBox`, in a thread
of the test: pages of at most ``page_size`` records with absolute ``next`` links, POST to
create, PATCH a list to update, the token checked. A ``misbehave`` hook answers a request
its own way (an HTML login page, an endless body, a redirect elsewhere, ...) when it
returns True. Stopped by :meth:`RestServer.stop` (shutdown, and every handler told to stop).
"""

from __future__ import annotations

import http.server
import json
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.netbox.fake import FakeNetBox

TOKEN = "nbt_abcdefghijkl.SECRET-never-shown-0123456789"
_INT_FILTERS = {"site_id", "device_id", "device_type_id"}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Server

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in two writes: without this, Nagle's algorithm and the
        # client's delayed acknowledgement hold every answer back 40 ms.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    # --- what a misbehaving hook uses -------------------------------------------------

    @property
    def stopping(self) -> bool:
        return self.server.stopping.is_set()

    def answer(
        self, status: int, body: bytes, kind: str = "application/json", **headers: str
    ) -> None:
        named = {name.replace("_", "-"): value for name, value in headers.items()}
        named.setdefault("Content-Length", str(len(body)))
        self.send_response(status)
        self.send_header("Content-Type", kind)
        for name, value in named.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def answer_json(self, status: int, data: Any) -> None:
        self.answer(status, json.dumps(data).encode())

    def pause(self, seconds: float) -> bool:
        """Wait, unless the server stops; whether it is still running."""
        return not self.server.stopping.wait(seconds)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    # --- NetBox ---------------------------------------------------------------------

    def _kind(self) -> str | None:
        parts = [p for p in urlsplit(self.path).path.split("/") if p]
        return parts[2] if len(parts) == 3 and parts[0] == "api" else None

    def _handle(self, method: str) -> None:
        self.server.requests.append((method, self.path))
        hook = self.server.misbehave
        if hook is not None and hook(self, method):
            return
        if self.headers.get("Authorization") != f"Bearer {TOKEN}":
            self.answer_json(403, {"detail": "Invalid token"})
            return
        if urlsplit(self.path).path == "/api/status/":
            self.answer_json(200, {"netbox-version": "4.7.3"})
            return
        kind = self._kind()
        if kind is None:
            self.answer(404, b"<html>Not found</html>", "text/html")
            return
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        netbox = self.server.netbox
        if method == "GET":
            self.answer_json(200, self._page(kind))
        elif method == "POST":
            self.answer_json(201, netbox.create(kind, body))
        elif method == "PATCH":
            for item in body:
                netbox.update(kind, item.pop("id"), item)
            self.answer_json(200, body)

    def page(self, kind: str) -> dict[str, Any]:
        """The page NetBox would answer for this GET of ``kind``."""
        return self._page(kind)

    def _page(self, kind: str) -> dict[str, Any]:
        query = parse_qs(urlsplit(self.path).query)
        limit = min(int(query.pop("limit", ["1000"])[0]), self.server.page_size)
        offset = int(query.pop("offset", ["0"])[0])
        filters: dict[str, Any] = {}
        for name, values in query.items():
            typed = [int(v) for v in values] if name in _INT_FILTERS else values
            filters[name] = typed if name == "device_type_id" else typed[0]
        records = self.server.netbox.list(kind, **filters)
        page = records[offset : offset + limit]
        following = None
        if offset + limit < len(records):
            base = urlsplit(self.path)
            rest = "&".join(f"{k}={v}" for k, vs in query.items() for v in vs)
            following = f"{self.origin}{base.path}?{rest}&limit={limit}&offset={offset + limit}"
        return {"count": len(records), "next": following, "previous": None, "results": page}

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_PATCH(self) -> None:
        self._handle("PATCH")


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    netbox: FakeNetBox
    misbehave: Callable[[Handler, str], bool] | None
    page_size: int
    stopping: threading.Event
    requests: list[tuple[str, str]]
    errors: list[str]

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Kept for the test to see, not printed into the output of the command under test;
        # a client that hangs up on a misbehaving answer is expected.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            self.errors.append(traceback.format_exc())


class RestServer:
    """``with RestServer(netbox) as url: ...``: the API at ``url`` while the block runs."""

    def __init__(
        self,
        netbox: FakeNetBox | None = None,
        misbehave: Callable[[Handler, str], bool] | None = None,
        page_size: int = 7,
    ) -> None:
        self.server = Server(("127.0.0.1", 0), Handler)
        self.server.netbox = netbox or FakeNetBox()
        self.server.misbehave = misbehave
        self.server.page_size = page_size
        self.server.stopping = threading.Event()
        self.server.requests = []
        self.server.errors = []
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def requests(self) -> list[tuple[str, str]]:
        return self.server.requests

    @property
    def errors(self) -> list[str]:
        """Tracebacks of the server's own failures (a test expects none)."""
        return self.server.errors

    def __enter__(self) -> str:
        self.thread.start()
        return self.url

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self.server.stopping.set()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


def wait_until(condition: Callable[[], bool], seconds: float = 5.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.01)
    return condition()
