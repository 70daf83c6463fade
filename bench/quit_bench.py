#!/usr/bin/env python3
"""Time ctrl+q on an unchanged layout in a real terminal, and look for what is left.

    python bench/quit_bench.py                              # 100,000 GPUs, 3 repeats
    python bench/quit_bench.py --layout layouts/training-128.toml --at racks

For each repeat a new tmux session (120x40) runs ``rackdesigner edit LAYOUT``; once the
racks are on screen ("Row ") -- with ``--at checked`` once the header holds the checked
totals ("GPUs") -- ctrl+q is sent and the clock runs until the designer's process and every
process it started are gone. An unchanged layout asks nothing, so nothing else is typed.
The table gives the seconds from the key to the last process gone, and how many of the
designer's processes were still there 5 s after the key (0: none left behind).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent


def tree(pid: int) -> set[int]:
    """``pid`` and its descendants still alive."""
    found = {pid}
    changed = True
    while changed:
        changed = False
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) in found:
                continue
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) in found and fields[0] != "Z":
                found.add(int(entry))
                changed = True
    return {p for p in found if _alive(p)}


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def once(python: str, layout: str, marker: str, timeout: float = 300.0) -> tuple[float, int]:
    socket = f"rackdesigner-quit-{uuid.uuid4().hex[:8]}"

    def tmux(*args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", socket, *args], capture_output=True, text=True, check=False
        ).stdout

    line = f"exec '{python}' -m rackdesigner edit '{layout}'"
    tmux("new-session", "-d", "-s", "q", "-x", "120", "-y", "40", "-c", str(ROOT), line)
    try:
        pid = int(tmux("display-message", "-p", "-t", "q", "#{pane_pid}").strip())
        began = time.perf_counter()
        while marker not in tmux("capture-pane", "-t", "q", "-p"):
            if time.perf_counter() - began > timeout:
                raise RuntimeError(f"{marker!r} never appeared")
            time.sleep(0.02)
        family = tree(pid)
        tmux("send-keys", "-t", "q", "C-q")
        pressed = time.perf_counter()
        gone = None
        left = 0
        while True:
            family = (
                {p for p in family | tree(pid) if _alive(p)}
                if _alive(pid)
                else {p for p in family if _alive(p)}
            )
            now = time.perf_counter() - pressed
            if not family and gone is None:
                gone = now
                break
            if now > 5.0 and not left:
                left = len(family)
            if now > 60:
                break
            time.sleep(0.005)
        return (gone if gone is not None else float("inf")), left
    finally:
        tmux("kill-server")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layout", default=str(HERE / "out" / "gpus-100000.toml"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--at", choices=["racks", "checked"], default="racks")
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    if not os.path.exists(args.layout):
        sys.path.insert(0, str(HERE))
        from generate import generate_layout_text

        gpus = int(Path(args.layout).stem.split("-")[-1])
        Path(args.layout).write_text(generate_layout_text(gpus), encoding="utf-8")
    marker = "Row " if args.at == "racks" else "GPUs"
    times, left = [], []
    for _ in range(args.repeat):
        seconds, remaining = once(args.python, args.layout, marker)
        times.append(seconds)
        left.append(remaining)
    print(f"ctrl+q on {Path(args.layout).name} once {args.at} (tmux 120x40), {args.repeat} runs\n")
    print("| measure | best | median | worst |\n|---|---:|---:|---:|")
    print(
        f"| key to every process gone (ms) | {min(times) * 1000:.0f} | "
        f"{statistics.median(times) * 1000:.0f} | {max(times) * 1000:.0f} |"
    )
    print(
        f"| processes left 5 s after the key | {min(left)} | "
        f"{statistics.median(left):.0f} | {max(left)} |"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
