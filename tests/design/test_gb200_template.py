"""``rackdesigner new --template gb200-superpod --sus N`` (docs/rack-scale.md) and the
bundled one-SU layout it writes."""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from rackdesigner.analysis import Analysis
from rackdesigner.check.engine import check
from rackdesigner.cli.main import cli
from rackdesigner.design.generators import FabricRequest, GenerateError, generate
from rackdesigner.design.templates import TEMPLATES, NewOptions, build
from rackdesigner.layout_io import dumps, load_path
from rackdesigner.layout_io.catalog import for_layout
from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.model.layout import Layout
from tests.conftest import ROOT

BUNDLED = ROOT / "layouts" / "gb200-nvl72-su.toml"
COMMAND = "new layouts/gb200-nvl72-su.toml --template gb200-superpod --sus 1"


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout


def test_new_reproduces_the_bundled_layout_byte_for_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "layouts").mkdir()
    code, out = _run(*COMMAND.split())
    assert code == 0, out
    assert "validate: 0 errors" in out
    written = (tmp_path / "layouts" / "gb200-nvl72-su.toml").read_bytes()
    assert written == BUNDLED.read_bytes()


def test_the_header_calls_the_rail_generators_groups_of_trays_rail_groups_not_sus() -> None:
    """In an NVL72 hall an SU is NVIDIA's scalable unit of 8 racks (576 GPUs; DGX SuperPOD
    GB200 RA, docs/rack-scale.md), the bundled hall's one SU. The rail generator's groups are
    what a QM9700 leaf takes on half its 64 ports: 32 trays, so 144 trays make 5 rail groups
    (4 x 32 + 16) of one leaf a rail, 5 x 4 = 20 leaves; neither the header nor the leaves'
    labels may call those groups SUs. Servers keep the word (the H100 SuperPOD's 32-node SU)."""
    text = BUNDLED.read_text(encoding="utf-8")
    (fabric,) = [line for line in text.splitlines() if line.startswith("# Fabric:")]
    assert fabric.startswith("# Fabric: rail: 5 rail groups of 32 trays, 20 leaves, 11 spines;")
    assert "SU of" not in text
    leaves = re.findall(r'^label = "(.* rail \d+)"$', text, re.MULTILINE)
    assert len(leaves) == 20
    assert all(re.fullmatch(r"rail group [1-5] rail [1-4]", label) for label in leaves)
    layout = build(NewOptions(gpus=64, fabric="rail", storage=False)).layout
    generated = generate(layout, FabricRequest(replace=True, su_nodes=4))
    assert generated.notes[0].startswith("rail: 2 SU of 4 nodes, 16 leaves,")


def test_the_bundled_layout_validates_with_no_errors() -> None:
    code, out = _run("validate", "--format", "json", str(BUNDLED))
    document = json.loads(out)
    errors = [d for d in document["diagnostics"] if d["severity"] == "error"]
    assert code == 0 and not errors, errors
    assert not [d for d in document["diagnostics"] if d["code"].startswith("NVL")]


def _census(sus: int) -> tuple[dict[str, int], Counter[str], list]:
    built = build(NewOptions(template="gb200-superpod", sus=sus))
    catalog = for_layout(built.layout)
    models: Counter[str] = Counter()
    for rack in built.layout.racks:
        for device in rack.devices:
            models[device.model] += 1
    return built.plan.counts, models, [catalog, built]


def test_one_su_is_eight_nvl72_racks_of_one_domain_each() -> None:
    _counts, models, (catalog, built) = _census(1)
    layout = built.layout
    nvl = [r for r in layout.racks if r.nvlink_domain is not None]
    # DGX SuperPOD GB200 RA, Architecture: an SU is 8 DGX GB200 racks, 576 GPUs.
    assert len(nvl) == 8
    assert len({r.nvlink_domain for r in nvl}) == 8
    assert models["gb200-compute-tray"] == 8 * 18
    assert models["nvl72-switch-tray"] == 8 * 9
    assert models["nvl72-power-shelf"] == 8 * 8
    assert models["nvl72-busbar"] == 8
    assert sum(catalog.devices[m].gpus or 0 for m in models.elements()) == 576
    # N+1 CDUs for the row, every NVL72 rack on all three (837.6 kW of cold-plate heat:
    # test_each_sus_cdus_carry_its_loop_with_one_lost).
    cdus = [d.id for r in layout.racks for d in r.devices if d.model == "coolit-chx750"]
    assert len(cdus) == 3
    assert all(r.cdu == cdus for r in nvl)
    # Feeds on sides A and B, each side carrying the rack alone (PWR001 passes).
    assert all({f.side for f in r.feeds} == {"A", "B"} for r in nvl)


@pytest.mark.parametrize("template", ["gb200-superpod", "gb300-superpod"])
def test_the_air_side_is_built_not_a_threshold(template: str) -> None:
    """Issue 21: a template never writes a rule threshold to pass its own design. The
    residual air heat (the 15 % the cold plates leave, the switch trays) goes to each NVL72
    rack's rear door (v1.3), and COOL001 passes at its 15 kW default."""
    built = build(NewOptions(template=template, sus=2))
    layout = built.layout
    assert layout.rules is None or not layout.rules.thresholds
    nvl = [r for r in layout.racks if r.nvlink_domain is not None]
    catalog = for_layout(layout)
    for rack in nvl:
        door = next(d for d in rack.devices if d.id == rack.door)
        assert catalog.devices[door.model].kind == "rear-door"
    # Network racks the fabric added are air racks without a door.
    assert all(r.door is None for r in layout.racks if r.nvlink_domain is None)
    analysis = Analysis(layout)
    for rack in analysis.racks:
        if rack.rack.nvlink_domain is not None:
            assert rack.door_heat > 15e3 and rack.air_heat == 0.0
    _, diagnostics = check(layout, select=["COOL001", "COOL003", "COOL007", "COOL009"])
    assert [d for d in diagnostics if d.code.startswith("COOL")] == []


@pytest.mark.parametrize(
    ("template", "tray_power", "tray_liquid", "cdus"),
    [("gb200-superpod", 6667.0, 0.85, 3), ("gb300-superpod", 7678.0, 0.84, 3)],
)
def test_each_sus_cdus_carry_its_loop_with_one_lost(
    template: str, tray_power: float, tray_liquid: float, cdus: int
) -> None:
    """COOL009: an SU's cold-plate heat goes to its row's CDU loop; the rear doors' heat
    goes to chilled water, not to the CDUs. GB200: a rack's cold plates take 18 trays x
    6,667 W x 0.85 = 102,005 W and 9 switch trays x 400 W x 0.75 = 2,700 W, 104,705 W;
    8 racks are 837,641 W. One CHx750 takes 750 kW, so two carry the loop and a third is
    the spare (N+1): three CDUs (two, at the 5.4 kW trays of before, were 661 kW). GB300:
    18 x 7,678 W x 0.84 = 116,091 W + 2,700 W = 118,791 W a rack, 950,331 W an SU: three."""
    built = build(NewOptions(template=template, sus=2))
    loads = Analysis(built.layout).cdu_loads
    assert len(loads) == 2  # one loop a row
    for load in loads:
        assert len(load.cdus) == cdus
        assert load.heat == pytest.approx(8 * (18 * tray_power * tray_liquid + 9 * 400 * 0.75))
        assert load.capacity == pytest.approx(cdus * 750e3)
        assert load.margin is not None and load.margin > 0
    assert loads[0].heat == pytest.approx(
        837_640.8 if template == "gb200-superpod" else 950_330.9, abs=1.0
    )


@pytest.mark.parametrize("sus", [1, 2, 4])
def test_compute_fabric_counts_follow_the_ra(sus: int) -> None:
    """Every GPU has one 400G ConnectX-7 port on the compute fabric (DGX GB200 user guide:
    4 per tray), so node-leaf cables = GPUs; at 1:1 leaf-spine cables = node-leaf cables, as
    every DGX SuperPOD RA table gives them (B200, B300)."""
    counts, _, _ = _census(sus)
    gpus = sus * 576
    assert counts["node_leaf_cables"] == gpus
    assert counts["leaf_spine_cables"] == gpus
    assert counts["nodes"] == sus * 144
    # 32 trays a leaf on each of the 4 rails: ceil(144 sus / 32) groups x 4 rails.
    assert counts["leaves"] == -(-sus * 144 // 32) * 4


def test_sus_and_gpus_are_checked() -> None:
    with pytest.raises(GenerateError, match="--sus N, not --gpus"):
        build(NewOptions(template="gb200-superpod", gpus=576))
    with pytest.raises(GenerateError, match="--sus must be"):
        build(NewOptions(template="gb200-superpod", sus=0))


def test_gb300_template_uses_gb300_trays() -> None:
    assert "gb300-superpod" in TEMPLATES
    built = build(NewOptions(template="gb300-superpod", sus=1))
    trays = [d for r in built.layout.racks for d in r.devices if d.model == "gb300-compute-tray"]
    assert len(trays) == 144


def test_a_v1_layout_from_before_loads_and_writes_byte_identically() -> None:
    for name in ("training-128.toml", "inference-32-b200.toml"):
        path = ROOT / "layouts" / name
        assert dumps(load_path(path)) == path.read_text()


def _net001(layout: Layout) -> list[Diagnostic]:
    _, diagnostics = check(layout, select=["NET001"])
    return [d for d in diagnostics if d.code == "NET001"]


def test_net001_counts_gpus_that_talk_over_the_fabric() -> None:
    """An Ethernet fabric across 8 NVLink domains is NET001; the same fabric under one
    domain's trays only carries what NVLink already does, and is not."""
    layout = build(NewOptions(template="gb200-superpod", sus=1)).layout
    swap = {"gb200-compute-tray": "tray-eth", "qm9700": "sn5600"}
    for rack in layout.racks:
        for device in rack.devices:
            device.model = swap.get(device.model, device.model)
    base = for_layout(layout).devices["gb200-compute-tray"]
    ports = [replace(g, tech="ethernet") if g.name == "ib" else g for g in base.ports]
    layout.catalog["tray-eth"] = replace(base, key="tray-eth", ports=ports)
    assert _net001(layout)
    keep = {"a03"}
    dropped = {
        d.id
        for r in layout.racks
        if r.nvlink_domain is not None and r.id not in keep
        for d in r.devices
    }
    layout.racks = [r for r in layout.racks if r.nvlink_domain is None or r.id in keep]
    layout.links = [
        link
        for link in layout.links
        if link.a.split(":")[0] not in dropped and link.b.split(":")[0] not in dropped
    ]
    assert not _net001(layout)


def test_net007_gives_figures_inside_and_across_domains() -> None:
    layout = build(NewOptions(template="gb200-superpod", sus=1)).layout
    _, diagnostics = check(layout, select=["NET007"])
    (finding,) = [d for d in diagnostics if d.code == "NET007"]
    # NVLink 5: 1.8 TB/s both ways = 900 GB/s each way x 85 %.
    assert finding.values["intra"] == pytest.approx(900e9 * 8 * 0.85)
    assert finding.values["domains"] == 8 and finding.values["domain_gpus"] == 72
    # 72 x 400 Gbps of ports a domain x 85 % is above the NVLink figure: capped.
    assert finding.values["inter"] == pytest.approx(finding.values["intra"])
    assert "inside an NVLink domain" in finding.message
    assert "across NVLink domains" in finding.message


def test_network_racks_stand_among_the_nvl72_racks_so_tray_runs_stay_short() -> None:
    """Issue 24, buildable not noisy: with the network racks at the end of the row every
    tray-to-leaf run of the far racks was over 5 m (471 CAB001 warnings in one SU, 462 of
    them a tray's). Among the NVL72 racks each leaf sits beside the trays it serves: 11 of
    the 576 tray runs are over 5 m (5.3 m at most), and the rest CAB001 reports are
    leaf-to-spine runs across the row, which the RA cables on fibre anyway."""
    built = build(NewOptions(template="gb200-superpod", sus=1))
    row = [r.label or ("nvl72" if r.nvlink_domain else "") for r in built.layout.racks]
    assert row[:3] == ["CDU", "CDU", "CDU"]
    nvl = [k for k, label in enumerate(row) if label == "nvl72"]
    network = [k for k, label in enumerate(row) if label == "network rack"]
    assert len(nvl) == 8 and min(network) < max(nvl)  # not all at the end of the row
    _, diagnostics = check(built.layout, select=["CAB001"])
    over = [d for d in diagnostics if d.code == "CAB001"]
    trays = {d.id for r in built.layout.racks for d in r.devices if d.model.endswith("tray")}
    assert over  # leaf-spine runs across the row remain, and are reported
    tray_runs = [d for d in over if d.entity.split(" ", 1)[-1].split(":")[0] in trays]
    assert len(tray_runs) <= 11
    assert max(d.values["length"] for d in tray_runs) < 5.5
    # CAB001 is for compute links: the storage and management runs are not among them.
    assert len(over) == built.plan.long_runs


@pytest.mark.parametrize("sus", [1, 3])
def test_storage_and_management_networks_per_su(sus: int) -> None:
    """Per SU: 2 SN2201 management ToRs a rack (16) carrying the 44 management ports of each
    rack's trays, switch trays (BMC and COMe) and power shelves (352 cables), each with an
    uplink to each leaf of its rack's storage pair (32), and an SN2201 for each of the 3
    pairs of network racks side by side and one for the storage rack at the row's end (its
    parallel file system appliance's management port, v1.4), with two uplinks each to the
    storage spines (8); 8
    SN5600 storage / in-band leaves in 4 pairs, each tray's two BlueField-3 ports on the
    two leaves of its pair (288 cables). tests/design/test_nvl_networks.py checks the
    spines and the network racks."""
    layout = build(NewOptions(template="gb200-superpod", sus=sus)).layout
    models = Counter(d.model for r in layout.racks for d in r.devices)
    # The NVL72 racks' two ToRs take DC from their busbar; the network racks' one is AC.
    assert (models["sn2201-dc"], models["sn2201"]) == (16 * sus, 4 * sus)
    assert models["sn5600-storage"] == 8 * sus
    nvl = {d.id for r in layout.racks if r.nvlink_domain for d in r.devices}
    ends = [(link.a, link.b) for link in layout.links]
    bmc = [(a, b) for a, b in ends if a.split(":")[0] in nvl and ":mgmt" in b]
    storage = [(a, b) for a, b in ends if ":eth" in a]
    uplinks = [(a, b) for a, b in ends if ":up" in a]
    assert (len(bmc), len(storage), len(uplinks)) == (352 * sus, 288 * sus, 40 * sus)
    trays = [d.id for r in layout.racks for d in r.devices if d.model == "gb200-compute-tray"]
    leaves_of: dict[str, set[str]] = {}
    for a, b in storage:
        leaves_of.setdefault(a.split(":")[0], set()).add(b.split(":")[0])
    # Every tray on two leaves (no leaf a single point of failure), in its own row.
    assert sorted(leaves_of) == sorted(trays)
    assert all(len(leaves) == 2 for leaves in leaves_of.values())
    # Every management port is on a ToR of its own rack; each ToR carries 22.
    rack_of = {d.id: r.id for r in layout.racks for d in r.devices}
    assert all(rack_of[a.split(":")[0]] == rack_of[b.split(":")[0]] for a, b in bmc)
    per_tor = Counter(b.split(":")[0] for _, b in bmc)
    assert set(per_tor.values()) == {22}
    _, diagnostics = check(
        layout, select=["CAB003", "CAB004", "CAB005", "PLC001", "PLC003", "PLC007", "PLC009"]
    )
    assert [d for d in diagnostics if d.severity == "error"] == []
    assert [d.code for d in diagnostics if d.code.startswith(("CAB00", "PLC"))] == []


@pytest.mark.parametrize(
    "name", ["training-128", "inference-32-b200", "finetune-8gpu", "starter-4x-a6000"]
)
def test_layouts_from_before_v1_3_validate_byte_identically(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v1.3 (a liquid rack's rear door) changes nothing for a layout that does not use it:
    ``validate --format json`` gives the bytes the tree before it gave (b7610b3, the
    goldens in tests/data/validate/ were written by that tree; a later rule change that
    means to change these findings regenerates them with RACKDESIGNER_REGENERATE_GOLDEN=1)."""
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(
        cli, ["validate", f"layouts/{name}.toml", "--format", "json"], catch_exceptions=False
    )
    golden = ROOT / "tests" / "data" / "validate" / f"{name}.json"
    if os.environ.get("RACKDESIGNER_REGENERATE_GOLDEN"):
        # Only where a rule's change to these layouts' findings is intended: look at it.
        golden.write_text(result.stdout, encoding="utf-8")
    assert result.stdout == golden.read_text(encoding="utf-8")


def test_nvl72_racks_weigh_what_nvidia_gives_and_the_hall_states_the_floor_it_needs() -> None:
    """Each NVL72 rack declares its 1.36 t as built; with its rear door (90 kg) and two
    SN2201 ToRs it is 1,465 kg on 0.72 m², 2,034 kg/m², so the hall states the floor
    rating it needs (2,100 kg/m²) as it states its power budget, and PLC008 judges a
    floor rated for an ordinary hall (1,500 kg/m²) as the error it is."""
    layout = build(NewOptions(template="gb200-superpod", sus=1)).layout
    nvl = [rack for rack in layout.racks if rack.nvlink_domain]
    assert {float(rack.weight or 0) for rack in nvl} == {1360.0}
    assert layout.site is not None and float(layout.site.floor_load_max or 0) == 2100.0
    analysis, diagnostics = check(layout)
    assert not [d for d in diagnostics if d.code in ("PLC004", "PLC008")]
    from rackdesigner.analysis.weight import rack_weight

    weights = {rack_weight(r).carried for r in analysis.racks if r.rack.nvlink_domain}
    assert len(weights) == 1 and 1460 < weights.pop() < 1470
    layout.site.floor_load_max = 1500.0
    _, diagnostics = check(layout)
    floor = [d for d in diagnostics if d.code == "PLC008"]
    assert len(floor) == len(nvl) and all(d.severity == "error" for d in floor)
    assert "at least" not in floor[0].message


def _nvl_dc(template: str, **options: object) -> tuple[Layout, list]:
    from rackdesigner.analysis.rack_scale import rack_dc

    layout = build(NewOptions(template=template, sus=1, **options)).layout  # type: ignore[arg-type]
    analysis = Analysis(layout)
    return layout, [rack_dc(r) for r in analysis.racks if r.rack.nvlink_domain]


def test_nvl72_rack_dc_load_reproduces_nvidias_rack_figures() -> None:
    """GB200: NVIDIA DPS (latest) gives the compute tray maxLoadWatts 6,667 W: 18 x 6,667 =
    120,006 W (NVIDIA's ~120 kW rack, GTC 2024), + 9 switch trays x 400 W = 3,600 W + 2
    SN2201 ToRs on the busbar x 98 W = 196 W: 123,802 W, within 115-140 kW and under the
    132 kW reference design; 123,802 / 48 V = 2,579 A on the busbar. GB300: the NVL72 AI
    Factory RA's "up to 142 kW": 18 x 7,678 W (derived, (142,000 - 3,600 - 196) / 18) +
    3,600 + 196 = 142,000 W, 2,958 A at 48 V. The hall's budget follows: 8 GB200 racks of
    124,802 W (the DC load and the rear door's 1 kW) are 998.4 kW; with 3 CDU racks (6.04 kW
    each) and 6 network racks (76.5 kW) the SU draws 1,092.4 kW, and its budget (x 1.1, up
    to the next 10 kW) is 1,210 kW: the SuperPOD GB200 RA's 1.2 MW TDP an SU."""
    layout, dcs = _nvl_dc("gb200-superpod")
    assert {round(dc.load) for dc in dcs} == {123_802}
    assert all(115e3 <= dc.load <= 140e3 for dc in dcs)
    assert dcs[0].current == pytest.approx(123_802 / 48)
    assert layout.site is not None and float(layout.site.power_budget or 0) == 1_210e3
    _, dcs = _nvl_dc("gb300-superpod")
    assert {round(dc.load) for dc in dcs} == {142_000}


def test_gb300_racks_take_three_feed_sides_so_a_side_lost_leaves_enough_shelves() -> None:
    """A shelf has one AC input. GB300 at 142 kW on A and B would keep 4 shelves x 33 kW =
    132 kW with a side lost, below its load (PWR019); on A, B and C the 8 shelves are 3 + 3
    + 2 and any side lost leaves 5: 165 kW. Each shelf then delivers 142,000 / 5 = 28.4 kW;
    one 415 V 125 A feed a side (415 x 125 x 0.8 x sqrt 3 = 71.9 kW) would carry 3 shelves,
    85.2 kW, so two a side: 2 shelves, 56.8 kW, on each of A1, B1, C1, A2, B2, C2."""
    layout, _ = _nvl_dc("gb300-superpod")
    nvl = [r for r in layout.racks if r.nvlink_domain]
    assert all([f.side for f in r.feeds] == ["A", "B", "C", "A", "B", "C"] for r in nvl)
    assert all(float(f.current or 0) == 125.0 for r in nvl for f in r.feeds)
    _, diagnostics = check(layout, select=["PWR001", "PWR016", "PWR018", "PWR019"])
    assert [d for d in diagnostics if d.code.startswith("PWR")] == []


def test_a_480_v_hall_is_valid_with_its_network_racks_on_a_transformer() -> None:
    """480Y/277 V: the shelves take 277 V line-to-neutral on 480 V 100 A feeds (the largest
    standard North-American 480 V circuit: 480 x 100 x 0.8 x sqrt 3 = 66.5 kW); with a side
    lost each of the 4 shelves left delivers 123,802 / 4 = 30.95 kW, 2 a feed = 61.9 kW, so
    two feeds a side. The network racks' switches take 200-240 V, not 277 V: their racks
    are fed 208 V 3-phase from a 480-208 V transformer (circuits XFMR-...). No error, no
    PWR010 (before: 50 errors, PWR010 in every network rack and on the NVL72 racks'
    ToRs), no PWR015 (125 A is no 480 V standard)."""
    layout, _ = _nvl_dc("gb200-superpod", voltage=480.0, voltage_text="480 V")
    _, diagnostics = check(layout)
    assert [d for d in diagnostics if d.severity == "error"] == []
    assert not [d for d in diagnostics if d.code in ("PWR010", "PWR015", "PWR020")]
    nvl = [r for r in layout.racks if r.nvlink_domain]
    assert all(
        (float(f.voltage or 0), float(f.current or 0)) == (480.0, 100.0)
        for r in nvl
        for f in r.feeds
    )
    network = [r for r in layout.racks if r.label == "network rack"]
    assert network and all(
        float(f.voltage or 0) == 208.0 and (f.circuit or "").startswith("XFMR-")
        for r in network
        for f in r.feeds
    )


def test_a_supply_whose_largest_circuit_cannot_carry_a_shelf_is_refused() -> None:
    """208 V 3-phase: the largest standard circuit is 100 A, 208 x 100 x 0.8 x sqrt 3 =
    28.8 kW, and one shelf delivers 30.95 kW with a side lost: no feeding works."""
    with pytest.raises(GenerateError, match=r"a power shelf draws up to 31\.0 kW"):
        build(NewOptions(template="gb200-superpod", sus=1, voltage=208.0, voltage_text="208 V"))
