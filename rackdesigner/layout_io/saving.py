"""Write files without ever losing work: atomic replace, and the refusals a save may raise."""

from __future__ import annotations

import errno
import functools
import os
import tempfile
from pathlib import Path


def write_atomic(target: Path, data: bytes) -> None:
    """Write ``data`` to ``target`` so that a crash leaves the old file or the new one.

    The bytes go to a temporary file in the same folder, are flushed to disk, and
    replace the target in one rename; the target's permissions are kept. A symlink is
    followed: the file it points to is replaced and the link stays (a layout kept in one
    place and linked from another). A file without write permission is not replaced
    (a rename would ignore its mode); that is a :class:`PermissionError`, as for ``open``.
    An interruption (Ctrl-C) removes the temporary file and leaves the target as it was.
    The folder is flushed too, so that the rename itself survives a power cut.
    """
    target = Path(target)
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    if target.exists() and not os.access(target, os.W_OK):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(target))
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
            f"canonical form ({'line' if count == 1 else 'lines'} {shown}): only the header "
            "comment and comments "
            "directly above a table are kept"
        )


def file_identity(path: str | os.PathLike[str]) -> tuple[object, ...]:
    """What makes two paths one file: its device and inode where it exists (through
    symlinks and hard links), otherwise its resolved name."""
    try:
        info = os.stat(path)
        return ("inode", info.st_dev, info.st_ino)
    except OSError:
        pass
    try:
        if os.path.islink(path):  # a dangling link: the file it will create
            return ("path", os.path.realpath(path))
        folder, name = os.path.split(os.path.abspath(path))
        return ("path", os.path.join(_real_folder(folder), name))
    except OSError:
        return ("path", os.path.abspath(path))


@functools.lru_cache(maxsize=4096)
def _real_folder(folder: str) -> str:
    # Thousands of outputs share a folder: resolve it once.
    return os.path.realpath(folder)


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name one file (see :func:`file_identity`)."""
    return file_identity(a) == file_identity(b)
