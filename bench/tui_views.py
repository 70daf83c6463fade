#!/usr/bin/env python3
"""Time the designer's views on a large layout, headless through Pilot, in this process.

    python bench/tui_views.py                  # the 100,000-GPU layout of bench/generate.py
    python bench/tui_views.py --gpus 8192
    python bench/tui_views.py --gpus 16384 --remote-from 0     # its fabric in a child

Prints a markdown table: tomllib parsing the file (the reference); the app from start to
racks drawn (a usable screen), a key at once, cursor keys every 50 ms while each check runs
and while the summary and topology are built ahead (median, 90th percentile, worst); each
view switch (shown and focused, with its data, with Pilot's repaint), switches over and
over and at key repeat; held keys at 30 a second across a row and down the rows (the lag
they leave); cursor keys; an edit made with m, up, enter (the app's own time: command,
re-check, every panel); and the process's peak memory (and that of the fabric check's
child process, when the layout's fabric rules run in one: ``--remote-from`` sets the
cable count from which they do). "Answered" is the app's own answer (its state shows the
key), without Pilot's wait for repaints.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import sys
import tempfile
import time
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from generate import generate_layout_text

from rackdesigner.tui.app import DesignerApp
from rackdesigner.tui.controllers.views_ahead import BUILT, stamp_of


async def until(pilot: object, done: object, timeout: float = 300.0) -> float:
    began = time.perf_counter()
    while not done():  # type: ignore[operator]
        await pilot.pause(0.005)  # type: ignore[attr-defined]
        if time.perf_counter() - began > timeout:
            raise RuntimeError("timed out")
    return time.perf_counter() - began


async def answered(app: DesignerApp, key: str, done: object, timeout: float = 60.0) -> float:
    """Seconds from a key reaching the app to ``done()``: the app's own answer, without
    waiting, as Pilot's press does, for every worker's messages to settle."""
    began = time.perf_counter()
    app.simulate_key(key)
    while not done():  # type: ignore[operator]
        await asyncio.sleep(0.001)
        if time.perf_counter() - began > timeout:
            raise RuntimeError(f"{key}: no answer")
    return time.perf_counter() - began


def spread(values: list[float]) -> str:
    """Median, 90th percentile and worst of a set of key times, in ms, and how many took
    over 100 ms."""
    if not values:
        return "–"
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
    over = sum(v > 0.1 for v in ordered)  # the bound: no key over 100 ms
    return (
        f"{statistics.median(ordered) * 1000:,.0f} / {p90 * 1000:,.0f} / "
        f"{ordered[-1] * 1000:,.0f} ms ({len(ordered)} keys, {over} over 100 ms)"
    )


async def keys_while(app: DesignerApp, running: object, gap: float = 0.05) -> list[float]:
    """Cursor keys every ``gap`` s while ``running()``: each one's answer time."""
    took = []
    while running():  # type: ignore[operator]
        was = app.main.racks.cursor
        step = "left" if was.rack > 0 else "right"
        took.append(await answered(app, step, lambda was=was: app.main.racks.cursor != was))
        await asyncio.sleep(gap)
    return took


async def repeat(app: DesignerApp, keys: list[str], done: object, every: float = 1 / 30) -> float:
    """Keys sent at key-repeat speed (30 a second, as a held key): seconds from the last
    key sent to ``done()``, the lag the app builds up (0 means it kept up)."""
    for key in keys:
        app.simulate_key(key)
        await asyncio.sleep(every)
    began = time.perf_counter()
    while not done():  # type: ignore[operator]
        await asyncio.sleep(0.001)
        if time.perf_counter() - began > 60:
            raise RuntimeError(
                f"key repeat: no answer (focus {app.focused!r}, view {app.main.view_name})"
            )
    return time.perf_counter() - began


async def measure(path: Path, folder: Path, only_fabric: bool = False) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []

    def ms(name: str, seconds: float) -> None:
        rows.append((name, f"{seconds * 1000:,.1f} ms"))

    began = time.perf_counter()
    tomllib.loads(path.read_text(encoding="utf-8"))
    ms("tomllib parses the file (reference)", time.perf_counter() - began)
    app = DesignerApp(str(path), keymap_file=folder / "none.toml")
    began = time.perf_counter()
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.workspace.session is not None and bool(app.main.racks.rows))
        ms("app start to racks drawn (usable screen)", time.perf_counter() - began)
        # The first key lands at once, on whatever the app still does after drawing.
        was = app.main.racks.cursor
        ms(
            "first key after the racks are drawn, answered",
            await answered(app, "right", lambda: app.main.racks.cursor != was),
        )
        assert app.workspace.session is not None
        session = app.workspace.session
        first = await keys_while(app, lambda: session.analysis is None)
        rows.append(
            (
                "keys answered while racks, power, cooling are checked (median/p90/max)",
                spread(first),
            )
        )
        checked = time.perf_counter()
        ms("app start to racks, power, cooling checked", checked - began)

        findings_at: list[float] = []  # when the fabric findings came (not the views)

        def fabric_running() -> bool:
            if not session.fabric_stale and not findings_at:
                findings_at.append(time.perf_counter())
            return session.fabric_stale or any(
                w.group == "fabric" and w.is_running for w in app.workers
            )

        findings_at.clear()
        fabric = await keys_while(app, fabric_running)
        rows.append(("keys answered while the fabric rules run (median/p90/max)", spread(fabric)))
        found = findings_at[0] if findings_at else time.perf_counter()
        ms("app start to fabric findings", found - began)
        ms("first check done to fabric findings", found - checked)
        ms("app start to fabric findings and the child's views", time.perf_counter() - began)
        # The check pipeline holds the fabric checks; a revision before it kept them on the
        # screen (the bench measures older revisions side by side).
        pipeline = getattr(app.main, "checks", None)
        checks = getattr(pipeline, "fabric", None) or getattr(app.main, "fabric_checks", None)
        children = checks.process.started if checks is not None and checks.process else 0
        rows.append(
            ("fabric rules ran in", f"{children} child process(es)" if children else "this process")
        )
        rows.append(
            ("keys answered during the whole check (median/p90/max)", spread(first + fabric))
        )
        # An edit that changes the fabric (a cable removed, then put back by undo): the
        # edit's own time, then to its fabric findings, and the keys meanwhile.
        from rackdesigner.edit import RemoveLink

        link = session.layout.links[len(session.layout.links) // 2]
        for name, edit in (
            ("remove a cable", lambda: app.main.do(RemoveLink(link))),
            ("undo it", app.main.action_undo),
        ):
            key = time.perf_counter()
            edit()
            ms(f"fabric edit ({name}): the edit, answered", time.perf_counter() - key)
            findings_at.clear()
            keys = await keys_while(app, fabric_running)
            done = findings_at[0] if findings_at else time.perf_counter()
            ms(f"fabric edit ({name}): to its fabric findings", done - key)
            ms(f"fabric edit ({name}): to the child's views", time.perf_counter() - key)
            rows.append((f"fabric edit ({name}): keys meanwhile (median/p90/max)", spread(keys)))
        if only_fabric:
            child_peak = checks.child_peak_mb if checks is not None else 0.0
            return _memory(rows, child_peak)

        def built() -> bool:
            return all(
                (found := app.main.views.view_data(n)) is not None and found[0] == stamp_of(session)
                for n in BUILT
            )

        ahead = await keys_while(app, lambda: not built())
        ms("app start to summary and topology built ahead", time.perf_counter() - began)
        rows.append(
            ("keys answered while the views are built ahead (median/p90/max)", spread(ahead))
        )
        for key_name, name, ready in (
            ("2", "floor", lambda: bool(app.main.floor.rows)),
            ("4", "summary", lambda: app.main.summary.summary is not None),
            ("3", "topology", lambda: bool(app.main.topology.entries)),
            ("1", "racks", lambda: True),
            ("2", "floor (again)", lambda: True),
        ):
            view = name.split()[0]
            key = time.perf_counter()
            took = await answered(
                app,
                key_name,
                lambda view=view: (
                    app.main.view_name == view
                    and app.focused is not None
                    and app.focused.id == view
                ),
            )
            ms(f"key {key_name}: {name} view shown and focused", took)
            await until(pilot, ready)
            ms(f"key {key_name}: {name} view with its data", time.perf_counter() - key)
            await pilot.pause()
            ms(f"key {key_name}: {name} view, with Pilot's repaint", time.perf_counter() - key)
        # Switching views over and over, each key sent as soon as the last one is
        # answered (the view shown and focused).
        switches = []
        for key_name in ["4", "3", "2", "1"] * 5:
            view = {"1": "racks", "2": "floor", "3": "topology", "4": "summary"}[key_name]
            switches.append(
                await answered(
                    app,
                    key_name,
                    lambda view=view: (
                        app.main.view_name == view
                        and app.focused is not None
                        and app.focused.id == view
                    ),
                )
            )
        rows.append(("view switches 4-3-2-1 ×5, each answered (median/p90/max)", spread(switches)))
        # The same keys at key repeat (30 a second, without waiting): the lag after the
        # last one, until the racks view is shown and focused.
        lag = await repeat(
            app,
            ["4", "3", "2", "1"] * 5,
            lambda: app.main.view_name == "racks" and app.focused is app.main.racks,
        )
        ms("view switches 4-3-2-1 ×5 at key repeat: lag after the last key", lag)
        await pilot.pause()
        await pilot.press("2")
        app.main.floor.move(-999, 0)
        end = len(app.main.floor.rows[app.main.floor.row][1]) - 1
        lag = await repeat(app, ["right"] * end, lambda: app.main.floor.index >= end)
        ms(f"floor view: {end} × right (a row) at key repeat: lag after the last key", lag)
        row = app.main.floor.row
        n = min(30, len(app.main.floor.rows) - 1 - row)
        lag = await repeat(app, ["down"] * n, lambda: app.main.floor.row >= row + n)
        ms(f"floor view: {n} × down (a row each) at key repeat: lag after the last key", lag)
        presses = 40
        took = []
        for _ in range(presses):
            was = app.main.floor.index
            step = "left" if was > 0 else "right"  # never against the row's end
            took.append(await answered(app, step, lambda was=was: app.main.floor.index != was))
            await pilot.pause()
        rows.append(("floor view: cursor key answered (median/p90/max)", spread(took)))
        await pilot.press("1")
        app.main.racks.move_cursor(-999, 0)
        end = len(app.main.racks.plans()) - 1
        lag = await repeat(app, ["right"] * end, lambda: app.main.racks.cursor.rack >= end)
        ms(f"racks view: {end} × right (a row) at key repeat: lag after the last key", lag)
        row = app.main.racks.row
        n = min(30, len(app.main.racks.rows) - 1 - row)
        lag = await repeat(app, ["right_square_bracket"] * n, lambda: app.main.racks.row >= row + n)
        ms(f"racks view: {n} × next row at key repeat: lag after the last key", lag)
        took = []
        for _ in range(presses):
            was = app.main.racks.cursor
            step = "left" if was.rack > 0 else "right"
            took.append(await answered(app, step, lambda was=was: app.main.racks.cursor != was))
            await pilot.pause()
        rows.append(("racks view: cursor key answered (median/p90/max)", spread(took)))
        key = time.perf_counter()
        await pilot.press("]")
        ms("racks view: next row, with Pilot's repaint", time.perf_counter() - key)
        # An edit: a GPU node moved up a unit with m, up, enter, the way a user does it.
        node = next(d for d in session.analysis.devices if d.is_gpu_node)  # type: ignore[union-attr]
        app.main.go_to(node.device.id)
        await pilot.pause()
        edits = []
        for key_name in ("up", "down") * 3:
            await pilot.press("m", key_name)
            key = time.perf_counter()
            await pilot.press("enter")
            edits.append(app.workspace.timings["edit"])
            await until(pilot, lambda: not fabric_running())
        rows.append(
            (
                "edit (move a node a unit): command, re-check, panels (median/max)",
                f"{statistics.median(edits) * 1000:,.1f} / {max(edits) * 1000:,.1f} ms",
            )
        )
        # A rack's cooling changed in the inspector (the site rules run again): the
        # node's rack, enter to edit, the cooling field, its text, enter.
        rack = session.index.rack_of(node.device.id)
        assert rack is not None
        was = rack.cooling or "air"
        other = "air" if was != "air" else "liquid"
        edits = []
        for cooling in (other, was) * 3:
            app.main.go_to(rack.id)
            await pilot.pause()
            await pilot.press("enter")
            app.main.inspector.edit("cooling")
            app.main.inspector.editor.value = cooling
            app.workspace.timings.pop("edit", None)
            await pilot.press("enter")
            changed = session.index.rack(rack.id)
            assert changed is not None and changed.cooling == cooling, app.notices[-1:]
            edits.append(app.workspace.timings["edit"])
            await pilot.press("escape")
            await until(pilot, lambda: not fabric_running())
        rows.append(
            (
                "edit (a rack's cooling in the inspector): command, re-check, panels (median/max)",
                f"{statistics.median(edits) * 1000:,.1f} / {max(edits) * 1000:,.1f} ms",
            )
        )
        child_peak = checks.child_peak_mb if checks is not None else 0.0
    return _memory(rows, child_peak)


def _memory(rows: list[tuple[str, str]], child_peak: float) -> list[tuple[str, str]]:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rows.append(("peak memory", f"{peak:,.0f} MB"))
    if child_peak:
        rows.append(("peak memory of the fabric check's child process", f"{child_peak:,.0f} MB"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", type=int, default=100_000)
    parser.add_argument(
        "--remote-from",
        type=int,
        default=None,
        help="cables from which the fabric rules run in a child process (the app's default)",
    )
    parser.add_argument(
        "--child-nice",
        type=int,
        default=None,
        help="the niceness of the fabric check's child (the app's default otherwise)",
    )
    parser.add_argument(
        "--fabric-only",
        action="store_true",
        help="stop after the fabric check and the fabric edits (no views, keys, edits)",
    )
    args = parser.parse_args()
    if args.child_nice is not None:
        from rackdesigner.edit import remote_check

        remote_check.CHILD_NICE = args.child_nice
    if args.remote_from is not None:
        from rackdesigner.tui.controllers import checking

        checking.REMOTE_FROM_LINKS = args.remote_from
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / f"gpus-{args.gpus}.toml"
        path.write_text(generate_layout_text(args.gpus), encoding="utf-8")
        rows = asyncio.run(measure(path, folder, args.fabric_only))
    print(f"| measure ({args.gpus:,} GPUs, Pilot 120x40) | value |")
    print("|---|---:|")
    for name, value in rows:
        print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
