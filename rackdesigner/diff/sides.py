"""The two sides of a diff: the old layout checked in full (in a child process beside the
new one's where that pays), the new one incrementally from it.

:func:`check_pair` is what ``rackdesigner diff`` runs. The old layout is checked in full,
its findings kept per scope (:func:`~rackdesigner.whatif.incremental.grouped_check`); the
new layout's rules run only where the layouts differ
(:class:`~rackdesigner.whatif.incremental.Incremental`), the old side's findings standing
elsewhere; each side is priced by its devices alone (the bill's only priced items).
:class:`OldSide` forks once the old layout is loaded; the
child checks it and sends back what :func:`~rackdesigner.diff.compare.diff` reads of it (a
:class:`~rackdesigner.diff.compare.Side` without its layout, and the grouped findings),
while the parent loads the new layout, derives its facts and runs the rules that
changed. The fabric figures, needed only where cables changed, are asked of the child
afterwards. The result is the same as checking both in one process: the child runs the
same code on the same layout, and the tests hold the two ways to each other.

Forking is for large layouts (``PARALLEL_FROM`` entities and more), on systems that have
``fork``, from a process without threads, when the one-minute load average leaves a core
idle; otherwise, and whenever the child fails, the old side is checked in this process.
The child is killed by its PID and reaped however the parent's block ends.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import struct
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rackdesigner.diff.compare import Side
from rackdesigner.whatif.incremental import Grouped, Incremental, grouped_check

if TYPE_CHECKING:
    from rackdesigner.model.diagnostics import Diagnostic
    from rackdesigner.model.layout import Layout

__all__ = ["PARALLEL_FROM", "OldSide", "check_pair"]

# Devices plus links from which a second process pays for its fork (about 10 ms and the
# pages it copies); the bundled layouts stay in one process.
PARALLEL_FROM = 20_000

_HEADER = struct.Struct("!Q")


def _core_free() -> bool:
    """Whether a core is idle for the child: on a machine whose cores are all busy the
    child gains no time and costs its fork (the pages both processes then copy: about
    0.3 s of system time on 100,000 GPUs)."""
    try:
        load = os.getloadavg()[0]
    except OSError:  # not known here: fork, as before
        return True
    return load < (os.cpu_count() or 1) - 0.5


def _side(layout: Layout, file: str) -> tuple[Side, Grouped]:
    from rackdesigner.analysis import Analysis

    analysis = Analysis(layout, file=file)
    return Side.of(analysis), grouped_check(analysis, file)


def _send(fd: int, value: Any) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


def _receive(fd: int) -> Any:
    def exactly(size: int) -> bytes:
        parts, left = [], size
        while left:
            part = os.read(fd, min(left, 1 << 20))
            if not part:
                raise EOFError("the diff's child process ended early")
            parts.append(part)
            left -= len(part)
        return b"".join(parts)

    (size,) = _HEADER.unpack(exactly(_HEADER.size))
    return pickle.loads(exactly(size))


def _child(layout: Layout, file: str, answers: int, requests: int) -> None:
    """Check ``layout``, send its side (without the layout) and findings, then answer a
    request for the fabric figures; never returns."""
    code = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        try:
            side, findings = _side(layout, file)
            fabric, side.fabric = side.fabric, _no_fabric
            side.layout = None  # type: ignore[assignment]  # the parent has it
            _send(answers, ("ok", side, findings))
        except Exception as error:  # the parent checks the old layout itself
            _send(answers, ("error", f"{type(error).__name__}: {error}", None))
            return
        if os.read(requests, 1) == b"f":
            try:
                _send(answers, ("ok", fabric(), None))
            except Exception as error:
                _send(answers, ("error", f"{type(error).__name__}: {error}", None))
    except BaseException:
        code = 1
    finally:
        os._exit(code)


def _no_fabric() -> dict[str, Any]:
    raise AssertionError("fabric figures are asked of the child")


class OldSide:
    """``with OldSide(layout, file) as old:`` starts checking ``layout`` (in a child when
    it pays); ``old.result()`` gives its :class:`Side` and grouped findings. ``parallel``: None
    decides by size (and forks only from a process without threads), True forks wherever
    ``fork`` exists, False never forks."""

    def __init__(self, layout: Layout, file: str, *, parallel: bool | None = None) -> None:
        self.layout, self.file = layout, file
        if parallel is None:
            size = len(layout.links) + sum(len(rack.devices) for rack in layout.racks)
            parallel = size >= PARALLEL_FROM and threading.active_count() == 1 and _core_free()
        self.parallel = parallel and hasattr(os, "fork")
        self.pid = 0
        self._answers = self._requests = -1

    def __enter__(self) -> OldSide:
        if self.parallel:
            answers_r, answers_w = os.pipe()
            requests_r, requests_w = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(answers_r)
                os.close(requests_w)
                _child(self.layout, self.file, answers_w, requests_r)
            os.close(answers_w)
            os.close(requests_r)
            self.pid, self._answers, self._requests = pid, answers_r, requests_w
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop()

    def _stop(self) -> None:
        for fd in (self._answers, self._requests):
            if fd >= 0:
                os.close(fd)
        self._answers = self._requests = -1
        if self.pid:
            pid, self.pid = self.pid, 0
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)

    def result(self) -> tuple[Side, Grouped]:
        if not self.pid:
            return _side(self.layout, self.file)
        try:
            status, side, findings = _receive(self._answers)
        except (EOFError, OSError, pickle.UnpicklingError):
            status = "error"
        if status != "ok":
            self._stop()
            return _side(self.layout, self.file)
        side.layout = self.layout
        side.fabric = self._fabric
        return side, findings

    def _fabric(self) -> dict[str, Any]:
        if self.pid:
            try:
                os.write(self._requests, b"f")
                status, numbers, _ = _receive(self._answers)
            except (EOFError, OSError, pickle.UnpicklingError):
                status = "error"
            if status == "ok":
                return numbers
            self._stop()
        from rackdesigner.analysis import Analysis
        from rackdesigner.diff.compare import _fabric_numbers

        return _fabric_numbers(Analysis(self.layout, file=self.file))


def check_pair(
    old: Layout,
    new: Layout | Callable[[], Layout],
    old_file: str,
    new_file: str,
    *,
    parallel: bool | None = None,
) -> tuple[Side, Side, list[Diagnostic], list[Diagnostic]]:
    """Both sides of a diff and their findings: the old layout checked in full, the new
    one incrementally from it; the findings are a full check's of each. ``new`` may be a
    function that loads it: it then loads while the old side is checked in a child."""
    from rackdesigner.analysis import Analysis

    with OldSide(old, old_file, parallel=parallel) as pending:
        if callable(new):
            new = new()
        plan = Incremental(old, new)
        analysis = Analysis(new, file=new_file)
        partial = plan.check(analysis, new_file)
        before, grouped = pending.result()
        after = Side.of(analysis, lengths=plan.lengths(before.lengths, analysis))
        old_findings = grouped.findings(old)
        new_findings = partial.complete(grouped, new)
    return before, after, old_findings, new_findings
