"""The devicetype-library mapping, file by file, without NetBox: the library's own files
(tests/data/netbox/devicetypes/, CC0) and a few broken ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from rackdesigner.netbox.devicetypes import Flags, device_type, read_file, read_paths
from tests.conftest import ROOT

LIBRARY = ROOT / "tests/data/netbox/devicetypes"
BAD = ROOT / "tests/data/netbox/bad"
MINIMAL = {"manufacturer": "Acme", "model": "Box", "slug": "acme-box", "u_height": 1}


def _entry(data: dict, flags: Flags | None = None):
    entry, notes, problems = device_type(
        {**MINIMAL, "is_full_depth": True, **data}, "f.yaml", flags or Flags()
    )
    assert problems == []
    assert entry is not None
    return entry, notes


def test_a_gpu_server_with_power_ports() -> None:
    result = read_file(
        LIBRARY / "Nvidia/DGC-A100.yaml", Flags(kind="gpu-node", gpu="a100-sxm", gpus=8)
    )
    assert result.ok, result.problems
    entry = result.entry
    assert entry is not None
    assert (entry.key, entry.name, entry.vendor) == (
        "nvidia-dgx-a100-640gb",
        "NVIDIA DGX A100 640GB",  # the model names its maker already
        "Nvidia",
    )
    assert (entry.kind, entry.gpu, entry.gpus) == ("gpu-node", "a100-sxm", 8)
    assert entry.height == 6 and entry.depth == "full"
    assert entry.power == 2 * 1071  # the sum of the ports' maximum_draw
    assert entry.psus == 2 and entry.psu_inlet == "c14" and entry.psus_required is None
    assert "allocated_draw sums to 1172 W" in result.notes
    assert any("psus_required unset" in n for n in result.notes)
    assert "DGXA-G640F+P2EDI36" in (entry.source or "")
    groups = [(g.name, g.count, g.speed, g.tech, g.role) for g in entry.ports or ()]
    assert groups == [
        ("ethernet", 28, 100e9, None, None),
        ("ethernet-qsfp", 8, 400e9, None, None),
        ("mgmt", 1, 1e9, "ethernet", "management"),
    ]


def test_an_infiniband_switch_takes_its_tech_from_the_flag() -> None:
    result = read_file(LIBRARY / "Nvidia/QM9700.yaml", Flags(kind="switch", tech="infiniband"))
    assert result.ok
    entry = result.entry
    assert entry is not None
    assert entry.weight == pytest.approx(14.8)
    assert entry.airflow == "rear-to-front"
    assert [(g.name, g.count, g.speed, g.tech) for g in entry.ports or ()] == [
        ("osfp", 62, 400e9, "infiniband")  # the library's file lists 62 of the 64 ports
    ]
    assert "no maximum_draw: power unset" in result.notes


def test_unknown_things_stay_unset_with_a_note() -> None:
    result = read_file(LIBRARY / "Nvidia/SN5600.yaml")
    entry = result.entry
    assert result.ok and entry is not None
    assert entry.kind is None and entry.psus is None and entry.power is None
    swp = entry.port_group("swp")
    assert swp is not None and swp.count == 64 and swp.speed == 800e9 and swp.tech is None
    assert any("pass --kind" in n for n in result.notes)
    assert any("pass --tech" in n for n in result.notes)
    assert any("module bays (2)" in n for n in result.notes)
    assert entry.notes is not None and entry.notes.startswith("Imported from NetBox: ")


def test_a_zero_u_pdu() -> None:
    result = read_file(LIBRARY / "APC/AP8886.yaml")
    entry = result.entry
    assert result.ok and entry is not None
    assert entry.kind == "pdu" and entry.height == 0 and entry.depth is None
    assert entry.outlets == {"c13": 30, "c19": 12}
    assert entry.psus is None


def test_a_server_whose_psus_are_module_bays() -> None:
    result = read_file(LIBRARY / "Supermicro/SYS-421GE-TNRT.yaml", Flags(kind="gpu-node"))
    entry = result.entry
    assert result.ok and entry is not None
    assert entry.name == "Supermicro SuperServer SYS-421GE-TNRT"
    assert [(g.name, g.count, g.role) for g in entry.ports or ()] == [
        ("bmc", 1, "management"),
        ("gig-e", 2, None),
    ]
    assert any("GPU model and count unset" in n for n in result.notes)


@pytest.mark.parametrize(
    ("unit", "weight", "kg"),
    [("kg", 14.8, 14.8), ("g", 500, 0.5), ("lb", 10, 4.5359237), ("oz", 16, 0.45359237)],
)
def test_weight_units(unit: str, weight: float, kg: float) -> None:
    entry, _ = _entry({"weight": weight, "weight_unit": unit})
    assert entry.weight == pytest.approx(kg)


@pytest.mark.parametrize(
    ("airflow", "kept"),
    [
        ("front-to-rear", "front-to-rear"),
        ("rear-to-front", "rear-to-front"),
        ("passive", "passive"),
        ("left-to-right", None),
        ("mixed", None),
    ],
)
def test_airflow(airflow: str, kept: str | None) -> None:
    entry, notes = _entry({"airflow": airflow})
    assert entry.airflow == kept
    assert (kept is None) == any("airflow" in n for n in notes)


def test_half_depth_and_flags() -> None:
    entry, _ = _entry(
        {"is_full_depth": False, "power-ports": [{"name": "a"}, {"name": "b"}]},
        Flags(kind="cpu-node", liquid_fraction=0.5, psus_required=1),
    )
    assert entry.depth == "half" and entry.liquid_fraction == 0.5
    assert entry.psus == 2 and entry.psus_required == 1


@pytest.mark.parametrize(
    ("data", "line"),
    [
        ({"u_height": 0.5}, "f.yaml: u_height: 0.5 U: rackdesigner places whole rack units"),
        ({"u_height": "two"}, "f.yaml: u_height: 'two' is not a number of rack units"),
        ({"weight": 3}, "f.yaml: weight_unit: weight and weight_unit go together"),
        ({"weight": 3, "weight_unit": "st"}, "f.yaml: weight_unit: 'st' is not kg, g, lb or oz"),
        (
            {"interfaces": [{"name": "x", "type": "gpon"}]},
            "f.yaml: interfaces[0].type: unknown interface type 'gpon'",
        ),
        ({"interfaces": [{"name": "x"}]}, "f.yaml: interfaces[0].type: missing"),
        (
            {"power-ports": [{"name": "p", "maximum_draw": -1}]},
            "f.yaml: power-ports[0].maximum_draw: -1 is not watts",
        ),
    ],
)
def test_problems_name_the_file_and_the_key(data: dict, line: str) -> None:
    _, _, problems = device_type({**MINIMAL, "is_full_depth": True, **data}, "f.yaml", Flags())
    assert problems == [line]


@pytest.mark.parametrize("key", ["manufacturer", "model", "slug", "u_height"])
def test_required_keys(key: str) -> None:
    data = {k: v for k, v in MINIMAL.items() if k != key}
    entry, _, problems = device_type(data, "f.yaml", Flags())
    assert entry is None
    assert problems == [f"f.yaml: {key}: missing (the library's schema requires it)"]


def test_virtual_interfaces_are_skipped() -> None:
    entry, _ = _entry(
        {"interfaces": [{"name": "lag1", "type": "lag"}, {"name": "bond0", "type": "virtual"}]}
    )
    assert entry.ports is None


def test_a_folder_recurses_and_bad_files_do_not_stop_the_others(tmp_path: Path) -> None:
    results = read_paths([ROOT / "tests/data/netbox"])
    ok = sorted(r.entry.key for r in results if r.ok and r.entry)
    assert ok == [
        "ap8886",
        "nvidia-dgx-a100-640gb",
        "nvidia-qm9700",
        "nvidia-sn5600",
        "supermicro-sys-421ge-tnrt",
    ]
    problems = [p for r in results for p in r.problems]
    assert len(problems) == 3
    assert any(p.startswith(f"{BAD / 'broken.yaml'}: bad YAML: line 5") for p in problems)
    assert f"{BAD / 'missing.yaml'}: model: missing (the library's schema requires it)" in problems


def test_a_slug_twice_is_a_problem(tmp_path: Path) -> None:
    for name in ("a.yaml", "b.yaml"):
        (tmp_path / name).write_text(
            "manufacturer: Acme\nmodel: Box\nslug: acme-box\nu_height: 1\nis_full_depth: true\n",
            encoding="utf-8",
        )
    first, second = read_paths([tmp_path])
    assert first.ok and not second.ok
    assert second.problems == [
        f"{tmp_path / 'b.yaml'}: slug: 'acme-box' is also in {tmp_path / 'a.yaml'}"
    ]
