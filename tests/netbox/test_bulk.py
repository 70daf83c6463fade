"""The bulk-import rows: import order, NetBox 4.7's field names, and what each value is
made from. No NetBox runs here: the field names are the import forms' (bulk_import.py)."""

from __future__ import annotations

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
        "description weight weight_unit end_of_life owner comments tags interfaces power-ports",
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
    for cable in rows["cables"]:
        for side in ("a", "b"):
            device = devices[cable[f"side_{side}_device"]]
            names = {i["name"] for i in types[device["device_type"]].get("interfaces", [])}
            assert cable[f"side_{side}_name"] in names


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
            assert template.get("type") in (None, "iec-60320-c14", "iec-60320-c20")
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
