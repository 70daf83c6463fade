"""The connection to a NetBox: the URL and token checks, and the few REST calls push and
pull make, behind a small interface a test can stand in for.

Records travel as NetBox's REST API writes them (``GET /api/dcim/racks/``): a related
object is a nested dict with its ``id`` (and ``name``), a choice is ``{"value", "label"}``.
"""

from __future__ import annotations

import ipaddress
import json
import os
from typing import Any, Protocol
from urllib.parse import urlsplit

from rackdesigner.netbox.http import Answer, Http, HttpError, Limits, keeps_token

# Every endpoint push and pull use, as (app, endpoint); the URL spells it with hyphens.
ENDPOINTS = {
    "manufacturers": ("dcim", "manufacturers"),
    "device-types": ("dcim", "device_types"),
    "device-roles": ("dcim", "device_roles"),
    "interface-templates": ("dcim", "interface_templates"),
    "power-port-templates": ("dcim", "power_port_templates"),
    "power-outlet-templates": ("dcim", "power_outlet_templates"),
    "sites": ("dcim", "sites"),
    "locations": ("dcim", "locations"),
    "racks": ("dcim", "racks"),
    "power-panels": ("dcim", "power_panels"),
    "power-feeds": ("dcim", "power_feeds"),
    "devices": ("dcim", "devices"),
    "interfaces": ("dcim", "interfaces"),
    "cables": ("dcim", "cables"),
}


class NetBoxError(Exception):
    """NetBox cannot be reached or refused a request; the message says which and why (and
    never holds the token)."""


class Backend(Protocol):
    """The REST calls push and pull make."""

    def list(self, kind: str, **filters: Any) -> list[dict[str, Any]]: ...

    def create(self, kind: str, data: dict[str, Any]) -> dict[str, Any]: ...

    def update(self, kind: str, id_: int, data: dict[str, Any]) -> None: ...


def _local(host: str) -> bool:
    if host.lower() in {"localhost", "localhost.localdomain"} or host.lower().endswith(
        ".localhost"
    ):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_url(url: str, insecure: bool = False) -> str:
    """The NetBox URL without a trailing slash, or :class:`NetBoxError`: only http(s), and
    plain http only to this machine unless ``insecure`` (the token would cross the network
    in the clear)."""
    try:
        parts = urlsplit(url)
        if parts.port == 0:  # port is None when the URL names none
            raise ValueError("port 0 cannot be connected to")
    except ValueError as error:  # a port out of range or not a number, a broken [IPv6]
        raise NetBoxError(f"--netbox-url {url!r}: {error}") from None
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise NetBoxError(f"--netbox-url {url!r}: give an http:// or https:// URL with a host")
    if parts.query or parts.fragment:
        raise NetBoxError(f"--netbox-url {url!r}: give NetBox's address without ? or #")
    if parts.username or parts.password:
        raise NetBoxError("--netbox-url: leave credentials out of the URL; use --token-env")
    if parts.scheme == "http" and not _local(parts.hostname) and not insecure:
        raise NetBoxError(
            f"refusing plain http to {parts.hostname}: the API token would cross the network "
            "unencrypted; use https://, or --insecure if you mean it"
        )
    return url.rstrip("/")


def token_from(variable: str) -> str:
    """The token held by the environment variable ``variable`` (its name is shown in
    errors, its value never)."""
    if not variable or not variable.replace("_", "").isalnum():
        raise NetBoxError(f"--token-env {variable!r}: give the name of an environment variable")
    token = os.environ.get(variable, "").strip()
    if not token:
        raise NetBoxError(f"no API token: the environment variable {variable} is unset or empty")
    return token


# NetBox's default MAX_PAGE_SIZE: a listing is read in pages of this many records.
PAGE_SIZE = 1000


class RestBackend:
    """The backend over NetBox's REST API: every request bounded in time and size
    (:mod:`rackdesigner.netbox.http`), every answer checked for the shape NetBox gives
    before anything reads it, so that a server that is not NetBox (a login page, a proxy's
    error, a truncated body) is one line naming what came back."""

    def __init__(self, url: str, token: str, limits: Limits | None = None) -> None:
        self._url = url
        self._http = Http(url, token, limits)

    def _json(self, what: str, method: str, url: str, **kwargs: Any) -> Any:
        try:
            answer = self._http.call(method, url, **kwargs)
        except HttpError as error:
            raise NetBoxError(str(error)) from None
        if not answer.ok:
            raise NetBoxError(f"NetBox refused to {what}: {_refusal(answer, self._url)}")
        if not answer.is_json:
            raise NetBoxError(
                f"NetBox at {self._url} answered {what} (HTTP {answer.status}) with "
                f"{answer.what} where NetBox's API gives JSON: is --netbox-url {self._url} "
                "a NetBox?"
            )
        return answer.data

    def _endpoint(self, kind: str) -> str:
        app, name = ENDPOINTS[kind]
        return f"{self._url}/api/{app}/{name.replace('_', '-')}/"

    def list(self, kind: str, **filters: Any) -> list[dict[str, Any]]:
        """Every record of ``kind`` that matches ``filters``, page after page."""
        what = f"list {kind}"
        url: str | None = self._endpoint(kind)
        params: dict[str, Any] | None = {**_filters(filters), "limit": PAGE_SIZE}
        records: list[dict[str, Any]] = []
        fetched: set[str] = set()
        count: int | None = None
        while url is not None:
            page = self._json(what, "GET", url, params=params)
            results, url = _page(page, what, self._url)
            count = page.get("count")  # the latest: objects may be added meanwhile
            records.extend(results)
            if url is not None:
                if url in fetched or not results:
                    raise NetBoxError(f"NetBox's pages of {kind} do not end: {what} stopped")
                if not keeps_token(self._url, url):
                    raise NetBoxError(
                        f"NetBox's next page of {kind} is at {url}, not at --netbox-url "
                        f"{self._url}: not followed (the API token is only sent to the URL "
                        "given); check NetBox's BASE_PATH and its proxy's X-Forwarded headers"
                    )
                fetched.add(url)
                params = None
            if isinstance(count, int) and not isinstance(count, bool) and len(records) > count:
                raise NetBoxError(
                    f"NetBox's pages of {kind} hold more than the {count} records it counted"
                )
        return records

    def create(self, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        what = f"create {kind} {_name(data)}".rstrip()
        record = self._json(what, "POST", self._endpoint(kind), body=data)
        return checked_record(record, what)

    def update(self, kind: str, id_: int, data: dict[str, Any]) -> None:
        what = f"update {kind} {_name(data)}".rstrip()
        self._json(what, "PATCH", self._endpoint(kind), body=[{"id": id_, **data}])

    def status(self) -> dict[str, Any]:
        status = self._json("answer /api/status/", "GET", f"{self._url}/api/status/")
        if not isinstance(status, dict):
            raise NetBoxError(f"NetBox at {self._url} answered /api/status/ with no object")
        return status


def _filters(filters: dict[str, Any]) -> dict[str, Any]:
    """Filters as NetBox's query string takes them: ``None`` is ``null``, a list repeats."""
    return {key: "null" if value is None else value for key, value in filters.items()}


def _page(page: Any, what: str, url: str) -> tuple[list[dict[str, Any]], str | None]:
    """A list page's records and the address of the next page, or NetBoxError."""
    if not isinstance(page, dict) or not isinstance(page.get("results"), list):
        raise NetBoxError(
            f"NetBox at {url} answered {what} with JSON that is not a page of records "
            f"(no 'results' list): is --netbox-url {url} a NetBox?"
        )
    following = page.get("next")
    if following is not None and not isinstance(following, str):
        raise NetBoxError(f"NetBox's answer to {what} has a 'next' that is not an address")
    return [checked_record(record, what) for record in page["results"]], following or None


def checked_record(record: Any, what: str) -> dict[str, Any]:
    """A record as NetBox writes one: a JSON object with a whole-number ``id``."""
    if not isinstance(record, dict):
        raise NetBoxError(f"NetBox's answer to {what} holds {_kind(record)}, not a record")
    id_ = record.get("id")
    if not isinstance(id_, int) or isinstance(id_, bool):
        raise NetBoxError(f"NetBox's answer to {what} holds a record without a whole-number id")
    return record


def _kind(value: Any) -> str:
    return {list: "a list", str: "text", bool: "true or false", type(None): "null"}.get(
        type(value), "a number" if isinstance(value, int | float) else type(value).__name__
    )


def _name(data: dict[str, Any]) -> str:
    for key in ("name", "model", "label"):
        if data.get(key):
            return repr(str(data[key]))
    return ""


def _refusal(answer: Answer, url: str) -> str:
    """Why NetBox said no, in one line: the status and NetBox's own words (its JSON error,
    ``{"detail": ...}`` or the fields it rejects), never a whole HTML page."""
    status = f"HTTP {answer.status} {answer.reason}".rstrip()
    if answer.is_json:
        data = answer.data
        detail = data.get("detail") if isinstance(data, dict) else None
        text = str(detail) if isinstance(detail, str) else json.dumps(data, ensure_ascii=False)
        text = " ".join(text.split())
        return f"{status}: {text[:500]}" + ("..." if len(text) > 500 else "")
    if answer.status == 404:
        return f"{status}: is --netbox-url {url} a NetBox (its API is under /api/)?"
    return f"{status} ({answer.what})"


def connect(
    url: str, token_env: str, insecure: bool = False, limits: Limits | None = None
) -> RestBackend:
    """A backend for ``url`` with the token from ``token_env``, after the checks."""
    return RestBackend(check_url(url, insecure), token_from(token_env), limits)
