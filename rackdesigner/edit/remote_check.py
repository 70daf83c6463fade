"""The whole-layout part of a check in a process of its own.

The fabric rules build a networkx graph of every compute cable and walk it (bisection, single
points of failure): about five seconds of pure Python on 100,000 GPUs. In a thread of the
designer they hold the interpreter in turns with the app's thread, and a key pressed then
waited up to 0.3–1.6 s. Here they run in a child process, which shares nothing with the
app's interpreter: the app's thread only writes the layout out as text (half a second on
100,000 GPUs, in a worker thread, pure Python that gives the interpreter up in turns) and
waits on a pipe.

- **Start.** Children come from multiprocessing's *forkserver*: a fresh interpreter,
  started once (by ``fork`` and ``exec`` at once, which is safe with Textual's threads
  running, where a plain ``fork`` of the app is not), that has imported the loader, the
  analysis, the rules and networkx, and forks a child per job in a few milliseconds.
- **What goes over.** The layout's TOML text (the file as read for the first job, which
  starts with the app's first check; the layout written out after an edit) and the file's
  name; what comes back is small, plain data, in two parts: the fabric findings as soon
  as the rules are done (their lines are looked up again by the app's own source map),
  then whatever ``also`` makes of the child's analysis (the designer's summary and
  topology outline, which read the same graph: seconds more on 100,000 GPUs, which the
  findings do not wait for). See :meth:`CheckProcess.call`'s ``on_part``.
- **One job at a time.** A new job supersedes the running one: its child is killed and its
  caller gets None, as does a result that comes back for a job no longer current (a
  generation number tells). :meth:`CheckProcess.close` kills the child (the designer
  calls it as it quits); a child also dies with the forkserver, which ends when the app's
  process does (``PR_SET_PDEATHSIG``).
- **Failure.** A rule that raises comes back as the job's error, as in a thread (``"NET003:
  ZeroDivisionError: …"``); a child that dies (killed, out of memory) comes back as
  :class:`ChildFailed`, "the check process ended unexpectedly (…)"; a forkserver or a
  process that cannot start, or a job or answer that does not pickle, as "cannot start
  the check process: …" and the like: never raised into the app's worker. None of these
  processes writes on the terminal (``QUIET_PREFIX``).

No Textual here: the designer's side (which layouts go to the process, the views' data)
is in ``tui/controllers/checking.py``.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any

from rackdesigner.edit.checker import ChildFailed, FabricJob
from rackdesigner.model.diagnostics import Diagnostic

# What the forkserver imports once, so that each child starts with them loaded. With
# "__main__" the program's main module is imported there once too, rather than by every
# child as multiprocessing otherwise does (the ``rackdesigner`` script: the command line).
PRELOAD = (
    "__main__",
    "rackdesigner.layout_io.document",
    "rackdesigner.analysis",
    "rackdesigner.analysis.fabric_graph",
    "rackdesigner.check.engine",
    "rackdesigner.rules.registry",
    "networkx",
)


# The child's niceness: a check in the background gives the CPU up to the app's thread
# (on two cores the child and the app otherwise take turns, and a key waits its turn).
CHILD_NICE = 10


@dataclass(slots=True)
class Outcome:
    """What a child sends back for one fabric job: plain data, cheap to pickle."""

    findings: list[Diagnostic] = field(default_factory=list)
    error: str | None = None  # "NET003: ZeroDivisionError: division by zero"
    failed_rule: str | None = None
    also: dict[str, object] = field(default_factory=dict)
    pid: int = 0  # the child's process id (tests hold the check to running apart)
    peak_mb: float = 0.0  # the child's peak resident memory


def fabric_outcome(
    data: bytes, file: str, also: Callable[[Any], dict[str, object]] | None = None
) -> Generator[Outcome, None, Outcome]:
    """In the child: the fabric rules over the layout in ``data`` (TOML, UTF-8), and
    ``also`` of the same analysis. Lines are left at 0 (the text may be the app's layout
    written out, not the file: the app looks them up in its own source map).

    The findings go back first (a part, see :meth:`CheckProcess.call`), ``also``'s data
    after them: the views take seconds more on 100,000 GPUs, which the findings do not
    wait for."""
    from rackdesigner.analysis import Analysis
    from rackdesigner.check.engine import rules_for
    from rackdesigner.layout_io.reader import load_text_with_map

    # The layout without the document's source map: the app locates the findings.
    layout, _ = load_text_with_map(data.decode("utf-8"), file=file)
    del data
    analysis = Analysis(layout, file=file)
    rules = [rule for rule in rules_for(layout) if rule.scope == "fabric"]
    job = FabricJob(0, analysis, rules, file).run()  # type: ignore[arg-type]
    outcome = Outcome(job.findings, job.error_text, job.failed_rule, pid=os.getpid())
    outcome.peak_mb = _peak_mb()
    if also is None or job.error is not None:
        return outcome
    yield outcome
    return Outcome(also=also(analysis), pid=os.getpid(), peak_mb=_peak_mb())


def _peak_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# The prefix of the ``-c`` program of each process multiprocessing spawns (the forkserver,
# its resource tracker): their standard error is the null device. The app's own is the
# terminal Textual draws on (Textual writes to ``sys.__stderr__``), and they inherit it:
# a warning of the tracker, or a traceback of the forkserver or of a child before its
# first line, would be written across the screen.
QUIET_PREFIX = "import os; os.dup2(os.open(os.devnull, os.O_WRONLY), 2); "


def _quiet_spawn(spawn: Callable[..., int]) -> Callable[..., int]:
    def spawnv_passfds(path: bytes | str, args: list[str], passfds: Any) -> int:
        args = list(args)
        if "-c" in args[:-1]:
            at = args.index("-c") + 1
            args[at] = QUIET_PREFIX + args[at]
        return spawn(path, args, passfds)

    return spawnv_passfds


def _start_forkserver() -> None:
    """Start the forkserver (once), its standard error and its resource tracker's the null
    device (see ``QUIET_PREFIX``); the app's ``sys.stderr`` is Textual's capture, whose
    ``fileno()`` is -1, which multiprocessing passes on and fails with ("bad value(s) in
    fds_to_keep"), so it is the null device meanwhile too."""
    from multiprocessing import forkserver, util

    saved, spawn = sys.stderr, util.spawnv_passfds
    with open(os.devnull, "w", encoding="utf-8") as quiet:
        sys.stderr = quiet
        util.spawnv_passfds = _quiet_spawn(spawn)
        try:
            forkserver.ensure_running()
        finally:
            util.spawnv_passfds = spawn
            sys.stderr = saved


def _die_with_parent() -> None:
    """Ask Linux to kill this process when its parent (the forkserver) goes; and write
    nothing on the terminal the app draws on (its stderr is the app's)."""
    with open(os.devnull, "wb") as quiet:
        os.dup2(quiet.fileno(), 2)
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: close() and the pipe's end still stop it
        pass


def _child(connection: Connection) -> None:
    """The child's body: one call, its result (or its exception) sent back."""
    _die_with_parent()
    function, args, has_data, nice = connection.recv()
    if nice:
        os.nice(nice)
    if has_data:
        args = (connection.recv_bytes(), *args)
    try:
        value = function(*args)
        if isinstance(value, Generator):
            value = _send_parts(connection, value)
        result: tuple[bool, object] = (True, value)
    except Exception as error:  # sent back as text: the app says it, never a traceback
        result = (False, _said(error))
    try:
        connection.send(result)
    except Exception as error:  # an answer that does not pickle: why, instead
        connection.send((False, f"the check's answer could not be sent: {_said(error)}"))
    connection.close()


# The first item of a message that is a part of the answer, not its end (True or False).
PART = "part"


def _send_parts(connection: Connection, parts: Generator[object, None, object]) -> object:
    """Send what ``parts`` yields as it comes; its return value is the answer."""
    while True:
        try:
            part = next(parts)
        except StopIteration as end:
            return end.value
        connection.send((PART, part))


def _cannot_start(error: BaseException) -> tuple[bool, object]:
    return (False, f"cannot start the check process: {_said(error)}")


def _said(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def _ended(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"the check process ended unexpectedly (killed by {name})"
    return f"the check process ended unexpectedly (exit code {exitcode})"


class CheckProcess:
    """Runs one function at a time in a child process; thread-safe."""

    def __init__(self, method: str = "forkserver", preload: tuple[str, ...] = ()) -> None:
        self.method = method
        self.preload = preload  # more modules for the forkserver, the caller's ``also``
        self._lock = threading.Lock()
        self._generation = 0
        self._child: Any = None  # the multiprocessing Process of the current job
        self._closed = False
        self.started = 0  # children started: the bench and the tests read it

    def warm_up(self) -> None:
        """Start the forkserver now, while this process is small. Starting it forks this
        process (twice: the server and multiprocessing's resource tracker), holding the
        interpreter while the page tables are copied: 0.25 s and more once a 100,000-GPU
        layout is loaded, a few milliseconds before. One that cannot start is said by the
        first job (:meth:`call`), not here (this is the load's worker)."""
        with self._lock, contextlib.suppress(Exception):  # the first job says why
            self._context()

    def _context(self) -> Any:
        context = multiprocessing.get_context(self.method)
        if self.method == "forkserver":
            context.set_forkserver_preload([*PRELOAD, *self.preload])
            _start_forkserver()
        return context

    def call(
        self,
        function: Callable[..., Any],
        *args: Any,
        data: bytes | None = None,
        on_part: Callable[[object], None] | None = None,
    ) -> tuple[bool, object] | None:
        """``function(*args)`` in a new child (``function(data, *args)`` given ``data``),
        waited for on this thread (a worker's): (True, its result), (False, why it failed),
        or None when superseded or closed. A generator function's result is what it
        returns; each value it yields before is given to ``on_part`` as it arrives (here,
        while the job is current).

        ``data`` (the layout's text: 14 MB on 100,000 GPUs) goes over as bytes, not inside
        the pickle: ``send`` would copy it into the pickle and then again at each of the
        pipe's 64 KB writes (``send_bytes`` writes from a memoryview), each copy holding the
        interpreter."""
        with self._lock:
            if self._closed:
                return None
            self._stop_child()
            self._generation += 1
            generation = self._generation
            try:
                context = self._context()
                ours, theirs = context.Pipe()
            except Exception as error:  # no forkserver (or no pipe): said, never raised
                return _cannot_start(error)
            child = context.Process(target=_child, args=(theirs,), daemon=True)
            self._child = child
        try:
            child.start()
        except Exception as error:  # OSError, a pickling error: no process was started
            ours.close()
            return _cannot_start(error)
        finally:
            theirs.close()
        self.started += 1
        try:
            ours.send((function, args, data is not None, CHILD_NICE))
            if data is not None:
                ours.send_bytes(data)
            while True:
                ready = wait([ours, child.sentinel])
                if ours not in ready:
                    child.join(1)
                    result: tuple[Any, object] = (False, _ended(child.exitcode))
                    break
                result = ours.recv()
                if result[0] != PART:
                    break
                if on_part is not None and generation == self._generation:
                    on_part(result[1])
        except (EOFError, OSError):  # killed while sending or before its answer
            child.join(1)
            result = (False, _ended(child.exitcode))
        except Exception as error:  # the job or its answer would not pickle
            child.kill()
            child.join(1)
            result = (False, f"the check process was not given its job: {_said(error)}")
        finally:
            ours.close()
        with self._lock:
            current = generation == self._generation and not self._closed
            if current:
                self._child = None
        child.join(1)
        # Superseded (or closed) meanwhile: killed, its answer is not wanted.
        return result if current else None

    def supersede(self) -> None:
        """The running job is not wanted any more: kill its child now."""
        with self._lock:
            self._generation += 1
            self._stop_child()

    def close(self) -> None:
        """Kill the running child, and refuse any further job."""
        with self._lock:
            self._closed = True
            self._generation += 1
            self._stop_child()

    @property
    def running(self) -> bool:
        child = self._child
        return child is not None and child.is_alive()

    def _stop_child(self) -> None:
        """Kill the current child (SIGKILL: it holds nothing to clean up). Not waited for:
        this may be the app's thread, and the forkserver, which reaps it, may not be
        scheduled at once; the caller that waits on the child's pipe joins it."""
        child, self._child = self._child, None
        if child is not None and child.pid is not None and child.exitcode is None:
            child.kill()


def run_remote(
    process: CheckProcess,
    job: FabricJob,
    also: Callable[[Any], Any] | None,
    findings: Callable[[FabricJob], None] | None = None,
) -> bool:
    """Run ``job`` (made with its layout's text) in ``process``; False when superseded.
    Its findings, error or the child's end are filled in as :meth:`FabricJob.run` would;
    ``findings(job)`` is called (on this thread) as soon as they are, before ``also``'s
    data (``job.views``) comes, which is filled in when this returns."""
    assert job.text is not None
    data = job.text.encode("utf-8")
    job.text = None
    ahead = False

    def part(value: object) -> None:
        nonlocal ahead
        if isinstance(value, Outcome):
            _fill(job, value)
            ahead = True
            if findings is not None:
                findings(job)

    answer = process.call(fabric_outcome, job.file, also, data=data, on_part=part)
    del data  # 14 MB on 100,000 GPUs: not kept while the result waits its turn
    if answer is None:
        return False
    ok, value = answer
    if ok and isinstance(value, Outcome):
        if ahead:  # the findings came first: this is also's data
            job.views = value.also
            job.peak_mb = max(job.peak_mb, value.peak_mb)
        else:
            _fill(job, value)
    elif not ahead:  # the findings came, then the views failed: the app builds them
        job.error = ChildFailed(str(value))
        job.done = True
    return True


def _fill(job: FabricJob, outcome: Outcome) -> None:
    job.findings = outcome.findings
    job.views = outcome.also
    job.pid = outcome.pid
    job.peak_mb = outcome.peak_mb
    if outcome.error is not None:
        job.error = ChildFailed(outcome.error)
        job.failed_rule = outcome.failed_rule
    job.done = True
