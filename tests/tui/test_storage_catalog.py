"""The storage appliances in the designer: the catalog panel finds them by what a user
types ("ai400", "ess"), Enter places them at the cursor, and the racks view draws them."""

from __future__ import annotations

from pathlib import Path

from tests.tui.pilot import SIZE, app_for, four_nodes, go_to, run, search_catalog, settle


def test_search_finds_the_storage_appliances_and_enter_places_them(tmp_path: Path) -> None:
    """a02 holds one DGX B200 (U1-U10): "ai400" finds the DDN AI400X2 Turbo first (its key
    holds the text; the AI400X2 `storage-node` by its name), "ess" the IBM ESS 3500; Enter
    places each at the cursor (2U each), and the racks view draws them, storage in its
    colour."""
    path = four_nodes(tmp_path / "four.toml")

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            session = app.workspace.session
            assert session is not None
            await go_to(pilot, "a02")
            await settle(pilot)
            await search_catalog(pilot, "ai400")
            listing = app.query_one("#catalog-list")
            ids = [o.id for o in listing._options if o.id]  # type: ignore[attr-defined]
            assert ids[:2] == ["ddn-ai400x2t", "storage-node"]
            await pilot.press("enter")
            await settle(pilot)
            await pilot.click("#catalog-search")
            await pilot.press("end", "ctrl+u")  # the search emptied, as a user does
            await search_catalog(pilot, "ess")
            search = app.query_one("#catalog-search")
            assert search.value == "ess", search.value  # type: ignore[attr-defined]
            assert [o.id for o in listing._options if o.id] == ["ibm-ess3500"]  # type: ignore[attr-defined]
            await pilot.press("enter")
            await settle(pilot)
            rack = session.index.rack("a02")
            assert rack is not None
            placed = [d for d in rack.devices if d.model != "dgx-b200"]
            models = [d.model for d in placed if d.model in ("ddn-ai400x2t", "ibm-ess3500")]
            assert models == ["ddn-ai400x2t", "ibm-ess3500"]
            drawn = "\n".join(
                app.main.racks.render_line(y).text for y in range(app.main.racks.size.height)
            )
            for device in placed:
                if device.model in ("ddn-ai400x2t", "ibm-ess3500"):
                    assert device.id in drawn, drawn

    run(journey)
