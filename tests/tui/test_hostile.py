"""A hostile layout in the designer: escape sequences, bidi overrides, zero-width
characters and markup in its name, ids, labels and its own catalog are drawn escaped
(``\\x1b``, ``\\u202e``) and literally, never obeyed, in every panel; the data keeps them
exact, also through an inspector edit.

The snapshots (tests/golden/tui/hostile/) show the header, the racks view, the inspector,
the problems panel and the catalog picker with the layout's own model; regenerate them as
test_snapshots.py says.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rackdesigner.layout_io import load_path
from rackdesigner.tui import safe
from rackdesigner.tui.screens.catalog_picker import CatalogPickerScreen
from tests.tui.pilot import (
    GOLDEN,
    SNAPSHOT_SIZE,
    app_for,
    last_notice,
    match_golden,
    run,
    settle,
    type_text,
)

NAME = "EVIL\x1b[31mRED\x1b]0;pwned\x07\u202eTXET [red]markup[/red]"
LABEL = "blink\x1b[5mLABEL[red]x[/red]"
NODE = "n\u200b1"
SWITCH = "sw\u202e1"
RACK = "r\u202e10a"
MODEL = "evil\x1b[5mgpu"

HOSTILE = r"""format = 1
name = "EVIL\u001b[31mRED\u001b]0;pwned\u0007\u202eTXET [red]markup[/red]"
description = "desc \u001b[2J cleared"

[catalog."evil\u001b[5mgpu"]
name = "Evil \u001b[7mServer [b]x[/b] [$accent]y"
kind = "gpu-node"
gpu = "h100-sxm"
gpus = 8
height = "2 U"
power = "5 kW"

[[racks]]
id = "r\u202e10a"
row = "A\u200b"
slot = 1
cooling = "air"

[[racks.feeds]]
id = "f\u202eA"
side = "A"
circuit = "C\u001b[31m1"
voltage = "415 V"
phases = 3
current = "32 A"

[[racks.devices]]
id = "n\u200b1"
model = "evil\u001b[5mgpu"
position = 10
label = "blink\u001b[5mLABEL[red]x[/red]"
hostname = "node1"

[[racks.devices]]
id = "sw\u202e1"
model = "sn2201"
position = 20
label = "\u001b]0;title\u0007switch"
"""

# What must never reach the terminal: C0/C1 controls, bidi controls, zero-width characters.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200b-\u200f]")


def _hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "hostile.toml").write_text(HOSTILE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # a relative path in the header: the same on every machine
    return Path("hostile.toml")


def _screen_text(app) -> str:  # type: ignore[no-untyped-def]
    """Every character the screen draws now, line by line."""
    lines = app.screen._compositor.render_full_update().strips  # type: ignore[attr-defined]
    return "\n".join("".join(segment.text for segment in strip) for strip in lines)


def _clean(svg: str) -> None:
    found = RAW.search(svg.replace("\n", ""))
    where = svg[found.start() - 40 : found.end()] if found else ""
    assert found is None, f"{found.group()!r} drawn raw at {where!r}"


def test_the_hostile_layout_is_drawn_escaped_in_every_panel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _hostile(tmp_path, monkeypatch)
    assert load_path(path).name == NAME  # the data holds the characters themselves

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SNAPSHOT_SIZE) as pilot:
            await settle(pilot)
            assert app.main.go_to(NODE)
            await settle(pilot)
            shots: list[tuple[str, str]] = [("main", app.export_screenshot())]
            drawn = _screen_text(app)
            # The header, the racks view, the inspector and the problems panel, escaped.
            assert safe.plain(NAME) in drawn and "[red]markup[/red]" in drawn
            assert "r\\u202e10a" in drawn and "n\\u200b1" in drawn
            fields = app.main.inspector.lines_view.lines()  # every field, also scrolled off
            fields_text = "".join(segment.text for strip in fields for segment in strip)
            assert " blink\\x1b[5mL" in fields_text  # the label, cut at the column's width
            _clean(fields_text)
            assert "evil\\x1b[5mgpu" in drawn  # the problems panel's PWR005
            for name, view in (("floor", "2"), ("summary", "4"), ("topology", "3")):
                await pilot.press(view)
                await settle(pilot)
                _clean(_screen_text(app))
                if name == "floor":
                    assert "r\\u202e10a" in _screen_text(app)
            await pilot.press("1")
            await settle(pilot)
            # The catalog picker with the layout's own model, by its escaped key.
            await pilot.press("a")
            await pilot.pause()
            assert isinstance(app.screen, CatalogPickerScreen)
            await type_text(pilot, "evil")
            await pilot.pause()
            drawn = _screen_text(app)
            assert "evil\\x1b[5mgpu" in drawn
            assert "Evil \\x1b[7mServer [b]x[/b] [$accent]y" in drawn  # its name, literally
            shots.append(("catalog-picker", app.export_screenshot()))
            await pilot.press("escape")
            await pilot.pause()
            # A dialog that quotes an id: delete the rack under the cursor.
            await pilot.press("escape", "delete")
            await pilot.pause()
            assert "r\\u202e10a" in _screen_text(app)
            _clean(_screen_text(app))
            await pilot.press("escape")
            await pilot.pause()
            # A notice quoting what was typed.
            assert not app.main.go_to("no\x1b[31mpe")
            assert "no\\x1b[31mpe" in last_notice(app)
            for name, svg in shots:
                _clean(svg)
                match_golden(GOLDEN / "hostile" / f"{name}.svg", svg)

    run(journey)


def test_an_inspector_edit_keeps_the_characters_it_showed_escaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _hostile(tmp_path, monkeypatch)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SNAPSHOT_SIZE) as pilot:
            await settle(pilot)
            assert app.main.go_to(NODE)
            await settle(pilot)
            inspector = app.main.inspector
            inspector.edit("label")
            await pilot.pause()
            assert inspector.editor.value == safe.plain(LABEL)  # shown escaped in the field
            await pilot.press("end")
            await type_text(pilot, "!")
            await pilot.press("enter")
            await settle(pilot)
            session = app.main.session
            assert session is not None
            device = session.index.device(NODE)
            assert device is not None and device.label == LABEL + "!"
            # An escape typed for a character the value does not hold stays what it is.
            inspector.edit("hostname")
            await pilot.pause()
            await pilot.press("end")
            await type_text(pilot, "\\x1b")
            await pilot.press("enter")
            await settle(pilot)
            assert inspector.note("hostname") is not None  # refused: no control characters
            device = session.index.device(NODE)
            assert device is not None and device.hostname == "node1"

    run(journey)


def test_typed_gives_back_only_the_characters_the_value_held() -> None:
    original = "a\x1bb\u202ec"
    assert safe.typed(safe.plain(original), original) == original
    assert safe.typed(safe.plain(original) + "!", original) == original + "!"
    assert safe.typed("a\\x07", original) == "a\\x07"  # BEL was never in the value
    assert safe.typed("a\\x1b", "plain") == "a\\x1b"
    assert safe.typed("x\\x41", original) == "x\\x41"  # 'A' is not escaped by plain()
