"""``export --netbox``'s NetBox 4.7 cooling objects (rackdesigner/netbox/cooling.py), from
the bundled GB200 SU (docs/liquid-cooling.md's worked example), and ``--netbox-version``."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from rackdesigner.analysis import Analysis
from rackdesigner.cli.main import cli
from rackdesigner.export.netbox import netbox_version
from rackdesigner.export.registry import ExportError
from rackdesigner.layout_io.reader import load_path
from rackdesigner.netbox.bulk import bulk_rows
from rackdesigner.netbox.cooling import cooling_rows, plant_type, with_cooling
from tests.conftest import ROOT

GB200 = ROOT / "layouts" / "gb200-nvl72-su.toml"
SITE = "hall"


@pytest.fixture(scope="module")
def su() -> Analysis:
    return Analysis(load_path(GB200))


def test_the_sus_loops_are_sources_and_its_racks_take_feeds(su: Analysis) -> None:
    """fws-1 (W32 facility water, 930 kW, 1,340 L/min) and chw-1 (18 °C chilled water,
    180 kW, 260 L/min) are the two sources; a feed from fws-1 to each CDU's rack at the
    CHx750's 750 kW (at its rated 5 K approach), and from chw-1 to each NVL72 rack at its
    rear door's 75 kW."""
    rows = dict(cooling_rows(su, SITE))
    fws, chw = rows["cooling-sources"]
    assert fws == {
        "site": SITE,
        "name": "fws-1",
        "type": "cooling-tower",
        "status": "planned",
        "fluid_type": "water",
        "cooling_capacity": 930.0,
        "description": (
            "facility water to the CDUs: facility water W32, supply 32.0 °C, 1,340 L/min"
        ),
        "comments": "type cooling-tower: the layout's loop does not say its plant (set plant)",
    }
    assert (chw["type"], chw["cooling_capacity"]) == ("chiller", 180.0)
    feeds = {f["name"]: f for f in rows["cooling-feeds"]}
    assert [n for n in feeds if n.startswith("fws-1/")] == ["fws-1/a01", "fws-1/a02", "fws-1/a03"]
    assert feeds["fws-1/a01"]["cooling_capacity"] == 750.0
    assert feeds["fws-1/a01"]["rack"] == "a01" and feeds["fws-1/a01"]["cooling_source"] == "fws-1"
    doors = [f for n, f in feeds.items() if n.startswith("chw-1/")]
    assert len(doors) == 8 and {f["cooling_capacity"] for f in doors} == {75.0}


def test_cdus_doors_and_cold_plates_are_chained(su: Analysis) -> None:
    """Each CDU: an intake of facility water feeding its secondary outflow (PG25 at 32 + 5
    = 37.0 °C). Each door: a chilled water intake. Each of the 8 racks' 18 compute and 9
    switch trays: a coolant intake from a01-cdu1's outflow (its rack names a01-cdu1
    first), at the flow its cold plates need: a compute tray 6,667 W × 0.85 = 5,666.95 W
    × 1.5 L/min per kW = 8.50 L/min, a switch tray 400 W × 0.75 = 300 W → 0.45 L/min."""
    kinds = cooling_rows(su, SITE)
    assert [k for k, _ in kinds] == [
        "cooling-sources",
        "cooling-feeds",
        "cooling-intakes",
        "cooling-outflows",
        "cooling-intakes",
    ]
    first, outflows, plates = kinds[2][1], kinds[3][1], kinds[4][1]
    assert first[0] == {
        "device": "a01-cdu1",
        "name": "Facility water in",
        "description": "from loop fws-1 at 32.0 °C",
    }
    assert [r["device"] for r in first[3:]] == [f"{r}-door" for r in _nvl72_racks()]
    assert {r["name"] for r in first[3:]} == {"Chilled water in"}
    assert outflows[0] == {
        "device": "a01-cdu1",
        "name": "Secondary out",
        "cooling_intake": "Facility water in",
        "description": "pg25 at 37.0 °C",
    }
    assert len(plates) == 8 * (18 + 9)
    tray = next(r for r in plates if r["device"] == "a04-c01")
    switch = next(r for r in plates if r["device"] == "a04-s1")
    assert (tray["max_flow"], switch["max_flow"], tray["max_flow_unit"]) == (8.5, 0.45, "lpm")
    assert {(r["cooling_outflow_device"], r["cooling_outflow"]) for r in plates} == {
        ("a01-cdu1", "Secondary out")
    }
    assert tray["description"] == "CDU group a01-cdu1, a02-cdu1, a03-cdu1"


def _nvl72_racks() -> list[str]:
    return ["a04", "a05", "a08", "a09", "a12", "a13", "a16", "a17"]


def test_types_say_their_cooling_method_and_racks_their_capability(su: Analysis) -> None:
    """A compute tray (liquid_fraction 0.85) and a switch tray (0.75) are hybrid, an
    air-cooled switch air; a PDU, a CDU and a door say none. An NVL72 rack (cold plates,
    20.1 kW of air heat to its door) is hybrid; a CDU's air rack air-only."""
    rows = dict(with_cooling(bulk_rows(su), su))
    methods = {t["slug"]: t.get("cooling_method") for t in rows["device-types"]}
    assert methods["gb200-compute-tray"] == "hybrid"
    assert methods["nvl72-switch-tray"] == "hybrid"
    assert methods["qm9700"] == "air"
    assert methods["coolit-chx750"] is None and methods["rear-door-hx"] is None
    racks = {r["name"]: r["cooling_capability"] for r in rows["racks"]}
    assert racks["a04"] == "hybrid" and racks["a01"] == "air-only"


def test_a_loop_says_its_plant(su: Analysis) -> None:
    loop = su.layout.cooling_loops[0]
    assert plant_type(loop) == "cooling-tower"
    loop.plant = "dry-cooler"
    try:
        fws = dict(cooling_rows(su, SITE))["cooling-sources"][0]
    finally:
        loop.plant = None
    assert fws["type"] == "dry-cooler" and "comments" not in fws


SMALL = ROOT / "tests" / "rules" / "COOL011" / "silent.toml"


def test_the_files_for_47_and_before_it(tmp_path: Path) -> None:
    """For NetBox 4.7 (the default) the cooling files follow the cables, numbered in
    import order (COOL011's silent layout: its CDU and door each on a loop); the files
    read back as the rows; ``--netbox-version 4.6`` writes none and no cooling field."""
    out = tmp_path / "47"
    result = CliRunner().invoke(cli, ["export", str(SMALL), "--netbox", str(out)])
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in out.iterdir())
    assert names[-5:] == [
        "12-cooling-sources.csv",
        "13-cooling-feeds.csv",
        "14-cooling-intakes.csv",
        "15-cooling-outflows.csv",
        "16-cooling-intakes.csv",
    ]
    analysis = Analysis(load_path(SMALL))
    rows = with_cooling(bulk_rows(analysis), analysis)
    for name, (kind, expected) in zip(names[-5:], rows[-5:], strict=True):
        assert name[3:-4] == kind
        with (out / name).open(encoding="utf-8", newline="") as handle:
            read = list(csv.DictReader(handle))
        assert read == [{k: str(v) for k, v in row.items()} for row in expected], name
    old = tmp_path / "46"
    result = CliRunner().invoke(
        cli, ["export", str(SMALL), "--netbox", str(old), "--netbox-version", "4.6.2"]
    )
    assert result.exit_code == 0, result.output
    assert not [p for p in old.iterdir() if "cooling" in p.name]
    assert "cooling" not in (old / "05-racks.csv").read_text()
    types = yaml.safe_load_all((old / "02-device-types.yaml").read_text(encoding="utf-8"))
    assert not any("cooling_method" in t for t in types)


@pytest.mark.parametrize("bad", ["4", "four.seven", "4.7.x", "4.7.3.1", "", "4..7"])
def test_a_version_that_is_not_one_is_refused(bad: str) -> None:
    with pytest.raises(ExportError, match=r"--netbox-version .*: give the NetBox version"):
        netbox_version(bad)


def test_versions_read_as_major_and_minor(tmp_path: Path) -> None:
    assert netbox_version("4.7") == (4, 7) and netbox_version("v4.10.1") == (4, 10)
    result = CliRunner().invoke(
        cli, ["export", str(SMALL), "--netbox", str(tmp_path), "--netbox-version", "4"]
    )
    assert result.exit_code == 2 and "4.7 or 4.7.3" in result.output


def test_the_loop_key_plant_loads_is_checked_and_diffed(tmp_path: Path) -> None:
    """``plant`` (v1.4) takes NetBox 4.7's water-plant types; another is an E001 with its
    line, and ``diff`` shows a change of it."""
    text = GB200.read_text(encoding="utf-8")
    marked = text.replace('id = "fws-1"\n', 'id = "fws-1"\nplant = "dry-cooler"\n', 1)
    with_plant = tmp_path / "plant.toml"
    with_plant.write_text(marked, encoding="utf-8")
    assert load_path(with_plant).cooling_loops[0].plant == "dry-cooler"
    result = CliRunner().invoke(cli, ["diff", str(GB200), str(with_plant)])
    assert "loop fws-1 changed: plant – → dry-cooler" in result.output
    river = tmp_path / "river.toml"
    river.write_text(marked.replace('"dry-cooler"', '"river"'), encoding="utf-8")
    result = CliRunner().invoke(cli, ["validate", str(river)])
    line = marked.splitlines().index('plant = "dry-cooler"') + 1
    assert f"river.toml:{line}: error E001 loop fws-1: plant must be one of chiller" in (
        result.output
    )
