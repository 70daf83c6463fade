"""``report`` per NVLink domain (docs/rack-scale.md): GPUs, power shelves and margin,
busbar current, liquid/air split, nccl-tests figures inside and across domains."""

from __future__ import annotations

import csv
import io
import json

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.layout_io import load_path
from rackdesigner.report.report import build, to_csv, to_json, to_text
from tests.conftest import ROOT

SU = ROOT / "layouts" / "gb200-nvl72-su.toml"


@pytest.fixture(scope="module")
def report() -> dict:
    return build(Analysis(load_path(SU)))


def test_json_has_one_entry_per_domain(report: dict) -> None:
    domains = json.loads(to_json(report))["domains"]
    # The bundled SU: 3 CDU racks, then NVL72 racks in pairs with two network racks between
    # (docs/rack-scale.md).
    nvl = [4, 5, 8, 9, 12, 13, 16, 17]
    assert [d["domain"] for d in domains] == [f"nvl-a{k:02d}" for k in nvl]
    d = domains[0]
    assert d["shape"] == "NVL72" and d["racks"] == ["a04"]
    assert (d["gpus"], d["compute_trays"], d["switch_trays"]) == (72, 18, 9)
    # On the busbar: 18 x 6,667 W trays (NVIDIA DPS) + 9 x 400 W switch trays + 2 x 98 W
    # SN2201 ToRs = 123,802 W.
    dc = 18 * 6_667 + 9 * 400 + 2 * 98
    assert d["dc_load"] == pytest.approx(dc)
    # 8 shelves of 6 x 5.5 kW; one lost leaves 7 x 33 kW.
    assert d["power_shelves"] == 8
    assert d["shelf_capacity_one_lost"] == pytest.approx(231_000)
    assert d["shelf_margin_one_lost"] == pytest.approx(231_000 - dc)
    assert d["busbar_current"] == pytest.approx(dc / 48)
    assert d["busbar_rating"] == pytest.approx(2_900)
    # NVLink 5: 900 GB/s each way x 85 %, in bit/s; across domains capped at it.
    assert d["allreduce_inside"] == pytest.approx(900e9 * 8 * 0.85)
    assert d["allreduce_across"] == pytest.approx(d["allreduce_inside"])
    assert (d["allreduce_inside_np"], d["allreduce_across_np"]) == (72, 576)


def test_the_domains_heat_split_is_the_cooling_tables(report: dict) -> None:
    """One split, the analysis': cold plates take 18 x 6,667 W x 0.85 + 9 x 400 W x 0.75 =
    104,705 W to the CDU loop; the rest of the rack's 124,802 W (its DC load and the rear
    door's 1 kW of fans) is 20,097 W of air, all of it through the door's coil (75 kW) to
    chilled water, none to the room: the cooling table's liquid, rear door and air
    columns, not "100 % liquid"."""
    d = json.loads(to_json(report))["domains"][0]
    rack = next(r for r in report["cooling"]["racks"] if r["rack"] == "a04")
    assert d["liquid_heat"] == pytest.approx(104_705.1)
    assert d["door_heat"] == pytest.approx(124_802 - 104_705.1)
    assert d["air_heat"] == 0.0
    assert (d["liquid_heat"], d["door_heat"], d["air_heat"]) == pytest.approx(
        (rack["liquid_heat"], rack["door_heat"], rack["air_heat"])
    )
    assert d["liquid_share"] == pytest.approx(104_705.1 / 124_802)


def test_text_groups_domains_alike(report: dict) -> None:
    text = to_text(report)
    assert "NVLink domains: 8 domains" in text
    assert "8 domains alike, nvl-a04 to nvl-a17: 72 GPUs" in text
    assert "busbar 2.58 kA of 2.9 kA" in text
    assert "nccl-tests busbw: 765 GB/s inside (-np 72), 765 GB/s across domains (-np 576)" in text
    assert "105 kW to liquid (cold plates, the CDU loop: 84%), 20.1 kW through the rear door" in (
        text
    )


def test_one_acceptance_figure_per_test(report: dict) -> None:
    """The GB200 report gave 170 GB/s in the network section (a 4-GPU tray taken as the
    node, "across 5 scalable units") and 765 GB/s in the NVLink-domain section and NET007.
    Now one function (acceptance_tests) gives each run its figure: -np 72, one domain,
    900 GB/s x 85 % = 765 GB/s; -np 576, the SU, 72 x 400 Gbps = 3.6 TB/s of fabric ports
    x 85 % = 3.06 TB/s a domain, capped at the 765 GB/s inside. NVIDIA's SU is 8 racks: 1."""
    from rackdesigner.check.engine import check

    (fabric,) = report["network"]["fabrics"]
    runs = {r["np"]: r for r in fabric["acceptance_tests"]}
    assert sorted(runs) == [72, 576]
    assert all(r["expected_busbw"] == pytest.approx(900e9 * 8 * 0.85) for r in runs.values())
    assert runs[72]["command"].startswith("mpirun --hostfile hostfile -np 72 all_reduce_perf")
    assert fabric["scalable_units"] == 1 and fabric["allreduce_intra_node"] is None
    assert fabric["nccl_test"]["expected_busbw"] == runs[576]["expected_busbw"]
    d = report["domains"][0]
    assert (d["allreduce_inside"], d["allreduce_across"]) == (
        runs[72]["expected_busbw"],
        runs[576]["expected_busbw"],
    )
    _, diagnostics = check(load_path(SU), select=["NET007"])
    (net007,) = [x for x in diagnostics if x.code == "NET007"]
    assert net007.values["intra"] == runs[72]["expected_busbw"]
    assert net007.values["inter"] == runs[576]["expected_busbw"]
    text = to_text(report)
    assert "170 GB/s" not in text and "scalable units" not in text


def test_csv_rows(report: dict) -> None:
    rows = [r for r in csv.reader(io.StringIO(to_csv(report))) if r[0] == "domains"]
    assert ["domains", "nvl-a04", "gpus", "72", ""] in rows


def test_layouts_without_domains_have_no_domains_section() -> None:
    plain = build(Analysis(load_path(ROOT / "layouts" / "training-128.toml")))
    assert "domains" not in plain
    assert "NVLink domains" not in to_text(plain)
