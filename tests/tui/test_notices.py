"""What the designer says besides the panels: one compact notice at a time,
replaced by the next, cleared by the next edit and never drawn over a dialog; and while a
file loads, "Loading N racks…" with its progress instead of the empty layout's hint."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from textual.widgets._toast import Toast

from rackdesigner.edit import RemoveDevice
from rackdesigner.tui import main_screen, workspace
from rackdesigner.tui.screens.confirm import ConfirmScreen
from rackdesigner.tui.widgets.racks_view import EMPTY_HINT
from tests.tui.pilot import NEVER_S, SIZE, app_for, copy, run, settle, type_text, until


def toasts(app) -> list[Toast]:  # type: ignore[no-untyped-def]
    return list(app.screen.query(Toast))


async def drawn(pilot) -> None:  # type: ignore[no-untyped-def]
    """Until the toast rack has mounted (or removed) its toasts: a few message passes."""
    for _ in range(3):
        await pilot.pause()


def test_one_compact_notice_replaced_by_the_next_and_cleared_by_an_edit(tmp_path: Path) -> None:
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await settle(pilot)
            app.notify("first", title="One", timeout=10)
            app.notify("second\nline", title="Two", severity="warning", timeout=10)
            await drawn(pilot)
            shown = toasts(app)
            assert len(shown) == 1 and len(app._notifications) == 1
            assert app.notice == ("warning", "Two: second\nline")
            # Across the foot of the screen, over the footer's keys: the whole width,
            # clear of the inspector (whose top it covered, cut, under the header).
            assert shown[0].region.bottom == app.screen.size.height
            assert shown[0].region.width == app.screen.size.width
            assert not shown[0].region.overlaps(app.main.inspector.region)
            # Every notice is still kept, for the help and the tests.
            assert [t for _, t in app.notices[-2:]] == ["One: first", "Two: second\nline"]
            # Never longer than a few seconds, whatever the caller asked.
            assert max(n.timeout for n in app._notifications) <= 6
            # The next edit clears it: it may have been about what the edit fixed.
            app.main.do(RemoveDevice("a01-blank4"))
            await settle(pilot)
            await drawn(pilot)
            assert app.notice is None and toasts(app) == []
            # Within one edit, a graver notice is not replaced by a lighter one.
            app.notify("✖ COOL001 rack a01: too hot", severity="error")
            app.notify("Placed a01-n09")
            await pilot.pause()
            assert app.notice is not None and app.notice[0] == "error"
            assert any(t == "Placed a01-n09" for _, t in app.notices)

    run(journey)


def test_a_long_notice_is_shown_whole_at_80x24_and_its_title_not_said_twice(
    tmp_path: Path,
) -> None:
    """At 80x24 a notice of 150 characters wraps over two lines of 78 (the screen's width
    less the toast's border and padding), every word of it on screen; a notice whose text
    starts with its title ("What if" over "What if side:A fails:") says it once, and a
    line ending in a colon runs into the next without a separator."""
    path = copy("training-128.toml", tmp_path)
    words = " ".join(f"word{i:02d}" for i in range(25))  # 25 x 7 - 1 = 174 characters

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await settle(pilot)
            app.notify(words, timeout=10)
            await drawn(pilot)
            shown = toasts(app)
            assert len(shown) == 1 and shown[0].region.height == 3  # 174 / 77 -> 3 lines
            rendered = " ".join(str(shown[0].render()).split())
            assert rendered == words
            assert not shown[0].region.overlaps(app.main.inspector.region)
            app.notify("What if side:A fails:\n  GPUs: 0 down", title="What if")
            await drawn(pilot)
            assert app.notice == ("information", "What if side:A fails:\n  GPUs: 0 down")
            assert " ".join(str(toasts(app)[0].render()).split()) == (
                "What if side:A fails: GPUs: 0 down"
            )

    run(journey)


def test_a_notice_never_covers_a_dialog_it_shows_when_the_dialog_closes(tmp_path: Path) -> None:
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await settle(pilot)
            app.notify("before the dialog", timeout=10)
            await drawn(pilot)
            assert len(toasts(app)) == 1
            app.main.do(RemoveDevice("a01-blank4"))
            await settle(pilot)
            await pilot.press("ctrl+q")  # unsaved changes: the quit question
            await drawn(pilot)
            assert isinstance(app.screen, ConfirmScreen)
            assert toasts(app) == [] and not app._notifications
            app.notify("while the dialog is open", timeout=10)
            await drawn(pilot)
            assert toasts(app) == [] and not app._notifications
            await pilot.press("escape")
            await pilot.pause()
            await pilot.pause()
            assert not isinstance(app.screen, ConfirmScreen)
            assert app.notice == ("information", "while the dialog is open")
            assert len(app._notifications) == 1

    run(journey)


def test_while_a_file_loads_the_racks_view_says_how_many_racks_not_the_empty_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = copy("training-128.toml", tmp_path)
    racks = path.read_text(encoding="utf-8").count("\n[[racks]]")
    assert workspace.count_racks(str(path)) == racks
    assert workspace.loading_text(racks) == f"Loading {racks} racks…"
    assert workspace.loading_text(2048) == "Loading 2,048 racks…"
    release = threading.Event()
    real = workspace.load_layout

    def slow(path, progress=None):  # type: ignore[no-untyped-def]
        if progress is not None:
            progress(5, "reading and converting…")
        release.wait(NEVER_S)  # until the test has seen the step
        return real(path, progress)

    monkeypatch.setattr(main_screen, "load_layout", slow)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            # "Loading N racks… 0 %" comes first, then the load's own step.
            hint = f"Loading {racks} racks… 5 %"
            await until(pilot, lambda: app.main.racks.empty_hint == hint, hint)
            assert hint in app.main.racks.render_line(1).text
            assert "No racks yet" not in app.main.racks.render_line(1).text
            release.set()
            await settle(pilot)
            assert app.main.racks.empty_hint == EMPTY_HINT
            assert app.workspace.session is not None
            assert len(app.workspace.session.layout.racks) == racks

    run(journey)


def test_a_refusal_under_a_field_below_the_fold_is_scrolled_into_view_whole(
    tmp_path: Path,
) -> None:
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            # The device's face field, the inspector's last visible line at 80x24.
            await pilot.press("enter", "tab", "tab", "tab", "ctrl+u")
            await type_text(pilot, "sideways")
            await pilot.press("enter")
            await settle(pilot)
            inspector = app.main.inspector
            assert inspector.editing == "face"
            assert "sideways" in (inspector.note("face") or "")
            view = inspector.lines_view
            row = view.rows["face"]
            after = min(r for r in view.rows.values() if r > row)
            assert after - row > 2  # the refusal wraps over more than one line here
            assert view.top <= row  # the field is on screen
            assert after - 1 < view.top + view.size.height  # and its refusal's last line

    run(journey)
