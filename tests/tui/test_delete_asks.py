"""Deleting asks: a delete that takes cables with it or leaves something broken
asks once, naming them, with a "don't ask again this session" choice; one without
dependants deletes at once."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Checkbox, Static

from rackdesigner.tui.screens.confirm import ConfirmScreen
from tests.tui.pilot import SMALL, app_for, copy, recent_notices, run, settle, wait_for


def _question(app) -> str:  # type: ignore[no-untyped-def]
    return str(app.screen.query_one(".dialog-message", Static).render())


def test_delete_a_leaf_asks_naming_its_cables_and_dont_ask_again_holds(tmp_path: Path) -> None:
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            session = app.workspace.session
            assert session is not None
            links = len(session.layout.links)
            # A blanking panel has nothing depending on it: deleted at once.
            assert app.main.racks.current_device_id() == "a01-blank4"
            await pilot.press("delete")
            await settle(pilot)
            assert session.index.device("a01-blank4") is None
            assert not isinstance(app.screen, ConfirmScreen)
            await pilot.press("ctrl+z")
            await settle(pilot)
            # The leaf: the question names it and its cables; Escape keeps everything.
            assert app.main.go_to("a01-leaf1")
            await pilot.press("delete")
            await wait_for(pilot, ConfirmScreen)
            assert _question(app) == "Delete a01-leaf1 and its 33 cables? (ctrl+z undoes)"
            await pilot.press("escape")
            await settle(pilot)
            assert session.index.device("a01-leaf1") is not None
            # Asked again; enter takes Delete: the switch and its cables go, one undo step.
            revision = session.revision
            await pilot.press("delete")
            await wait_for(pilot, ConfirmScreen)
            await pilot.press("enter")
            await settle(pilot)
            assert session.index.device("a01-leaf1") is None
            assert len(session.layout.links) == links - 33
            assert session.revision == revision + 1
            assert "Deleted a01-leaf1 and its 33 cables" in recent_notices(app)
            await pilot.press("ctrl+z")
            await settle(pilot)
            assert session.index.device("a01-leaf1") is not None
            assert len(session.layout.links) == links
            # "Don't ask again this session": tick it (shift+tab from Delete, space), Delete.
            assert app.main.go_to("a01-leaf2")
            await pilot.press("delete")
            await wait_for(pilot, ConfirmScreen)
            await pilot.press("shift+tab", "space")
            assert app.screen.query_one("#remember", Checkbox).value
            await pilot.click("#answer-delete")
            await settle(pilot)
            assert session.index.device("a01-leaf2") is None
            assert not app.workspace.ask_before_delete
            # From now on a switch with cables goes without a question.
            assert app.main.go_to("a02-leaf1")
            await pilot.press("delete")
            await settle(pilot)
            assert not isinstance(app.screen, ConfirmScreen)
            assert session.index.device("a02-leaf1") is None

    run(journey)


def test_the_question_names_the_nodes_left_without_a_fabric_and_a_rack_losing_its_door(
    tmp_path: Path,
) -> None:
    path = copy("inference-32-b200.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            session = app.workspace.session
            assert session is not None
            # A selection of both leaves of a01 and a02: one question for the lot.
            for device in ("a01-leaf", "a02-leaf"):
                assert app.main.go_to(device)
                await pilot.press("space")
            await pilot.press("delete")
            await wait_for(pilot, ConfirmScreen)
            asked = _question(app)
            assert asked.startswith("Delete a01-leaf and a02-leaf with their ")
            assert "nodes lose their compute fabric" in asked
            await pilot.press("escape")
            await settle(pilot)
            assert app.workspace.selection == {"a01-leaf", "a02-leaf"}
            await pilot.press("escape")  # clears the selection
            assert app.main.go_to("a01-door")
            await pilot.press("delete")
            await wait_for(pilot, ConfirmScreen)
            assert _question(app) == (
                "Delete a01-door; rack a01 loses its rear door a01-door? (ctrl+z undoes)"
            )
            await pilot.press("enter")
            await settle(pilot)
            assert session.index.device("a01-door") is None

    run(journey)
