"""Bounded HTTP for the NetBox client: every request ends, within a total time and a
response size, in an answer or one :class:`~rackdesigner.netbox.client.NetBoxError`.

- **Time**: each request (connecting, the headers, the whole body, redirects) has a total
  deadline (``--timeout``, default 120 s). The socket's own timeout bounds one silence only,
  so a body sent a byte every few seconds would never end; the deadline is kept by running
  the request in a worker thread and no longer waiting for it.
- **Size**: a body longer than ``--max-response`` (default 256 MiB) is not read further
  (the declared length is checked first, then what arrives, after decompression).
- **Where**: the token is only sent to the URL given. A redirect or a next-page link to
  another host (or from https to http, or to another port) is refused with a message that
  names it, rather than followed without the token (requests' own behaviour), which would
  read another server or fail with a puzzling 403.
"""

from __future__ import annotations

import http.client
import json
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

DEFAULT_MAX_BYTES = 256 * 2**20
DEFAULT_TIMEOUT = 120.0
_SILENCE = 30.0  # the longest a socket may stay silent, within the deadline
_CHUNK = 64 * 1024
_MAX_REDIRECTS = 5
_DEFAULT_PORTS = {"http": 80, "https": 443}


class HttpError(Exception):
    """A request that did not give an answer; the message says why (never the token)."""


@dataclass(frozen=True)
class Limits:
    """How large one answer may be and how long one request may take in all."""

    max_bytes: int = DEFAULT_MAX_BYTES
    timeout: float = DEFAULT_TIMEOUT


_NOT_JSON = object()


@dataclass
class Answer:
    """A response read whole: its status, and its body as JSON (``data``) or, when it is not
    JSON, what it is instead (``what``: "an HTML page", "an empty answer", ...)."""

    status: int
    reason: str
    data: Any
    what: str = "JSON"

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def is_json(self) -> bool:
        return self.data is not _NOT_JSON


def mib(size: int) -> str:
    return f"{size / 2**20:g} MiB"


def keeps_token(base: str, url: str) -> bool:
    """Whether a request to ``url`` may carry the token given for ``base``: the same host,
    and the same scheme and port, or plain http upgraded to https on the default ports."""
    old, new = urlsplit(base), urlsplit(url)
    try:
        old_port = old.port or _DEFAULT_PORTS.get(old.scheme)
        new_port = new.port or _DEFAULT_PORTS.get(new.scheme)
    except ValueError:
        return False
    if (old.hostname or "").lower() != (new.hostname or "").lower():
        return False
    if (old.scheme, new.scheme, old_port, new_port) == ("http", "https", 80, 443):
        return True
    return old.scheme == new.scheme and old_port == new_port


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


class Http:
    """Requests to one NetBox, each bounded by :class:`Limits`, the token in every one."""

    def __init__(self, base: str, token: str, limits: Limits | None = None) -> None:
        import requests

        class _TokenAuth(requests.auth.AuthBase):
            # Given as the request's auth, so that ~/.netrc (which requests reads for a
            # request without one) never replaces the token.
            def __call__(self, request: Any) -> Any:
                request.headers["Authorization"] = _authorization(token)
                return request

        self.base = base
        self.limits = limits or Limits()
        self._auth = _TokenAuth()
        self._session = requests.Session()
        self._session.headers["Accept"] = "application/json"

    def call(
        self, method: str, url: str, params: dict[str, Any] | None = None, body: Any = None
    ) -> Answer:
        """One request within the deadline: a worker thread makes it, and is abandoned (it
        stops at its next chunk, or when the socket's silence runs out) when time is up."""
        outcome: dict[str, Any] = {}
        cancelled = threading.Event()

        def work() -> None:
            try:
                outcome["answer"] = self._fetch(method, url, params, body, cancelled)
            except BaseException as error:  # handed to the waiting thread
                outcome["error"] = error

        worker = threading.Thread(target=work, name="netbox-request", daemon=True)
        worker.start()
        worker.join(self.limits.timeout)
        if worker.is_alive():
            cancelled.set()
            raise HttpError(
                f"NetBox at {self.base} did not finish answering {method} {_path(url)} within "
                f"{self.limits.timeout:g} s (--timeout)"
            )
        if "error" in outcome:
            raise outcome["error"]
        answer: Answer = outcome["answer"]
        return answer

    def _fetch(
        self,
        method: str,
        url: str,
        params: dict[str, Any] | None,
        body: Any,
        cancelled: threading.Event,
    ) -> Answer:
        import requests

        silence = min(_SILENCE, self.limits.timeout)
        for _ in range(_MAX_REDIRECTS + 1):
            try:
                response = self._session.request(
                    method,
                    url,
                    params=params,
                    json=body,
                    auth=self._auth,
                    stream=True,
                    allow_redirects=False,
                    timeout=(silence, silence),
                )
            except requests.RequestException as error:
                raise HttpError(
                    f"cannot reach NetBox at {self.base}: {_reason(error, silence)}"
                ) from None
            with response:
                if not response.is_redirect:
                    return self._answer(method, response.url, response, cancelled)
                target = urljoin(response.url, response.headers["location"])
                self._check_redirect(method, response.url, target, response.status_code)
            url, params = target, None
        raise HttpError(
            f"NetBox at {self.base} redirected {method} {_path(url)} more than "
            f"{_MAX_REDIRECTS} times"
        )

    def _check_redirect(self, method: str, url: str, target: str, status: int) -> None:
        if not keeps_token(url, target):
            raise HttpError(
                f"NetBox at {self.base} redirected {method} {_path(url)} to {target}: another "
                "host, port or a plain-http address, so it was not followed (the API token is "
                f"only sent to the URL given, and the request would go without it); if that is "
                f"your NetBox, give --netbox-url {_origin(target)}"
            )
        if method not in {"GET", "HEAD"} and status in {301, 302, 303}:
            raise HttpError(
                f"NetBox at {self.base} redirected {method} {_path(url)} to {target} (HTTP "
                f"{status}), which would turn the change into a read; give --netbox-url "
                f"{_origin(target)}"
            )

    def _answer(self, method: str, url: str, response: Any, cancelled: threading.Event) -> Answer:
        import requests

        what = f"{method} {_path(url)}"
        limit = self.limits.max_bytes
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise HttpError(self._too_large(what, f"; {int(declared):,} bytes announced"))
        body = bytearray()  # one copy of the body, not chunks and their join
        try:
            for chunk in response.iter_content(_CHUNK):
                if cancelled.is_set():
                    raise HttpError("cancelled")  # nobody is waiting for it any more
                if len(body) + len(chunk) > limit:
                    raise HttpError(self._too_large(what, ""))
                body += chunk
        except requests.RequestException as error:
            raise HttpError(
                f"NetBox at {self.base} broke off its answer to {what}: "
                f"{_reason(error, min(_SILENCE, self.limits.timeout))}"
            ) from None
        return _parsed(response.status_code, response.reason or "", body, response)

    def _too_large(self, what: str, announced: str) -> str:
        return (
            f"NetBox at {self.base} answered {what} with more than the "
            f"{mib(self.limits.max_bytes)} one answer may be (--max-response{announced}): "
            "not read further"
        )


def _parsed(status: int, reason: str, data: bytearray, response: Any) -> Answer:
    """The body as JSON, or what it is instead. NaN and Infinity are read (Python's json
    accepts them); the fields they land in refuse them with their name."""
    if not data.strip():
        return Answer(status, reason, _NOT_JSON, "an empty answer")
    try:
        return Answer(status, reason, json.loads(data))
    except (ValueError, RecursionError) as error:
        kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
        head = data.lstrip()[:200].lower()
        if kind == "text/html" or head.startswith((b"<!doctype html", b"<html")):
            what = "an HTML page"
        elif isinstance(error, RecursionError):
            what = "JSON nested too deeply to read"
        elif kind.endswith("json") or head.startswith((b"{", b"[")):
            what = f"malformed or cut-short JSON ({error})"
        else:
            what = f"{kind or 'text'} that is not JSON"
        return Answer(status, reason, _NOT_JSON, what)


def _authorization(token: str) -> str:
    """NetBox 4.5's v2 tokens (``nbt_<key>.<secret>``) are bearer tokens; v1 ones not."""
    if token.startswith("nbt_") and "." in token[4:]:
        return f"Bearer {token}"
    return f"Token {token}"


def _path(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _reason(error: BaseException, silence: float) -> str:
    """The cause of a failed request in a few words: the operating system's reason where
    there is one (``Connection refused``), a silence longer than ``silence`` seconds, else
    the kind of failure."""
    seen: set[int] = set()
    pending: list[BaseException] = [error]
    while pending:
        current = pending.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, TimeoutError):
            return f"nothing arrived for {silence:g} s"
        if isinstance(current, OSError) and current.strerror:
            return current.strerror
        if isinstance(current, http.client.HTTPException) and str(current):
            return str(current)  # "Remote end closed connection without response"
        pending.extend(a for a in current.args if isinstance(a, BaseException))
        for linked in (current.__cause__, current.__context__, getattr(current, "reason", None)):
            if isinstance(linked, BaseException):
                pending.append(linked)
    import requests

    if isinstance(error, requests.Timeout):
        return f"nothing arrived for {silence:g} s"
    return type(error).__name__
