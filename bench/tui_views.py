#!/usr/bin/env python3
"""Time the designer's views on a large layout, headless through Pilot, in this process.

    python bench/tui_views.py                  # the 100,000-GPU layout of bench/generate.py
    python bench/tui_views.py --gpus 8192

Prints a markdown table: tomllib parsing the file (the reference), the app from start to
racks drawn (a usable screen), to the first check and to the fabric findings; a key answered
while the fabric check runs in its worker; each view switch (key to the view showing its
data: the floor is drawn at once, summary and topology are built in a worker); cursor keys
across racks in the racks and floor views; and the process's peak memory. Pilot's own cost
per key is included in the key figures (an upper bound).
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


async def measure(path: Path, folder: Path) -> list[tuple[str, float]]:
    rows: list[tuple[str, float]] = []
    began = time.perf_counter()
    tomllib.loads(path.read_text(encoding="utf-8"))
    rows.append(("tomllib parses the file (reference)", time.perf_counter() - began))
    app = DesignerApp(str(path), keymap_file=folder / "none.toml")
    began = time.perf_counter()
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.session is not None and bool(app.racks.rows))
        rows.append(("app start to racks drawn (usable screen)", time.perf_counter() - began))
        # Keys while the checks run in their workers: the cursor moves (app state).
        checking = app.session is not None and app.session.analysis is None
        for key_name in ("right", "left", "right", "left"):
            was = app.racks.cursor
            took = await answered(app, key_name, lambda was=was: app.racks.cursor != was)
            what = "racks, power, cooling" if checking else "fabric"
            rows.append((f"key answered while the {what} check runs ({key_name})", took))
            checking = app.session is not None and app.session.analysis is None
        await until(pilot, lambda: app.session is not None and app.session.analysis is not None)
        rows.append(("app start to racks, power, cooling checked", time.perf_counter() - began))
        was = app.racks.cursor
        took = await answered(app, "right", lambda: app.racks.cursor != was)
        rows.append(("key answered while the fabric check runs (right)", took))
        await until(
            pilot,
            lambda: (
                not any(w.group == "fabric" and w.is_running for w in app.workers)
                and not app.session.fabric_stale
            ),  # type: ignore[union-attr]
        )
        rows.append(("app start to fabric findings", time.perf_counter() - began))
        for key_name, name, ready in (
            ("2", "floor", lambda: bool(app.floor.rows)),
            ("4", "summary", lambda: app.summary.summary is not None),
            ("3", "topology", lambda: bool(app.topology.entries)),
            ("1", "racks", lambda: True),
            ("2", "floor (again)", lambda: True),
        ):
            key = time.perf_counter()
            took = await answered(
                app,
                key_name,
                lambda name=name, ready=ready: app.view_name == name.split()[0] and ready(),
            )
            await pilot.pause()
            rows.append((f"key {key_name}: {name} view answered", took))
            rows.append(
                (f"key {key_name}: {name} view, with Pilot's pause", time.perf_counter() - key)
            )
        presses = 40
        key = time.perf_counter()
        for _ in range(presses):
            await pilot.press("right")
        rows.append(
            ("floor view: one cursor key, Pilot (mean of 40)", (time.perf_counter() - key) / 40)
        )
        took = []
        for _ in range(presses):
            was = app.floor.index
            step = "left" if was > 0 else "right"  # never against the row's end
            took.append(await answered(app, step, lambda was=was: app.floor.index != was))
            await pilot.pause()
        rows.append(("floor view: cursor key answered (median of 40)", statistics.median(took)))
        await pilot.press("1")
        key = time.perf_counter()
        for _ in range(presses):
            await pilot.press("right")
        rows.append(
            ("racks view: one cursor key, Pilot (mean of 40)", (time.perf_counter() - key) / 40)
        )
        took = []
        for _ in range(presses):
            was = app.racks.cursor
            step = "left" if was.rack > 0 else "right"
            took.append(await answered(app, step, lambda was=was: app.racks.cursor != was))
            await pilot.pause()
        rows.append(("racks view: cursor key answered (median of 40)", statistics.median(took)))
        key = time.perf_counter()
        await pilot.press("]")
        rows.append(("racks view: next row", time.perf_counter() - key))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rows.append(("peak memory (MB)", peak))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / f"gpus-{args.gpus}.toml"
        path.write_text(generate_layout_text(args.gpus), encoding="utf-8")
        rows = asyncio.run(measure(path, folder))
    print(f"| measure ({args.gpus:,} GPUs, Pilot 120x40) | value |")
    print("|---|---:|")
    for name, value in rows:
        shown = f"{value:,.0f} MB" if "memory" in name else f"{value * 1000:,.1f} ms"
        print(f"| {name} | {shown} |")


if __name__ == "__main__":
    main()
