"""push and pull without a NetBox: a small in-memory stand-in that answers as NetBox's REST
API does (related objects nested with their id and name, choices as value and label), the
plan's diffs, the URL and token checks, and the token never printed."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from rackdesigner.analysis import Analysis
from rackdesigner.cli.main import cli
from rackdesigner.layout_io.reader import load_path, load_text
from rackdesigner.layout_io.writer import dumps
from rackdesigner.netbox import client
from rackdesigner.netbox.bulk import bulk_rows
from rackdesigner.netbox.client import NetBoxError, check_url, token_from
from rackdesigner.netbox.pull import pull_site
from rackdesigner.netbox.push import push_rows, same
from tests.conftest import ROOT
from tests.netbox.fake import FakeNetBox

LAYOUT = ROOT / "layouts" / "starter-4x-a6000.toml"
TOKEN = "nbt_abcdefghijkl.SECRET-never-shown-0123456789"


def _rows(text: str | None = None):
    layout = load_text(text) if text is not None else load_path(LAYOUT)
    return bulk_rows(Analysis(layout))


def test_a_first_push_creates_everything_and_a_second_changes_nothing():
    netbox = FakeNetBox()
    first = push_rows(netbox, _rows())
    assert first.count("create") == len(netbox.created) > 20
    assert first.count("update") == 0
    again = push_rows(netbox, _rows())
    assert again.count("create") == again.count("update") == 0
    assert netbox.updated == []
    assert again.lines()[-1].startswith("NetBox already matches the layout: nothing to change")


def test_a_dry_run_lists_the_plan_and_changes_nothing():
    netbox = FakeNetBox()
    plan = push_rows(netbox, _rows(), dry_run=True)
    assert netbox.created == [] and netbox.updated == []
    lines = plan.lines()
    assert any(line.startswith("would create site ") for line in lines)
    assert any(
        line.startswith("would create cable a01-gpu1:bmc1 - a01-mgmt:mgmt1") for line in lines
    )
    assert lines[-1].endswith("(dry run: nothing was changed)")
    # The dry run planned exactly what a real push then does.
    real = push_rows(netbox, _rows())
    assert real.count("create") == plan.count("create")


def test_a_changed_device_is_one_update_naming_the_field():
    netbox = FakeNetBox()
    push_rows(netbox, _rows())
    layout = load_path(LAYOUT)
    head = next(d for r in layout.racks for d in r.devices if d.id == "a01-head")
    was = head.label
    head.label = "head node, rebuilt"
    rows = bulk_rows(Analysis(load_text(dumps(layout))))
    dry = push_rows(netbox, rows, dry_run=True)
    assert [c.line(True) for c in dry.changes if c.verb != "unchanged"] == [
        f"would update device 'a01-head': description {was} -> head node, rebuilt"
    ]
    plan = push_rows(netbox, rows)
    assert plan.count("update") == 1 and plan.count("create") == 0
    assert netbox.updated[-1][2] == {"description": "head node, rebuilt"}
    assert push_rows(netbox, rows).count("update") == 0


def test_a_moved_device_updates_its_position_and_the_cables_it_lengthens():
    netbox = FakeNetBox()
    push_rows(netbox, _rows())
    layout = load_path(LAYOUT)
    head = next(d for r in layout.racks for d in r.devices if d.id == "a01-head")
    free = max(d.position or 0 for r in layout.racks for d in r.devices) + 4
    head.position = free
    plan = push_rows(netbox, bulk_rows(Analysis(load_text(dumps(layout)))))
    updated = [c for c in plan.changes if c.verb == "update"]
    assert updated[0].kind == "devices" and updated[0].fields[0][0] == "position"
    assert updated[0].fields[0][2] == free
    assert {c.kind for c in updated[1:]} == {"cables"}
    assert all(c.fields[0][0] == "length" for c in updated[1:])


def test_values_compare_as_netbox_answers_them():
    assert same(10, 10.0)
    assert same("planned", {"value": "planned", "label": "Planned"})
    assert same(7, {"id": 7, "name": "a01"})
    assert same(None, "")
    assert not same(10, 12.0)
    assert not same("front", {"value": "rear", "label": "Rear"})


def test_pull_gives_back_the_racks_devices_feeds_and_cables():
    netbox = FakeNetBox()
    original = load_path(LAYOUT)
    push_rows(netbox, bulk_rows(Analysis(original)))
    pulled = pull_site(netbox, original.name).layout
    assert _summary(pulled) == _summary(original)
    # The pulled layout reads back and its device types are the catalog's own.
    again = load_text(dumps(pulled))
    assert _summary(again) == _summary(original)
    assert again.catalog == {}


def _summary(layout):
    return (
        sorted(r.id for r in layout.racks),
        sorted((d.id, d.model, d.position) for r in layout.racks for d in r.devices),
        sorted((f.id, f.voltage, f.phases, f.current) for r in layout.racks for f in r.feeds),
        sorted(tuple(sorted((link.a, link.b))) for link in layout.links),
    )


def test_pull_imports_a_device_type_the_catalog_lacks():
    netbox = FakeNetBox()
    push_rows(netbox, _rows())
    mfr = netbox.create("manufacturers", {"name": "Acme", "slug": "acme"})
    kind = netbox.create(
        "device-types",
        {
            "manufacturer": mfr["id"],
            "model": "Widget 9000",
            "slug": "widget-9000",
            "u_height": 2,
            "is_full_depth": True,
        },
    )
    netbox.create(
        "interface-templates",
        {"device_type": kind["id"], "name": "eth1", "type": "25gbase-x-sfp28"},
    )
    site = netbox.list("sites")[0]
    rack = netbox.list("racks")[0]
    role = next(r for r in netbox.list("device-roles") if r["name"] == "CPU node")
    netbox.create(
        "devices",
        {
            "name": "odd-one",
            "device_type": kind["id"],
            "role": role["id"],
            "site": site["id"],
            "rack": rack["id"],
            "position": 40,
        },
    )
    pulled = pull_site(netbox, site["name"])
    entry = pulled.layout.catalog["widget-9000"]
    assert (entry.vendor, entry.name, entry.height) == ("Acme", "Acme Widget 9000", 2.0)
    assert [(g.count, g.speed, g.tech) for g in entry.ports] == [(1, 25e9, "ethernet")]
    assert entry.kind == "cpu-node"  # from the device's role
    note = "NetBox device type 'Widget 9000' is not in the catalog: imported as 'widget-9000'"
    assert any(n.startswith(note) for n in pulled.notes)
    load_text(dumps(pulled.layout))  # a layout the reader takes


def test_a_pulled_layout_writes_bidi_characters_escaped():
    """A rack description from NetBox holding U+202E lands in the layout's TOML as
    ``\\u202e``, not as the character that reverses the line on a terminal."""
    netbox = FakeNetBox()
    original = load_path(LAYOUT)
    push_rows(netbox, bulk_rows(Analysis(original)))
    rack = next(iter(netbox.records["racks"].values()))
    rack["description"] = "row A \u202e1 kcar"
    text = dumps(pull_site(netbox, original.name).layout)
    assert "\u202e" not in text
    assert 'label = "row A \\u202e1 kcar"' in text
    assert load_text(text).racks[0].label == "row A \u202e1 kcar"


def test_pull_of_a_missing_site_says_so():
    with pytest.raises(NetBoxError, match="no site named 'Nowhere'"):
        pull_site(FakeNetBox(), "Nowhere")


@pytest.mark.parametrize(
    ("url", "insecure", "ok"),
    [
        ("https://netbox.example.com/", False, True),
        ("http://127.0.0.1:8000", False, True),
        ("http://localhost:8000", False, True),
        ("http://[::1]:8000", False, True),
        ("http://netbox.example.com", False, False),
        ("http://10.0.0.5", False, False),
        ("http://netbox.example.com", True, True),
        ("ftp://netbox.example.com", True, False),
        ("https://user:pw@netbox.example.com", False, False),
        ("netbox.example.com", False, False),
        ("http://127.0.0.1:99999", False, False),
        ("http://127.0.0.1:0", False, False),
        ("http://127.0.0.1:port", False, False),
        ("http://[::1", False, False),
        ("https://netbox.example.com/?x=1", False, False),
    ],
)
def test_urls(url, insecure, ok):
    if ok:
        assert check_url(url, insecure) == url.rstrip("/")
    else:
        with pytest.raises(NetBoxError):
            check_url(url, insecure)


def test_plain_http_to_another_host_is_refused_and_says_why():
    with pytest.raises(
        NetBoxError, match=r"refusing plain http to netbox\.example\.com.*--insecure"
    ):
        check_url("http://netbox.example.com")


def test_the_token_comes_from_the_named_variable(monkeypatch):
    monkeypatch.setenv("NB_TOKEN", TOKEN)
    assert token_from("NB_TOKEN") == TOKEN
    monkeypatch.delenv("NB_TOKEN")
    with pytest.raises(NetBoxError, match="NB_TOKEN is unset or empty"):
        token_from("NB_TOKEN")


def _cli(args, env):
    return CliRunner().invoke(cli, args, env=env, catch_exceptions=False)


def test_push_refuses_plain_http_before_reading_the_token():
    result = _cli(
        ["push", str(LAYOUT), "--netbox-url", "http://netbox.example.com", "--dry-run"],
        {"NETBOX_TOKEN": TOKEN},
    )
    assert result.exit_code == 2
    assert "refusing plain http" in result.output
    assert "SECRET" not in result.output


@pytest.mark.parametrize("command", ["push", "pull"])
def test_a_port_out_of_range_is_a_usage_error(command):
    """A URL that cannot be connected to is the command used wrongly (exit 2), found
    before any request, not NetBox unreachable (exit 1)."""
    url = ["--netbox-url", "http://127.0.0.1:99999"]
    args = [command, str(LAYOUT), *url] if command == "push" else [command, *url, "--site", "x"]
    result = _cli([*args, "-o", "-"] if command == "pull" else args, {"NETBOX_TOKEN": TOKEN})
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        "rackdesigner: --netbox-url 'http://127.0.0.1:99999': Port out of range 0-65535\n"
    )


def test_push_without_a_token_names_the_variable():
    result = _cli(
        ["push", str(LAYOUT), "--netbox-url", "https://nb.example", "--token-env", "NB_T"],
        {"NB_T": ""},
    )
    assert result.exit_code == 2
    assert "NB_T is unset or empty" in result.output


def test_push_and_pull_through_the_cli_never_print_the_token(monkeypatch, tmp_path):
    netbox = FakeNetBox()
    seen: list[str] = []

    def fake_connect(url, token_env, insecure=False, limits=None):
        check_url(url, insecure)
        seen.append(token_from(token_env))
        return netbox

    monkeypatch.setattr(client, "connect", fake_connect)
    env = {"NETBOX_TOKEN": TOKEN}
    url = ["--netbox-url", "https://nb.example"]
    dry = _cli(["push", str(LAYOUT), *url, "--dry-run"], env)
    assert dry.exit_code == 0, dry.output
    assert "would create device 'a01-head'" in dry.output
    assert netbox.created == []
    first = _cli(["push", str(LAYOUT), *url], env)
    assert first.exit_code == 0, first.output
    second = _cli(["push", str(LAYOUT), *url], env)
    assert second.exit_code == 0
    assert "NetBox already matches the layout: nothing to change" in second.output
    out = tmp_path / "pulled.toml"
    layout = load_path(LAYOUT)
    pulled = _cli(["pull", *url, "--site", layout.name, "-o", str(out)], env)
    assert pulled.exit_code == 0, pulled.output
    assert _summary(load_path(out)) == _summary(layout)
    to_stdout = CliRunner().invoke(
        cli, ["pull", *url, "--site", layout.name, "-o", "-"], env=env, catch_exceptions=False
    )
    assert to_stdout.exit_code == 0
    assert _summary(load_text(to_stdout.stdout)) == _summary(layout)
    assert seen == [TOKEN] * 5
    for result in (dry, first, second, pulled):
        assert "SECRET" not in result.output and TOKEN not in result.output


def test_a_refusal_from_netbox_exits_1_without_the_token(monkeypatch):
    class Refusing(FakeNetBox):
        def create(self, kind, data):
            raise NetBoxError("NetBox refused to create sites 'x': {'slug': ['exists']}")

    monkeypatch.setattr(client, "connect", lambda *a, **k: Refusing())
    result = _cli(
        ["push", str(LAYOUT), "--netbox-url", "https://nb.example"], {"NETBOX_TOKEN": TOKEN}
    )
    assert result.exit_code == 1
    assert "NetBox refused to create" in result.output
    assert TOKEN not in result.output


def test_push_sends_the_data_cables_and_leaves_the_power_rows_to_the_export():
    """The export's power cables (PSU to outlet, feed to PDU) and per-device outlets are not
    pushed (yet): push plans the interface cables only and never names a power port as
    an interface."""
    from rackdesigner.netbox.push import desired_objects

    rows = bulk_rows(Analysis(load_path(ROOT / "layouts" / "inference-32-b200.toml")))
    cables = dict(rows)["cables"]
    power = [c for c in cables if c["side_a_type"] != "dcim.interface"]
    assert power  # the export has them
    planned = [o for o in desired_objects(rows) if o.kind == "cables"]
    assert len(planned) == len(cables) - len(power)
    assert not [o for o in desired_objects(rows) if o.kind == "power-outlets"]
