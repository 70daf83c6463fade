"""(v1.4) The designer's Generate fabric measures its cables along the layout's pathways, as
``new`` does (design/cable_plant.plan_by_route): its preview's media and long runs are the
routes', not the rows'."""

from __future__ import annotations

from pathlib import Path

from rackdesigner.design.cable_plant import plan_by_route
from rackdesigner.design.generators import generate
from rackdesigner.layout_io.reader import load_path
from rackdesigner.tui.screens.fabric import GenerateScreen
from tests.tui.pilot import SIZE, app_for, run, settle, wait_for_preview

# Two racks of two DGX B200 in rows A and B at slot 5; the rows' trays meet at slot 0 only,
# so a cable between the rows goes round by slot 0, metres longer than the rows' model's
# straight crossing (docs/cable-plant.md, Routing).
DETOUR = """
format = 1
name = "detour"
"""
for rack, row in (("a05", "A"), ("b05", "B")):
    DETOUR += f'\n[[racks]]\nid = "{rack}"\nrow = "{row}"\nslot = 5\n'
    for n, position in ((1, 1), (2, 11)):
        DETOUR += f'\n[[racks.devices]]\nid = "{rack}-n0{n}"\nmodel = "dgx-b200"\n'
        DETOUR += f"position = {position}\n"
for pathway in (
    'id = "tray-a"\nrow = "A"\nslots = [0, 6]',
    'id = "tray-b"\nrow = "B"\nslots = [0, 6]',
    'id = "cross-0"\nrows = ["A", "B"]\nslot = 0',
):
    DETOUR += f'\n[[pathways]]\n{pathway}\nwidth = "100 mm"\ndepth = "100 mm"\n'


def test_generate_fabric_previews_its_cables_along_the_pathways(tmp_path: Path) -> None:
    """g, and the preview's plan is the generator's with its media and long runs re-judged
    by the routes (the same plan as generate + plan_by_route); without that re-judging the
    plan says other long runs (the rows' lengths), so the dialog's notes tell them apart."""
    path = tmp_path / "detour.toml"
    path.write_text(DETOUR, encoding="utf-8")

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("g")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, GenerateScreen)
            await wait_for_preview(pilot, screen)
            result = screen.result
            assert result is not None
            layout = load_path(path)
            by_rows = generate(layout, result.request)
            by_route = generate(layout, result.request)
            plan_by_route(layout, by_route)
            assert result.plan.notes == by_route.notes != by_rows.notes
            assert [link.media for link in result.plan.links] == [
                link.media for link in by_route.links
            ]

    run(journey)
