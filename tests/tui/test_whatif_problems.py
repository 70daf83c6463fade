"""What if… in the problems panel: while a what-if is shown the panel pins its scenario and
new findings as ``rackdesigner whatif --fail`` prints them (the same file, the same
findings), the notice says the figures whole at 80 × 24, and escape or an edit takes them
away again."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from textual.widgets._toast import Toast

from rackdesigner.cli.main import cli
from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.tui.notices import NOTICE_LINES
from rackdesigner.tui.screens.typed_choice import TypedChoiceScreen
from tests.tui.pilot import SMALL, app_for, copy, palette, run, settle, type_text, until, wait_for


def _command_line(path: Path, part: str, form: str) -> str:
    result = CliRunner().invoke(cli, ["whatif", str(path), "--fail", part, "--format", form])
    assert result.exit_code == 0, result.output
    return result.output


def _pinned_text(pinned: list[Any]) -> str:
    """The panel's pinned lines as the command line's text prints them."""
    lines = [
        item
        if isinstance(item, str)
        else f"    {item.severity} {item.code} {item.entity}: {item.message}"
        for item in pinned
    ]
    return "\n".join(lines) + "\n"


def test_the_panel_lists_what_the_command_line_says(tmp_path: Path) -> None:
    """training-128, side:A by keys (ctrl+p, What if…, side:A, enter): the panel pins the
    command line's 7 PWR001 "redundancy lost" warnings (one per rack: a01-a05 run on B, C
    and D, a03, a06 and a07 on B alone; the 7 racks' 128 GPUs without redundancy), under
    the command line's own lines, above the layout's NET007; the notice fits three lines of
    80 columns whole; Apply fix on a pinned finding changes nothing; escape clears the pin
    and the layout's findings stay."""
    path = copy("training-128.toml", tmp_path)
    cli_json = json.loads(_command_line(path, "side:A", "json"))
    cli_text = _command_line(path, "side:A", "text")

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SMALL, notifications=True) as pilot:
            await settle(pilot)
            main = app.main
            panel = main.problems
            session = main.session
            assert session is not None
            own = list(panel.findings)
            assert panel.pinned == [] and own
            revision = session.revision
            await palette(pilot, "What if…")
            await wait_for(pilot, TypedChoiceScreen)
            await type_text(pilot, "side:A")
            await pilot.press("enter")
            await until(pilot, lambda: bool(panel.pinned), "the what-if's findings pinned")
            await settle(pilot)
            # The findings are the command line's, in its order.
            pinned = [d for d in panel.pinned if isinstance(d, Diagnostic)]
            assert [
                {"code": d.code, "severity": d.severity, "entity": d.entity, "message": d.message}
                for d in pinned
            ] == cli_json["findings"]
            assert [d.code for d in pinned] == ["PWR001"] * 7
            # And the lines around them are the command line's text.
            assert _pinned_text(panel.pinned) == cli_text
            assert str(panel.border_title).startswith("What if side:A fails: 7 new findings")
            # The layout's own findings stay listed under them, unchanged.
            assert panel.findings == own
            # The cursor is on the first of them, the panel scrolled by the least that shows
            # it: the scenario's lines (its redundancy lost wraps to two rows) take five of
            # the four rows an 80x24 panel shows under its column names.
            rows = panel.scrollable_content_region.height - 1
            assert panel.current is pinned[0] and panel.cursor_row == 5
            assert panel.scroll_offset.y == panel.cursor_row - rows + 1
            # The notice: the figures and where the rest is, whole in three 80-column lines.
            notice = app.notices[-1][1]
            assert notice.startswith(
                "What if side:A fails: 0 GPUs lost; redundancy lost for 128 GPUs; 7 new findings"
            )
            assert "problems panel" in notice
            assert len(textwrap.wrap(notice, SMALL[0] - 4)) <= NOTICE_LINES
            for _ in range(3):  # the toast rack mounts it
                await pilot.pause()
            (toast,) = app.screen.query(Toast)
            assert " ".join(str(toast.render()).split()) == notice
            lines = textwrap.wrap(notice, toast.content_region.width)
            assert len(lines) <= toast.region.height <= NOTICE_LINES
            # Enter on one: the racks go to its rack, whose inspector says it as a what-if.
            panel.focus()
            await pilot.press("down", "enter")
            await settle(pilot)
            assert main.racks.current_rack_id() == "a02"
            assert "PWR001 if side:A fails: redundancy lost" in main.inspector.facts_text()
            # x: a what-if's finding is not the layout's to fix; its hint is the rule's own,
            # not advice worked out on the layout (which has no such problem).
            assert not app.workspace.has_fix(pinned[1])
            assert app.workspace.finding_hint(pinned[1]) == (
                "hint: restore what was lost (side A lost) before anything else fails, or "
                "move load off the rack"
            )
            panel.focus()
            await pilot.press("x")
            await settle(pilot)
            assert "nothing to fix" in app.notices[-1][1]
            assert session.revision == revision
            # Escape in the panel clears the what-if: the pin goes, the findings stay.
            await pilot.press("escape")
            await settle(pilot)
            assert panel.pinned == [] and panel.findings == own
            assert str(panel.border_title).startswith("Problems")
            assert main.header.figures == ""
            assert "if side:A" not in main.inspector.facts_text()

    run(journey)


async def _what_if(pilot: Any, part: str) -> Any:
    """Run a what-if as the palette's entry does; the problems panel once it is pinned."""
    panel = pilot.app.main.problems
    pilot.app.main.what_if.run(part)
    await until(pilot, lambda: bool(panel.pinned), "the what-if's scenario pinned")
    await settle(pilot)
    return panel


def test_an_edit_takes_the_what_if_away(tmp_path: Path) -> None:
    """The what-if was of the layout before the edit: an edit unpins it."""
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            panel = await _what_if(pilot, "rack:a02")
            assert panel.pinned[0] == "What if rack:a02 fails:"
            app.main.racks.focus()
            await pilot.press("ctrl+g")
            await type_text(pilot, "a01-blank4")
            await pilot.press("enter")
            await settle(pilot)
            await pilot.press("delete")
            await settle(pilot)
            assert panel.pinned == []

    run(journey)


def test_long_scenario_lines_wrap_and_up_shows_them(tmp_path: Path) -> None:
    """switch:a01-leaf1 at 80 × 24: the rails-cut line (4 nodes named) wraps to the
    panel's width rather than being cut; the cursor starts on the first new finding, below
    the scenario, and up from there scrolls to the scenario's first line."""
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            panel = await _what_if(pilot, "switch:a01-leaf1")
            width = panel.scrollable_content_region.width
            headings = [row for row in panel.rows if isinstance(row, str)]
            assert all(len(row) + 1 <= width for row in headings)
            text = " ".join(" ".join(row.split()) for row in headings)
            cut = "rails cut: 4 GPU nodes with fewer cables: a01-n01, a01-n02, a01-n03, a01-n04"
            assert cut in text
            first = panel.current
            assert isinstance(first, Diagnostic) and panel.scroll_offset.y > 0
            panel.focus()
            await pilot.press("up")
            assert panel.scroll_offset.y == 0 and panel.current is first

    run(journey)
