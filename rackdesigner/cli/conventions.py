"""The conventions every command keeps (cli.md, v1.1), in one place.

- an output path that is one of the inputs is refused (exit 2) before anything is
  written;
- ``-`` reads standard input, and findings name it ``<stdin>``;
- Ctrl-C stops with exit 130, SIGTERM with 143, and leaves no partial output (writes
  are atomic; a multi-file export writes all its files or removes the ones it created);
- ``/dev/stdout``, a device or a FIFO as an output is written as a stream, never
  replaced by a file;
- a file-system error is one line naming the path, exit 2, never "internal error";
- messages for people show control and bidi characters of user strings escaped;
- ``rackdesigner X``: a command name wins, otherwise X is a layout for the designer.
"""

from __future__ import annotations

import difflib
import errno
import fnmatch
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path, PurePath
from typing import Any, NoReturn, TypeVar

import click

from rackdesigner.layout_io import saving
from rackdesigner.layout_io.saving import descriptor_of, file_identity, streams
from rackdesigner.model.terminal import is_terminal, shown, shown_lines

STDIN = "-"
STDIN_NAME = "<stdin>"

F = TypeVar("F", bound=Callable[..., Any])


def format_option(*choices: str, help: str | None = None) -> Callable[[F], F]:
    """``--format``, one of ``choices`` (the first is the default), passed as ``fmt_``:
    every command that prints a report takes it so."""
    return click.option(
        "--format",
        "fmt_",
        type=click.Choice(list(choices)),
        default=choices[0],
        show_default=True,
        help=help,
    )


def output_option(
    help: str = "Write to FILE instead of stdout.",
    *,
    required: bool = False,
    metavar: str | None = None,
    dir_okay: bool = True,
) -> Callable[[F], F]:
    """``-o/--output FILE``, passed as ``output``; ``-`` is standard output, and the
    command refuses an input as its output (:func:`refuse_overwrite`)."""
    return click.option(
        "--output",
        "-o",
        type=click.Path(dir_okay=dir_okay),
        required=required,
        metavar=metavar,
        help=help,
    )


def fail(message: str, code: int = 2) -> NoReturn:
    """One line on stderr, ``rackdesigner: ...``, and exit (2: the run could not be done)."""
    click.echo(f"rackdesigner: {shown(message)}", err=True)
    sys.exit(code)


def os_error_text(error: OSError, path: str | os.PathLike[str] | None = None) -> str:
    """``PATH: reason`` for a failed file operation, naming the path it failed on."""
    name = path if path is not None else error.filename
    reason = error.strerror or str(error)
    return f"{name}: {reason}" if name is not None else reason


class Conventions(click.Group):
    """The top-level group: bare layout paths, Ctrl-C and file-system errors.

    Commands in :attr:`lazy` (name: ``"module:attribute"``) are imported when they are
    run or listed, not on every start: ``whatif`` alone loads networkx (0.4 s), which
    ``rackdesigner edit`` paid before its first frame.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy: dict[str, str] = {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None and cmd_name in self.lazy:
            import importlib

            module, _, attribute = self.lazy[cmd_name].partition(":")
            command = getattr(importlib.import_module(module), attribute)
            self.add_command(command, cmd_name)
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0]
        if ctx.resilient_parsing or name.startswith("-") or self.get_command(ctx, name) is not None:
            return super().resolve_command(ctx, args)
        # Not a command: a layout path. A near miss of a command name that is not a file
        # is a typo (`rackdesigner valdiate x.toml`), not a new layout to create.
        near = difflib.get_close_matches(name, self.list_commands(ctx), n=1, cutoff=0.75)
        if near and not _looks_like_path(name):
            raise click.exceptions.NoSuchCommand(name, possibilities=near, ctx=ctx)
        edit = self.get_command(ctx, "edit")
        if edit is None:
            if _exists(Path(name)):
                fail(
                    f"the designer is not available yet, so {name} cannot be opened in it "
                    f"(`rackdesigner validate {name}` checks it)"
                )
            fail(f"the designer is not available yet, so it cannot create {name}")
        return "edit", edit, list(args)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as error:
            # click would print "Aborted!" and exit 1, the code that means "findings".
            raise click.exceptions.Exit(interrupted(error)) from None
        except BrokenPipeError:
            # The reader went away (`validate ... | head`): nothing left to say to it.
            raise click.exceptions.Exit(141) from None
        except OSError as error:
            # A file-system error no command expected: still one line with the path.
            fail(os_error_text(error) + notes(error))


def interrupted(error: KeyboardInterrupt) -> int:
    """Say, in one line, that Ctrl-C (130) or SIGTERM (143) stopped the run, with what was
    undone; the exit code."""
    from rackdesigner.layout_io.saving import Terminated

    what = "terminated (SIGTERM)" if isinstance(error, Terminated) else "interrupted"
    click.echo(f"rackdesigner: {what}{notes(error)}", err=True)
    return 143 if isinstance(error, Terminated) else 130


def notes(error: BaseException) -> str:
    """An exception's notes (what a multi-file write undid) as ``; note; note``."""
    return "".join(f"; {shown(note)}" for note in getattr(error, "__notes__", ()))


def _looks_like_path(name: str) -> bool:
    return name.endswith(".toml") or "/" in name or os.sep in name or _exists(Path(name))


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:
        return False


def refuse_overwrite(
    outputs: Sequence[tuple[str, str]],
    inputs: Sequence[tuple[str, str]],
) -> None:
    """Exit 2, before anything is written, when an output is one of the inputs or two
    outputs are one file. Both are (path, what it is) pairs, e.g. ("out.json",
    "--output") and ("cluster.toml", "the input layout"); ``-`` (stdout, stdin) is never
    a file. Linear in the outputs: an export may write one file per rack of thousands."""
    sources = {
        file_identity(source): (source, kind)
        for source, kind in inputs
        if source and source != STDIN
    }
    seen: dict[tuple[object, ...], tuple[str, str]] = {}
    for path, what in outputs:
        if not path or path == STDIN:
            continue
        identity = file_identity(path)
        if identity in sources:
            source, kind = sources[identity]
            fail(f"not writing {path} ({what}): it is {kind} {source}; nothing was written")
        if identity in seen:
            _, other_what = seen[identity]
            fail(f"{other_what} and {what} both name {path}; nothing was written")
        seen[identity] = (path, what)


def output_for(output: str | None, inputs: Sequence[tuple[str, str]] = ()) -> str | None:
    """The ``-o/--output`` of a command that reads ``inputs`` ((path, what it is) pairs):
    None for standard output (none given, or ``-``). An output that is one of the inputs
    is refused, and so is one that surely cannot be written: exit 2 before anything is
    read or written. Every command with ``-o`` goes through here."""
    if not output or output == STDIN:
        return None
    refuse_overwrite([(output, "--output")], inputs)
    check_writable(output)
    return output


def check_writable(
    path: str | os.PathLike[str] | None, parents: bool = False, directory: bool = False
) -> None:
    """Exit 2 now (one line, as the write would) where writing ``path`` surely fails: a
    check of 100,000 GPUs should not run for a minute and then find its folder missing.
    With ``parents``, missing folders would be created, so only a file in their way fails;
    ``directory``: the path is a folder to write files into (``--svg-dir``).
    """
    if not path or str(path) == STDIN:
        return
    target = Path(path)
    try:
        if not directory and streams(target):
            # /dev/stdout, a device, a FIFO: written as it is, nothing created beside it.
            if descriptor_of(target) is None and not os.access(target, os.W_OK):
                fail(f"cannot write {path}: {saving.not_writable(target).strerror}")
            return
        if directory:
            target = target / "x"
        elif target.is_dir():
            fail(f"cannot write {path}: Is a directory")
        folder = target.parent if str(target.parent) else Path(".")
        existing = folder
        if parents:
            while not existing.exists() and existing != existing.parent:
                existing = existing.parent
        if not existing.exists():
            fail(f"cannot write {path}: No such file or directory")
        if not existing.is_dir():
            fail(f"cannot write {path}: Not a directory")
        if not directory and target.exists() and not os.access(target, os.W_OK):
            fail(f"cannot write {path}: {saving.not_writable(target).strerror}")
        if not os.access(existing, os.W_OK | os.X_OK):
            why = saving.not_writable(existing)
            if why.errno == errno.EROFS:  # the mount, not the folder, refuses
                fail(f"cannot write {path}: {why.strerror}: {existing} is mounted read-only")
            fail(
                f"cannot write {path}: Permission denied: the folder {existing} does not "
                "allow new files"
            )
        if existing == folder:
            # The folder's mode does not tell everything (root, read-only mounts, sysfs):
            # create and remove a file there, as the atomic write will.
            try:
                handle, probe = saving.make_temporary(folder, target.name)
            except PermissionError as error:
                fail(
                    f"cannot write {path}: {error.strerror}: the folder {folder} does not "
                    "allow new files"
                )
            os.close(handle)
            os.unlink(probe)
    except OSError as error:
        fail(f"cannot write {path}: {error.strerror or error}")


def write_output(path: str | os.PathLike[str], data: str | bytes, parents: bool = False) -> None:
    """Write an output file atomically, or exit 2 with one line naming it.

    Atomic: an interruption leaves the old file (or none), never half a report. With
    ``parents``, missing folders are created (exports into a new folder); a report's
    ``--output`` goes, like a shell redirect, only where its folder exists.
    """
    from rackdesigner.layout_io.saving import write_atomic

    target = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        if parents:
            make_parents(target)
        write_atomic(target, payload)
    except OSError as error:
        fail(f"cannot write {path}: {error.strerror or error}")


def write_outputs(files: Sequence[tuple[Path | str, bytes]]) -> None:
    """Write several outputs as one (an export's files): all of them, or exit 2 with one
    line naming the file that failed and saying what was undone (see
    :func:`~rackdesigner.layout_io.saving.write_all`). Folders are made as needed. A text
    output written to a terminal (``--cables /dev/stdout`` on one) is escaped as
    :func:`emit` escapes a machine format there."""
    files = [(path, _for_terminal(path, data)) for path, data in files]
    try:
        saving.write_all(files, make_folders=True)
    except OSError as error:
        fail(f"cannot write {error.filename}: {error.strerror or error}{notes(error)}")


def _for_terminal(path: Path | str, data: bytes) -> bytes:
    """``data`` escaped (shown_lines) where ``path`` is a terminal and the data is text;
    as it is otherwise. Only a character device is opened to ask (never a FIFO, which
    would wait for its reader)."""
    import stat

    try:
        if not stat.S_ISCHR(os.stat(path).st_mode):
            return data
        descriptor = os.open(path, os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError:
        return data  # written (or refused) as any output is
    try:
        if not os.isatty(descriptor):
            return data
    finally:
        os.close(descriptor)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return data  # a PDF or a PNG: not text
    return shown_lines(text.replace("\r\n", "\n")).encode("utf-8")


def on_terminal() -> bool:
    """Whether standard output is a terminal (a person reads it, not a program)."""
    return is_terminal(sys.stdout)


def emit(text: str, output: str | None = None, *, exact: bool = False) -> None:
    """Print a command's result, or write it to ``output`` (atomically, see
    :func:`write_output`).

    Text for people (``exact`` false) always has its control, bidi and invisible
    characters shown escaped (:func:`~rackdesigner.model.terminal.shown_lines`). A machine
    format (``exact``: JSON, CSV, TOML, SARIF) keeps the exact text in a file or a pipe,
    and is escaped the same way when standard output is a terminal: a scan's switch named
    with an escape sequence must not drive the screen of whoever looks at the CSV.
    """
    if output:
        write_output(output, text if exact else shown_lines(text))
    elif exact and not on_terminal():
        click.echo(text, nl=False)
    else:
        # CSV's CRLF record ends are line ends on a terminal; a lone CR is still shown.
        click.echo(shown_lines(text.replace("\r\n", "\n")), nl=False)


def make_parents(target: Path) -> None:
    """Create the folders ``target`` goes in. A file where a folder should be is
    NotADirectoryError naming that file (mkdir would say "File exists")."""
    folder = target.parent
    if not str(folder) or folder.is_dir():
        return
    for ancestor in (folder, *folder.parents):
        if ancestor.exists() and not ancestor.is_dir():
            raise NotADirectoryError(
                errno.ENOTDIR, f"{ancestor} is a file, not a folder", str(ancestor)
            )
    folder.mkdir(parents=True, exist_ok=True)


def read_stdin(limit: int) -> bytes:
    """Standard input as bytes, at most ``limit`` of them (one more tells it was longer)."""
    return sys.stdin.buffer.read(limit + 1)


def excluded(file: str, root: str | None, patterns: Iterable[str]) -> bool:
    """Whether ``--exclude`` patterns skip ``file``.

    A pattern is a glob (``*`` also matches ``/``) matched against the file's path
    relative to the folder it was found under (``problems/*`` under ``layouts/``), the path
    as named, and each folder on the way (``problems`` skips everything under it).
    """
    patterns = [p.rstrip("/") for p in patterns if p.strip()]
    if not patterns:
        return False
    named = PurePath(file).as_posix()
    candidates = [named, PurePath(file).name]
    if root is not None:
        relative = PurePath(os.path.relpath(file, root)).as_posix()
        parts = relative.split("/")
        candidates.append(relative)
        candidates.extend("/".join(parts[:n]) for n in range(1, len(parts)))
    return any(fnmatch.fnmatchcase(c, p) for c in candidates for p in patterns)
