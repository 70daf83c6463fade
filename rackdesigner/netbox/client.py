"""The connection to a NetBox: the URL and token checks, and the few REST calls push and
pull make, behind a small interface a test can stand in for.

Records travel as NetBox's REST API writes them (``GET /api/dcim/racks/``): a related
object is a nested dict with its ``id`` (and ``name``), a choice is ``{"value", "label"}``.
"""

from __future__ import annotations

import ipaddress
import os
from typing import Any, Protocol
from urllib.parse import urlsplit

# Every endpoint push and pull use, as (app, endpoint) in pynetbox's spelling.
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
    parts = urlsplit(url)
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise NetBoxError(f"--netbox-url {url!r}: give an http:// or https:// URL with a host")
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


def _record(value: Any) -> Any:
    """A pynetbox record (or anything in one) as plain JSON data."""
    if hasattr(value, "serialize") and hasattr(value, "__iter__"):
        return {key: _record(item) for key, item in dict(value).items()}
    if isinstance(value, dict):
        return {key: _record(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_record(item) for item in value]
    return value


class PynetboxBackend:
    """The backend over NetBox's REST API, through pynetbox."""

    def __init__(self, url: str, token: str, timeout: float = 30.0) -> None:
        import pynetbox
        import requests

        class Session(requests.Session):
            """Every request bounded: a NetBox that stops answering is an error, not a hang."""

            def request(self, *args: Any, **kwargs: Any) -> Any:
                kwargs.setdefault("timeout", timeout)
                return super().request(*args, **kwargs)

        self._api = pynetbox.api(url, token=token)
        self._api.http_session = Session()
        self._url = url

    def _endpoint(self, kind: str) -> Any:
        app, name = ENDPOINTS[kind]
        return getattr(getattr(self._api, app), name)

    def _call(self, what: str, call: Any) -> Any:
        import pynetbox
        import requests

        try:
            return call()
        except pynetbox.RequestError as error:
            raise NetBoxError(f"NetBox refused to {what}: {_request_error(error)}") from None
        except requests.RequestException as error:
            raise NetBoxError(
                f"cannot reach NetBox at {self._url}: {type(error).__name__}"
            ) from None

    def list(self, kind: str, **filters: Any) -> list[dict[str, Any]]:
        endpoint = self._endpoint(kind)
        return self._call(
            f"list {kind}",
            lambda: [
                _record(r) for r in (endpoint.filter(**filters) if filters else endpoint.all())
            ],
        )

    def create(self, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        endpoint = self._endpoint(kind)
        return self._call(f"create {kind} {_name(data)}", lambda: _record(endpoint.create(data)))

    def update(self, kind: str, id_: int, data: dict[str, Any]) -> None:
        endpoint = self._endpoint(kind)
        self._call(f"update {kind} {_name(data)}", lambda: endpoint.update([{"id": id_, **data}]))

    def status(self) -> dict[str, Any]:
        return self._call("answer /api/status/", lambda: dict(self._api.status()))


def _name(data: dict[str, Any]) -> str:
    for key in ("name", "model", "label"):
        if data.get(key):
            return repr(str(data[key]))
    return ""


def _request_error(error: Any) -> str:
    """What NetBox said, in one line (its JSON error body, not the request's headers)."""
    body = getattr(error, "error", None) or str(error)
    text = " ".join(str(body).split())
    return text[:500]


def connect(url: str, token_env: str, insecure: bool = False) -> PynetboxBackend:
    """A backend for ``url`` with the token from ``token_env``, after the checks."""
    return PynetboxBackend(check_url(url, insecure), token_from(token_env))
