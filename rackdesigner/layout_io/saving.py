"""Write files without ever losing work: atomic replace, and the refusals a save may raise."""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import secrets
import signal
import stat
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; the hash check still guards a save
    fcntl = None  # type: ignore[assignment]


# Paths that name an already open descriptor of this process (a shell's redirect, a pipe):
# written to that descriptor as it is, at its offset, never reopened or replaced.
_DESCRIPTORS = {"/dev/stdout": 1, "/dev/stderr": 2}


def descriptor_of(target: Path) -> int | None:
    name = str(target)
    if name in _DESCRIPTORS:
        return _DESCRIPTORS[name]
    for prefix in ("/dev/fd/", "/proc/self/fd/"):
        if name.startswith(prefix) and name[len(prefix) :].isdigit():
            return int(name[len(prefix) :])
    return None


def streams(target: str | os.PathLike[str]) -> bool:
    """Whether ``target`` is written as a stream, not replaced atomically: ``/dev/stdout``
    and its kin, or an existing path that is not a regular file (a character device such
    as ``/dev/null``, a FIFO, a socket). Renaming over those would turn them into files."""
    target = Path(target)
    if descriptor_of(target) is not None:
        return True
    try:
        mode = os.stat(target).st_mode
    except OSError:
        return False  # a new path (or a dangling link): created as a regular file
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def write_stream(target: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` into ``target`` as it is (see :func:`streams`): a descriptor at its
    offset, a device or FIFO opened for writing (a FIFO waits for its reader). The path is
    never created, truncated, unlinked or renamed."""
    target = Path(target)
    descriptor = descriptor_of(target)
    if descriptor is not None:
        try:
            _write_all_bytes(descriptor, data)
        except OSError as error:
            error.filename = str(target)
            raise
        return
    handle = os.open(target, os.O_WRONLY | getattr(os, "O_NOCTTY", 0))
    try:
        _write_all_bytes(handle, data)
    except OSError as error:
        error.filename = str(target)
        raise
    finally:
        os.close(handle)


def _write_all_bytes(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(descriptor, view)
        view = view[written:]


def write_atomic(
    target: Path | str,
    data: bytes,
    *,
    before_replace: Callable[[], None] | None = None,
) -> None:
    """Write ``data`` to ``target`` so that a crash leaves the old file or the new one.

    The bytes go to a temporary file in the same folder, are flushed to disk, and
    replace the target in one rename; the target's permissions are kept. A symlink is
    followed: the file it points to is replaced and the link stays (a layout kept in one
    place and linked from another). A file without write permission is not replaced
    (a rename would ignore its mode); that is a :class:`PermissionError`, as for ``open``.
    An interruption (Ctrl-C, SIGTERM) removes the temporary file and leaves the target as
    it was. The folder is flushed too, so that the rename itself survives a power cut.

    Only a regular file (or a new path) is replaced: ``/dev/stdout``, a character device
    or a FIFO is written as a stream (:func:`write_stream`), never renamed over.
    ``before_replace`` runs after the data is on disk and just before the rename; it may
    raise to keep the target as it is (the save guard checks the file once more there).
    """
    target = Path(target)
    if streams(target):
        if before_replace is not None:
            before_replace()
        write_stream(target, data)
        return
    target = _resolved(target)
    folder = target.parent if str(target.parent) else Path(".")
    claimed: list[str] = []
    try:
        temporary = _stage(target, folder, data, claimed=claimed)
        if before_replace is not None:
            before_replace()
        os.replace(temporary, target)
    except BaseException:
        for temporary in claimed:  # at most one; renamed, it is gone
            Path(temporary).unlink(missing_ok=True)
        raise
    _sync_folder(folder)


def _resolved(target: Path) -> Path:
    """The regular file a save replaces: a symlink's target; refused without write
    permission (a rename would ignore the mode)."""
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    if target.exists() and not os.access(target, os.W_OK):
        raise not_writable(target)
    return target


def not_writable(path: str | os.PathLike[str]) -> OSError:
    """Why ``path``, which ``os.access`` says cannot be written, cannot: its file system is
    mounted read-only (EROFS, as the write itself would say), else a permission (EACCES)."""
    try:
        read_only = bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):  # gone meanwhile, or no statvfs (Windows)
        read_only = False
    code = errno.EROFS if read_only else errno.EACCES
    kind = OSError if read_only else PermissionError
    return kind(code, os.strerror(code), str(path))


def make_temporary(folder: Path, name: str, claimed: list[str] | None = None) -> tuple[int, str]:
    """A new hidden file beside the target (a test hook: tests make it fail).

    Its path goes into ``claimed`` before the file is made, so a Ctrl-C or SIGTERM at any
    moment leaves no file the caller does not know of (``tempfile.mkstemp`` makes the
    file, then returns: an interruption between the two left it behind, and a folder it
    was in could not be removed).
    """
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        temporary = os.path.join(folder, f".{name}.{secrets.token_hex(6)}.tmp")
        if claimed is not None:
            claimed.append(temporary)
        try:
            return os.open(temporary, flags, 0o600), temporary
        except FileExistsError:
            if claimed is not None:
                claimed.remove(temporary)  # someone else's: never ours to remove
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(folder))


def _stage(target: Path, folder: Path, data: bytes, *, claimed: list[str] | None = None) -> str:
    """The temporary file holding ``data``, flushed, with the target's mode; its path is
    in ``claimed`` from before it exists (:func:`make_temporary`)."""
    try:
        handle, temporary = make_temporary(folder, target.name, claimed)
    except PermissionError as error:
        # The file itself may well be writable: it is the folder that refuses a new file.
        raise PermissionError(
            error.errno or errno.EACCES,
            f"{error.strerror or os.strerror(errno.EACCES)}: the folder {folder} does not "
            "allow new files (saving writes a temporary file there first)",
            str(target),
        ) from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        if target.exists():
            os.chmod(temporary, target.stat().st_mode & 0o7777)
        else:
            os.chmod(temporary, 0o644)
    except BaseException as error:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(error, OSError) and error.filename in (None, temporary):
            error.filename = str(target)  # name the file asked for, not the hidden one
        raise
    return temporary


def write_all(files: Sequence[tuple[Path | str, bytes]], *, make_folders: bool = False) -> None:
    """Write several files as one: all of them, or none this run created.

    First every file is written to a temporary beside its target (the slow part: a full
    disk or an interruption here leaves nothing), then the temporaries are renamed into
    place one after another, and streams (:func:`streams`) are written last. On any
    failure, Ctrl-C or SIGTERM included, the temporaries are removed, and so are the
    files and folders this run created; a file that existed before is never removed
    (once renamed over, it holds the new text). The exception is raised again with a
    note (PEP 678 ``__notes__``) saying what was undone.
    """
    from rackdesigner.model.progress import each

    staged: list[tuple[Path, str | None, bytes | None]] = []  # (target, temporary, stream)
    claimed: list[str] = []  # every temporary, named before it is made
    renaming: Path | None = None  # a new file being renamed into place
    created: list[Path] = []
    replaced: list[Path] = []
    folders: list[Path] = []
    try:
        for path, data in each(files, "writing files"):
            path = Path(path)
            if make_folders:
                folders.extend(_make_folders(path.parent))
            if streams(path):
                staged.append((path, None, data))
                continue
            try:
                target = _resolved(path)
                folder = target.parent if str(target.parent) else Path(".")
                staged.append((target, _stage(target, folder, data, claimed=claimed), None))
            except OSError as error:
                if error.filename is None:
                    error.filename = str(path)
                raise
        for target, temporary, _ in staged:
            if temporary is None:
                continue
            existed = os.path.lexists(target)
            # Named before the rename: an interruption just after it removes the new file.
            renaming = None if existed else target
            os.replace(temporary, target)
            (replaced if existed else created).append(target)
            renaming = None
        for target in {t.parent for t, temporary, _ in staged if temporary is not None}:
            _sync_folder(target if str(target) else Path("."))
        for target, temporary, stream in staged:
            if temporary is None and stream is not None:
                write_stream(target, stream)
    except BaseException as error:
        for temporary in claimed:  # the renamed ones are gone; the rest, even half made
            Path(temporary).unlink(missing_ok=True)
        for target in (*created, *([renaming] if renaming is not None else [])):
            target.unlink(missing_ok=True)
        for folder in reversed(folders):
            with contextlib.suppress(OSError):
                folder.rmdir()  # only if empty: never what someone else put there
        if len(files) > 1 or created or replaced:
            error.add_note(_undone(len(files), len(created), replaced))
        raise


def _undone(total: int, created: int, replaced: list[Path]) -> str:
    if not created and not replaced:
        return f"nothing was written (of {total} file{'' if total == 1 else 's'})"
    words = []
    if created:
        words.append(
            f"the {created} new file{'' if created == 1 else 's'} it had written "
            f"{'was' if created == 1 else 'were'} removed"
        )
    if replaced:
        count = len(replaced)
        words.append(
            f"{count} file{'' if count == 1 else 's'} that existed before "
            f"{'was' if count == 1 else 'were'} already replaced"
        )
    return "; ".join(words)


def _make_folders(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; the ones created, outermost first. A
    file where a folder should be is NotADirectoryError naming that file."""
    if not str(folder) or folder.is_dir():
        return []
    missing: list[Path] = []
    for ancestor in (folder, *folder.parents):
        if ancestor.is_dir():
            break
        if os.path.lexists(ancestor):
            raise NotADirectoryError(
                errno.ENOTDIR, f"{ancestor} is a file, not a folder", str(ancestor)
            )
        missing.append(ancestor)
    made: list[Path] = []
    for ancestor in reversed(missing):
        try:
            ancestor.mkdir()
        except FileExistsError:
            continue
        made.append(ancestor)
    return made


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


# -- two rackdesigner processes saving one file ------------------------------------------------

LOCK_TIMEOUT_S = 10.0


@contextlib.contextmanager
def save_lock(path: str | os.PathLike[str], timeout: float = LOCK_TIMEOUT_S) -> Iterator[None]:
    """Hold an advisory lock (``flock``) on the file at ``path`` while it is saved.

    Two rackdesigner processes saving one file take turns: the second waits for the
    first's rename, then finds the file changed (its hash check refuses). The lock is on
    the file's inode, which the rename replaces: a waiter that gets the old inode's lock
    takes the new one's. Other programs do not take it (advisory). Nothing to lock (a new
    file, no ``fcntl``, a stream) is no lock. Waiting longer than ``timeout`` is a
    :class:`SaveError`.
    """
    if fcntl is None or streams(path):
        yield
        return
    deadline = time.monotonic() + timeout
    while True:
        try:
            handle = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            yield  # not there (yet) or unreadable: the save says what is wrong
            return
        try:
            while True:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise SaveError(
                            f"{path} is being saved by another rackdesigner; not saving "
                            f"after waiting {timeout:g} s (try again)"
                        ) from None
                    time.sleep(0.02)
            try:
                current = os.stat(path)
            except OSError:
                current = None
            held = os.fstat(handle)
            if current is None or (current.st_dev, current.st_ino) == (held.st_dev, held.st_ino):
                yield
                return
        finally:
            os.close(handle)  # releases the lock


# -- SIGTERM -----------------------------------------------------------------------------------


class Terminated(KeyboardInterrupt):
    """SIGTERM (a CI cancellation, ``kill``), raised like Ctrl-C so that every clean-up
    that handles an interruption handles it too; the command line exits 143."""


def terminate_on_sigterm() -> None:
    """From now on SIGTERM raises :class:`Terminated` in the main thread; a second one
    while cleaning up kills the process as usual."""

    def raise_terminated(signum: int, frame: object) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        raise Terminated()

    signal.signal(signal.SIGTERM, raise_terminated)


_DEFERRED = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def signals_deferred() -> Iterator[Callable[[], None]]:
    """Within the block, Ctrl-C and SIGTERM are noted where they land and raised at the
    next call of the function it gives (``check()``), or when the block ends.

    For C code that calls back into Python: cairo writes a PDF or PNG through cffi's write
    callback, and an exception raised there (where Python runs a signal's handler) cannot
    unwind through C: cffi prints its traceback and cairo fails with a write error, so a
    Ctrl-C became a traceback and exit 2. Noted instead, the signal is raised between
    pages by its own handler (KeyboardInterrupt, :class:`Terminated`, or the default
    action), and the usual clean-up and exit code follow. Outside the main thread, which
    never runs signal handlers, it does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield lambda: None
        return
    noted: list[int] = []
    previous = {number: signal.getsignal(number) for number in _DEFERRED}

    def note(number: int, frame: object) -> None:
        noted.append(number)

    def restore() -> None:
        for number, handler in previous.items():
            signal.signal(number, handler if handler is not None else signal.SIG_DFL)

    def check() -> None:
        if noted:
            number = noted[0]
            noted.clear()
            restore()
            signal.raise_signal(number)  # its own handler runs now, and raises
            for deferred in _DEFERRED:  # it did not (an ignored signal): defer again
                signal.signal(deferred, note)

    for number in _DEFERRED:
        signal.signal(number, note)
    try:
        yield check
    finally:
        restore()
        if noted:
            signal.raise_signal(noted[0])
