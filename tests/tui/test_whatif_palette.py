"""Issue 26 in the designer: palette "What if…" fails the part under the cursor (or one
from the list, or typed); the views shade what goes down or degrades and the header shows
the figures until escape; no edit is made."""

from __future__ import annotations

from pathlib import Path

from rackdesigner.tui import actions
from rackdesigner.tui.screens.build import ChoiceScreen
from rackdesigner.tui.screens.prompt import PromptScreen
from tests.tui.pilot import SIZE, app_for, copy, palette, run, settle, type_text, wait_for

LEAF = "a01-leaf1"


def _labels(node: object) -> list[str]:
    out = []
    for child in node.children:  # type: ignore[attr-defined]
        out.append(str(child.label))
        out += _labels(child)
    return out


def test_what_if_the_switch_under_the_cursor_fails(tmp_path: Path) -> None:
    path = copy("training-128.toml", tmp_path)
    before = path.read_bytes()

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main
            session = main.session
            assert session is not None
            revision, text = session.revision, session.layout
            # The cursor onto the leaf switch: ctrl+g, its id, enter.
            await pilot.press("ctrl+g")
            await wait_for(pilot, PromptScreen)
            await type_text(pilot, LEAF)
            await pilot.press("enter")
            await settle(pilot)
            assert main.racks.current_device_id() == LEAF
            # The palette: the list offers the switch under the cursor first; enter.
            await palette(pilot, "What if…")
            await wait_for(pilot, ChoiceScreen)
            assert app.screen.choices[0][0] == f"switch:{LEAF}"
            await pilot.press("enter")
            await settle(pilot)
            # The racks shade the switch (down) and its nodes (a rail cut: degraded).
            shade = main.racks.shade
            assert shade[LEAF] == "down"
            assert shade["a01-n01"] == "degraded"
            assert main.racks.shade_where[LEAF] == "a01"
            # The header shows the figures instead of the totals.
            header = main.header
            assert header.figures.startswith(f"what if switch:{LEAF} fails: 0 GPUs lost")
            assert "bisection 75% left" in header.figures and "esc clears" in header.figures
            assert "bisection 75% left" in header.text().plain
            assert "rails cut: 4 GPU nodes" in app.notices[-1][1]
            # The topology shades the switch too.
            await pilot.press("3")
            await settle(pilot)
            labels = _labels(main.topology.root)
            assert any(label.startswith(f"▼ {LEAF}") for label in labels), labels
            # Escape: every view as it was.
            await pilot.press("escape")
            await settle(pilot)
            assert main.racks.shade == {} and header.figures == ""
            assert "GPUs" in header.text().plain and "what if" not in header.text().plain
            assert not any(label.startswith("▼") for label in _labels(main.topology.root))
            # No edit was made.
            assert session.revision == revision and session.layout is text
            assert not app.workspace.dirty and path.read_bytes() == before

    run(journey)


def test_what_if_a_typed_part_and_a_part_that_does_not_exist(tmp_path: Path) -> None:
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main
            # From the list: its last entry types a part.
            await palette(pilot, "What if…")
            await wait_for(pilot, ChoiceScreen)
            await pilot.press("end", "enter")
            await wait_for(pilot, PromptScreen)
            await type_text(pilot, "rack:a02")
            await pilot.press("enter")
            await settle(pilot)
            assert main.header.figures.startswith("what if rack:a02 fails: 32 GPUs lost")
            assert main.racks.shade and set(main.racks.shade_where.values()) >= {"a02"}
            # In the racks view escape clears it too.
            main.racks.focus()
            await pilot.press("escape")
            await settle(pilot)
            assert main.racks.shade == {} and main.header.figures == ""
            # A part that names nothing: said, nothing shaded.
            await palette(pilot, "What if…")
            await wait_for(pilot, ChoiceScreen)
            await pilot.press("end", "enter")
            await wait_for(pilot, PromptScreen)
            await type_text(pilot, "switch:nope")
            await pilot.press("enter")
            await settle(pilot)
            assert "nope" in app.notices[-1][1]
            assert main.racks.shade == {} and main.header.figures == ""

    run(journey)


def test_the_entry_is_in_the_palette_and_the_help() -> None:
    action = actions.BY_ID["what-if"]
    assert action.name == "What if…" and "escape clears" in action.help
    assert action in actions.palette()
