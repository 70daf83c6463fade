"""``export --cables/--power/--bom``: exact columns, RFC 4180, and the same counts as ``report``."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.stock import stock_length
from rackdesigner.cli.main import cli
from rackdesigner.export.tables import (
    BOM_COLUMNS,
    CABLE_COLUMNS,
    POWER_COLUMNS,
    bom_rows,
    cable_rows,
    power_rows,
    to_csv,
)
from rackdesigner.layout_io import load_path, load_text
from rackdesigner.model.spreadsheet import cells
from tests.conftest import ROOT
from tests.strategies import examples

SMALL = ROOT / "tests" / "data" / "exports" / "small.toml"
TRAINING = ROOT / "layouts" / "training-128.toml"


def read(data: bytes) -> list[dict[str, str]]:
    assert not data.startswith(b"\xef\xbb\xbf") and data.endswith(b"\r\n")  # RFC 4180: CRLF
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"), newline="")))


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, str]]]:
    out = tmp_path_factory.mktemp("tables")
    args = ["export", str(TRAINING)]
    for name in ("cables", "power", "bom"):
        args += [f"--{name}", str(out / f"{name}.csv")]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    tables = {}
    for name, columns in (
        ("cables", CABLE_COLUMNS),
        ("power", POWER_COLUMNS),
        ("bom", BOM_COLUMNS),
    ):
        data = (out / f"{name}.csv").read_bytes()
        assert data.split(b"\r\n", 1)[0].decode() == ",".join(columns)
        tables[name] = read(data)
    return tables


@pytest.fixture(scope="module")
def report() -> dict:
    result = CliRunner().invoke(cli, ["report", str(TRAINING), "--format", "json"])
    return json.loads(result.output)


@pytest.mark.parametrize(
    ("length", "stock"),
    [
        (0.2, 0.5),
        (0.5, 0.5),
        (0.5000000001, 0.5),
        (0.51, 1.0),
        (4.2, 5.0),
        (99.9, 100.0),
        (100.01, 110.0),
        (137.0, 140.0),
        (150.0, 150.0),
        (None, None),
    ],
)
def test_stock_lengths(length: float | None, stock: float | None) -> None:
    assert stock_length(length) == stock


def test_cable_schedule_has_one_row_per_link(exported: dict, report: dict) -> None:
    rows = exported["cables"]
    analysis = Analysis(load_path(TRAINING))
    assert [r["cable_id"] for r in rows] == [link.a for link in analysis.layout.links]
    first = rows[0]
    assert first["label"] == f"{first['cable_id']} ↔ {first['b_device']}:{first['b_port']}"
    assert first["cable_id"] == f"{first['a_device']}:{first['a_port']}"
    for row in rows:
        assert float(row["stock_length_m"]) >= float(row["length_m"])
    # The report counts the fabric's cables by tier, media and stock length: same figures.
    fabric_cables: Counter = Counter()
    for tier in report["network"]["fabrics"][0]["tiers"]:
        for entry in tier["cables"]:
            fabric_cables[entry["media"], entry["stock_length"]] += entry["count"]
    compute = {link.link.a for f in analysis.fabrics for link in f.links}
    from_csv = Counter(
        (r["media"], float(r["stock_length_m"])) for r in rows if r["cable_id"] in compute
    )
    assert from_csv == fabric_cables


def test_bom_matches_the_report(exported: dict, report: dict) -> None:
    rows = exported["bom"]
    items = report["cost"]["bom"]
    assert [(r["item"], r["model"], int(r["count"])) for r in rows] == [
        (i["item"], i["model"], i["count"]) for i in items
    ]
    total = sum(float(r["total_cost_usd"]) for r in rows if r["total_cost_usd"])
    assert total == pytest.approx(report["cost"]["total"])
    # Devices by model, then every cable by media and stock length.
    devices = [r for r in rows if r["item"] == "device"]
    assert sum(int(r["count"]) for r in devices) == len(Analysis(load_path(TRAINING)).devices)
    # (v1.4) Links, cables and transceivers kept apart: the links rows count the schedule's
    # rows (one a link); a cable is one link, or two on one twin-port copper cable (a
    # splitter from a switch cage to two nodes, MCP7Y00), never more.
    links = [r for r in rows if r["item"] == "links"]
    assert sum(int(r["count"]) for r in links) == len(exported["cables"])
    cables = [r for r in rows if r["item"] == "cable"]
    by_media = Counter(r["media"] or "unspecified" for r in exported["cables"])
    bought: Counter = Counter()
    for row in cables:
        bought[row["kind"]] += int(row["count"])
    assert set(bought) == set(by_media)
    for media, count in bought.items():
        assert by_media[media] / 2 <= count <= by_media[media], media
    # An unknown cost is empty, never 0.
    assert all(r["unit_cost_usd"] == "" for r in cables)
    assert any(r["item"] == "device" and r["unit_cost_usd"] == "" for r in rows)


def test_power_cords_match_the_report(exported: dict, report: dict) -> None:
    rows = exported["power"]
    per_rack = Counter(r["rack"] for r in rows)
    assert per_rack == {c["rack"]: c["cords"] for c in report["power"]["cords"]}
    # The v1.1 example's liquid-cooled HGX node has 4 PSUs, round-robin over the rack's
    # four sides A-D: one each.
    node = [r for r in rows if r["device"] == "a01-n01"]
    assert [r["psu"] for r in node] == ["1", "2", "3", "4"]
    assert [r["side"] for r in node] == ["A", "B", "C", "D"]


def test_cords_go_to_their_sides_pdus() -> None:
    analysis = Analysis(load_path(SMALL))
    rows = power_rows(analysis)
    node = [r for r in rows if r[0] == "r1-n01"]
    # device, rack, u, psu, side, feed, pdu, outlet_type, inlet_type, cord: the type
    # gives no psu_inlet, so no outlet, inlet or cord is invented
    assert node == [
        ("r1-n01", "r1", "2", "1", "A", "r1-A", "r1-pdu-a", "", "", ""),
        ("r1-n01", "r1", "2", "2", "B", "r1-B", "r1-pdu-b", "", "", ""),
    ]
    assert not any(r[0].startswith("r1-pdu") for r in rows)  # PDUs plug into feeds


def test_rfc4180_quoting_and_empty_unknowns() -> None:
    text = (
        'format = 1\nname = "q"\n[catalog.sw]\nkind = "switch"\n'
        'ports = [{ name = "p", count = 2, speed = "400 Gbps", tech = "infiniband" }]\n'
        '[[racks]]\nid = "r,1"\n'
        '[[racks.devices]]\nid = "n\\"1"\nmodel = "dgx-h100"\nposition = 1\n'
        '[[racks.devices]]\nid = "s"\nmodel = "sw"\nposition = 20\n'
        '[[links]]\na = "n\\"1:ib1"\nb = "s:p1"\n'
    )
    analysis = Analysis(load_text(text))
    data = to_csv(CABLE_COLUMNS, cable_rows(analysis))
    assert b'"n""1:ib1","r,1",1,"n""1",ib1' in data
    (row,) = read(data)
    assert row["a_rack"] == "r,1" and row["a_device"] == 'n"1'
    # No site geometry problem here, but no media: empty, not invented.
    assert row["media"] == "" and row["grade"] == ""
    bom = read(to_csv(BOM_COLUMNS, bom_rows(analysis)))
    sw = next(r for r in bom if r["model"] == "sw")
    assert sw["unit_cost_usd"] == "" and sw["total_cost_usd"] == ""


def test_fibre_gets_grade_and_optics() -> None:
    analysis = Analysis(load_path(SMALL))
    (mmf,) = [r for r in cable_rows(analysis) if r[9] == "mmf"]
    assert mmf[10] == "om4"  # rules.md: multimode without a grade is OM4
    optics = [r for r in bom_rows(analysis) if r[0] == "optic"]
    # a switch-to-switch fibre at 400G: one twin-port module in each switch's cage (v1.2),
    # named by the transceiver table with its cage style (v1.4)
    twin = "800G twin-port OSFP 2x400G multimode SR8 (2 x SR4), finned top"
    assert optics == [("optic", "MMA4Z00-NS", twin, "mmf", 2, "", "")]


def test_twin_port_optics_take_two_switch_ports_and_one_per_node_port() -> None:
    from rackdesigner.design.templates import NewOptions, build

    # The compute fabric's InfiniBand optics (the storage fabric new adds is Ethernet).
    layout = build(NewOptions(gpus=256, fabric="rail", storage=False)).layout
    analysis = Analysis(layout)
    node_fibre = switch_ports = 0
    for link in analysis.links:
        if link.link.media != "mmf":
            continue
        kinds = [end.device.kind for end in (link.a, link.b) if end.device is not None]
        node_fibre += kinds.count("gpu-node")
        switch_ports += kinds.count("switch")
    optics = {r[1]: r[4] for r in bom_rows(analysis) if r[0] == "optic"}
    assert node_fibre > 0
    assert optics["MMA4Z00-NS400"] == node_fibre
    assert optics["MMA4Z00-NS"] >= switch_ports / 2


@settings(max_examples=examples(80), deadline=None)
@given(
    st.lists(
        st.lists(st.text(alphabet=' a,"\n\r↔1=+-@\t.', max_size=6), min_size=3, max_size=3),
        max_size=8,
    )
)
def test_quick_csv_writes_what_the_csv_module_writes(rows: list[list[str]]) -> None:
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["a", "b", "c"])
    writer.writerows(cells(row) for row in rows)  # formulas made text (model.spreadsheet)
    assert to_csv(("a", "b", "c"), rows) == out.getvalue().encode()


@pytest.mark.parametrize(
    "path",
    [SMALL, TRAINING, ROOT / "layouts" / "inference-32-b200.toml"],
)
def test_quick_cable_rows_match_the_analysis(path: Path) -> None:
    quick = cable_rows(Analysis(load_path(path)))
    full = Analysis(load_path(path))
    full.links  # noqa: B018  (resolved: the rows then come from the link facts)
    assert quick == cable_rows(full)


def test_a_link_to_an_unknown_port_is_still_scheduled() -> None:
    text = (
        'format = 1\nname = "q"\n[[racks]]\nid = "r1"\nrow = "A"\nslot = 1\n'
        '[[racks.devices]]\nid = "n1"\nmodel = "dgx-h100"\nposition = 1\n'
        '[[racks.devices]]\nid = "s"\nmodel = "qm9700"\nposition = 20\n'
        '[[links]]\na = "n1:ib1"\nb = "s:p1"\nmedia = "dac"\n'
        '[[links]]\na = "n1:ib99"\nb = "ghost:p1"\nmedia = "dac"\n'
    )
    rows = cable_rows(Analysis(load_text(text)))
    assert rows[0][:5] == ("n1:ib1", "r1", "1", "n1", "ib1") and rows[0][12] == "1.5"
    assert rows[1][:9] == ("n1:ib99", "r1", "1", "n1", "ib99", "", "", "ghost", "p1")
    assert rows[1][11] == rows[1][12] == ""  # no route to an unknown device


BUNDLED = sorted((ROOT / "layouts").glob("*.toml"))


@pytest.mark.parametrize("layout", BUNDLED, ids=[p.stem for p in BUNDLED])
def test_the_power_cord_schedule_of_every_bundled_layout_is_complete(layout: Path) -> None:
    """Every catalog type that takes a PDU cord names its inlet, so no cell is empty: the
    outlet, the inlet and the cord (training-128 had 96 rows without an outlet type)."""
    rows = power_rows(Analysis(load_path(layout)))
    assert rows
    empty = [row for row in rows if "" in row]
    assert not empty, empty[:3]
    for row in rows:
        outlet, inlet, cord = row[7:]
        # IEC 60320: the cord's connector mates with the inlet, its plug with the outlet
        assert (
            cord == {"c14": "C13", "c20": "C19"}[inlet] + "-" + {"c13": "C14", "c19": "C20"}[outlet]
        )
        assert inlet == "c14" or outlet == "c19"  # a C20 inlet never on a C13 outlet


def test_training_128_cords_by_inlet() -> None:
    """16 SYS-421GE-TNHR2-LCC x 4 C20 inlets = 64 C19-C20 cords, and 2 storage nodes x 2 =
    4 more; C14 inlets: 10 QM9700 x 2 + 2 SN5600 x 2 + 1 SN2201 x 2 = 26 C13-C14 cords.
    The two floor-standing CDUs are wired to their circuits (hardwired): no row."""
    rows = power_rows(Analysis(load_path(TRAINING)))
    assert Counter(r[9] for r in rows) == {"C19-C20": 68, "C13-C14": 26}
    assert not [r for r in rows if "cdu" in r[0]]


def test_a_c14_inlet_takes_a_spare_c19_once_the_c13s_are_gone() -> None:
    """A PDU with 1 C13 and 2 C19 outlets, three 1-PSU C14 devices and one C20 device: the
    C20 takes a C19; the first C14 the C13, the second the C19 left, with a C13-C20 cord;
    the third finds none and keeps the C13 its inlet takes (PWR012 warns: 4 cords, 3
    outlets)."""
    text = (
        'format = 1\nname = "spill"\n'
        '[catalog.tiny-pdu]\nkind = "pdu"\nheight = "0 U"\ncapacity = "5 kW"\n'
        "outlets = { c13 = 1, c19 = 2 }\n"
        '[catalog.small]\nkind = "cpu-node"\nheight = "1 U"\npower = "300 W"\npsus = 1\n'
        'psu_inlet = "c14"\n'
        '[catalog.big]\nkind = "cpu-node"\nheight = "1 U"\npower = "2 kW"\npsus = 1\n'
        'psu_inlet = "c20"\n'
        '[[racks]]\nid = "r1"\n'
        'feeds = [{ id = "f1", voltage = "230 V", phases = 1, current = "16 A" }]\n'
        '[[racks.devices]]\nid = "pdu"\nmodel = "tiny-pdu"\n'
        + "".join(
            f'[[racks.devices]]\nid = "{name}"\nmodel = "{model}"\nposition = {u}\n'
            for name, model, u in (
                ("s1", "small", 1),
                ("s2", "small", 2),
                ("b1", "big", 3),
                ("s3", "small", 4),
            )
        )
    )
    analysis = Analysis(load_text(text))
    rows = {r[0]: r[7:] for r in power_rows(analysis)}
    assert rows == {
        "s1": ("c13", "c14", "C13-C14"),
        "s2": ("c19", "c14", "C13-C20"),
        "b1": ("c19", "c20", "C19-C20"),
        "s3": ("c13", "c14", "C13-C14"),
    }


def test_a_rack_fed_by_power_shelves_has_no_pdu_cords() -> None:
    """The NVL72 racks of the GB200 SU: 18 compute trays, 9 switch trays, 8 power shelves,
    a busbar, two SN2201s and a rear door, and no PDU. The shelves supply every tray and
    switch (DGX GB200 user guide): no cord rows; the network racks' switches have theirs."""
    layout = load_path(ROOT / "layouts" / "gb200-nvl72-su.toml")
    analysis = Analysis(layout)
    rows = power_rows(analysis)
    nvl_racks = {r.id for r in layout.racks if r.nvlink_domain}
    assert len(nvl_racks) == 8
    assert not [r for r in rows if r[1] in nvl_racks]
    assert rows and all(r[6] for r in rows)  # every cord has its PDU
