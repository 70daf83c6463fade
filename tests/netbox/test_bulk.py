"""The bulk-import rows: import order, NetBox 4.7's field names, and what each value is
made from. No NetBox runs here: the field names are the import forms' (bulk_import.py)."""

from __future__ import annotations

from collections import Counter

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.layout_io.reader import load_path
from rackdesigner.netbox.bulk import OBJECT_TYPES, bulk_rows, cable_type, slugify
from tests.conftest import ROOT

# Each import form's Meta.fields in NetBox 4.7 (netbox/dcim/forms/bulk_import.py, branch
# feature d7f79bd5); device types: DeviceTypeImportForm's plus the component lists the
# device type import reads (dcim/views.py DeviceTypeImportView.related_object_forms).
FORM_FIELDS = {
    kind: set(names.split())
    for kind, names in {
        "manufacturers": "name slug description owner comments tags",
        "device-types": "manufacturer default_platform model slug part_number u_height "
        "exclude_from_utilization is_full_depth subdevice_role airflow cooling_method "
        "description weight weight_unit end_of_life owner comments tags interfaces power-ports "
        "power-outlets",
        "device-roles": "name slug parent color vm_role config_template description owner "
        "comments tags",
        "sites": "name slug status region group tenant facility time_zone description "
        "physical_address shipping_address latitude longitude owner comments tags",
        "racks": "site location group name facility_id tenant status role rack_type "
        "form_factor serial asset_tag width u_height desc_units outer_width outer_height "
        "outer_depth outer_unit mounting_depth airflow cooling_capability cooling_capacity "
        "weight max_weight weight_unit description owner comments tags",
        "power-panels": "site location name description owner comments tags",
        "power-feeds": "site power_panel location rack name status type mark_connected supply "
        "phase voltage amperage max_utilization tenant description owner comments tags",
        "devices": "name role tenant manufacturer device_type platform serial asset_tag status "
        "site location rack position face latitude longitude parent device_bay airflow "
        "cooling_method virtual_chassis vc_position vc_priority cluster description "
        "config_template owner comments tags",
        "interfaces": "device name label parent bridge lag type channels channel_id speed "
        "duplex enabled mark_connected wwn vdcs mtu mgmt_only description poe_mode poe_type "
        "mode vlan_group untagged_vlan tagged_vlans qinq_svlan vrf rf_role rf_channel "
        "rf_channel_frequency rf_channel_width tx_power owner tags",
        "power-outlets": "device name label type color mark_connected power_port feed_leg "
        "description owner tags",
        "cables": "side_a_site side_a_device side_a_power_panel side_a_type side_a_name "
        "side_b_site side_b_device side_b_power_panel side_b_type side_b_name type status "
        "profile tenant bundle label color length length_unit description owner comments tags",
    }.items()
}
# Fields the forms require (no required=False, no model default).
REQUIRED = {
    "manufacturers": {"name", "slug"},
    "device-types": {"manufacturer", "model", "slug"},
    "device-roles": {"name", "slug"},
    "sites": {"name", "slug", "status"},
    "racks": {"site", "name", "status", "width", "u_height"},
    "power-panels": {"site", "name"},
    "power-feeds": {"site", "power_panel", "name", "status", "type", "supply", "phase"},
    "devices": {"role", "manufacturer", "device_type", "status", "site"},
    "interfaces": {"device", "name", "type"},
    "power-outlets": {"device", "name"},
    "cables": {"side_a_type", "side_a_name", "side_b_type", "side_b_name"},
}


@pytest.fixture(scope="module")
def rows() -> dict[str, list[dict]]:
    analysis = Analysis(load_path(ROOT / "layouts" / "training-128.toml"))
    out = bulk_rows(analysis)
    assert [name for name, _ in out] == list(OBJECT_TYPES)
    return dict(out)


@pytest.mark.parametrize("kind", OBJECT_TYPES)
def test_fields_are_the_import_forms(rows: dict[str, list[dict]], kind: str) -> None:
    for row in rows[kind]:
        assert set(row) <= FORM_FIELDS[kind], set(row) - FORM_FIELDS[kind]
        assert REQUIRED[kind] <= set(row), REQUIRED[kind] - set(row)


def test_every_reference_names_an_earlier_row(rows: dict[str, list[dict]]) -> None:
    manufacturers = {r["name"] for r in rows["manufacturers"]}
    models = {r["model"] for r in rows["device-types"]}
    roles = {r["name"] for r in rows["device-roles"]}
    sites = {r["name"] for r in rows["sites"]}
    racks = {r["name"] for r in rows["racks"]}
    panels = {r["name"] for r in rows["power-panels"]}
    assert {r["manufacturer"] for r in rows["device-types"]} <= manufacturers
    for feed in rows["power-feeds"]:
        assert feed["site"] in sites and feed["rack"] in racks and feed["power_panel"] in panels
    for device in rows["devices"]:
        assert device["device_type"] in models and device["role"] in roles
        assert device["rack"] in racks and device["manufacturer"] in manufacturers
    devices = {r["name"]: r for r in rows["devices"]}
    types = {r["model"]: r for r in rows["device-types"]}
    feeds = {(r["power_panel"], r["name"]) for r in rows["power-feeds"]}
    extra_outlets = {(r["device"], r["name"]) for r in rows["power-outlets"]}
    components = {
        "dcim.interface": "interfaces",
        "dcim.powerport": "power-ports",
        "dcim.poweroutlet": "power-outlets",
    }
    kinds = set()
    for cable in rows["cables"]:
        for side in ("a", "b"):
            kind = cable[f"side_{side}_type"]
            kinds.add(kind)
            name = cable[f"side_{side}_name"]
            if kind == "dcim.powerfeed":
                assert (cable[f"side_{side}_power_panel"], name) in feeds
                assert cable[f"side_{side}_site"] in sites
                continue
            device = devices[cable[f"side_{side}_device"]]
            templates = types[device["device_type"]].get(components[kind], [])
            names = {t["name"] for t in templates}
            assert name in names or (device["name"], name) in extra_outlets, (kind, name)
    # training-128: data cables, PSU cords to outlets, feeds to PDUs
    assert kinds == {"dcim.interface", "dcim.powerport", "dcim.poweroutlet", "dcim.powerfeed"}


def test_values(rows: dict[str, list[dict]]) -> None:
    feed = rows["power-feeds"][0]
    assert feed["phase"] == "three-phase" and feed["voltage"] == 415
    assert feed["amperage"] == 32 and feed["max_utilization"] == 80
    assert {r["status"] for kind in ("racks", "devices", "power-feeds") for r in rows[kind]} == {
        "planned"
    }
    zero_u = [d for d in rows["devices"] if "position" not in d]
    assert zero_u and all("face" not in d for d in zero_u)
    mounted = [d for d in rows["devices"] if "position" in d]
    assert all(d["face"] in ("front", "rear") for d in mounted)
    assert all(c["length_unit"] == "m" for c in rows["cables"] if "length" in c)


@pytest.mark.parametrize(
    ("media", "grade", "expected"),
    [
        ("dac", None, "dac-passive"),
        ("acc", None, "dac-active"),
        ("aoc", None, "aoc"),
        ("mmf", "om4", "mmf-om4"),
        ("mmf", None, "mmf"),
        ("smf", "os2", "smf-os2"),
        ("smf", None, "smf"),
        ("copper-rj45", None, None),
    ],
)
def test_cable_types(media: str, grade: str | None, expected: str | None) -> None:
    assert cable_type(media, grade) == expected


def test_slugify() -> None:
    assert slugify("Training cluster: 128 x H100") == "training-cluster-128-x-h100"
    assert slugify("dgx-h100") == "dgx-h100"
    assert slugify("!!!") == "unnamed"


# The component template import forms (netbox/dcim/forms/object_import.py, 4.7).
TEMPLATE_FIELDS = {
    "interfaces": {
        "name",
        "label",
        "type",
        "channels",
        "channel_id",
        "enabled",
        "mgmt_only",
        "description",
        "poe_mode",
        "poe_type",
        "rf_role",
    },
    "power-ports": {"name", "label", "type", "maximum_draw", "allocated_draw", "description"},
    "power-outlets": {"name", "label", "type", "power_port", "feed_leg", "description"},
}


def test_device_type_templates_take_the_template_forms_fields(
    rows: dict[str, list[dict]],
) -> None:
    seen = set()
    for device_type in rows["device-types"]:
        for kind, fields in TEMPLATE_FIELDS.items():
            for template in device_type.get(kind, []):
                assert set(template) <= fields and "name" in template
                seen.add(kind)
        for template in device_type.get("power-ports", []):
            assert template.get("type") in (None, "iec-60320-c14", "iec-60320-c20", "hardwired")
        for template in device_type.get("power-outlets", []):
            assert template["type"] in ("iec-60320-c13", "iec-60320-c19")
            assert template["power_port"] in {p["name"] for p in device_type["power-ports"]}
            if "maximum_draw" in template:
                assert template["maximum_draw"] >= template["allocated_draw"]
    assert seen == set(TEMPLATE_FIELDS)


def test_an_imported_library_type_exports_its_ports() -> None:
    from rackdesigner.model.layout import Device
    from rackdesigner.netbox.devicetypes import Flags, read_file

    library = ROOT / "tests/data/netbox/devicetypes/Nvidia/QM9700.yaml"
    entry = read_file(library, Flags(kind="switch", tech="infiniband")).entry
    assert entry is not None
    layout = load_path(ROOT / "layouts" / "finetune-8gpu.toml")
    layout.catalog[entry.key] = entry
    layout.racks[0].devices.append(Device("ib-switch", entry.key, position=40))
    out = dict(bulk_rows(Analysis(layout)))
    row = next(r for r in out["device-types"] if r["slug"] == "nvidia-qm9700")
    assert row["manufacturer"] == "Nvidia" and row["model"] == "Nvidia QM9700"
    assert row["u_height"] == 1 and row["airflow"] == "rear-to-front"
    assert row["weight"] == 14.8 and row["weight_unit"] == "kg"
    assert [i["name"] for i in row["interfaces"]][:2] == ["osfp1", "osfp2"]
    assert {i["type"] for i in row["interfaces"]} == {"infiniband-ndr"}
    assert len(row["power-ports"]) == 2 and "maximum_draw" not in row["power-ports"][0]
    device = next(d for d in out["devices"] if d["name"] == "ib-switch")
    assert device["device_type"] == "Nvidia QM9700" and device["role"] == "Switch"
    assert device["position"] == 40 and device["face"] == "front"


# -- power: PSU cords to PDU outlets, feeds to what they feed ------------------------------


def _power(layout: str) -> tuple[list[dict], list[dict], dict[str, list[dict]]]:
    rows = dict(bulk_rows(Analysis(load_path(ROOT / "layouts" / layout))))
    cords = [c for c in rows["cables"] if c["side_a_type"] == "dcim.powerport"]
    feeds = [c for c in rows["cables"] if c["side_a_type"] == "dcim.powerfeed"]
    return cords, feeds, rows


def test_training_cords_land_on_distinct_outlets_of_their_type() -> None:
    """training-128: the power-cord schedule's 94 cords (68 C19-C20, 26 C13-C14) are 94
    power cables, each on its own outlet of the type its inlet takes, within the AP8886's
    30 C13 and 12 C19; its 22 PDUs each take their feed's cable on their inlet."""
    cords, feeds, _ = _power("training-128.toml")
    assert len(cords) == 94 and all(c["type"] == "power" for c in cords)
    outlets = [(c["side_b_device"], c["side_b_name"]) for c in cords]
    assert len(set(outlets)) == 94
    kinds = Counter(name.split("-")[0] for _, name in outlets)
    assert kinds == {"C19": 68, "C13": 26}
    for _, name in outlets:
        kind, number = name.split("-")
        assert 1 <= int(number) <= {"C13": 30, "C19": 12}[kind]
    assert len(feeds) == 22
    assert {c["side_b_name"] for c in feeds} == {"Inlet"}
    assert len({(c["side_a_power_panel"], c["side_a_name"]) for c in feeds}) == 22


def test_a_pdu_type_without_outlet_counts_gets_the_outlets_its_cords_need() -> None:
    """inference-32-b200: its 63 A PDUs' outlets are not known (no SKU), so each PDU device
    gets one outlet per cord on it: 38 outlets for 38 cords (24 C19 for the DGX B200s'
    C20 inlets, 14 C13 for the switches and doors)."""
    cords, _, rows = _power("inference-32-b200.toml")
    outlets = rows["power-outlets"]
    assert len(outlets) == len(cords) == 38
    assert {(o["device"], o["name"]) for o in outlets} == {
        (c["side_b_device"], c["side_b_name"]) for c in cords
    }
    assert Counter(o["type"] for o in outlets) == {"iec-60320-c19": 24, "iec-60320-c13": 14}
    assert {o["power_port"] for o in outlets} == {"Inlet"}


def test_power_shelves_take_their_feeds_and_busbar_trays_no_cord() -> None:
    """gb200-nvl72-su: 8 NVL72 racks of 4 feeds and 8 power shelves; NetBox's power feed
    takes one cable, so 4 shelves a rack (32) are cabled on their AC input; no tray or
    switch tray has a cord (DC from the busbar)."""
    cords, feeds, rows = _power("gb200-nvl72-su.toml")
    shelves = [c for c in feeds if c["side_b_name"] == "AC input"]
    assert len(shelves) == 32
    devices = {d["name"]: d for d in rows["devices"]}
    assert not [c for c in cords if "tray" in devices[c["side_a_device"]]["device_type"].lower()]


def test_a_hardwired_device_takes_a_feed_no_pdu_uses() -> None:
    """A rack with two feeds, one PDU and a hardwired CDU: the PDU's inlet on the first
    feed (round-robin), the CDU's "Input" (NetBox type hardwired) on the second."""
    from rackdesigner.layout_io import load_text

    text = (
        'format = 1\nname = "hw"\n[[racks]]\nid = "r1"\nfeeds = [\n'
        '  { id = "f1", side = "A", voltage = "415 V", phases = 3, current = "32 A" },\n'
        '  { id = "f2", side = "B", voltage = "415 V", phases = 3, current = "32 A" },\n]\n'
        '[[racks.devices]]\nid = "pdu"\nmodel = "pdu-3ph-415v-32a"\n'
        '[[racks.devices]]\nid = "cdu"\nmodel = "coolit-chx80"\nposition = 1\n'
        '[catalog.coolit-chx80]\npsu_inlet = "hardwired"\n'
    )
    rows = dict(bulk_rows(Analysis(load_text(text))))
    feeds = {c["side_a_name"]: (c["side_b_device"], c["side_b_name"]) for c in rows["cables"]}
    assert feeds == {"f1": ("pdu", "Inlet"), "f2": ("cdu", "Input")}
    (cdu,) = [t for t in rows["device-types"] if t["slug"] == "coolit-chx80"]
    assert cdu["power-ports"] == [{"name": "Input", "type": "hardwired", "maximum_draw": 1500}]
