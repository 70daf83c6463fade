"""push and pull over real HTTP on 127.0.0.1: the REST layer against a NetBox stand-in
(:mod:`tests.netbox.server`), and every way a server can misbehave ending in one line and
exit 1, within the time and size bounds (docs/reliability.md, "Responses")."""

from __future__ import annotations

import gzip
import json
import os
import re

import pytest
from click.testing import CliRunner

from rackdesigner.analysis import Analysis
from rackdesigner.cli.main import cli
from rackdesigner.layout_io.reader import load_path
from rackdesigner.netbox.bulk import bulk_rows
from rackdesigner.netbox.push import push_rows
from tests.conftest import ROOT
from tests.netbox.fake import FakeNetBox
from tests.netbox.server import TOKEN, Handler, RestServer
from tests.netbox.test_push_pull import _summary

LAYOUT = ROOT / "layouts" / "starter-4x-a6000.toml"
SITE = load_path(LAYOUT).name


def _run(args: list[str]):
    return CliRunner().invoke(cli, args, env={"NETBOX_TOKEN": TOKEN}, catch_exceptions=False)


def _pushed() -> FakeNetBox:
    netbox = FakeNetBox()
    push_rows(netbox, bulk_rows(Analysis(load_path(LAYOUT))))
    return netbox


def test_push_and_pull_over_http_round_trip_in_pages(tmp_path):
    """Pages of 7 records: the starter layout's 40-odd interfaces and cables take several
    pages each, followed through NetBox's absolute next links."""
    server = RestServer(page_size=7)
    with server as url:
        dry = _run(["push", str(LAYOUT), "--netbox-url", url, "--dry-run"])
        assert dry.exit_code == 0, dry.output
        assert server.server.netbox.created == []
        first = _run(["push", str(LAYOUT), "--netbox-url", url])
        assert first.exit_code == 0, first.output
        again = _run(["push", str(LAYOUT), "--netbox-url", url])
        assert again.exit_code == 0, again.output
        assert "NetBox already matches the layout: nothing to change" in again.output
        out = tmp_path / "pulled.toml"
        pulled = _run(["pull", "--netbox-url", url, "--site", SITE, "-o", str(out)])
        assert pulled.exit_code == 0, pulled.output
    assert _summary(load_path(out)) == _summary(load_path(LAYOUT))
    assert any("offset=7" in path for _, path in server.requests)
    for result in (dry, first, again, pulled):
        assert TOKEN not in result.output and "SECRET" not in result.output
    assert server.errors == []


# --- Misbehaving servers ---------------------------------------------------------------


def _always(respond):
    def hook(h: Handler, method: str) -> bool:
        respond(h)
        return True

    return hook


def _on(part: str, respond, method: str = "GET"):
    """Answer requests whose path holds ``part`` (and of ``method``) with ``respond``."""

    def hook(h: Handler, verb: str) -> bool:
        if part in h.path and verb == method:
            respond(h)
            return True
        return False

    return hook


def _html(status: int):
    page = b"<!DOCTYPE html><html><body><form>Log in</form></body></html>"
    return lambda h: h.answer(status, page, "text/html")


def _cut_short(h: Handler) -> None:
    body = json.dumps({"count": 1, "next": None, "results": [{"id": 1, "name": "a01"}]})
    h.answer(200, body[: len(body) // 2].encode())


def _short_body(h: Handler) -> None:
    h.answer(200, b'{"count": 1, "results": [', Content_Length="100000")
    h.close_connection = True


def _closed(h: Handler) -> None:
    h.close_connection = True


def _endless(h: Handler) -> None:
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.end_headers()
    h.wfile.write(b'{"count": 1, "results": [{"id": 1, "name": "')
    chunk = b"x" * 65536
    while not h.stopping:
        try:
            h.wfile.write(chunk)
        except OSError:
            return


def _trickle(h: Handler) -> None:
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", "1000")
    h.end_headers()
    for byte in b'{"count": 1, "results": []}' + b" " * 1000:
        try:
            h.wfile.write(bytes([byte]))
            h.wfile.flush()
        except OSError:
            return
        if not h.pause(0.1):
            return


def _silent(h: Handler) -> None:
    h.pause(5)
    h.close_connection = True


def _gzip_bomb(h: Handler) -> None:
    body = gzip.compress(b" " * (4 * 2**20))  # 4 MiB of spaces in about 4 KB
    h.answer(200, body, Content_Encoding="gzip")


def _redirect(location):
    def respond(h: Handler) -> None:
        target = location(h) if callable(location) else location
        h.answer(302, b"", "text/plain", Location=target)

    return respond


def _next_page(following):
    def respond(h: Handler) -> None:
        page = {"count": 99, "next": following(h), "results": [{"id": 1, "name": SITE}]}
        h.answer_json(200, page)

    return respond


def _deep(h: Handler) -> None:
    h.answer(200, b"[" * 100_000 + b"]" * 100_000)


_DROP = object()


def _field(kind: str, match, key: str, value=_DROP):
    """Answer the listing of ``kind`` with ``key`` of the records that ``match`` set to
    ``value`` (or left out)."""

    def respond(h: Handler) -> None:
        page = h.page(kind)
        for record in page["results"]:
            if match(record):
                if value is _DROP:
                    del record[key]
                else:
                    record[key] = value
        h.answer_json(200, page)

    return _on(f"/api/dcim/{kind}/", respond)


_HEAD = lambda record: record.get("name") == "a01-head"  # noqa: E731
_ANY = lambda record: True  # noqa: E731

# name: (the server's misbehaviour: a request hook or a change of its records, the
# command, what the one line says). 33 behaviours: the page, the body, the JSON, the
# status, where it points, how long and how much, and the fields' values.
BEHAVIOURS = {
    "html-login-page-at-200": (
        _always(_html(200)),
        "pull",
        r"answered list sites \(HTTP 200\) with an HTML page where NetBox's API gives JSON: "
        r"is --netbox-url http://127\.0\.0\.1:\d+ a NetBox\?",
    ),
    "empty-answer": (_always(lambda h: h.answer(200, b"")), "pull", "with an empty answer"),
    "json-cut-short": (_on("/racks/", _cut_short), "pull", "malformed or cut-short JSON"),
    "body-shorter-than-declared": (
        _on("/racks/", _short_body),
        "pull",
        r"broke off its answer to GET /api/dcim/racks/",
    ),
    "closed-without-answer": (
        _always(_closed),
        "pull",
        "cannot reach NetBox at .*: Remote end closed connection without response",
    ),
    "not-utf8": (
        _on("/racks/", lambda h: h.answer(200, b"\xff\xfe\xfa\xfb\x00")),
        "pull",
        "malformed or cut-short JSON",
    ),
    "json-nested-too-deeply": (_on("/racks/", _deep), "pull", "JSON nested too deeply"),
    "json-list-not-a-page": (
        _on("/sites/", lambda h: h.answer_json(200, [])),
        "pull",
        r"with JSON that is not a page of records \(no 'results' list\)",
    ),
    "results-not-a-list": (
        _on("/sites/", lambda h: h.answer_json(200, {"count": 1, "results": {"id": 1}})),
        "pull",
        "not a page of records",
    ),
    "records-not-objects": (
        _on("/sites/", lambda h: h.answer_json(200, {"count": 2, "results": [1, 2]})),
        "pull",
        "holds a number, not a record",
    ),
    "record-without-id": (
        _on("/sites/", lambda h: h.answer_json(200, {"count": 1, "results": [{"name": SITE}]})),
        "pull",
        "holds a record without a whole-number id",
    ),
    "http-500-html": (
        _always(_html(500)),
        "pull",
        r"NetBox refused to list sites: HTTP 500 Internal Server Error \(an HTML page\)",
    ),
    "http-403-invalid-token": (
        _always(lambda h: h.answer_json(403, {"detail": "Invalid v2 token"})),
        "pull",
        "NetBox refused to list sites: HTTP 403 Forbidden: Invalid v2 token",
    ),
    "http-404-not-the-api": (
        _always(_html(404)),
        "pull",
        r"HTTP 404 Not Found: is --netbox-url .* a NetBox \(its API is under /api/\)\?",
    ),
    "redirect-to-another-host": (
        _always(_redirect("http://netbox.example:8080/api/dcim/sites/")),
        "pull",
        r"redirected GET /api/dcim/sites/\?name=.* to http://netbox\.example:8080/api/dcim/"
        r"sites/: another host.*not followed.*give --netbox-url http://netbox\.example:8080",
    ),
    "redirect-to-another-port": (
        _always(_redirect("http://127.0.0.1:9/api/dcim/sites/")),
        "pull",
        "another host, port or a plain-http address, so it was not followed",
    ),
    "redirect-loop": (
        _always(_redirect(lambda h: h.path)),
        "pull",
        "redirected GET .* more than 5 times",
    ),
    "next-page-loop": (
        _on("/sites/", _next_page(lambda h: h.origin + h.path)),
        "pull",
        "NetBox's pages of sites do not end",
    ),
    "next-page-elsewhere": (
        _on("/sites/", _next_page(lambda h: "https://other.example/api/dcim/sites/?offset=1")),
        "pull",
        r"next page of sites is at https://other\.example/.*not followed",
    ),
    "endless-body": (
        _on("/racks/", _endless),
        "pull",
        r"answered GET /api/dcim/racks/\?site_id=\d+&limit=1000 with more than the 0\.25 MiB "
        r"one answer may be \(--max-response\): not read further",
    ),
    "declared-too-large": (
        _on("/racks/", lambda h: h.answer(200, b"{}", Content_Length=str(10**12))),
        "pull",
        r"--max-response; 1,000,000,000,000 bytes announced",
    ),
    "gzip-bomb": (_on("/racks/", _gzip_bomb), "pull", "more than the 0.25 MiB"),
    "body-trickled": (
        _on("/racks/", _trickle),
        "pull",
        r"did not finish answering GET /api/dcim/racks/ within 0\.4 s \(--timeout\)",
    ),
    "silent": (_on("/racks/", _silent), "pull", r"0\.4 s"),
    "position-infinity": (
        _field("devices", _HEAD, "position", float("inf")),
        "pull",
        r"NetBox's device \d+ 'a01-head' has position inf: not a finite number",
    ),
    "position-of-400-digits": (
        _field("devices", _HEAD, "position", 10**400),
        "pull",
        r"NetBox's device \d+ 'a01-head' has position 1000.*: too large a number",
    ),
    "voltage-text": (
        _field("power-feeds", _ANY, "voltage", "x"),
        "pull",
        r"NetBox's power feed \d+ '.*' has voltage 'x': not a number",
    ),
    "rack-without-name": (
        _field("racks", _ANY, "name"),
        "pull",
        r"NetBox's rack \d+ has no name",
    ),
    "description-a-list": (
        _field("racks", _ANY, "description", ["x"]),
        "pull",
        r"NetBox's rack \d+ '.*' has description \['x'\]: not text",
    ),
    "terminations-not-a-list": (
        _field("cables", _ANY, "a_terminations", {"object_id": 1}),
        "pull",
        r"NetBox's cable \d+ has a_terminations .*: not a list of objects",
    ),
    "device-without-type": (
        _field("devices", _HEAD, "device_type", None),
        "pull",
        r"NetBox's device \d+ 'a01-head' has no device type",
    ),
    "create-answers-html": (
        _on("/", _html(200), method="POST"),
        "push",
        r"answered create manufacturers '.*' \(HTTP 200\) with an HTML page",
    ),
    "create-answers-without-id": (
        _on("/", lambda h: h.answer_json(201, {"name": "x"}), method="POST"),
        "push",
        r"NetBox's answer to create manufacturers '.*' holds a record without a whole-number id",
    ),
}


@pytest.mark.parametrize("behaviour", BEHAVIOURS)
def test_a_misbehaving_server_is_one_line_and_exit_1(behaviour, tmp_path):
    misbehave, command, said = BEHAVIOURS[behaviour]
    netbox = FakeNetBox() if command == "push" else _pushed()
    out = tmp_path / "pulled.toml"
    # A short deadline only where the deadline is what is tested: elsewhere a loaded
    # machine must not turn the expected message into a timeout.
    slow_server = behaviour in {"body-trickled", "silent"}
    limits = ["--timeout", "0.4" if slow_server else "30", "--max-response", "0.25"]
    server = RestServer(netbox, misbehave)
    with server as url:
        if command == "pull":
            args = ["pull", "--netbox-url", url, "--site", SITE, "-o", str(out), *limits]
        else:
            args = ["push", str(LAYOUT), "--netbox-url", url, *limits]
        result = _run(args)
    assert result.exit_code == 1, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("rackdesigner: ")
    assert "internal error" not in result.stderr
    assert re.search(said, lines[0]), lines[0]
    assert not out.exists()
    assert TOKEN not in result.output and "SECRET" not in result.output
    assert server.errors == []


@pytest.mark.slow
@pytest.mark.parametrize(
    ("respond", "limits", "said"),
    [
        (_endless, ["--max-response", "16"], "with more than the 16 MiB one answer may be"),
        (_trickle, ["--timeout", "2"], r"did not finish answering .* within 2 s \(--timeout\)"),
    ],
)
def test_a_whole_process_ends_against_an_endless_or_trickled_body(respond, limits, said, tmp_path):
    """The console script, as a user runs it: the endless body stops at the cap (the
    process's peak memory stays far below what reading on would take: the server sends
    64 KiB chunks for as long as it is read), the trickle at the deadline."""
    import resource
    import subprocess

    from tests.conftest import rackdesigner_command

    out = tmp_path / "pulled.toml"
    with RestServer(_pushed(), _on("/racks/", respond)) as url:
        result = subprocess.run(
            [
                *rackdesigner_command(),
                "pull",
                "--netbox-url",
                url,
                "--site",
                SITE,
                "-o",
                str(out),
                *limits,
            ],
            env={**os.environ, "NETBOX_TOKEN": TOKEN},
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode == 1, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and re.search(said, lines[0]), result.stderr
    assert not out.exists()
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    assert peak_kib < 400 * 1024
