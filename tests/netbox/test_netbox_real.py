"""push, pull and the bulk-import rows against a real NetBox 4.7 (.ci/netbox-test sets one
up and passes NETBOX_URL, NETBOX_TOKEN and the admin's password in the environment).

One run, in order (each step builds on the one before): the rows of one layout go through
NetBox's own bulk import (the web forms ``export --netbox`` files are meant for), its power
ports, outlets, cords and feeds are where they belong, and a push of that layout then finds
nothing to change; a liquid-cooled SU's export goes in too, its loops, CDUs, doors and cold
plates as NetBox 4.7's cooling objects; a second layout is pushed, pushed again
(nothing changed), pushed with one device changed (one update), and pulled back (the same
racks, devices, feeds and cables; a layout ``validate`` reads). Skipped without a NetBox,
failed instead with ``RACKDESIGNER_REQUIRE_REAL=1``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rackdesigner.layout_io.reader import load_path, load_text
from rackdesigner.layout_io.writer import dumps
from tests.conftest import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.real]  # its own CI step: .ci/netbox-test
# DGX B200s on C20 inlets, switches and rear doors on C14, PDUs whose outlets the catalog
# does not count (the export adds them per device), and A/B feeds: every power row kind.
IMPORTED = ROOT / "layouts" / "inference-32-b200.toml"
# Liquid cooled: its loops, CDUs, rear doors and cold plates as NetBox 4.7's cooling objects.
LIQUID = ROOT / "layouts" / "gb200-nvl72-su.toml"
PUSHED = ROOT / "layouts" / "starter-4x-a6000.toml"
TIMEOUT = 300


@pytest.fixture(scope="module")
def netbox() -> tuple[str, str]:
    url, token = os.environ.get("NETBOX_URL"), os.environ.get("NETBOX_TOKEN")
    if not url or not token:
        message = "no NetBox: set NETBOX_URL and NETBOX_TOKEN (.ci/netbox-test does)"
        if os.environ.get("RACKDESIGNER_REQUIRE_REAL") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return url.rstrip("/"), token


def _run(*args: str, token: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NETBOX_TOKEN": token}
    result = subprocess.run(
        [sys.executable, "-m", "rackdesigner", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=TIMEOUT,
    )
    assert token not in result.stdout + result.stderr
    assert token.split(".")[-1] not in result.stdout + result.stderr
    return result


def _summary(layout):
    return (
        sorted(r.id for r in layout.racks),
        sorted((d.id, d.model, d.position, d.face) for r in layout.racks for d in r.devices),
        sorted(
            (f.id, f.voltage, f.phases, f.current, f.side) for r in layout.racks for f in r.feeds
        ),
        sorted(tuple(sorted((link.a, link.b))) for link in layout.links),
    )


# --- NetBox's own bulk import, through its web forms ---------------------------------


IMPORT_PATHS = {
    "manufacturers": "dcim/manufacturers",
    "device-types": "dcim/device-types",
    "device-roles": "dcim/device-roles",
    "sites": "dcim/sites",
    "racks": "dcim/racks",
    "power-panels": "dcim/power-panels",
    "power-feeds": "dcim/power-feeds",
    "devices": "dcim/devices",
    "interfaces": "dcim/interfaces",
    "power-outlets": "dcim/power-outlets",
    "cables": "dcim/cables",
    "cooling-sources": "dcim/cooling-sources",
    "cooling-feeds": "dcim/cooling-feeds",
    "cooling-intakes": "dcim/cooling-intakes",
    "cooling-outflows": "dcim/cooling-outflows",
}


def _web_import(url: str, file: Path, data: str | None = None) -> None:
    """Import ``file`` (or ``data`` as that file) through NetBox's bulk import page."""
    import requests

    session = _web_import.session  # type: ignore[attr-defined]
    kind = file.stem[3:]  # 01-manufacturers.csv
    page = f"{url}/{IMPORT_PATHS[kind]}/import/"
    session.get(page, timeout=60)
    fmt = file.suffix[1:]
    data = file.read_text() if data is None else data
    answer = session.post(
        page,
        data={
            "csrfmiddlewaretoken": session.cookies["csrftoken"],
            "import_method": "direct",
            "data": data,
            "format": fmt,
            "csv_delimiter": ",",
        },
        headers={"Referer": page},
        allow_redirects=False,
        timeout=120,
    )
    # Success redirects to the list; a form with errors comes back as the page (200).
    if answer.status_code != 302:
        errors = re.findall(
            r'class="[^"]*(?:invalid-feedback|alert-danger)[^"]*"[^>]*>(.*?)<', answer.text, re.S
        )
        raise AssertionError(
            f"importing {kind} failed ({answer.status_code}): {errors[:5]}\n{data[:2000]}"
        )
    assert isinstance(answer, requests.Response)


def _login(url: str) -> None:
    import requests

    session = requests.Session()
    login = f"{url}/login/"
    session.get(login, timeout=60)
    answer = session.post(
        login,
        data={
            "csrfmiddlewaretoken": session.cookies["csrftoken"],
            "username": os.environ.get("NETBOX_ADMIN_USER", "admin"),
            "password": os.environ["NETBOX_ADMIN_PASSWORD"],
            "next": "/",
        },
        headers={"Referer": login},
        allow_redirects=False,
        timeout=60,
    )
    assert answer.status_code == 302, "could not log in to NetBox's web interface"
    _web_import.session = session  # type: ignore[attr-defined]


def test_the_export_goes_through_netboxs_own_import(netbox, tmp_path):
    url, token = netbox
    if not os.environ.get("NETBOX_ADMIN_PASSWORD"):
        pytest.skip("NETBOX_ADMIN_PASSWORD unset: the web import needs a login")
    layout = load_path(IMPORTED)
    folder = tmp_path / "netbox"
    exported = _run("export", str(IMPORTED), "--netbox", str(folder), token=token)
    assert exported.returncode == 0, exported.stderr
    files = sorted(folder.iterdir())
    assert [f.stem[3:] for f in files][:2] == ["manufacturers", "device-types"]
    _login(url)
    for file in files:
        _web_import(url, file)
    _check_power(url, token, layout.name)
    # What the import made is what push would make: a push finds nothing to change.
    result = _run("push", str(IMPORTED), "--netbox-url", url, token=token)
    assert result.returncode == 0, result.stderr
    assert "NetBox already matches the layout: nothing to change" in result.stdout, result.stdout
    pulled = tmp_path / "imported.toml"
    result = _run(
        "pull", "--netbox-url", url, "--site", layout.name, "-o", str(pulled), token=token
    )
    assert result.returncode == 0, result.stderr
    assert _summary(load_path(pulled)) == _summary(layout)


def _api(url: str, token: str, path: str, **params: object) -> list[dict]:
    import requests

    answer = requests.get(
        f"{url}/api/{path}/",
        params={**params, "limit": 1000},
        headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
        timeout=60,
    )
    answer.raise_for_status()
    return answer.json()["results"]


def _check_power(url: str, token: str, site: str) -> None:
    """What NetBox made of the power rows: every PSU of a DGX B200 cabled to a C19 outlet
    of a PDU of its rack, every feed to a PDU's inlet, and the 63 A PDUs (outlets not in
    the catalog) holding the outlets the export added, each with a cord."""
    (record,) = [s for s in _api(url, token, "dcim/sites", name=site) if s["name"] == site]
    ports = _api(url, token, "dcim/power-ports", site_id=record["id"], device="a01-n01")
    assert sorted(p["name"] for p in ports) == [f"PSU{i}" for i in range(1, 7)]
    for port in ports:
        assert port["type"]["value"] == "iec-60320-c20", port["name"]
        (peer,) = port["link_peers"]
        assert port["link_peers_type"] == "dcim.poweroutlet", port["name"]
        assert peer["device"]["name"].startswith("a01-pdu-") and peer["name"].startswith("C19-")
    feeds = _api(url, token, "dcim/power-feeds", site_id=record["id"])
    assert feeds and all(f["cable"] for f in feeds), [f["name"] for f in feeds if not f["cable"]]
    for feed in feeds:
        (peer,) = feed["link_peers"]
        assert feed["link_peers_type"] == "dcim.powerport" and peer["name"] == "Inlet"
    outlets = _api(url, token, "dcim/power-outlets", site_id=record["id"])
    assert outlets and all(o["cable"] for o in outlets)
    assert {o["type"]["value"] for o in outlets} == {"iec-60320-c13", "iec-60320-c19"}


# The imported layout with a power chain behind its feeds: side A on a busway, side B on
# an RPP, each behind its UPS on one utility (docs/netbox.md, "The power chain").
CHAIN_ELEMENTS = """
[[power.elements]]
id = "utility-1"
kind = "utility"
capacity = "1 MW"

[[power.elements]]
id = "ups-a"
kind = "ups"
fed_by = ["utility-1"]
capacity = "200 kW"

[[power.elements]]
id = "ups-b"
kind = "ups"
fed_by = ["utility-1"]
capacity = "200 kW"

[[power.elements]]
id = "busway-a"
kind = "busway"
fed_by = ["ups-a"]
voltage = "415 V"
current = "400 A"
positions = 12

[[power.elements]]
id = "rpp-b"
kind = "rpp"
label = "floor panel B"
fed_by = ["ups-b"]
voltage = "415 V"
current = "400 A"

"""


def _chained(tmp_path: Path) -> Path:
    text = IMPORTED.read_text()
    text = text.replace('name = "Inference cluster: 32 x B200, HDR200"', 'name = "chained hall"')
    # Its own rack and device names: an import finds a device by its name alone.
    text = re.sub(r"\ba0([12])", r"c0\1", text)
    text = text.replace('side = "A", ', 'side = "A", source = "busway-a", ')
    text = text.replace('side = "B", ', 'side = "B", source = "rpp-b", ')
    first = text.index("[[racks]]")
    path = tmp_path / "chained.toml"
    path.write_text(text[:first] + CHAIN_ELEMENTS + text[first:])
    return path


def _lacking(url: str, token: str, file: Path) -> str | None:
    """The file's rows NetBox does not hold yet, for the shared types (manufacturers,
    device types, roles: an import refuses a name that exists; the layout imported before
    made most of them); None when it holds them all."""
    import yaml

    kind = file.stem[3:]
    text = file.read_text()
    if kind not in ("manufacturers", "device-types", "device-roles"):
        return text
    path = IMPORT_PATHS[kind]
    if kind == "device-types":
        have = {t["model"] for t in _api(url, token, path)}
        docs = [d for d in yaml.safe_load_all(text) if d and d["model"] not in have]
        return "".join("---\n" + yaml.safe_dump(d, sort_keys=False) for d in docs) or None
    have = {r["name"] for r in _api(url, token, path)}
    lines = text.splitlines(keepends=True)
    rows = [line for line in lines[1:] if line.split(",")[0] not in have]
    return lines[0] + "".join(rows) if rows else None


def test_a_chained_layout_through_netboxs_own_import_push_and_pull(netbox, tmp_path):
    """The chain's panels and the feeds on them are NetBox's own objects: busway-a and
    rpp-b are power panels (not the utility or the UPSs, which feed no rack), each saying
    its rating and its path up the chain; every A feed hangs on busway-a and every B feed
    on rpp-b, cabled to its PDU's inlet; push then finds nothing to change, and pull gives
    the feeds back with their sides."""
    url, token = netbox
    if not os.environ.get("NETBOX_ADMIN_PASSWORD"):
        pytest.skip("NETBOX_ADMIN_PASSWORD unset: the web import needs a login")
    chained = _chained(tmp_path)
    folder = tmp_path / "netbox-chain"
    exported = _run("export", str(chained), "--netbox", str(folder), token=token)
    assert exported.returncode == 0, exported.stderr
    _login(url)
    for file in sorted(folder.iterdir()):
        data = _lacking(url, token, file)
        if data is not None:
            _web_import(url, file, data)
    (site,) = [s for s in _api(url, token, "dcim/sites", name="chained hall")]
    panels = {p["name"]: p for p in _api(url, token, "dcim/power-panels", site_id=site["id"])}
    assert set(panels) == {"busway-a", "rpp-b"}
    assert panels["rpp-b"]["description"] == (
        "floor panel B · rpp · 415 V 3-phase 400 A × 0.8 = 230 kW continuous"
    )
    assert panels["busway-a"]["comments"].startswith(
        "Fed by ups-a (ups, 200 kW continuous), fed by utility-1 (utility, 1 MW continuous)."
    )
    feeds = _api(url, token, "dcim/power-feeds", site_id=site["id"])
    assert len(feeds) == 4
    for feed in feeds:
        side = feed["name"][-1]
        assert feed["power_panel"]["name"] == {"A": "busway-a", "B": "rpp-b"}[side]
        assert feed["description"].startswith(f"side {side} · circuit PP1-{side}-")
        (peer,) = feed["link_peers"]
        assert feed["link_peers_type"] == "dcim.powerport" and peer["name"] == "Inlet"
    result = _run("push", str(chained), "--netbox-url", url, token=token)
    assert result.returncode == 0, result.stderr
    assert "NetBox already matches the layout: nothing to change" in result.stdout, result.stdout
    pulled = tmp_path / "pulled-chain.toml"
    result = _run(
        "pull", "--netbox-url", url, "--site", "chained hall", "-o", str(pulled), token=token
    )
    assert result.returncode == 0, result.stderr
    back = sorted((f.id, f.side, f.circuit) for r in load_path(pulled).racks for f in r.feeds)
    want = sorted((f.id, f.side, f.circuit) for r in load_path(chained).racks for f in r.feeds)
    assert back == want


# Objects the first import made already, by slug: NetBox refuses them a second time.
SHARED = {"manufacturers": "dcim/manufacturers", "device-types": "dcim/device-types"}
SHARED["device-roles"] = "dcim/device-roles"


# Rows a web import takes at once: a device's import makes its components from its type's
# templates, and a few hundred NVL72 trays in one form outlast any sane request timeout.
CHUNK = 40


def _new_rows_only(url: str, token: str, file: Path) -> list[str]:
    """The file without the rows of shared objects NetBox holds already, CSV in chunks of
    :data:`CHUNK` rows (each with the header)."""
    import csv
    import io

    import yaml

    kind = file.stem[3:]
    held = {r["slug"] for r in _api(url, token, SHARED[kind])} if kind in SHARED else set()
    if file.suffix == ".yaml":
        docs = [d for d in yaml.safe_load_all(file.read_text()) if d["slug"] not in held]
        return ["".join("---\n" + yaml.safe_dump(d, sort_keys=False) for d in docs)] * bool(docs)
    rows = [r for r in csv.DictReader(io.StringIO(file.read_text())) if r.get("slug") not in held]
    chunks = []
    for start in range(0, len(rows), CHUNK):
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows[start : start + CHUNK])
        chunks.append(out.getvalue())
    return chunks


def test_the_liquid_loop_goes_in_as_netbox_47s_cooling_objects(netbox, tmp_path):
    """The GB200 SU's export through NetBox's own import (its cables left out: nothing
    here needs them), then what NetBox made of it: the loops as cooling sources, a feed
    to each rack holding a CDU or door, each CDU's facility intake feeding its secondary
    outflow, and every compute and switch tray's intake supplied by a01-cdu1's outflow at
    its cold plates' flow (a compute tray 6,667 W × 0.85 × 1.5 L/min per kW = 8.5 L/min);
    the trays' type hybrid, the NVL72 racks hybrid."""
    url, token = netbox
    if not os.environ.get("NETBOX_ADMIN_PASSWORD"):
        pytest.skip("NETBOX_ADMIN_PASSWORD unset: the web import needs a login")
    layout = load_path(LIQUID)
    folder = tmp_path / "netbox"
    exported = _run("export", str(LIQUID), "--netbox", str(folder), token=token)
    assert exported.returncode == 0, exported.stderr
    _login(url)
    for file in sorted(folder.iterdir()):
        if file.stem[3:] == "cables":
            continue
        for data in _new_rows_only(url, token, file):
            _web_import(url, file, data)
    (site,) = [s for s in _api(url, token, "dcim/sites", name=layout.name)]
    sources = {s["name"]: s for s in _api(url, token, "dcim/cooling-sources", site_id=site["id"])}
    assert sorted(sources) == ["chw-1", "fws-1"]
    fws = sources["fws-1"]
    assert fws["type"]["value"] == "cooling-tower" and float(fws["cooling_capacity"]) == 930
    assert fws["fluid_type"]["value"] == "water"
    feeds = _api(url, token, "dcim/cooling-feeds", cooling_source_id=fws["id"])
    assert sorted((f["rack"]["name"], float(f["cooling_capacity"])) for f in feeds) == [
        ("a01", 750.0),
        ("a02", 750.0),
        ("a03", 750.0),
    ]
    chilled = _api(url, token, "dcim/cooling-feeds", cooling_source_id=sources["chw-1"]["id"])
    assert len(chilled) == 8
    (outflow,) = _api(url, token, "dcim/cooling-outflows", device="a01-cdu1")
    assert outflow["name"] == "Secondary out"
    assert outflow["cooling_intake"]["name"] == "Facility water in"
    intakes = _api(url, token, "dcim/cooling-intakes", site_id=site["id"], name="Coolant in")
    assert len(intakes) == 8 * (18 + 9)
    assert {i["cooling_outflow"]["id"] for i in intakes} == {outflow["id"]}
    tray = next(i for i in intakes if i["device"]["name"] == "a04-c01")
    assert float(tray["max_flow"]) == 8.5 and tray["max_flow_unit"]["value"] == "lpm"
    (device,) = _api(url, token, "dcim/devices", name="a04-c01")
    assert device["cooling_method"]["value"] == "hybrid"
    (rack,) = _api(url, token, "dcim/racks", site_id=site["id"], name="a04")
    assert rack["cooling_capability"]["value"] == "hybrid"


def test_push_push_again_change_one_device_and_pull(netbox, tmp_path):
    url, token = netbox
    dry = _run("push", str(PUSHED), "--netbox-url", url, "--dry-run", token=token)
    assert dry.returncode == 0, dry.stderr
    assert "would create device 'a01-head'" in dry.stdout
    first = _run("push", str(PUSHED), "--netbox-url", url, token=token)
    assert first.returncode == 0, first.stderr + first.stdout
    assert "0 updated" in first.stdout.splitlines()[-1]
    created = int(first.stdout.splitlines()[-1].split()[0])
    assert created >= 20  # the site, racks, devices, feeds, cables, and the types new here
    # The dry run planned exactly what the push did.
    assert dry.stdout.count("would create ") == created

    again = _run("push", str(PUSHED), "--netbox-url", url, token=token)
    assert again.returncode == 0, again.stderr
    assert "NetBox already matches the layout: nothing to change" in again.stdout, again.stdout

    layout = load_path(PUSHED)
    head = next(d for r in layout.racks for d in r.devices if d.id == "a01-head")
    head.label = "head node, rebuilt"
    changed = tmp_path / "changed.toml"
    changed.write_text(dumps(layout))
    one = _run("push", str(changed), "--netbox-url", url, token=token)
    assert one.returncode == 0, one.stderr
    assert one.stdout.splitlines()[:-1] == [
        "update device 'a01-head': description head / login node -> head node, rebuilt"
    ], one.stdout
    assert one.stdout.splitlines()[-1].startswith("0 created, 1 updated, ")

    pulled = tmp_path / "pulled.toml"
    result = _run(
        "pull", "--netbox-url", url, "--site", layout.name, "-o", str(pulled), token=token
    )
    assert result.returncode == 0, result.stderr
    back = load_path(pulled)
    assert _summary(back) == _summary(load_text(changed.read_text()))
    assert next(d for r in back.racks for d in r.devices if d.id == "a01-head").label == (
        "head node, rebuilt"
    )
    # An existing hall, checked by the rules: validate reads it (0 or 1, never 2).
    checked = _run("validate", str(pulled), token=token)
    assert checked.returncode in (0, 1), checked.stdout + checked.stderr


def test_plain_http_elsewhere_is_refused_before_any_request(netbox):
    _, token = netbox
    result = _run("push", str(PUSHED), "--netbox-url", "http://netbox.invalid", token=token)
    assert result.returncode == 2
    assert "refusing plain http" in result.stderr


def test_a_wrong_token_is_refused_without_echoing_it(netbox):
    url, _ = netbox
    wrong = "nbt_notakey0000.notthesecret0000000000000000"
    result = _run("push", str(PUSHED), "--netbox-url", url, "--dry-run", token=wrong)
    assert result.returncode == 1
    assert "NetBox refused" in result.stderr


def test_pull_of_a_missing_site_exits_1(netbox, tmp_path):
    url, token = netbox
    result = _run(
        "pull",
        "--netbox-url",
        url,
        "--site",
        "no such hall",
        "-o",
        str(tmp_path / "x.toml"),
        token=token,
    )
    assert result.returncode == 1
    assert "no site named 'no such hall'" in result.stderr
    assert not Path(tmp_path / "x.toml").exists()
