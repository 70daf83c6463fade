"""The autosave sidecar: ``.<name>.toml.autosave`` next to the layout (no Textual here)."""

from __future__ import annotations

import os
from pathlib import Path

from rackdesigner.layout_io.saving import write_atomic

INTERVAL_S = 30.0
EVERY_EDITS = 20


def sidecar(path: str | os.PathLike[str]) -> Path:
    target = Path(path)
    return target.with_name(f".{target.name}.autosave")


def write(path: str | os.PathLike[str], text: str) -> Path:
    """Write the unsaved layout's text beside ``path``; atomic, so a crash leaves one whole."""
    target = sidecar(path)
    write_atomic(target, text.encode("utf-8"))
    return target


def remove(path: str | os.PathLike[str]) -> None:
    sidecar(path).unlink(missing_ok=True)


def newer(path: str | os.PathLike[str]) -> Path | None:
    """The sidecar when it exists and is newer than the layout (or the layout is gone)."""
    side = sidecar(path)
    try:
        side_time = side.stat().st_mtime_ns
    except OSError:
        return None
    try:
        file_time = Path(path).stat().st_mtime_ns
    except OSError:
        return side
    return side if side_time > file_time else None
