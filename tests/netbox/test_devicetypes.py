"""The devicetype-library mapping, file by file, without NetBox: the library's own files
(tests/data/netbox/devicetypes/, CC0) and a few broken ones."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rackdesigner.netbox.devicetypes import Flags, device_type, read_file, read_paths
from tests.conftest import ROOT
from tests.strategies import examples

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


# --- Files no library holds: bounded, one problem line each ----------------------------

_LAUGHS = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 10)}]\n" for n in range(1, 10)
)
_HEAD = "manufacturer: Acme\nmodel: Box\nslug: acme-box\nis_full_depth: true\n"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        # Nine levels of ten aliases: 10^9 nodes once expanded, 90 aliases in the file.
        (_HEAD + _LAUGHS + "u_height: *a9\n", "more than 100,000 values with its aliases expanded"),
        (
            _HEAD + "u_height: 1\ninterfaces: " + "[" * 500 + "]" * 500 + "\n",
            "nested more than 20 levels deep (line 6)",
        ),
        # libyaml stops at 1,000 levels itself (the pure-Python parser would recurse).
        (_HEAD + "u_height: 1\nx: " + "[" * 5000 + "]" * 5000 + "\n", "nesting depth"),
        (_HEAD + "u_height: 1\n" + "".join(f"k{n}: *x\n" for n in range(101)), "aliases"),
        (_HEAD + "u_height: .nan\n", "u_height: nan is not a number of rack units"),
        (_HEAD + "u_height: .inf\n", "u_height: inf is not a number of rack units"),
        (_HEAD + "u_height: 1\nmodule-bays: [psu1]\n", "module-bays: not a list of mappings"),
        (_HEAD + "u_height: 1\nmodule-bays: psu1\n", "module-bays: not a list of mappings"),
        (_HEAD + "u_height: 1\nweight: .nan\nweight_unit: kg\n", "weight: nan is not a number"),
        (_HEAD + "u_height: 1\nweight: 3\nweight_unit: [kg]\n", "weight_unit: a list is not"),
        (
            _HEAD + "u_height: 1\npower-ports: [{name: p, maximum_draw: .inf}]\n",
            "power-ports[0].maximum_draw: inf is not watts",
        ),
        (_HEAD + "u_height: " + "9" * 5000 + "\n", "a value cannot be read: Exceeds the limit"),
        (_HEAD + "u_height: {a: 1}\n", "u_height: a mapping is not a number of rack units"),
    ],
)
def test_a_hostile_file_is_one_problem_line(tmp_path: Path, text: str, said: str) -> None:
    path = tmp_path / "hostile.yaml"
    path.write_text(text)
    result = read_file(path)
    assert not result.ok
    assert len(result.problems) == 1, result.problems
    assert result.problems[0].startswith(f"{path}: ")
    assert said in result.problems[0], result.problems[0]
    assert len(result.problems[0]) < 300


def test_a_file_over_the_size_bound_is_not_read_whole(tmp_path: Path) -> None:
    """9 MB of interfaces (the 8.7 MB file took over a minute): refused after reading
    1 MiB and a byte."""
    path = tmp_path / "huge.yaml"
    item = "  - {name: eth1, type: 25gbase-x-sfp28}\n"
    path.write_text(_HEAD + "u_height: 1\ninterfaces:\n" + item * (9_000_000 // len(item)))
    (problem,) = read_file(path).problems
    assert problem == (
        f"{path}: more than 1 MiB: not a device type (the library's largest is about 11 KB)"
    )


def test_a_device_is_read_within_the_bound() -> None:
    """A device (or a FIFO) is read only up to the bound, never to its end."""
    problems = read_file("/dev/zero").problems
    assert problems == [
        "/dev/zero: more than 1 MiB: not a device type (the library's largest is about 11 KB)"
    ]


def test_the_library_s_own_files_are_far_inside_the_bounds() -> None:
    """The bundled library files pass the checks untouched (the bounds' margins are in
    rackdesigner/netbox/yaml_bounds.py: 1 MiB against 11 KB, 20 levels against 3, 100
    aliases against none)."""
    for path in sorted(LIBRARY.rglob("*.yaml")):
        assert read_file(path).ok, path


_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=8)
    | st.sampled_from(["psu1", "kg", "iec-60320-c14", "25gbase-x-sfp28", "front-to-rear"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["name", "type", "maximum_draw", "mgmt_only"]), inner)
    ),
    max_leaves=8,
)
_KEYS = [
    "manufacturer", "model", "slug", "u_height", "is_full_depth", "weight", "weight_unit",
    "airflow", "part_number", "power-ports", "power-outlets", "module-bays", "interfaces",
]  # fmt: skip


@settings(max_examples=examples(300), deadline=None)
@given(st.dictionaries(st.sampled_from(_KEYS), _VALUES), st.sampled_from([None, "pdu", "switch"]))
def test_any_shape_under_the_library_s_keys_is_problems_never_an_exception(data, kind) -> None:
    """Whatever a YAML file (or a pulled NetBox type) puts under the keys the import reads:
    an entry, notes and problems, never an exception."""
    entry, _, problems = device_type({**MINIMAL, **data}, "f.yaml", Flags(kind=kind))
    assert entry is not None or problems
    assert all(line.startswith("f.yaml: ") for line in problems)
