"""Rack-scale systems in the designer, by real keys: New from template builds a
one-SU GB200 hall from the dialog (SUs asked, not GPUs); trays, a power shelf and the 0U
busbar are placed from the catalog picker, and a tray placed in a rack without an NVLink
domain says NVL002 will report it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.widgets import Input

from rackdesigner.tui.screens.catalog_picker import CatalogPickerScreen
from rackdesigner.tui.screens.template import TemplateScreen
from rackdesigner.tui.widgets.topology_view import TopologyView
from tests.conftest import ROOT
from tests.tui.pilot import (
    GOLDEN,
    SMALL,
    SNAPSHOT_SIZE,
    app_for,
    codes,
    last_notice,
    match_golden,
    palette,
    recent_notices,
    run,
    settle,
    type_text,
    until,
    wait_for,
)


async def _pick(pilot: object, text: str) -> None:
    """``a`` at the cursor, type the model, enter."""
    await pilot.press("a")  # type: ignore[attr-defined]
    await wait_for(pilot, CatalogPickerScreen)
    await type_text(pilot, text)
    await pilot.press("enter")  # type: ignore[attr-defined]
    await settle(pilot)


# Slow step: it builds and checks a whole GB200 SU (27 trays a rack, 1,600 cables)
# from the dialog, about 5 s of CPU, as the whole-hall tests do.
@pytest.mark.slow
def test_new_from_template_builds_a_gb200_su_and_trays_are_placed_from_the_catalog(
    tmp_path: Path,
) -> None:
    async def journey() -> None:
        app = app_for(None, tmp_path)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await palette(pilot, "New from template")
            await wait_for(pilot, TemplateScreen)
            screen = app.screen
            assert isinstance(screen, TemplateScreen)
            # The list: ... superpod, gb200-superpod, gb300-superpod, custom.
            await pilot.press("down")
            await pilot.pause()
            await pilot.press("end", "up", "enter")
            await pilot.pause()
            assert screen.template == "gb300-superpod"
            await pilot.press("down")
            await pilot.pause()
            await pilot.press("end", "up", "up", "enter")
            await pilot.pause()
            assert screen.template == "gb200-superpod"
            # Counted in SUs like superpod; the NVL72 rack fixes GPU, cooling and fabric.
            assert screen.query_one("#tline-sus").display
            assert not screen.query_one("#tline-gpus").display
            for key in ("gpu", "per-node", "cooling", "fabric"):
                assert not screen.query_one(f"#tline-{key}").display
            assert screen.query_one("#tline-leaf").display
            assert "leaf trays" in str(screen.query_one("#tline-su-nodes Label").render())
            await pilot.press("tab")
            assert app.focused is screen.query_one("#t-sus", Input)
            assert app.focused.value == "1"  # type: ignore[union-attr]
            await pilot.press("enter")
            await until(pilot, lambda: not isinstance(app.screen, TemplateScreen), "built")
            await settle(pilot)
            session = app.workspace.session
            assert session is not None and app.workspace.dirty
            layout = session.layout
            assert layout.name == "gb200-superpod"
            domains = [r for r in layout.racks if r.nvlink_domain]
            assert len(domains) == 8
            models = [d.model for _, d in layout.devices()]
            assert models.count("gb200-compute-tray") == 8 * 18
            assert models.count("nvl72-switch-tray") == 8 * 9
            assert not [d for d in session.findings if d.severity == "error"]
            # -- placing rack-scale parts: a new rack, which names no domain
            await palette(pilot, "Add rack")
            await pilot.press("enter")
            await settle(pilot)
            rack = session.index.rack(app.main.racks.current_rack_id() or "")
            assert rack is not None and rack.nvlink_domain is None
            assert [d.model for d in rack.devices] == ["pdu-3ph-415v-63a"] * 2  # its feeds'
            placed_before = {d.id for d in rack.devices}
            rack_id = rack.id
            app.main.racks.jump(rack_id, unit=1)
            await settle(pilot)
            await _pick(pilot, "nvl72-power-shelf")
            assert "NVL002" not in last_notice(app)
            await pilot.press("up")
            await _pick(pilot, "gb200-compute-tray")
            text = recent_notices(app)  # guidance may announce NET006 after it
            assert f"rack {rack_id} has no nvlink_domain" in text and "NVL002" in text
            await pilot.press("up")
            await _pick(pilot, "nvl72-switch-tray")
            await _pick(pilot, "nvl72-busbar")  # no question about a side rail
            assert "on the rack's rear (0U)" in recent_notices(app)
            placed = {d.model: d for d in rack.devices if d.id not in placed_before}
            assert placed["nvl72-power-shelf"].position == 1
            assert placed["gb200-compute-tray"].position == 2
            assert placed["nvl72-switch-tray"].position == 3
            busbar = placed["nvl72-busbar"]
            assert (busbar.position, busbar.face, busbar.side) == (None, "rear", None)
            outside = codes(app, "NVL002")
            assert any(rack_id in entity for entity in outside), outside
            # The rack's nvlink_domain in its inspector page, checked as the loader checks it.
            app.main.update_inspector(("rack", rack_id))
            await pilot.pause()
            inspector = app.main.inspector
            assert "2 NVLink trays, no domain:" in inspector.facts_text()
            inspector.edit("nvlink_domain")
            await pilot.pause()
            await type_text(pilot, "nvl a15")
            await pilot.press("enter")
            await settle(pilot)
            assert inspector.note("nvlink_domain") is not None and rack.nvlink_domain is None
            await pilot.press("ctrl+u")
            await type_text(pilot, f"nvl-{rack_id}")
            await pilot.press("enter")
            await settle(pilot)
            assert rack.nvlink_domain == f"nvl-{rack_id}"
            assert not any(rack_id in entity for entity in codes(app, "NVL002"))
            assert f"NVLink domain nvl-{rack_id}" in inspector.facts_text()
            assert "compute 1/18 · switch 1/9" in inspector.facts_text()

    run(journey)


def test_the_topology_view_draws_each_nvlink_domain_as_one_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Snapshot: the SU's eight NVL72 racks are eight domain blocks (``nvl-a04 · NVL72 · 72
    GPUs · 18 trays``) with their uplinks, not 216 devices; the inspector on a rack names
    its domain."""
    shutil.copy(ROOT / "layouts" / "gb200-nvl72-su.toml", tmp_path / "gb200-nvl72-su.toml")
    monkeypatch.chdir(tmp_path)

    async def journey() -> None:
        app = app_for(Path("gb200-nvl72-su.toml"), tmp_path)
        async with app.run_test(size=SNAPSHOT_SIZE) as pilot:
            await settle(pilot)
            assert app.main.go_to("a04-c01")
            await settle(pilot)
            facts = app.main.inspector.facts_text()
            assert "in NVLink domain nvl-a04\n27 trays · 72 GPUs in it" in facts
            await pilot.press("3")
            await settle(pilot)
            await pilot.pause()
            tree = app.main.query_one(TopologyView)
            unit = tree.root.children[0].children[1]  # the fabric's scalable unit
            labels = [str(node.label) for node in unit.children][1:]  # after its leaves
            assert labels[0] == "nvl-a04 · NVL72 · 72 GPUs · 18 trays"
            assert len([label for label in labels if label.startswith("nvl-")]) == 8
            # The spine tier folded (as enter on it does), so the domains are in the picture.
            tree.root.children[0].children[0].collapse()
            await pilot.pause()
            match_golden(GOLDEN / "rack-scale" / "topology-view.svg", app.export_screenshot())

    run(journey)


def test_the_busbar_is_drawn_on_the_rear_face_only() -> None:
    """A 0U device that names a face and no side rail (the NVL72 busbar) is seen from
    that face, drawn on the right rail over the units of the rack-scale parts it feeds
    (U1-U35: 8 power shelves, 18 compute and 9 switch trays), as the elevations draw it
    down the rear's middle; a side-rail PDU from both faces."""
    from rackdesigner.layout_io import load_path
    from rackdesigner.layout_io.catalog import for_layout
    from rackdesigner.tui.rows import plan_rack
    from rackdesigner.tui.widgets.racks_view import _rail_block
    from tests.conftest import ROOT

    layout = load_path(ROOT / "layouts" / "gb200-nvl72-su.toml")
    rack = next(r for r in layout.racks if r.nvlink_domain)
    plan = plan_rack(rack, for_layout(layout))
    ids = {face: [b.device.id for b in plan.rail("right", face)] for face in ("front", "rear")}
    assert ids["rear"] == [f"{rack.id}-bus"]
    assert not any(i.endswith("-bus") for i in ids["front"])
    bus = plan.rail("right", "rear")
    assert bus[0].span == (1, 35) and bus[0].kind == "busbar"
    assert _rail_block(bus, plan.height, 1) is bus[0]
    assert _rail_block(bus, plan.height, 35) is bus[0]
    assert _rail_block(bus, plan.height, 36) is None  # above the trays: the bare rail
    assert _rail_block(bus, plan.height, 36, lowest=31) is bus[0]  # a compact line over U35
    training = load_path(ROOT / "layouts" / "training-128.toml")
    pdus = next(r for r in training.racks if any(d.side for d in r.devices))
    both = plan_rack(pdus, for_layout(training))
    for side in ("left", "right"):
        assert both.rail(side, "front") == both.rail(side, "rear") == both.rail(side)


def test_the_whole_rack_zoom_tells_trays_from_shelves_and_the_rear_shows_the_busbar(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 80x24 the whole-rack zoom of an NVL72 rack draws 6 U a line (42 U over 7 lines):
    each line names its top device and then a mark a device, top to bottom, as the
    elevations mark them (compute tray ▪, NVLink switch tray ■, power shelf ▮): U25-U30
    holds compute trays c13, c12, c11 over switch trays s9, s8, s7; U7-U12 compute trays
    c04-c01 over shelves ps8 and ps7. At 1 U a line a tray carries its four marks. From
    the rear the busbar runs down the right rail over U1-U35, the trays and shelves."""
    shutil.copy(ROOT / "layouts" / "gb200-nvl72-su.toml", tmp_path / "gb200-nvl72-su.toml")
    monkeypatch.chdir(tmp_path)

    async def journey() -> None:
        app = app_for(Path("gb200-nvl72-su.toml"), tmp_path)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            view = app.main.racks
            assert app.main.go_to("a04-c18")
            await settle(pilot)
            drawn = view.render_line(view.line_of_unit(35) - int(view.scroll_offset.y)).text
            assert "┃ a04-c18   ▪▪▪▪│" in drawn
            await pilot.press("z", "z")
            await settle(pilot)
            assert view.units_per_row() == 6
            lines = [view.render_line(y).text for y in range(1, 9)]
            assert any("┃ a04-c13 ▪▪▪■■■│" in line for line in lines), lines
            assert any("┃ a04-c04 ▪▪▪▪▮▮│" in line for line in lines), lines
            await pilot.press("f")  # the rear
            await settle(pilot)
            lines = [view.render_line(y).text for y in range(1, 9)]
            assert any("┃ a04-s6  ■■■■■■┃" in line for line in lines), lines  # the busbar
            assert any("┃ a04-ps6 ▮▮▮▮▮▮┃" in line for line in lines), lines

    run(journey)
