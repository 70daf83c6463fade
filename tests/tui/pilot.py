"""Driving the designer in tests: one home for opening the app, waiting for it, pressing,
typing, the palette, the building journeys' steps and the snapshots.

The app says when it is idle (``MainScreen.wait_idle``: every load, check, fabric check,
autosave, long edit and view build started has come back); :func:`settle` waits on that
signal, not on a clock. Test modules import from here, never from one another.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.command import CommandList, CommandPalette
from textual.keys import _character_to_key
from textual.widgets import ContentSwitcher, Input

from rackdesigner.edit import AddFeed, AddRack, PlaceDevice, Session, UpdateRack
from rackdesigner.layout_io import dumps
from rackdesigner.model.layout import Layout
from rackdesigner.tui.app import DesignerApp
from rackdesigner.tui.screens.build import ChoiceScreen, CoolingScreen, FormScreen
from rackdesigner.tui.screens.catalog_picker import CatalogPickerScreen
from rackdesigner.tui.screens.fabric import GenerateScreen
from rackdesigner.tui.screens.prompt import PromptScreen
from rackdesigner.tui.widgets.racks_view import COLUMN_W, LABEL_W
from tests.conftest import ROOT

SIZE = (100, 32)
SMALL = (80, 24)  # what a small terminal shows; the dialogs fit it
SNAPSHOT_SIZE = (100, 30)
GOLDEN = ROOT / "tests" / "golden" / "tui"
REGENERATE = bool(os.environ.get("RACKDESIGNER_REGENERATE_GOLDEN"))


# -- the app ---------------------------------------------------------------------------------


def run(test: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(test())


def copy(name: str, tmp_path: Path) -> Path:
    target = tmp_path / name
    shutil.copy(ROOT / "layouts" / name, target)
    return target


def app_for(
    path: Path | None, tmp_path: Path, *, autosave: bool = False, views_ahead: bool = False
) -> DesignerApp:
    """The app on ``path``, without the machine's keymap; the autosave timer and the views
    built ahead are off unless the test is about them."""
    return DesignerApp(
        str(path) if path else None,
        keymap_file=tmp_path / "no-keymap.toml",
        autosave=autosave,
        views_ahead=views_ahead,
    )


# What ``until`` waits at most for a result that never comes (so that it fails the test
# rather than hanging it); never a measure of speed: a loaded machine takes seconds where
# a quiet one takes milliseconds, and a test must not tell the two apart.
NEVER_S = 120.0


async def until(pilot: Any, done: Callable[[], object], what: str | Callable[[], str]) -> None:
    """Until ``done()`` holds, a pass of the app's message loop at a time: for a result
    that comes from a worker, a timer, a dialog's own worker or another process, waited
    for by its state, not by a clock (``what`` it is, said if it never comes)."""
    end = time.monotonic() + NEVER_S
    while not done():
        if time.monotonic() > end:
            raise AssertionError(f"never: {what if isinstance(what, str) else what()}")
        await pilot.pause(0.01)


async def settle(pilot: Any) -> None:
    """Until the app is idle (its own signal), then one more pass of its message loop for
    what the results it handled scheduled (a repaint, a refresh)."""
    await pilot.app.main.wait_idle()
    await pilot.pause()
    await pilot.app.main.wait_idle()


def shown(app: DesignerApp) -> str | None:
    """The view on screen: the content switcher's current child."""
    return app.main.query_one("#views", ContentSwitcher).current


def codes(app: DesignerApp, code: str) -> list[str]:
    return [d.entity for d in app.main.problems.findings if d.code == code]


def last_notice(app: DesignerApp) -> str:
    return app.notices[-1][1]


def recent_notices(app: DesignerApp, count: int = 3) -> str:
    """The last few notifications: guidance may announce a new problem after the edit's own."""
    return "\n".join(text for _, text in app.notices[-count:])


# -- keys --------------------------------------------------------------------------------------


async def type_text(pilot: Any, text: str) -> None:
    """Type ``text`` into the focused widget: one key event per character, sent the way a
    fast typist's keys or tmux's ``send-keys`` arrive, without waiting for a repaint after
    each (Pilot's ``press`` waits twice per key for the process to go idle: 40 ms or more
    a character); then wait for the app once."""
    app = pilot.app
    for c in text:
        key = "space" if c == " " else c if c.isalnum() else _character_to_key(c)
        app.post_message(events.Key(key, c))
    await pilot.pause()
    await pilot.pause()


async def paste(pilot: Any, text: str) -> None:
    """Paste into the focused field, as a terminal does (bracketed paste): paths are long."""
    focused = pilot.app.focused
    assert focused is not None
    focused.post_message(events.Paste(text))
    await pilot.pause()


async def palette(pilot: Any, name: str) -> None:
    """Run a command by its palette name, as a user would: ctrl+p, type, enter."""
    await pilot.press("ctrl+p")
    await pilot.pause()
    await type_text(pilot, name)
    await palette_found(pilot, name)
    await pilot.press("enter")
    await pilot.pause()


async def palette_found(pilot: Any, name: str) -> None:
    """Until the palette's search is done and ``name`` is its highlighted hit: the search
    runs in a worker of the palette's own."""

    def offered() -> bool:
        screen = pilot.app.screen
        if not isinstance(screen, CommandPalette) or any(w.is_running for w in screen.workers):
            return False
        hits = screen.query_one(CommandList)
        if hits.highlighted is None:
            return False
        hit = getattr(hits.get_option_at_index(hits.highlighted), "hit", None)
        return hit is not None and (hit.text or "").lower() == name.lower()

    await pilot.pause(0.01)
    await until(pilot, offered, f"the palette offers {name!r}")


async def go_to(pilot: Any, entity: str, *, by_palette: bool = False) -> None:
    """Put the cursor on ``entity`` as a user does: ctrl+g (or the palette's "Go to"), its
    id, enter. Waits for the prompt, not for what the jump brings: settle after it."""
    if by_palette:
        await palette(pilot, "Go to")
    else:
        await pilot.press("ctrl+g")
        await wait_for(pilot, PromptScreen)
    await type_text(pilot, entity)
    await pilot.press("enter")
    await pilot.pause()


async def search_catalog(pilot: Any, text: str) -> None:
    """Type ``text`` into the catalog panel's search (clicked, as a user would)."""
    await pilot.click("#catalog-search")
    await type_text(pilot, text)
    await pilot.pause()


def tree_labels(node: object) -> list[str]:
    """A tree's labels under ``node``, depth first."""
    out = []
    for child in node.children:  # type: ignore[attr-defined]
        out.append(str(child.label))
        out += tree_labels(child)
    return out


async def wait_for(pilot: Any, screen: type) -> None:
    """Until a dialog pushed by a worker is on screen."""
    await until(
        pilot,
        lambda: isinstance(pilot.app.screen, screen),
        lambda: f"{screen.__name__} (on screen: {pilot.app.screen}; {pilot.app.notices[-2:]})",
    )


async def wait_gone(pilot: Any, screen: type, tries: int = 300) -> None:
    """Until a dialog that works in a worker of its own (a template being built) has
    closed, then until the app is idle."""
    for _ in range(tries):
        await pilot.pause(0.02)
        if not isinstance(pilot.app.screen, screen):
            break
    await settle(pilot)


# -- the mouse ---------------------------------------------------------------------------------


def spot(app: DesignerApp, rack: int, unit: int, inside: int = 4) -> tuple[int, int]:
    """Where unit ``unit`` of the ``rack``-th rack of the row is drawn, as an offset into
    the racks view (its border included)."""
    view = app.main.racks
    tallest = max(p.height for p in view.plans())
    x = view.gutter.left + rack * COLUMN_W + LABEL_W + 1 + inside - view.scroll_offset.x
    y = view.gutter.top + 1 + tallest - unit - view.scroll_offset.y
    return x, y


async def drag(pilot: Any, app: DesignerApp, start: tuple[int, int], end: tuple[int, int]) -> None:
    """Press on a unit, move with the button held, release there (a terminal then sends
    the click Textual makes of a press and release on one widget)."""
    await pilot.mouse_down("#racks", offset=spot(app, *start))
    target = spot(app, *end)
    await pilot._post_mouse_events([events.MouseMove], "#racks", target, button=1)
    await pilot._post_mouse_events([events.MouseUp, events.Click], "#racks", target, button=1)
    await settle(pilot)


# -- snapshots ---------------------------------------------------------------------------------


def match_golden(path: Path, svg: str) -> None:
    """``svg`` (an ``export_screenshot()``) against the golden file ``path``; with
    RACKDESIGNER_REGENERATE_GOLDEN set, write it there instead. Every screen snapshot of
    the designer's tests goes through here."""
    if REGENERATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(svg, encoding="utf-8")
        return
    assert path.exists(), f"no golden file {path}: regenerate (see test_snapshots.py)"
    assert svg == path.read_text(encoding="utf-8"), (
        f"the {path.stem} screen differs from {path}; if the change is intended, regenerate "
        "(see test_snapshots.py)"
    )


async def snapshot(pilot: Any, name: str, folder: Path = GOLDEN / "building") -> None:
    """The screen as it is now against FOLDER/NAME.svg; notifications are cleared first and
    cursors stop blinking (else the picture depends on timing)."""
    app = pilot.app
    app.clear_notifications()
    for box in app.screen.query(Input):
        box.cursor_blink = False  # a blinking cursor is drawn or not by the clock
    await pilot.pause()
    match_golden(folder / f"{name}.svg", app.export_screenshot())


# -- building, as a person does it -----------------------------------------------------------


async def add_rack(pilot: Any, **fields: str) -> None:
    """Palette "Add rack"; each given field (id, row, slot, height, cooling, sides, voltage,
    phases, current) is typed over its default (tab to it, home, ctrl+k, type); enter
    accepts. Fields not given keep designer.md's defaults."""
    await palette(pilot, "Add rack")
    assert isinstance(pilot.app.screen, FormScreen)
    order = ("id", "row", "slot", "height", "cooling", "sides", "voltage", "phases", "current")
    at = 0
    for key in order:
        if key in fields:
            await pilot.press(*["tab"] * (order.index(key) - at))
            at = order.index(key)
            await pilot.press("home", "ctrl+k")  # clear the field: start, delete to its end
            await type_text(pilot, fields[key])
    await pilot.press("enter")
    await settle(pilot)


async def place(pilot: Any, model: str, *answers: str, snap: str = "") -> None:
    """``a``, type the catalog key (or the start of it), enter; ``answers`` are the keys
    pressed in a rail or face question that follows (e.g. "enter" for the default, "down",
    "enter" for the other). ``snap`` names the snapshot of that question."""
    await pilot.press("a")
    await pilot.pause()
    assert isinstance(pilot.app.screen, CatalogPickerScreen)
    await type_text(pilot, model)
    await pilot.pause()
    await pilot.press("enter")
    await pilot.pause()
    if answers:
        await wait_for(pilot, ChoiceScreen)
        if snap:
            await snapshot(pilot, snap)
        await pilot.press(*answers)
    await settle(pilot)


async def set_cooling(pilot: Any, mode: str, *keys: str, snap: str = "") -> None:
    """Palette "Set cooling", the mode by arrows (air, liquid, rear-door, immersion), then
    ``keys`` (e.g. "tab", "space" in the CDU list), enter."""
    await palette(pilot, "Set cooling")
    screen = pilot.app.screen
    assert isinstance(screen, CoolingScreen)
    order = ["air", "liquid", "rear-door", "immersion"]
    steps = order.index(mode) - order.index(screen.mode)
    await pilot.press(*(["down"] * steps if steps > 0 else ["up"] * -steps))
    if snap:
        await snapshot(pilot, snap)
    await pilot.press(*keys, "enter")
    await settle(pilot)


# -- cabling -----------------------------------------------------------------------------------


def four_nodes(path: Path) -> Path:
    """Four DGX B200 (8 x 400G InfiniBand each) in two rear-door racks with A and B feeds,
    built with the edit commands a designer session runs, and no fabric yet."""
    session = Session(Layout(name="inference-32"))
    for slot, (rack, current, nodes) in enumerate(
        (("a01", "80 A", (1, 11, 33)), ("a02", "32 A", (1,))), start=1
    ):
        session.do(AddRack(rack, row="A", slot=slot, cooling="rear-door"))
        for side in ("A", "B"):
            session.do(
                AddFeed(
                    rack,
                    f"{rack}-{side}",
                    side=side,
                    voltage="415 V",
                    phases=3,
                    current=current,
                    circuit=f"RPP-{side}-{rack}",
                )
            )
        pdu = "pdu-3ph-415v-63a" if current == "80 A" else "pdu-3ph-415v-32a"
        for n, side in enumerate(("left", "right", "left", "right")[: 4 if len(nodes) > 1 else 2]):
            feed = f"{rack}-{'A' if side == 'left' else 'B'}"
            session.do(PlaceDevice(rack, pdu, None, side=side, id=f"{rack}-pdu{n + 1}", feed=feed))
        session.do(PlaceDevice(rack, "rear-door-hx", None, id=f"{rack}-door"))
        session.do(UpdateRack(rack, door=f"{rack}-door"))
        for position in nodes:
            session.do(PlaceDevice(rack, "dgx-b200", position))
    path.write_text(dumps(session.layout), encoding="utf-8")
    return path


async def wait_for_preview(pilot: Any, screen: GenerateScreen) -> None:
    """Until the Generate fabric dialog's preview (its own worker) is done."""
    await pilot.pause(0.02)
    await until(
        pilot,
        lambda: (
            screen.pending is None and screen._timer is None and (screen.result or screen.error)
        ),
        "the preview finished",
    )


def busy_details(app: DesignerApp, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What each busy screen the app shows from now on says (a long edit ends before a
    test can look at the screen itself)."""
    from rackdesigner.tui.screens.busy import BusyScreen

    said: list[str] = []
    real = app.push_screen

    def push(screen, *args, **kwargs):  # type: ignore[no-untyped-def]
        if isinstance(screen, BusyScreen):
            said.append(screen.detail)
        return real(screen, *args, **kwargs)

    monkeypatch.setattr(app, "push_screen", push)
    return said
