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
    # The bundled SU: NVL72 racks in pairs with two network racks between (docs/rack-scale.md).
    nvl = [3, 4, 7, 8, 11, 12, 15, 16]
    assert [d["domain"] for d in domains] == [f"nvl-a{k:02d}" for k in nvl]
    d = domains[0]
    assert d["shape"] == "NVL72" and d["racks"] == ["a03"]
    assert (d["gpus"], d["compute_trays"], d["switch_trays"]) == (72, 18, 9)
    # 18 x 5.4 kW trays + 9 x 400 W switch trays on the busbar.
    assert d["dc_load"] == pytest.approx(100_800)
    # 8 shelves of 6 x 5.5 kW; one lost leaves 7 x 33 kW.
    assert d["power_shelves"] == 8
    assert d["shelf_capacity_one_lost"] == pytest.approx(231_000)
    assert d["shelf_margin_one_lost"] == pytest.approx(231_000 - 100_800)
    assert d["busbar_current"] == pytest.approx(100_800 / 48)
    assert d["busbar_rating"] == pytest.approx(2_900)
    # The rack's heat: the busbar's load, the rear door's 1 kW of fans and the two
    # management ToRs (SN2201, 98 W each); cold plates and the door's coil take all of it.
    heat = 100_800 + 1_000 + 2 * 98
    assert d["liquid_heat"] + d["air_heat"] == pytest.approx(heat)
    assert d["liquid_share"] == pytest.approx(d["liquid_heat"] / heat)
    # NVLink 5: 900 GB/s each way x 85 %, in bit/s; across domains capped at it.
    assert d["allreduce_inside"] == pytest.approx(900e9 * 8 * 0.85)
    assert d["allreduce_across"] == pytest.approx(d["allreduce_inside"])


def test_text_groups_domains_alike(report: dict) -> None:
    text = to_text(report)
    assert "NVLink domains: 8 domains" in text
    assert "8 domains alike, nvl-a03 to nvl-a16: 72 GPUs" in text
    assert "busbar 2.1 kA of 2.9 kA" in text
    assert "nccl-tests busbw: 765 GB/s inside, 765 GB/s across domains" in text


def test_csv_rows(report: dict) -> None:
    rows = [r for r in csv.reader(io.StringIO(to_csv(report))) if r[0] == "domains"]
    assert ["domains", "nvl-a03", "gpus", "72", ""] in rows


def test_layouts_without_domains_have_no_domains_section() -> None:
    plain = build(Analysis(load_path(ROOT / "layouts" / "training-128.toml")))
    assert "domains" not in plain
    assert "NVLink domains" not in to_text(plain)
