"""Write files without ever losing work: atomic replace, and the refusals a save may raise."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(target: Path, data: bytes) -> None:
    """Write ``data`` to ``target`` so that a crash leaves the old file or the new one.

    The bytes go to a temporary file in the same folder, are flushed to disk, and
    replace the target in one rename; the target's permissions are kept. The folder is
    flushed too, so that the rename itself survives a power cut.
    """
    folder = target.parent if str(target.parent) else Path(".")
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        if target.exists():
            os.chmod(temporary, target.stat().st_mode & 0o7777)
        else:
            os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    _sync_folder(folder)


def _sync_folder(folder: Path) -> None:
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:  # not every platform opens folders (Windows); the data is flushed
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass  # some file systems refuse fsync on a folder; the rename has happened
    finally:
        os.close(descriptor)


class SaveError(Exception):
    """A save refused to protect work; the message says what would be lost."""


class FileChangedError(SaveError):
    """The file changed on disk since the layout was read; saving would overwrite it."""

    def __init__(self, path: str, how: str = "changed on disk"):
        self.path = path
        super().__init__(
            f"{path} {how} since it was opened; not overwriting it (save with force to "
            "replace it anyway)"
        )


class CommentsLostError(SaveError):
    """Rewriting the file would drop comments the canonical form cannot keep."""

    def __init__(self, path: str, lines: tuple[int, ...]):
        self.path = path
        self.lines = lines
        shown = ", ".join(str(n) for n in lines[:10]) + (" ..." if len(lines) > 10 else "")
        count = len(lines)
        super().__init__(
            f"{count} comment line{'' if count == 1 else 's'} of {path} cannot be kept in "
            f"canonical form (lines {shown}): only the header comment and comments "
            "directly above a table are kept"
        )
