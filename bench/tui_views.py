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
        # A key while the checks run in their workers.
        key = time.perf_counter()
        await pilot.press("right")
        rows.append(("key answered while checking (cursor right)", time.perf_counter() - key))
        await until(pilot, lambda: app.session is not None and app.session.analysis is not None)
        rows.append(("app start to racks, power, cooling checked", time.perf_counter() - began))
        key = time.perf_counter()
        await pilot.press("left")
        rows.append(("key answered while the fabric check runs", time.perf_counter() - key))
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
            await pilot.press(key_name)
            await until(pilot, ready)
            rows.append((f"key {key_name}: {name} view shown", time.perf_counter() - key))
        presses = 40
        key = time.perf_counter()
        for _ in range(presses):
            await pilot.press("right")
        rows.append(("floor view: one cursor key (mean of 40)", (time.perf_counter() - key) / 40))
        await pilot.press("1")
        key = time.perf_counter()
        for _ in range(presses):
            await pilot.press("right")
        rows.append(("racks view: one cursor key (mean of 40)", (time.perf_counter() - key) / 40))
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
