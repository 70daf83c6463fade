"""Save a layout without ever losing work: atomic replace, and no silent overwrite."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from ..model import Layout
from .reader import Origin
from .writer import dumps


def write_atomic(target: Path, data: bytes) -> None:
    """Write ``data`` to ``target`` so that a crash leaves the old file or the new one.

    The bytes go to a temporary file in the same folder, are flushed to disk, and
    replace the target in one rename; the target's permissions are kept. A symlink is
    followed: the file it points to is replaced and the link stays (a layout kept in one
    place and linked from another). A file without write permission is not replaced
    (a rename would ignore its mode); that is a :class:`PermissionError`, as for ``open``.
    An interruption (Ctrl-C) removes the temporary file and leaves the target as it was.
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


class FileChangedError(Exception):
    """The file changed on disk since the layout was read; saving would overwrite it."""

    def __init__(self, path: str):
        self.path = path
        super().__init__(f"{path} changed on disk since it was opened; not overwriting it")


def save(
    layout: Layout, path: str | os.PathLike[str] | None = None, *, force: bool = False
) -> Origin:
    """Write ``layout`` canonically to ``path`` (default: where it was read from).

    The text goes to a temporary file in the same folder, is flushed to disk, and
    replaces the target in one rename, so a crash leaves the old file or the new one,
    never half of one. If the target is the file the layout was read from and it
    changed on disk since, :class:`FileChangedError` is raised unless ``force``.
    """
    origin: Origin | None = layout.origin
    if path is None:
        if origin is None or not origin.path:
            raise ValueError("the layout was not read from a file: give a path")
        path = origin.path
    target = Path(path)
    if (
        not force
        and origin is not None
        and origin.mtime_ns
        and target.exists()
        and os.path.samefile(target, origin.path)
    ):
        info = target.stat()
        if (info.st_mtime_ns, info.st_size) != (origin.mtime_ns, origin.size):
            raise FileChangedError(str(target))
    write_atomic(target, dumps(layout).encode("utf-8"))
    info = target.stat()
    saved = Origin(str(target), info.st_mtime_ns, info.st_size)
    layout.origin = saved
    return saved
